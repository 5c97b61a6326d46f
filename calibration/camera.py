"""Camera intrinsics: calibration from views of a target, and the calibration file.

:func:`calibrate` takes named images (files, a folder, or live frames), finds the target in each
(:mod:`calibration.targets`), runs ``cv2.calibrateCameraExtended`` (OpenCV 5), drops views whose
reprojection error is an outlier and calibrates again, and returns a :class:`CameraCalibration`.

The calibration file is plain, indented JSON a person can read::

    {"kind": "boardside.camera", "version": 1, "date": "2026-11-21T15:20:00Z",
     "source": "12 images", "board": {"type": "chessboard", "spec": "9x6:25", ...},
     "rms": 0.21, "camera_matrix": [[fx, 0, cx], [0, fy, cy], [0, 0, 1]],
     "dist_coeffs": [k1, k2, p1, p2, k3], "image_size": [w, h],
     "per_view_errors": [...], "views": [...], "dropped_views": [...], "views_without_board": [...]}
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.errors import (
    CalibrationError,
    CalibrationFileError,
    ImageSizeMismatchError,
    NoBoardFoundError,
    TooFewViewsError,
    UnreadableImageError,
)
from calibration.files import read_json_file, write_json_file
from calibration.mat import MatSpec
from calibration.targets import Detection, MatTarget, Target

__all__ = [
    "IMAGE_SUFFIXES",
    "CameraCalibration",
    "DroppedView",
    "calibrate",
    "calibrate_detections",
    "detect_views",
    "expand_image_paths",
    "read_image",
]

F64 = npt.NDArray[np.float64]
U8 = npt.NDArray[np.uint8]

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp", ".pgm", ".ppm")
MIN_VIEWS = 3


@dataclass(frozen=True)
class DroppedView:
    """A view left out of the final calibration: its name, its reprojection error and why."""

    view: str
    error_px: float
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"view": self.view, "error_px": round(self.error_px, 4), "reason": self.reason}


_NUMBER_LIST = re.compile(r"\[\s+((?:-?[\d.eE+-]+,\s+)*-?[\d.eE+-]+)\s+\]")


def dumps_readable(doc: Any) -> str:
    """Indented JSON with lists of plain numbers kept on one line (matrix rows stay rows)."""
    text = json.dumps(doc, indent=2)
    return _NUMBER_LIST.sub(lambda m: "[" + ", ".join(x.strip() for x in m.group(1).split(",")) + "]", text)


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


@dataclass(frozen=True, eq=False)
class CameraCalibration:
    """Intrinsics of one camera at one image size, with how they were obtained."""

    camera_matrix: F64
    dist_coeffs: F64
    image_size: tuple[int, int]
    rms: float
    per_view_errors: tuple[float, ...] = ()
    views: tuple[str, ...] = ()
    dropped_views: tuple[DroppedView, ...] = ()
    views_without_board: tuple[str, ...] = ()
    board: dict[str, Any] = field(default_factory=dict)
    source: str = ""
    date: str = field(default_factory=_now)
    std_intrinsics: tuple[float, ...] = ()
    mat: MatSpec | None = None

    @property
    def fx(self) -> float:
        return float(self.camera_matrix[0, 0])

    @property
    def fy(self) -> float:
        return float(self.camera_matrix[1, 1])

    @property
    def cx(self) -> float:
        return float(self.camera_matrix[0, 2])

    @property
    def cy(self) -> float:
        return float(self.camera_matrix[1, 2])

    def __repr__(self) -> str:
        w, h = self.image_size
        return (
            f"<CameraCalibration {w}x{h} fx={self.fx:.2f} fy={self.fy:.2f} cx={self.cx:.2f} cy={self.cy:.2f} "
            f"rms={self.rms:.3f}px views={len(self.views)} source={self.source!r}>"
        )

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "kind": "boardside.camera",
            "version": 1,
            "date": self.date,
            "source": self.source,
            "board": self.board,
            "rms": round(float(self.rms), 5),
            "camera_matrix": [[round(float(v), 6) for v in row] for row in self.camera_matrix],
            "dist_coeffs": [round(float(v), 8) for v in self.dist_coeffs.reshape(-1)],
            "image_size": [int(self.image_size[0]), int(self.image_size[1])],
            "fx": round(self.fx, 4),
            "fy": round(self.fy, 4),
            "cx": round(self.cx, 4),
            "cy": round(self.cy, 4),
            "per_view_errors": [round(float(e), 5) for e in self.per_view_errors],
            "views": list(self.views),
            "dropped_views": [d.to_json() for d in self.dropped_views],
            "views_without_board": list(self.views_without_board),
        }
        if self.std_intrinsics:
            names = ["fx", "fy", "cx", "cy", "k1", "k2", "p1", "p2", "k3"]
            doc["std_deviations"] = {
                n: round(float(v), 6) for n, v in zip(names, self.std_intrinsics, strict=False)
            }
        if self.mat is not None:
            doc["mat"] = self.mat.to_json()
        return doc

    @classmethod
    def from_json(cls, doc: Any, where: str = "calibration") -> CameraCalibration:
        if not isinstance(doc, dict) or doc.get("kind") != "boardside.camera":
            raise CalibrationFileError(
                f"{where!r} is not a Boardside camera calibration (no kind 'boardside.camera')"
            )
        try:
            k = np.asarray(doc["camera_matrix"], dtype=np.float64)
            d = np.asarray(doc["dist_coeffs"], dtype=np.float64).reshape(-1)
            w, h = (int(v) for v in doc["image_size"])
            rms = float(doc["rms"])
        except (KeyError, TypeError, ValueError) as exc:
            raise CalibrationFileError(
                f"camera calibration {where!r} is missing or has a bad field: {exc}"
            ) from None
        if k.shape != (3, 3) or d.size not in (4, 5, 8, 12, 14) or w <= 0 or h <= 0:
            raise CalibrationFileError(
                f"camera calibration {where!r} has a bad camera_matrix shape {k.shape!r}, "
                f"{d.size} distortion coefficients or image size {[w, h]!r}"
            )
        mat = MatSpec.from_json(doc["mat"]) if isinstance(doc.get("mat"), dict) else None
        dropped = tuple(
            DroppedView(str(x.get("view", "")), float(x.get("error_px", math.nan)), str(x.get("reason", "")))
            for x in doc.get("dropped_views", [])
            if isinstance(x, dict)
        )
        std = doc.get("std_deviations") or {}
        return cls(
            camera_matrix=k,
            dist_coeffs=d,
            image_size=(w, h),
            rms=rms,
            per_view_errors=tuple(float(e) for e in doc.get("per_view_errors", [])),
            views=tuple(str(v) for v in doc.get("views", [])),
            dropped_views=dropped,
            views_without_board=tuple(str(v) for v in doc.get("views_without_board", [])),
            board=dict(doc.get("board") or {}),
            source=str(doc.get("source", "")),
            date=str(doc.get("date", "")),
            std_intrinsics=tuple(float(v) for v in std.values()) if isinstance(std, dict) else (),
            mat=mat,
        )

    def save(self, path: str | os.PathLike[str]) -> None:
        write_json_file(path, self.to_json(), dumps_readable)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> CameraCalibration:
        return cls.from_json(read_json_file(path, "camera calibration"), str(path))

    def scaled_to(self, size: tuple[int, int]) -> CameraCalibration:
        """The same camera at another resolution with the same aspect (e.g. 1280x720 -> 640x360)."""
        w, h = self.image_size
        sx, sy = size[0] / w, size[1] / h
        if abs(sx - sy) > 0.01 * max(sx, sy):
            raise CalibrationFileError(
                f"calibration is for {w}x{h}; cannot reuse it for {size[0]}x{size[1]} "
                "(different aspect ratio)"
            )
        k = self.camera_matrix.copy()
        k[0, 0] *= sx
        k[0, 2] = (k[0, 2] + 0.5) * sx - 0.5
        k[1, 1] *= sy
        k[1, 2] = (k[1, 2] + 0.5) * sy - 0.5
        return CameraCalibration(
            k,
            self.dist_coeffs.copy(),
            size,
            self.rms * sx,
            board=self.board,
            source=f"{self.source} (scaled)",
            date=self.date,
            mat=self.mat,
        )


# ---------------------------------------------------------------------------- images
def expand_image_paths(items: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Files and folders -> image files (folders: their image files, sorted by name)."""
    out: list[Path] = []
    for item in items:
        p = Path(item)
        if p.is_dir():
            found = sorted(q for q in p.iterdir() if q.suffix.lower() in IMAGE_SUFFIXES and q.is_file())
            if not found:
                raise UnreadableImageError(f"no images ({', '.join(IMAGE_SUFFIXES)}) in folder {str(p)!r}")
            out.extend(found)
        elif p.exists():
            out.append(p)
        else:
            raise UnreadableImageError(f"image not found: {str(p)!r}")
    return out


