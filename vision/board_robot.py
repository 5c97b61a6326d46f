"""Where the robot stands, from its printed tag (docs/boards.md, "The robot tag"), for the board
reader: the Quirky state's robot cell and heading, and which cell the robot's body covers.

The reading itself is the robot tracker's (:func:`vision.robot_tag.read_robot`: the tag's corners
met with the plane at the tag's height and a square fitted to them), on the markers the board's
locate stage already found, so no second marker search is made.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from calibration.boards import ROBOT_TAG_IDS, RobotTag
from engine.motion import Heading
from vision.board_locate import BoardPose
from vision.robot_tag import read_robot, tag_from_board

__all__ = ["TAG_BORDER_MAX_RATIO", "TagReading", "border_ratio", "robot_from_tag"]


@dataclass(frozen=True)
class TagReading:
    x_mm: float
    y_mm: float
    heading_deg: float  # counter-clockwise from east (E 0, N 90, W 180, S 270)
    cell: tuple[int, int] | None
    heading: Heading
    tag_id: int


#: a robot tag's black border is at most this bright against the white border round it (median
#: grey levels; the rendered tags: 0.10-0.35); a printed token decoded as a tag (a grey dust bunny
#: with its dark dot: 0.69) is brighter (docs/boards_vision.md, "Quirky round 7")
TAG_BORDER_MAX_RATIO = 0.5


def robot_from_tag(pose: BoardPose, tag: RobotTag | None = None,
                   image: npt.NDArray[np.uint8] | None = None) -> TagReading | None:
    """The robot's position, heading and cell from its tag seen in the picture, or None (with
    several tags in view and no ``tag`` given, the lowest id is read).  With the ``image``, a
    sighting whose border is not dark (:func:`border_ratio`) is not the tag."""
    ids = [tag.id] if tag is not None else sorted(ROBOT_TAG_IDS)
    if image is not None:
        other = getattr(pose, "other_markers", None) or {}
        n = int(cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, pose.spec.dictionary)).markerSize) + 2
        ids = [i for i in ids if i not in other or border_ratio(image, np.asarray(other[i], np.float64), n)
               <= TAG_BORDER_MAX_RATIO]
    sighting = tag_from_board(pose, ids)
    if sighting is None:
        return None
    t = tag if tag is not None else RobotTag(int(sighting.ids[0]))
    r = read_robot(sighting, pose, t)
    return TagReading(r.x_mm, r.y_mm, r.heading_deg, r.cell, r.heading, r.tag_id)


def border_ratio(image: npt.NDArray[np.uint8], corners: npt.NDArray[np.float64], modules: int) -> float:
    """Median grey level of a marker's border modules over that of the white quiet zone one module
    outside it (``corners``: the marker's four outer corners in the picture; ``modules``: cells
    across, border included).  A printed ArUco tag: well below 1 (black on white)."""
    n = modules
    src = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
    h = cv2.getPerspectiveTransform(src, np.asarray(corners, np.float32).reshape(4, 2))
    k = np.arange(n) + 0.5
    ring = np.concatenate([np.column_stack([k, np.full(n, 0.5)]), np.column_stack([k, np.full(n, n - 0.5)]),
                           np.column_stack([np.full(n - 2, 0.5), k[1:-1]]),
                           np.column_stack([np.full(n - 2, n - 0.5), k[1:-1]])])
    quiet = np.concatenate([np.column_stack([k, np.full(n, -0.5)]), np.column_stack([k, np.full(n, n + 0.5)]),
                            np.column_stack([np.full(n, -0.5), k]), np.column_stack([np.full(n, n + 0.5), k])])

    def sample(p: npt.NDArray[np.float64]) -> float:
        q = cv2.perspectiveTransform(p.reshape(-1, 1, 2), h.astype(np.float64)).reshape(-1, 2)
        xi = np.clip(np.round(q[:, 0]).astype(np.int64), 0, image.shape[1] - 1)
        yi = np.clip(np.round(q[:, 1]).astype(np.int64), 0, image.shape[0] - 1)
        px = image[yi, xi].astype(np.float64)
        grey = px if px.ndim == 1 else px @ np.array([0.114, 0.587, 0.299])  # BGR -> grey (as OpenCV)
        return float(np.median(grey))

    return sample(ring) / max(sample(quiet), 1.0)
