"""Board locate stage: reject unusable pictures with the reason, find a flat board's fiducials and
the camera's pose in board millimetres (docs/coordinates.md, "Flat boards").

* Picture checks (too dark, over-exposed, blurred) are :func:`vision.locate.check_image`'s.
* Fiducials: :class:`calibration.markers.FastMarkerDetector` (OpenCV 5's own ``ArucoDetector`` takes
  about 0.4 s per frame here) looking for *every* id of the board's dictionary, so that a marker of
  another game's board is recognised (:func:`calibration.boards.game_of_marker_id`) and the picture
  is rejected with that reason instead of being read as an empty board.
* Pose: planar PnP (``SOLVEPNP_IPPE`` + Levenberg-Marquardt) on the corners of all the board's
  markers seen; a marker whose corners disagree with the others (a misread, a lifted corner) is
  dropped and the pose solved again.  The board carries markers at its corners and along its edges,
  so a hand over some of them leaves enough: any two whole markers give a pose.
* Without a camera calibration the intrinsics are estimated from this one view (focal length with
  the principal point at the image centre; radial ``k1`` too when markers are seen around the
  board): ``intrinsics == "self-estimated"`` in the result.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.boards import BoardSpec, game_of_marker_id
from calibration.camera import CameraCalibration
from calibration.markers import FastMarkerDetector
from engine.errors import BoardsideInputError
from vision.locate import ImageRejectedError, LocateConfig, check_image

__all__ = [
    "BoardLocateConfig",
    "BoardNotVisibleError",
    "BoardPose",
    "WrongBoardError",
    "locate_board",
]

U8 = npt.NDArray[np.uint8]
F64 = npt.NDArray[np.float64]


class BoardNotVisibleError(ImageRejectedError):
    """The board (its printed markers) is not in the picture, or too little of it is visible."""


class WrongBoardError(ImageRejectedError):
    """The picture shows another game's board."""


class BoardCalibrationError(BoardsideInputError):
    """A camera calibration that does not fit the picture."""


@dataclass(frozen=True)
class BoardLocateConfig:
    """Thresholds of the locate stage (one place; no per-scene constants)."""

    picture: LocateConfig = field(default_factory=LocateConfig)
    max_bit_errors: int = 0  # bits a code may differ by: 0, as every id of the dictionary is looked for
    min_other_markers: int = 3  # another game's markers needed to call it that game's board
    min_side_px: float = 10.0  # smallest marker side looked for
    min_markers: int = 2  # one square alone has two mirror-image poses
    marker_outlier_px: float = 3.0  # a marker's RMS above max(this, 4 x median) is dropped
    max_rms_px: float = 4.0  # a pose fitting worse than this is no pose
    self_k1_min_markers: int = 6  # estimate k1 too when this many markers are seen (spread)