def read_image(path: str | os.PathLike[str], grey: bool = False) -> U8:
    """Read an image file; :class:`UnreadableImageError` (one line) if it is missing or not an image."""
    p = Path(path)
    try:
        data = np.fromfile(p, dtype=np.uint8)
    except FileNotFoundError:
        raise UnreadableImageError(f"image not found: {str(p)!r}") from None
    except IsADirectoryError:
        raise UnreadableImageError(f"{str(p)!r} is a folder, not an image (give the pictures: DIR/*.jpg)") from None
    except (OSError, ValueError) as exc:
        raise UnreadableImageError(f"cannot read image {str(p)!r}: {exc.__class__.__name__}") from None
    img = cv2.imdecode(data, cv2.IMREAD_GRAYSCALE if grey else cv2.IMREAD_COLOR) if data.size else None
    if img is None:
        raise UnreadableImageError(f"cannot decode image {str(p)!r} (not a PNG/JPEG/... image or damaged)")
    return np.asarray(img, dtype=np.uint8)


def _to_grey(img: U8) -> U8:
    if img.ndim == 3:
        return np.asarray(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), dtype=np.uint8)
    return img


ViewSource = Sequence[tuple[str, U8]] | Sequence[str | os.PathLike[str]]


def _iter_views(views: Sequence[Any]) -> Iterator[tuple[str, U8]]:
    for v in views:
        if isinstance(v, tuple):
            name, img = v
            yield str(name), _to_grey(np.asarray(img))
        else:
            yield str(v), read_image(v, grey=True)


