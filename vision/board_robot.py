"""Where the robot stands, from its printed tag (docs/boards.md, "The robot tag"), for the board
reader: the Quirky state's robot cell and heading, and which cell the robot's body covers.

The reading itself is the robot tracker's (:func:`vision.robot_tag.read_robot`: the tag's corners
met with the plane at the tag's height and a square fitted to them), on the markers the board's
locate stage already found, so no second marker search is made.
"""

from __future__ import annotations

from dataclasses import dataclass

from calibration.boards import ROBOT_TAG_IDS, RobotTag
from engine.motion import Heading
from vision.board_locate import BoardPose
from vision.robot_tag import read_robot, tag_from_board

__all__ = ["TagReading", "robot_from_tag"]


@dataclass(frozen=True)
class TagReading:
    x_mm: float
    y_mm: float
    heading_deg: float  # counter-clockwise from east (E 0, N 90, W 180, S 270)
    cell: tuple[int, int] | None
    heading: Heading
    tag_id: int


def robot_from_tag(pose: BoardPose, tag: RobotTag | None = None) -> TagReading | None:
    """The robot's position, heading and cell from its tag seen in the picture, or None (with
    several tags in view and no ``tag`` given, the lowest id is read)."""
    sighting = tag_from_board(pose, [tag.id] if tag is not None else sorted(ROBOT_TAG_IDS))
    if sighting is None:
        return None
    t = tag if tag is not None else RobotTag(int(sighting.ids[0]))
    r = read_robot(sighting, pose, t)
    return TagReading(r.x_mm, r.y_mm, r.heading_deg, r.cell, r.heading, r.tag_id)