@dataclass(frozen=True, eq=False)
class BoardPose:
    """The camera relative to a flat board: ``x_cam = R x_board + t`` (board mm, z up)."""

    spec: BoardSpec
    K: F64
    dist: F64
    rvec: F64
    tvec: F64
    image_size: tuple[int, int]
    markers_seen: tuple[int, ...]
    markers_dropped: tuple[int, ...]
    rms_px: float
    intrinsics: str  # "calibration" | "self-estimated"
    marker_px: dict[int, F64] = field(default_factory=dict, repr=False)  # id -> (4, 2) corners
    other_markers: dict[int, F64] = field(default_factory=dict, repr=False)  # robot tags, stray ids

    @property
    def R(self) -> F64:
        r, _ = cv2.Rodrigues(self.rvec)
        return np.asarray(r, np.float64)

    @property
    def camera_position(self) -> F64:
        """Camera centre in board mm."""
        return np.asarray(-self.R.T @ self.tvec, np.float64)

    @property
    def markers_total(self) -> int:
        return len(self.spec.fiducials)

    def project(self, points_mm: npt.ArrayLike) -> F64:
        """Board points (N, 3) in mm -> pixels (N, 2), lens distortion applied.

        OpenCV's lens model (``k1 k2 p1 p2 [k3 [k4 k5 k6]]``) evaluated with numpy: the same pixels
        as ``cv2.projectPoints``, which also computes the derivatives, several times slower for the
        thousands of points a frame projects; other models and a few points go to OpenCV."""
        p = np.asarray(points_mm, np.float64).reshape(-1, 3)
        if len(p) == 0:
            return np.zeros((0, 2))
        d = np.ravel(np.asarray(self.dist, np.float64))
        if len(d) not in (0, 4, 5, 8) or len(p) < 256:  # (for a few points OpenCV is quicker)
            px, _ = cv2.projectPoints(p.reshape(-1, 1, 3), self.rvec, self.tvec, self.K, self.dist)
            return np.asarray(px, np.float64).reshape(-1, 2)
        k = np.zeros(8)
        k[:len(d)] = d
        xc = p @ self._rot.T + np.ravel(self.tvec)[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            iz = np.where(xc[:, 2] != 0, 1.0 / xc[:, 2], 1.0)
        x, y = xc[:, 0] * iz, xc[:, 1] * iz
        r2 = x * x + y * y
        radial = (1 + r2 * (k[0] + r2 * (k[1] + r2 * k[4]))) / (1 + r2 * (k[5] + r2 * (k[6] + r2 * k[7])))
        xd = x * radial + 2 * k[2] * x * y + k[3] * (r2 + 2 * x * x)
        yd = y * radial + k[2] * (r2 + 2 * y * y) + 2 * k[3] * x * y
        kk = np.asarray(self.K, np.float64)
        return np.column_stack([kk[0, 0] * xd + kk[0, 1] * yd + kk[0, 2], kk[1, 1] * yd + kk[1, 2]])

    @cached_property
    def _rot(self) -> F64:
        return self.R

    def pixel_to_plane(self, px: npt.ArrayLike, z_mm: float) -> F64:
        """Pixels (N, 2) -> board points (N, 3) on the horizontal plane ``z = z_mm``."""
        p = np.asarray(px, np.float64).reshape(-1, 1, 2)
        und = cv2.undistortPoints(p, self.K, self.dist).reshape(-1, 2)
        rays = np.column_stack([und, np.ones(len(und))]) @ self.R  # R^T applied to row vectors
        c = self.camera_position
        s = (z_mm - c[2]) / rays[:, 2]
        return np.asarray(c[None, :] + s[:, None] * rays, np.float64)

    def elevation_deg(self) -> float:
        """Camera elevation above the board plane, seen from the board's centre."""
        _w, _h = self.spec.size_mm
        c = self.camera_position
        cx, cy = self.spec.cols * self.spec.cell_mm / 2, self.spec.rows * self.spec.cell_mm / 2
        return math.degrees(math.atan2(c[2], math.hypot(c[0] - cx, c[1] - cy)))

    def to_json(self) -> dict[str, Any]:
        return {
            "board": self.spec.name,
            "markers_seen": list(self.markers_seen),
            "markers_total": self.markers_total,
            "markers_dropped": list(self.markers_dropped),
            "rms_px": round(self.rms_px, 3),
            "intrinsics": self.intrinsics,
            "camera_position_mm": [round(float(v), 1) for v in self.camera_position],
            "elevation_deg": round(self.elevation_deg(), 1),
            "K": self.K.round(3).tolist(),
            "dist": self.dist.round(5).tolist(),
        }


@lru_cache(maxsize=8)
def _detector(dictionary: str, max_errors: int, min_side: float) -> FastMarkerDetector:
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    n = int(d.bytesList.shape[0])
    return FastMarkerDetector(d, range(n), max_errors=max_errors, min_side_px=min_side)


def _grey(image: U8) -> U8:
    return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8) if image.ndim == 3 else image