def detect_views(
    views: Sequence[Any],
    target: Target,
    progress: Callable[[str, Detection | None], None] | None = None,
    workers: int | None = None,
) -> tuple[tuple[int, int], list[tuple[str, Detection]], list[str]]:
    """Find the target in every view (``(name, image)`` pairs or image paths).

    Returns ``(image_size, [(name, detection)], [names without the board])``.  Raises
    :class:`ImageSizeMismatchError` as soon as a view's size differs from the first one's and
    :class:`UnreadableImageError` for a file that cannot be read.  Detection runs on ``workers``
    threads (OpenCV releases the GIL; default: the machine's cores, at most 4)."""
    size: tuple[int, int] | None = None
    first = ""
    found: list[tuple[str, Detection]] = []
    missing: list[str] = []
    n_workers = workers or min(4, os.cpu_count() or 1)

    def check(name: str, grey: U8) -> U8:
        nonlocal size, first
        s = (int(grey.shape[1]), int(grey.shape[0]))
        if size is None:
            size, first = s, name
        elif s != size:
            raise ImageSizeMismatchError(
                f"images differ in size: {name!r} is {s[0]}x{s[1]} but {first!r} is {size[0]}x{size[1]}"
            )
        return grey

    def handle(name: str, det: Detection | None) -> None:
        if det is None:
            missing.append(name)
        else:
            found.append((name, det))
        if progress is not None:
            progress(name, det)

    if n_workers <= 1:
        for name, grey in _iter_views(views):
            handle(name, target.detect(check(name, grey)))
    else:
        pool = ThreadPoolExecutor(n_workers)
        try:
            pending: list[tuple[str, Any]] = []
            for name, grey in _iter_views(views):
                pending.append((name, pool.submit(target.detect, check(name, grey))))
                while len(pending) > 2 * n_workers:
                    n, fut = pending.pop(0)
                    handle(n, fut.result())
            for n, fut in pending:
                handle(n, fut.result())
        finally:  # on an error or Ctrl-C, do not wait for queued views
            pool.shutdown(wait=True, cancel_futures=True)
    if size is None:
        raise TooFewViewsError("no images given")
    return size, found, missing


def _calibrate_once(
    dets: Sequence[Detection], size: tuple[int, int], flags: int, k0: F64 | None = None
) -> tuple[float, F64, F64, F64, F64]:
    obj = [d.object_points.reshape(-1, 1, 3).astype(np.float32) for d in dets]
    img = [d.image_points.reshape(-1, 1, 2).astype(np.float32) for d in dets]
    k_init = np.eye(3) if k0 is None else k0.copy()
    d_init = np.zeros(5)
    crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-9)
    try:
        rms, k, dist, _r, _t, std_i, _std_e, per_view = cv2.calibrateCameraExtended(
            obj, img, size, k_init, d_init, flags=flags, criteria=crit
        )
    except cv2.error as exc:  # e.g. a view whose points lie on one line: no homography to start from
        raise CalibrationError(
            f"the calibration could not be solved from these {len(dets)} views ({str(exc).strip().splitlines()[-1]}); "
            "use views that each show the target's points spread over an area, not along one line"
        ) from None
    return (
        float(rms),
        np.asarray(k, np.float64),
        np.asarray(dist, np.float64).reshape(-1),
        np.asarray(per_view, np.float64).reshape(-1),
        np.asarray(std_i, np.float64).reshape(-1),
    )


