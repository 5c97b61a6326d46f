"""The robot's pose from its printed ArUco tag: board millimetres, heading, cell, confidence.

The robot carries a :class:`calibration.boards.RobotTag`: an ArUco marker of the boards' dictionary
with an id from ``ROBOT_TAG_IDS``, ``tag_mm`` wide, lying flat on top of the robot ``height_mm``
above the board, centred over the robot's turning axis, its printed top edge pointing the robot's
heading (docs/robot_tracking.md).

From one image, the board's pose (its printed fiducials, :func:`locate_board`) and the camera's
intrinsics, the tag's four corners are turned into rays and intersected with the horizontal plane
``z = height_mm`` -- the plane the tag really lies in, so the tag is *not* projected onto the board
(which would shift it away from the camera by ``height * tan(view angle)``, several centimetres from
a low camera).  A square of the tag's size is then fitted to the four points (rotation and
translation, least squares): its centre is the robot's position, its top edge the heading.

Headings are degrees counter-clockwise from east (+x): E 0, N 90, W 180, S 270 (as the board
fixtures' truth, docs/boards.md); the nearest of N/E/S/W is the engine's heading
(:class:`engine.motion.Heading`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.boards import ROBOT_TAG_IDS, BoardSpec, RobotTag
from calibration.camera import CameraCalibration, undistort_normalised
from calibration.markers import FastMarkerDetector
from engine.errors import BoardsideInputError
from engine.motion import Heading, Pose
from vision.board_locate import BoardNotVisibleError, BoardPose, WrongBoardError
from vision.board_locate import locate_board as _locate
from vision.locate import ImageRejectedError

__all__ = [
    "BoardNotVisibleError",
    "BoardPose",
    "ImageRejectedError",
    "MarkerSighting",
    "RobotNotFoundError",
    "RobotReading",
    "RobotTracker",
    "WrongBoardError",
    "detect_markers",
    "detect_tag_upsampled",
    "find_tag",
    "locate_board",
    "pixel_to_plane",
    "read_robot",
    "read_robot_in_image",
    "tag_from_board",
]

U8 = npt.NDArray[np.uint8]
F64 = npt.NDArray[np.float64]

_HEADINGS = (Heading.E, Heading.N, Heading.W, Heading.S)  # 0, 90, 180, 270 degrees


class RobotNotFoundError(BoardsideInputError):
    """The robot's tag is not visible (or ambiguous) in the image."""

    exit_code = 1


# ---------------------------------------------------------------------------- markers
@dataclass(frozen=True, eq=False)
class MarkerSighting:
    """Markers found in one image: ids ``(N,)`` and corners ``(N, 4, 2)`` pixels, OpenCV order."""

    ids: npt.NDArray[np.int32]
    corners: F64

    def of(self, marker_id: int) -> F64 | None:
        hit = np.nonzero(self.ids == marker_id)[0]
        return None if len(hit) == 0 else np.asarray(self.corners[int(hit[0])], np.float64)


@lru_cache(maxsize=16)
def _detector(dictionary: str, ids: tuple[int, ...]) -> FastMarkerDetector:
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    return FastMarkerDetector(d, ids, max_errors=1, min_side_px=8.0)


def _grey(image: npt.NDArray[Any]) -> U8:
    if image.ndim == 3:
        return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8)
    return np.asarray(image, np.uint8)


def detect_markers(image: npt.NDArray[Any], dictionary: str, ids: Iterable[int]) -> MarkerSighting:
    """The markers with the given ids in an image (BGR or grey), sub-pixel corners."""
    corners, found = _detector(dictionary, tuple(sorted(set(int(i) for i in ids)))).detect(_grey(image))
    if not corners:
        return MarkerSighting(np.zeros(0, np.int32), np.zeros((0, 4, 2)))
    return MarkerSighting(np.asarray(found, np.int32), np.stack([c.reshape(4, 2) for c in corners]).astype(np.float64))


# ---------------------------------------------------------------------------- board pose
def locate_board(image: npt.NDArray[Any], spec: BoardSpec, camera: CameraCalibration | None,
                 name: str = "frame") -> BoardPose:
    """The board's pose in one picture: the board-reading locate stage
    (:func:`vision.board_locate.locate_board`: picture checks, the printed fiducials, a wrong
    game's board recognised, intrinsics estimated from the board when ``camera`` is None)."""
    return _locate(image, spec, camera, name=name)