def detect_fiducials(grey: U8, spec: BoardSpec, cfg: BoardLocateConfig) -> dict[int, F64]:
    """Every marker of the board's dictionary in the picture: id -> (4, 2) sub-pixel corners."""
    det = _detector(spec.dictionary, cfg.max_bit_errors, cfg.min_side_px)
    corners, ids = det.detect(grey, refine=True, refine_found=True)
    return {int(i): np.asarray(c, np.float64).reshape(4, 2) for c, i in zip(corners, ids, strict=True)}


def _self_intrinsics(obj: list[F64], img: list[F64], size: tuple[int, int], k1: bool) -> tuple[F64, F64]:
    """Focal length (and ``k1``) from one planar view, principal point at the centre."""
    w, h = size
    k0 = np.array([[float(max(w, h)), 0.0, (w - 1) / 2.0], [0.0, float(max(w, h)), (h - 1) / 2.0], [0, 0, 1.0]])
    flags = (cv2.CALIB_USE_INTRINSIC_GUESS | cv2.CALIB_FIX_PRINCIPAL_POINT | cv2.CALIB_FIX_ASPECT_RATIO
             | cv2.CALIB_ZERO_TANGENT_DIST | cv2.CALIB_FIX_K2 | cv2.CALIB_FIX_K3)
    if not k1:
        flags |= cv2.CALIB_FIX_K1
    o = [np.concatenate(obj).astype(np.float32).reshape(-1, 1, 3)]
    i = [np.concatenate(img).astype(np.float32).reshape(-1, 1, 2)]
    crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 60, 1e-9)
    try:
        _rms, k, dist, _r, _t = cv2.calibrateCamera(o, i, size, k0.copy(), np.zeros(5), flags=flags, criteria=crit)
    except cv2.error:
        return k0, np.zeros(5)
    k = np.asarray(k, np.float64)
    dist = np.asarray(dist, np.float64).reshape(-1)[:5]
    if not (0.25 * max(w, h) < k[0, 0] < 6.0 * max(w, h)) or abs(dist[0]) > 1.0:
        if k1:  # an implausible k1: the focal length alone
            return _self_intrinsics(obj, img, size, False)
        return k0, np.zeros(5)
    return np.asarray(k, np.float64), dist


