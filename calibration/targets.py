"""Calibration targets (chessboard, ChArUco board, the Boardside mat) and their detection in an image.

Each target is a frozen value with ``parse()`` / ``str()`` round trip:

* :class:`ChessboardSpec` -- ``"COLSxROWS[:SQUARE_MM]"``, inner corners (OpenCV's convention),
  e.g. ``9x6:25``;
* :class:`CharucoSpec` -- ``"SXxSY:SQUARE_MM:MARKER_MM[:DICTIONARY[:FIRST_ID]]"`` counting *squares*,
  e.g. ``7x5:40:30:DICT_5X5_100``;
* :class:`MatTarget` -- the Boardside mat (``"mat:A3:22"``, see :mod:`calibration.mat`).

``target.detect(gray)`` returns a :class:`Detection` (matched object / image points) or ``None`` when
the target is not in the image.  Object points are in the target's own millimetres: board mm (``x``
right, ``y`` down the printed board, ``z = 0``) for chessboards and ChArUco boards, world mm of
docs/coordinates.md for the mat.  Only the OpenCV 5 API is used (``cv2.aruco.CharucoDetector``,
``CharucoBoard.matchImagePoints``, ``cv2.findChessboardCornersSB``).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

import cv2
import numpy as np
import numpy.typing as npt

from calibration.errors import MatSpecError, TargetSpecError
from calibration.markers import FastMarkerDetector
from calibration.mat import MatSpec, Painter, _fmt, paint_charuco

__all__ = [
    "CharucoSpec",
    "ChessboardSpec",
    "Detection",
    "MatTarget",
    "Target",
    "TargetImage",
    "parse_target",
]

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class Detection:
    """Target points found in one image: ``image_points`` (N x 2, pixels), ``object_points`` (N x 3, mm)
    and ``ids`` (N,) (corner ids; for chessboards the row-major corner index), plus ``markers`` seen
    (ArUco markers, 0 for a chessboard)."""

    image_points: F32
    object_points: F32
    ids: npt.NDArray[np.int32]
    markers: int = 0

    def __len__(self) -> int:
        return int(self.image_points.shape[0])


@dataclass(frozen=True, eq=False)
class TargetImage:
    """A true-scale picture of a target: ``image`` (BGR) and ``plane_to_pixel`` (3 x 3) mapping the
    target's object-point plane (mm, z = 0) to image pixels (OpenCV convention, pixel centres at integers)."""

    image: npt.NDArray[np.uint8]
    plane_to_pixel: F64
    size_mm: tuple[float, float]


class Target(Protocol):
    """What calibration needs from a target."""

    def detect(self, gray: npt.NDArray[np.uint8]) -> Detection | None: ...

    def describe(self) -> dict[str, Any]: ...

    def render(self, px_per_mm: float) -> TargetImage: ...

    @property
    def min_points(self) -> int: ...


def _num(text: str, what: str, spec: str, error: type[Exception] = TargetSpecError) -> float:
    try:
        v = float(text)
    except ValueError:
        raise error(f"cannot read {what} {text!r} in target {spec!r}") from None
    if not math.isfinite(v) or v <= 0:
        raise error(f"{what} must be positive, got {text!r} in target {spec!r}")
    return v


