"""Where the robot stands, from its printed tag (docs/boards.md, "The robot tag").

A minimal reader for the board reader's own needs (the Quirky state's robot cell and heading, and
which cell the robot's body covers): the tag's corners are turned into rays and met with the plane
of the tag (``height_mm`` above the board, not the board itself), the centre of the four points is
the robot's position and the tag's printed top edge its heading.  The closed-loop robot tracking
(vision/robot_tag.py, docs/robot_tracking.md) has the full reader with a confidence; this one only
needs the cell.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from calibration.boards import ROBOT_TAG_IDS, RobotTag
from engine.motion import Heading
from vision.board_locate import BoardPose

__all__ = ["TagReading", "robot_from_tag"]

_HEADINGS = {0: Heading.E, 90: Heading.N, 180: Heading.W, 270: Heading.S}


@dataclass(frozen=True)
class TagReading:
    x_mm: float
    y_mm: float
    heading_deg: float  # counter-clockwise from east (E 0, N 90, W 180, S 270)
    cell: tuple[int, int] | None
    heading: Heading
    tag_id: int


def robot_from_tag(pose: BoardPose, tag: RobotTag | None = None) -> TagReading | None:
    """The robot's position, heading and cell from its tag seen in the picture, or None."""
    ids = [i for i in pose.other_markers if i in ROBOT_TAG_IDS]
    if tag is not None:
        ids = [i for i in ids if i == tag.id]
    if not ids:
        return None
    mid = ids[0]
    t = tag if tag is not None else RobotTag(mid)
    corners = pose.pixel_to_plane(pose.other_markers[mid], t.height_mm)[:, :2]
    centre = corners.mean(axis=0)
    up = (corners[0] + corners[1]) / 2 - (corners[2] + corners[3]) / 2  # printed top edge: the heading
    deg = math.degrees(math.atan2(up[1], up[0])) % 360.0
    snap = round(deg / 90.0) % 4 * 90
    x, y = float(centre[0]), float(centre[1])
    return TagReading(x, y, deg, pose.spec.cell_of_mm(x, y), _HEADINGS[snap], mid)