def pixel_to_plane(board: BoardPose, pixels: npt.ArrayLike, z_mm: float = 0.0) -> F64:
    """Pixels ``(N, 2)`` -> board mm ``(N, 3)`` where their rays meet the plane ``z = z_mm``."""
    und = undistort_normalised(pixels, board.K, board.dist)
    rays = np.column_stack([und, np.ones(len(und))]) @ board.R  # R^T d for row vectors
    c = board.camera_position
    s = (z_mm - c[2]) / rays[:, 2]
    return np.asarray(c[None, :] + s[:, None] * rays, np.float64)


# ---------------------------------------------------------------------------- the robot
def heading_of(deg: float) -> Heading:
    """The compass heading nearest to ``deg`` (counter-clockwise from east: E 0, N 90)."""
    return _HEADINGS[round((deg % 360.0) / 90.0) % 4]


@dataclass(frozen=True)
class RobotReading:
    """The robot as the camera sees it (board frame, docs/coordinates.md "Flat boards").

    ``cell`` is None when the robot stands off the grid.  ``confidence`` (0..1) falls with the fit
    residual of the tag's square, a tag too small in the image and a poor board pose
    (docs/robot_tracking.md); ``side_mm`` is the tag's measured side (far from ``tag_mm``: the
    configured tag size or height is wrong).
    """

    x_mm: float
    y_mm: float
    heading_deg: float
    cell: tuple[int, int] | None
    heading: Heading
    confidence: float
    tag_id: int
    side_mm: float
    residual_mm: float
    side_px: float
    corners_px: tuple[tuple[float, float], ...]

    @property
    def pose(self) -> Pose | None:
        """The engine's grid pose (None off the grid)."""
        return None if self.cell is None else Pose(self.cell[0], self.cell[1], self.heading)

    def __str__(self) -> str:
        where = f"cell {self.cell[0]},{self.cell[1]}" if self.cell else "off the grid"
        return (f"robot at ({self.x_mm:.1f}, {self.y_mm:.1f}) mm heading {self.heading_deg:.1f} deg "
                f"({where}, {self.heading.name}), confidence {self.confidence:.2f}")

    def to_json(self) -> dict[str, Any]:
        return {
            "x_mm": round(self.x_mm, 2),
            "y_mm": round(self.y_mm, 2),
            "heading_deg": round(self.heading_deg, 2),
            "cell": None if self.cell is None else list(self.cell),
            "heading": self.heading.name,
            "confidence": round(self.confidence, 3),
            "tag_id": self.tag_id,
            "side_mm": round(self.side_mm, 2),
            "residual_mm": round(self.residual_mm, 3),
            "side_px": round(self.side_px, 1),
        }


def fit_square(points_mm: F64, model_mm: F64) -> tuple[float, float, float, float]:
    """Rigid 2D fit of ``model_mm`` (4, 2: robot frame, x = heading, y = left) onto ``points_mm`` (4, 2).

    Returns (x, y, heading in degrees counter-clockwise from east, RMS residual in mm)."""
    pc = points_mm.mean(axis=0)
    mc = model_mm.mean(axis=0)
    p = points_mm - pc
    m = model_mm - mc
    cross = float(np.sum(m[:, 0] * p[:, 1] - m[:, 1] * p[:, 0]))
    dot = float(np.sum(m[:, 0] * p[:, 0] + m[:, 1] * p[:, 1]))
    phi = math.atan2(cross, dot)
    r = np.array([[math.cos(phi), -math.sin(phi)], [math.sin(phi), math.cos(phi)]])
    centre = pc - r @ mc
    resid = points_mm - (model_mm @ r.T + centre)
    rms = float(np.sqrt(np.mean(np.sum(resid**2, axis=1))))
    return float(centre[0]), float(centre[1]), math.degrees(phi) % 360.0, rms