def _grid(text: str, spec: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
    if not m:
        raise TargetSpecError(f"expected COLSxROWS such as '9x6', got {text!r} in target {spec!r}")
    return int(m.group(1)), int(m.group(2))


def _board_render(
    pt: Painter, size_mm: tuple[float, float], origin: tuple[float, float], ppm: float
) -> TargetImage:
    w, h = size_mm
    width, height = max(8, round(w * ppm)), max(8, round(h * ppm))
    img = pt.render(width, height)
    kx, ky = width / w, height / h
    m = np.array([[kx, 0, origin[0] * kx - 0.5], [0, ky, origin[1] * ky - 0.5], [0, 0, 1]], dtype=np.float64)
    return TargetImage(img, m, size_mm)


@dataclass(frozen=True)
class ChessboardSpec:
    """A plain chessboard: ``cols x rows`` *inner* corners, ``square_mm`` square side."""

    cols: int
    rows: int
    square_mm: float = 25.0

    def __post_init__(self) -> None:
        if self.cols < 3 or self.rows < 3:
            raise TargetSpecError(
                f"a chessboard needs at least 3x3 inner corners, got {self.cols}x{self.rows}"
            )
        if self.cols == self.rows:
            # OpenCV cannot tell a square board's orientation; calibration still works, poses are ambiguous
            pass

    @classmethod
    def parse(cls, text: str) -> ChessboardSpec:
        parts = str(text).split(":")
        if len(parts) > 2:
            raise TargetSpecError(f"expected COLSxROWS[:SQUARE_MM] such as '9x6:25', got {text!r}")
        cols, rows = _grid(parts[0], text)
        sq = _num(parts[1], "square size", text) if len(parts) == 2 else 25.0
        return cls(cols, rows, sq)

    def __str__(self) -> str:
        return f"{self.cols}x{self.rows}:{_fmt(self.square_mm)}"

    def __repr__(self) -> str:
        return f"ChessboardSpec.parse({str(self)!r})"

    @property
    def min_points(self) -> int:
        return self.cols * self.rows

    def describe(self) -> dict[str, Any]:
        return {
            "type": "chessboard",
            "spec": str(self),
            "inner_corners": [self.cols, self.rows],
            "square_mm": self.square_mm,
        }

    @cached_property
    def object_points(self) -> F32:
        """(cols*rows, 3) corners in board mm, row-major (OpenCV's order)."""
        g = np.mgrid[0 : self.cols, 0 : self.rows].T.reshape(-1, 2).astype(np.float32)
        return np.column_stack([g * np.float32(self.square_mm), np.zeros(len(g), np.float32)]).astype(
            np.float32
        )

    def detect(self, gray: npt.NDArray[np.uint8]) -> Detection | None:
        """Find the full board.  A cascade that is fast on views without a full board (the slow case
        of ``cv2.findChessboardCorners`` with adaptive thresholds) and keeps full accuracy:

        1. the image is area-downscaled to at most 800 px wide and *flattened* (divided by its own
           large-scale blur), which evens out shading the way adaptive thresholds would, at the cost
           of one blur;
        2. ``cv2.findChessboardCorners`` with global thresholds only (``CALIB_CB_NORMALIZE_IMAGE |
           CALIB_CB_FAST_CHECK``): no adaptive-threshold sweep, the slow part on views where the
           board is cut by the image edge or absent;
        3. only when step 1 was downscaled: the same at full resolution (small boards);
        4. ``cv2.cornerSubPix`` on the original full-resolution image from the coarse corners.
        """
        h, w = gray.shape[:2]
        size = (self.cols, self.rows)
        flags = cv2.CALIB_CB_NORMALIZE_IMAGE | cv2.CALIB_CB_FAST_CHECK
        s0 = min(1.0, 800.0 / w)
        small: npt.NDArray[Any] = gray
        if s0 < 1.0:
            small = cv2.resize(gray, (round(w * s0), round(h * s0)), interpolation=cv2.INTER_AREA)
        corners = None
        scale = s0
        found, c = cv2.findChessboardCorners(_flatten(small), size, None, flags)
        if not (found and c is not None) and s0 < 1.0:
            scale = 1.0
            found, c = cv2.findChessboardCorners(_flatten(gray), size, None, flags)
        if found and c is not None:
            corners = c
        if corners is None:
            return None
        pts = np.asarray(corners, dtype=np.float32).reshape(-1, 1, 2)
        if scale != 1.0:
            pts = (pts + 0.5) / np.float32(scale) - 0.5
        # refine window (half-size): half the smallest corner spacing, 3..11 px
        d = np.linalg.norm(np.diff(pts.reshape(self.rows, self.cols, 2), axis=1), axis=2)
        win = int(np.clip(np.min(d) / 2.0, 3, 11))
        crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, 40, 0.001)
        pts = np.asarray(cv2.cornerSubPix(gray, pts, (win, win), (-1, -1), crit), dtype=np.float32)
        return Detection(
            pts.reshape(-1, 2).astype(np.float32),
            self.object_points,
            np.arange(len(pts), dtype=np.int32),
        )

    def render(self, px_per_mm: float) -> TargetImage:
        sq = self.square_mm
        w, h = (self.cols + 3) * sq, (self.rows + 3) * sq  # one square of white margin around
        pt = Painter(w, h)
        for r in range(self.rows + 1):
            for c in range(self.cols + 1):
                if (r + c) % 2 == 0:
                    pt.rect((c + 1) * sq, (r + 1) * sq, (c + 2) * sq, (r + 2) * sq, (0, 0, 0))
        # corner (0, 0) of object_points is the first inner corner: 2 squares from the sheet edge
        return _board_render(pt, (w, h), (2 * sq, 2 * sq), px_per_mm)