def undistort_normalised(pixels: npt.ArrayLike, camera_matrix: npt.ArrayLike, dist_coeffs: npt.ArrayLike) -> F64:
    """Pixels ``(N, 2)`` -> normalised image coordinates ``(N, 2)`` with the lens distortion removed.

    ``cv2.undistortPoints`` (OpenCV 5) returns ``None`` for no points; this returns an empty ``(0, 2)`` array then,
    so a caller with nothing to trace (e.g. a picture none of whose pixels are used) gets no rays, not a traceback.
    """
    p = np.asarray(pixels, np.float64).reshape(-1, 1, 2)
    if len(p) == 0:
        return np.zeros((0, 2), np.float64)
    und = cv2.undistortPoints(p, np.asarray(camera_matrix, np.float64), np.asarray(dist_coeffs, np.float64))
    return np.asarray(und, np.float64).reshape(-1, 2)


def outlier_threshold(errors: npt.ArrayLike) -> float:
    """Views with a reprojection error above this are outliers: ``max(2 x median,
    median + 4 x 1.4826 x MAD, 0.5 px)`` (robust: one bad view cannot hide the others)."""
    e = np.asarray(errors, dtype=np.float64)
    med = float(np.median(e))
    mad = float(np.median(np.abs(e - med)))
    return max(2.0 * med, med + 4.0 * 1.4826 * mad, 0.5)


def calibrate_detections(
    named: Sequence[tuple[str, Detection]],
    size: tuple[int, int],
    *,
    flags: int | None = None,
    drop_outliers: bool = True,
) -> tuple[float, F64, F64, list[tuple[str, float]], list[DroppedView], F64]:
    """Calibrate from detections; returns ``(rms, K, dist, [(view, error)], dropped, std_intrinsics)``."""
    if len(named) < MIN_VIEWS:
        raise TooFewViewsError(
            f"calibration needs at least {MIN_VIEWS} views with the board found, got {len(named)} "
            "(take 10-25 pictures from different angles and distances)"
        )
    if flags is None:
        flags = 0 if len(named) >= 10 else cv2.CALIB_FIX_K3
    k0: F64 | None = None
    kept = list(named)
    dropped: list[DroppedView] = []
    for _round in range(4):
        rms, k, dist, per_view, std = _calibrate_once([d for _, d in kept], size, flags, k0)
        if not drop_outliers:
            break
        thr = outlier_threshold(per_view)
        bad = [i for i, e in enumerate(per_view) if e > thr]
        if not bad or len(kept) - len(bad) < MIN_VIEWS:
            break
        for i in bad:
            dropped.append(
                DroppedView(
                    kept[i][0],
                    float(per_view[i]),
                    f"reprojection error {per_view[i]:.2f} px above the outlier limit {thr:.2f} px",
                )
            )
        kept = [v for i, v in enumerate(kept) if i not in set(bad)]
    errors = [(name, float(e)) for (name, _), e in zip(kept, per_view, strict=True)]
    return rms, k, dist, errors, dropped, std


def calibrate(
    views: Sequence[Any],
    target: Target,
    *,
    source: str | None = None,
    progress: Callable[[str, Detection | None], None] | None = None,
    drop_outliers: bool = True,
    workers: int | None = None,
) -> CameraCalibration:
    """Calibrate a camera from views of ``target`` (``(name, image)`` pairs or image file paths).

    Raises :class:`NoBoardFoundError` when no view shows the board, :class:`TooFewViewsError` with
    fewer than three usable views, :class:`ImageSizeMismatchError` / :class:`UnreadableImageError`
    for bad files."""
    if len(views) == 0:
        raise TooFewViewsError("no images given")
    size, found, missing = detect_views(views, target, progress, workers)
    if not found:
        names = ", ".join(repr(m) for m in missing[:3]) + (" ..." if len(missing) > 3 else "")
        raise NoBoardFoundError(
            f"the board {target.describe()['spec']!r} was not found in any image ({names})"
        )
    solution = calibrate_detections(found, size, drop_outliers=drop_outliers)
    mat = target.spec if isinstance(target, MatTarget) else None
    return calibration_from_solution(solution, size, tuple(missing), target.describe(),
                                     source or f"{len(views)} images", mat)


def calibration_from_solution(
    solution: tuple[float, F64, F64, list[tuple[str, float]], list[DroppedView], F64],
    size: tuple[int, int],
    missing: tuple[str, ...],
    board: dict[str, Any],
    source: str,
    mat: MatSpec | None,
) -> CameraCalibration:
    """A :class:`CameraCalibration` from what :func:`calibrate_detections` returns (shared by
    ``calibrate`` and ``calibration.pose.self_calibrate``)."""
    rms, k, dist, errors, dropped, std = solution
    return CameraCalibration(
        camera_matrix=k,
        dist_coeffs=dist,
        image_size=size,
        rms=rms,
        per_view_errors=tuple(e for _, e in errors),
        views=tuple(n for n, _ in errors),
        dropped_views=tuple(dropped),
        views_without_board=missing,
        board=board,
        source=source,
        std_intrinsics=tuple(float(v) for v in std[:9]),
        mat=mat,
    )