def _solve(obj: F64, img: F64, K: F64, dist: F64) -> tuple[F64, F64]:
    ok, rvec, tvec = cv2.solvePnP(obj, img, K, dist, flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        raise cv2.error("solvePnP failed")
    rvec, tvec = cv2.solvePnPRefineLM(obj, img, K, dist, rvec, tvec)
    r, t = np.asarray(rvec, np.float64).reshape(3), np.asarray(tvec, np.float64).reshape(3)
    if t[2] < 0:  # the board behind the camera: the mirror solution
        raise cv2.error("board behind the camera")
    return r, t


def _marker_rms(obj: F64, img: F64, K: F64, dist: F64, rvec: F64, tvec: F64) -> F64:
    p, _ = cv2.projectPoints(obj, rvec, tvec, K, dist)
    err = np.linalg.norm(np.asarray(p).reshape(-1, 2) - img, axis=1).reshape(-1, 4)
    return np.asarray(np.sqrt((err**2).mean(axis=1)), np.float64)


def _describe_ids(ids: list[int]) -> str:
    return ", ".join(str(i) for i in sorted(ids))


def locate_board(
    image: U8,
    spec: BoardSpec,
    camera: CameraCalibration | None = None,
    *,
    name: str = "image",
    config: BoardLocateConfig | None = None,
    timings: dict[str, float] | None = None,
) -> BoardPose:
    """The board's pose in one picture (BGR).

    Raises :class:`vision.locate.ImageRejectedError` for a dark / over-exposed / blurred picture,
    :class:`WrongBoardError` when the markers seen belong to another game's board,
    :class:`BoardNotVisibleError` when no (or too little) board is in sight."""
    cfg = config or BoardLocateConfig()
    t0 = time.perf_counter()
    grey = _grey(image)
    check_image(image, name, cfg.picture, grey=grey)  # (the grey picture converted once, for both)
    h, w = grey.shape[:2]
    t1 = time.perf_counter()
    found = detect_fiducials(grey, spec, cfg)
    t2 = time.perf_counter()
    own_world = {f.id: f.corners_mm for f in spec.fiducials}
    own = {i: c for i, c in found.items() if i in own_world}
    others: dict[str, list[int]] = {}
    for i in found:
        if i in own_world:
            continue
        g = game_of_marker_id(i)
        if g is not None and g != spec.game:
            others.setdefault(g, []).append(i)
    if others:
        g, ids = max(others.items(), key=lambda kv: len(kv[1]))
        if len(ids) >= cfg.min_other_markers and len(ids) > len(own):
            raise WrongBoardError(
                f"{name!r} shows a {g} board (markers {_describe_ids(ids)}), not the {spec.game} board "
                f"{spec.name!r}"
            )
    if len(own) < cfg.min_markers:
        first, last = min(own_world), max(own_world)
        if not own:
            raise BoardNotVisibleError(
                f"{name!r}: the {spec.game} board is not in the picture (no marker {first}..{last} of "
                f"{spec.dictionary} found)"
            )
        raise BoardNotVisibleError(
            f"{name!r}: too little of the {spec.game} board is visible (marker {_describe_ids(list(own))} "
            f"only; need {cfg.min_markers} of the {len(own_world)} printed markers)"
        )
    ids = sorted(own)
    obj_m = [np.array([[x, y, 0.0] for x, y in own_world[i]], np.float64) for i in ids]
    img_m = [own[i] for i in ids]
    if camera is None:
        K, dist = _self_intrinsics(obj_m, img_m, (w, h), len(ids) >= cfg.self_k1_min_markers)
        source = "self-estimated"
    else:
        cam = camera
        if tuple(cam.image_size) != (w, h):
            try:
                cam = cam.scaled_to((w, h))
            except BoardsideInputError as exc:
                raise BoardCalibrationError(f"{name!r}: {exc}") from None
        K, dist = np.asarray(cam.camera_matrix, np.float64), np.asarray(cam.dist_coeffs, np.float64).reshape(-1)
        source = "calibration"
    keep = list(range(len(ids)))
    dropped: list[int] = []
    try:
        rvec, tvec = _solve(np.concatenate(obj_m), np.concatenate(img_m), K, dist)
        for _ in range(3):
            rms = _marker_rms(np.concatenate([obj_m[k] for k in keep]), np.concatenate([img_m[k] for k in keep]),
                              K, dist, rvec, tvec)
            limit = max(cfg.marker_outlier_px, 4.0 * float(np.median(rms)))
            bad = [keep[j] for j in np.nonzero(rms > limit)[0]]
            if not bad or len(keep) - len(bad) < cfg.min_markers:
                break
            dropped += [ids[k] for k in bad]
            keep = [k for k in keep if k not in bad]
            rvec, tvec = _solve(np.concatenate([obj_m[k] for k in keep]), np.concatenate([img_m[k] for k in keep]),
                                K, dist)
    except cv2.error:
        raise BoardNotVisibleError(f"{name!r}: the board's pose cannot be solved from markers {_describe_ids(ids)}") \
            from None
    rms_all = _marker_rms(np.concatenate([obj_m[k] for k in keep]), np.concatenate([img_m[k] for k in keep]),
                          K, dist, rvec, tvec)
    rms_px = float(np.sqrt(np.mean(rms_all**2)))
    if rms_px > cfg.max_rms_px:
        raise BoardNotVisibleError(
            f"{name!r}: the board's markers do not fit one flat board (reprojection {rms_px:.1f} px): "
            "is the board bent or the calibration for another camera?"
        )
    t3 = time.perf_counter()
    if timings is not None:
        timings["locate.check_s"] = t1 - t0
        timings["locate.markers_s"] = t2 - t1
        timings["locate.pose_s"] = t3 - t2
    return BoardPose(spec, K, dist, rvec, tvec, (w, h), tuple(ids[k] for k in keep), tuple(dropped), rms_px, source,
                     {ids[k]: img_m[k] for k in keep}, {i: c for i, c in found.items() if i not in own_world})