def read_robot(
    markers: MarkerSighting,
    board: BoardPose,
    tag: RobotTag | None = None,
) -> RobotReading:
    """The robot's pose from the tag's corners in ``markers`` and the board's pose.

    ``tag``: the robot's tag (id, size, height); None accepts any id of ``ROBOT_TAG_IDS`` with the
    default size and height (an error when several are in view)."""
    spec = board.spec
    if tag is None:
        ids = [int(i) for i in markers.ids if int(i) in ROBOT_TAG_IDS]
        if len(ids) > 1:
            raise RobotNotFoundError(f"several robot tags in view (ids {ids!r}): say which robot with its tag id")
        tag = RobotTag(ids[0]) if ids else RobotTag()
    corners = markers.of(tag.id)
    if corners is None:
        raise RobotNotFoundError(f"robot tag {tag.id!r} not seen on the {spec.name!r} board")
    pts = pixel_to_plane(board, corners, tag.height_mm)[:, :2]
    model = np.asarray(tag.corners_local_mm(), np.float64)
    x, y, hdg, resid = fit_square(pts, model)
    sides = np.linalg.norm(pts - np.roll(pts, -1, axis=0), axis=1)
    side_mm = float(sides.mean())
    side_px = float(np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1).mean())
    # confidence: the square fit (a bent or misdetected tag), a tag too small to measure, a poor board pose
    # (scales set on the rendered board fixtures, where good readings have residuals up to 3 % of the
    # tag, sides 5 % off and board reprojection errors up to 2 px)
    conf = math.exp(-((resid / (0.08 * tag.tag_mm)) ** 2))
    conf *= min(1.0, side_px / 16.0)
    conf *= math.exp(-((board.rms_px / 4.0) ** 2))
    conf *= math.exp(-(((side_mm / tag.tag_mm - 1.0) / 0.15) ** 2))
    return RobotReading(
        x_mm=x, y_mm=y, heading_deg=hdg, cell=spec.cell_of_mm(x, y), heading=heading_of(hdg),
        confidence=float(conf), tag_id=tag.id, side_mm=side_mm, residual_mm=resid, side_px=side_px,
        corners_px=tuple((float(a), float(b)) for a, b in corners),
    )


def tag_from_board(board: BoardPose, tag_ids: Sequence[int]) -> MarkerSighting | None:
    """The tag's corners as the locate stage already found them (its ``other_markers``), if it did."""
    other = getattr(board, "other_markers", None) or {}
    ids = [int(i) for i in tag_ids if int(i) in other]
    if not ids:
        return None
    return MarkerSighting(np.asarray(ids, np.int32),
                          np.stack([np.asarray(other[i], np.float64).reshape(4, 2) for i in ids]))


def find_tag(image: npt.NDArray[Any], board: BoardPose, tag_ids: Sequence[int], height_mm: float,
             markers: MarkerSighting | None = None, max_pixels: float = 2.5e6) -> MarkerSighting:
    """The robot tag's corners: in the full frame (``markers``, when already detected), else in the
    board's area at the tag's height upsampled 2x (a small or blurred tag far from the camera)."""
    if markers is None:
        markers = detect_markers(image, board.spec.dictionary, tag_ids)
    if any(int(i) in tag_ids for i in markers.ids):
        return markers
    found = detect_tag_upsampled(image, board, tag_ids, height_mm, max_pixels)
    return found if len(found.ids) else markers


def detect_tag_upsampled(image: npt.NDArray[Any], board: BoardPose, tag_ids: Sequence[int], height_mm: float,
                         max_pixels: float = 2.5e6) -> MarkerSighting:
    """Tag markers in the board's area (seen at the tag's height) upsampled up to 2x."""
    none = MarkerSighting(np.zeros(0, np.int32), np.zeros((0, 4, 2)))
    spec = board.spec
    x0, y0, x1, y1 = -spec.margin_mm, -spec.margin_mm, spec.cols * spec.cell_mm + spec.margin_mm, \
        spec.rows * spec.cell_mm + spec.margin_mm
    corners = board.project([(x0, y0, height_mm), (x1, y0, height_mm), (x1, y1, height_mm), (x0, y1, height_mm)])
    h, w = image.shape[:2]
    c0, r0 = np.floor(corners.min(axis=0)).astype(int) - 8
    c1, r1 = np.ceil(corners.max(axis=0)).astype(int) + 8
    c0, r0, c1, r1 = max(0, c0), max(0, r0), min(w, c1), min(h, r1)
    if c1 - c0 < 16 or r1 - r0 < 16:
        return none
    f = min(2.0, math.sqrt(max_pixels / ((c1 - c0) * (r1 - r0))))
    if f < 1.25:
        return none
    crop = _grey(image)[r0:r1, c0:c1]
    up = cv2.resize(crop, None, fx=f, fy=f, interpolation=cv2.INTER_CUBIC)
    found = detect_markers(up, spec.dictionary, tag_ids)
    if len(found.ids) == 0:
        return none
    back = (found.corners + 0.5) / f - 0.5 + np.array([c0, r0], np.float64)
    return MarkerSighting(found.ids, back)