def _flatten(gray: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
    """Divide out slow shading: ``gray / blur(gray, sigma = 2 % of the width) * 128``.  The blur is
    computed on an 8x smaller copy and scaled back up (shading is smooth; 20x cheaper)."""
    h, w = gray.shape[:2]
    small = cv2.resize(gray, (max(1, w // 8), max(1, h // 8)), interpolation=cv2.INTER_AREA).astype(
        np.float32
    )
    blurred = cv2.GaussianBlur(small, (0, 0), max(0.5, 0.02 * w / 8))
    b = cv2.resize(blurred, (w, h), interpolation=cv2.INTER_LINEAR)
    return np.asarray(cv2.divide(gray, b + 1.0, scale=128.0, dtype=cv2.CV_8U), np.uint8)


def _dictionary(name: str, spec: str) -> int:
    v = getattr(cv2.aruco, name, None) if name.startswith("DICT_") else None
    if not isinstance(v, int):
        raise TargetSpecError(f"unknown ArUco dictionary {name!r} in target {spec!r} (e.g. 'DICT_5X5_100')")
    return v


@dataclass(frozen=True)
class CharucoSpec:
    """A ChArUco board: ``squares_x x squares_y`` squares, square and marker sides in mm, an OpenCV
    predefined dictionary and the first marker id (OpenCV >= 4.6 layout unless ``legacy``)."""

    squares_x: int
    squares_y: int
    square_mm: float
    marker_mm: float
    dictionary: str = "DICT_5X5_100"
    first_id: int = 0
    legacy: bool = field(default=False)

    def __post_init__(self) -> None:
        if self.squares_x < 3 or self.squares_y < 3:
            raise TargetSpecError(
                f"a ChArUco board needs at least 3x3 squares, got {self.squares_x}x{self.squares_y}"
            )
        if self.marker_mm >= self.square_mm:
            raise TargetSpecError(
                f"marker ({self.marker_mm:g} mm) must be smaller than the square ({self.square_mm:g} mm)"
            )
        d = cv2.aruco.getPredefinedDictionary(_dictionary(self.dictionary, str(self)))
        need = self.first_id + (self.squares_x * self.squares_y) // 2
        if need > d.bytesList.shape[0]:
            raise TargetSpecError(
                f"dictionary {self.dictionary!r} has only {d.bytesList.shape[0]} markers, board needs {need}"
            )

    @classmethod
    def parse(cls, text: str) -> CharucoSpec:
        parts = str(text).split(":")
        if not 3 <= len(parts) <= 5:
            raise TargetSpecError(
                "expected SXxSY:SQUARE_MM:MARKER_MM[:DICTIONARY[:FIRST_ID]] such as "
                f"'7x5:40:30:DICT_5X5_100', got {text!r}"
            )
        sx, sy = _grid(parts[0], text)
        sq = _num(parts[1], "square size", text)
        mk = _num(parts[2], "marker size", text)
        dictionary = parts[3] if len(parts) >= 4 else "DICT_5X5_100"
        _dictionary(dictionary, text)
        first = 0
        if len(parts) == 5:
            if not parts[4].isdigit():
                raise TargetSpecError(f"cannot read first marker id {parts[4]!r} in target {text!r}")
            first = int(parts[4])
        return cls(sx, sy, sq, mk, dictionary, first)

    def __str__(self) -> str:
        sizes = f"{_fmt(self.square_mm)}:{_fmt(self.marker_mm)}"
        base = f"{self.squares_x}x{self.squares_y}:{sizes}:{self.dictionary}"
        return base + (f":{self.first_id}" if self.first_id else "")

    def __repr__(self) -> str:
        return f"CharucoSpec.parse({str(self)!r})"

    @property
    def min_points(self) -> int:
        return 6

    def describe(self) -> dict[str, Any]:
        return {
            "type": "charuco",
            "spec": str(self),
            "squares": [self.squares_x, self.squares_y],
            "square_mm": self.square_mm,
            "marker_mm": self.marker_mm,
            "dictionary": self.dictionary,
            "first_id": self.first_id,
            "legacy_pattern": self.legacy,
        }

    def board(self) -> cv2.aruco.CharucoBoard:
        d = cv2.aruco.getPredefinedDictionary(_dictionary(self.dictionary, str(self)))
        ids = np.arange(self.first_id, self.first_id + (self.squares_x * self.squares_y) // 2, dtype=np.int32)
        b = cv2.aruco.CharucoBoard((self.squares_x, self.squares_y), self.square_mm, self.marker_mm, d, ids)
        b.setLegacyPattern(self.legacy)
        return b

    @cached_property
    def _detector(self) -> cv2.aruco.CharucoDetector:
        return _make_charuco_detector(self.board())

    @cached_property
    def _markers(self) -> FastMarkerDetector:
        b = self.board()
        return FastMarkerDetector(b.getDictionary(), np.asarray(b.getIds()).reshape(-1).tolist())

    def detect(self, gray: npt.NDArray[np.uint8]) -> Detection | None:
        return _detect_charuco(self._detector, self.board(), gray, None, self.min_points, self._markers)

    def render(self, px_per_mm: float) -> TargetImage:
        sq = self.square_mm
        w, h = (self.squares_x + 1) * sq, (self.squares_y + 1) * sq
        pt = Painter(w, h)
        paint_charuco(pt, self.board(), (sq / 2, sq / 2))
        return _board_render(pt, (w, h), (sq / 2, sq / 2), px_per_mm)


def _make_charuco_detector(board: cv2.aruco.CharucoBoard) -> cv2.aruco.CharucoDetector:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE  # ChArUco corners are refined themselves
    cparams = cv2.aruco.CharucoParameters()
    cparams.minMarkers = 2  # a corner needs both neighbouring markers (robust against false corners)
    return cv2.aruco.CharucoDetector(board, cparams, params)


def _detect_charuco(
    detector: cv2.aruco.CharucoDetector,
    board: cv2.aruco.CharucoBoard,
    gray: npt.NDArray[np.uint8],
    valid_ids: npt.NDArray[np.int32] | None,
    min_points: int,
    markers: FastMarkerDetector | None = None,
) -> Detection | None:
    """ChArUco corners (``board.matchImagePoints``).  With ``markers``, the ArUco markers are found by
    :class:`calibration.markers.FastMarkerDetector` and handed to ``detectBoard`` (OpenCV 5.0's own
    marker detection takes ~0.4 s per image here); ``detectBoard`` interpolates and refines the corners."""
    if markers is not None:
        mc, mids = markers.detect(gray, refine_found=False)
        if len(mids) == 0:
            return None
        corners, ids, _mc, marker_ids = detector.detectBoard(
            gray, markerCorners=tuple(mc), markerIds=mids.reshape(-1, 1)
        )
    else:
        corners, ids, _marker_corners, marker_ids = detector.detectBoard(gray)
    if ids is None or corners is None or len(ids) == 0:
        return None
    ids = np.asarray(ids, dtype=np.int32).reshape(-1)
    corners = np.asarray(corners, dtype=np.float32).reshape(-1, 2)
    if valid_ids is not None:
        keep = np.isin(ids, valid_ids)
        ids, corners = ids[keep], corners[keep]
    if len(ids) < min_points:
        return None
    obj, img = board.matchImagePoints(corners.reshape(-1, 1, 2), ids.reshape(-1, 1))  # type: ignore[call-overload]
    n_markers = 0 if marker_ids is None else len(marker_ids)
    return Detection(
        np.asarray(img, dtype=np.float32).reshape(-1, 2),
        np.asarray(obj, dtype=np.float32).reshape(-1, 3),
        ids,
        n_markers,
    )


@dataclass(frozen=True)
class MatTarget:
    """The Boardside mat used as a calibration target; object points in world mm (z = 0)."""

    spec: MatSpec

    @classmethod
    def parse(cls, text: str) -> MatTarget:
        try:
            return cls(MatSpec.parse(text))
        except MatSpecError as exc:
            raise TargetSpecError(str(exc)) from None

    def __str__(self) -> str:
        return str(self.spec)

    @property
    def min_points(self) -> int:
        return 6

    def describe(self) -> dict[str, Any]:
        return {"type": "mat", "spec": str(self.spec), "mat": self.spec.to_json()}

    @cached_property
    def _board(self) -> cv2.aruco.CharucoBoard:
        return self.spec.charuco_board()

    @cached_property
    def _detector(self) -> cv2.aruco.CharucoDetector:
        return _make_charuco_detector(self._board)

    @cached_property
    def _markers(self) -> FastMarkerDetector:
        return FastMarkerDetector(self.spec.aruco_dictionary, self.spec.printed_marker_ids())

    def detect(self, gray: npt.NDArray[np.uint8]) -> Detection | None:
        det = _detect_charuco(
            self._detector, self._board, gray, self.spec.corner_ids(), self.min_points, self._markers
        )
        if det is None:
            return None
        world = self.spec.corner_world(det.ids).astype(np.float32)
        return Detection(det.image_points, world, det.ids, det.markers)

    def render(self, px_per_mm: float) -> TargetImage:
        from calibration.mat import render_mat

        mi = render_mat(self.spec, px_per_mm)
        return TargetImage(mi.image, mi.world_to_pixel_matrix(), self.spec.paper_size_mm)


def parse_target(
    chessboard: str | None = None, charuco: str | None = None
) -> ChessboardSpec | CharucoSpec | MatTarget:
    """The target named by the CLI options ``--chessboard`` / ``--charuco`` (exactly one of them).
    ``--charuco mat[:PAPER[:BLOCK_MM]]`` or ``--charuco mat.json`` selects the Boardside mat."""
    if (chessboard is None) == (charuco is None):
        raise TargetSpecError("give exactly one target: --chessboard COLSxROWS[:SQUARE_MM] or --charuco SPEC")
    if chessboard is not None:
        return ChessboardSpec.parse(chessboard)
    assert charuco is not None
    if charuco.startswith("mat"):
        return MatTarget.parse(charuco if ":" in charuco or " " in charuco else "mat:A3")
    if charuco.endswith(".json"):
        try:
            with open(charuco, encoding="utf-8") as fh:
                doc = json.load(fh)
        except (OSError, ValueError) as exc:
            raise TargetSpecError(f"cannot read mat specification {charuco!r}: {exc}") from None
        if isinstance(doc, dict) and "mat" in doc and isinstance(doc["mat"], dict):
            doc = doc["mat"]
        try:
            return MatTarget(MatSpec.from_json(doc))
        except MatSpecError as exc:
            raise TargetSpecError(str(exc)) from None
    return CharucoSpec.parse(charuco)