def read_robot_in_image(
    image: npt.NDArray[Any],
    spec: BoardSpec,
    camera: CameraCalibration | None,
    tag: RobotTag | None = None,
    *,
    board: BoardPose | None = None,
    name: str = "frame",
) -> tuple[RobotReading, BoardPose]:
    """Find the board (unless ``board`` is given: a camera known not to have moved) and the robot in one
    picture.  ``camera`` None: intrinsics estimated from the board's markers (less accurate).

    Raises :class:`vision.locate.ImageRejectedError` (a dark, over-exposed or blurred picture; the board
    not in view: ``BoardNotVisibleError``; another game's board: ``WrongBoardError``) or
    :class:`RobotNotFoundError`."""
    if board is None:
        board = locate_board(image, spec, camera, name)
    tag_ids: Sequence[int] = (tag.id,) if tag is not None else ROBOT_TAG_IDS
    markers = tag_from_board(board, tag_ids) or find_tag(image, board, tag_ids, (tag or RobotTag()).height_mm)
    return read_robot(markers, board, tag), board


class RobotTracker:
    """Reads the robot frame after frame from a camera that stays where it is (the closed loop).

    The first frame goes through the full locate stage (:func:`locate_board`: picture checks, wrong
    board, intrinsics estimated once when there is no calibration).  Later frames need one marker
    detection for both the board's markers and the tag: the board's pose is solved again from its
    markers with the intrinsics of the first frame.  When too few of them are seen or they no
    longer fit (``max_rms_px``: the camera or the board moved, a misread), the full locate stage
    runs again -- and reports why the frame is unusable if it is.
    """

    def __init__(self, spec: BoardSpec, camera: CameraCalibration | None, tag: RobotTag | None = None,
                 *, max_rms_px: float = 2.0, min_markers: int = 2) -> None:
        self.spec = spec
        self.camera = camera
        self.tag = tag
        self.max_rms_px = max_rms_px
        self.min_markers = min_markers
        self.board: BoardPose | None = None
        self.relocates = 0
        self._world = {f.id: np.array([[x, y, 0.0] for x, y in f.corners_mm], np.float64) for f in spec.fiducials}
        self._tag_ids: tuple[int, ...] = (tag.id,) if tag is not None else ROBOT_TAG_IDS
        self._height = (tag or RobotTag()).height_mm

    def read(self, image: npt.NDArray[Any], name: str = "frame") -> tuple[RobotReading, BoardPose]:
        h, w = image.shape[:2]
        prev = self.board
        if prev is None or prev.image_size != (w, h):
            return self._full(image, name)
        markers = detect_markers(image, self.spec.dictionary, list(self._world) + list(self._tag_ids))
        ids = [int(i) for i in markers.ids if int(i) in self._world]
        if len(ids) < self.min_markers:
            return self._full(image, name)
        seen = {i: markers.corners[k] for k, i in enumerate(int(v) for v in markers.ids) if i in self._world}
        obj = np.concatenate([self._world[i] for i in ids])
        img = np.concatenate([seen[i] for i in ids])
        ok, rvec, tvec = cv2.solvePnP(obj, img, prev.K, prev.dist, prev.rvec.copy(), prev.tvec.copy(),
                                      useExtrinsicGuess=True, flags=cv2.SOLVEPNP_ITERATIVE)
        if not ok:
            return self._full(image, name)
        proj, _ = cv2.projectPoints(obj, rvec, tvec, prev.K, prev.dist)
        rms = float(np.sqrt(np.mean(np.sum((proj.reshape(-1, 2) - img) ** 2, axis=1))))
        if rms > self.max_rms_px:
            return self._full(image, name)
        board = replace(prev, rvec=np.asarray(rvec, np.float64).reshape(3),
                        tvec=np.asarray(tvec, np.float64).reshape(3), markers_seen=tuple(ids), markers_dropped=(),
                        rms_px=rms, marker_px=seen)
        self.board = board
        markers = find_tag(image, board, self._tag_ids, self._height, markers)
        return read_robot(markers, board, self.tag), board

    def _full(self, image: npt.NDArray[Any], name: str) -> tuple[RobotReading, BoardPose]:
        self.relocates += 1
        board = locate_board(image, self.spec, self.camera, name)
        self.board = board
        if self.camera is None:  # estimated once; later frames keep these intrinsics
            self.camera = CameraCalibration(board.K, board.dist, board.image_size, board.rms_px,
                                            source="estimated from the board")
        markers = tag_from_board(board, self._tag_ids) or find_tag(image, board, self._tag_ids, self._height)
        return read_robot(markers, board, self.tag), board
