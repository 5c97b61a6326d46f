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
  so a hand over some of them leaves enough: any two whole markers give a pose.  Markers nearly on one
  line give IPPE two poses; ``cv2.solvePnP`` keeps the one fitting best *unrefined*.  With
  ``pose_refine_both`` (session 19, off) the other is refined too and the better refined fit kept; near
  ties go to the pose under which the markers not read match their printed look, or the picture is
  refused (:class:`PoseTieError`).
* Without a camera calibration the intrinsics are estimated from this one view (focal length with
  the principal point at the image centre; radial ``k1`` too when markers are seen around the
  board): ``intrinsics == "self-estimated"`` in the result.
* Second look (session 7), only when the pose is weak (few of the markers in view read: motion blur
  runs a small marker's cells together, hands and pieces cover some): the board's own ids in a
  sharpened copy (a bit may differ), then every marker still missing *matched by its printed look*
  where the pose puts it (no code read: normalised cross-correlation of the drawn marker, shifted
  to a fraction of a pixel), the pose solved again between rounds.  Every marker added must fit one
  flat board with those read first (a code read with a bit wrong names a marker printed elsewhere).
  One marker read is enough when, under one of its square's two poses, others match their look.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.boards import BoardSpec, game_of_marker_id
from calibration.camera import CameraCalibration, undistort_normalised
from calibration.markers import FastMarkerDetector
from calibration.mat import MatSpec
from calibration.pose import detect_mat
from engine.errors import BoardsideInputError
from vision.locate import ImageRejectedError, LocateConfig, blurred_message, check_image, to_grey

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


POSE_REFINE_BOTH = False  # session 19 switch (docs/boards_vision.md, "Session 19: board pose between two solutions")


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
    # second look (session 7), only when the first finds few of the markers the picture should show
    # (motion blur smears a marker's 2-3 px cells together; a hand or a piece covers some):
    rescue: bool = True
    rescue_found_share: float = 0.75  # look again when fewer than this share of the markers in view were found
    rescue_enough_markers: int = 5  # ... and fewer than this many were read,
    rescue_enough_share: float = 0.4  # or fewer than this share of them
    rescue_sharpen_sigma_px: float = 2.0  # unsharp mask (grey + amount x (grey - blurred)) of the second look
    rescue_sharpen_amount: float = 1.0
    rescue_max_bit_errors: int = 1  # the board's own ids only (not the whole dictionary): one bit may differ
    rescue_guided_window: float = 1.0  # the window around a predicted marker: this many sides on each side
    rescue_guided_max_offset: float = 1.0  # a marker matched at most this many sides (+ the radius) from there
    rescue_match_min_radius_px: float = 6.0
    rescue_match_blur_px: float = 1.0  # the drawn marker blurred so (Gaussian sigma, px)
    rescue_match_min_ncc: float = 0.7  # normalised cross-correlation for a marker matched by its look
    rescue_match_rounds: int = 3  # match, solve the pose again, match those still missing with the better pose
    rescue_one_marker_matches: int = 2  # one marker read: other markers matched needed under one of its poses
    rescue_one_marker_window: float = 3.0  # the window (in sides) until a second marker is matched
    rescue_focal_guesses: tuple[float, ...] = (0.75, 1.0, 1.35)  # focal lengths / the picture's width tried then
    # session 19: planar PnP has two solutions (IPPE); ``cv2.solvePnP`` keeps the one fitting best *before*
    # the Levenberg-Marquardt refinement.  With this on, both are refined and the better refined fit is kept
    # (markers nearly on one line in a blurred picture: the other one can be right -- held18b gridopolis 003)
    pose_refine_both: bool = POSE_REFINE_BOTH
    # ... and when the two refined solutions are distinct poses fitting nearly alike (the worse within this
    # ratio of the better's rms), the fit alone does not decide: the one under which more of the markers not
    # read are matched by their printed look where it puts them wins; on equal evidence the better fit is kept,
    # unless the two are within ``pose_refuse_ratio``: then the picture is refused (the reason says why)
    pose_tie_ratio: float = 2.0
    pose_refuse_ratio: float = 1.25


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
    markers_rescued: tuple[int, ...] = ()  # of markers_seen: found by the second look (session 7)

    @property
    def R(self) -> F64:
        r, _ = cv2.Rodrigues(self.rvec)
        return np.asarray(r, np.float64)

    @property
    def camera_position(self) -> F64:
        """Camera centre in board mm (a copy of the one computed once: a reading asks for it ~100 times)."""
        return self._camera_position.copy()

    @cached_property
    def _camera_position(self) -> F64:
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

    def project_each(self, points_mm: npt.ArrayLike, group: int) -> F64:
        """:meth:`project` of ``points_mm`` (N, 3) taken ``group`` points at a time (N a multiple of ``group``), in
        one call: the very pixels the calls per group give -- OpenCV (for groups of fewer than 256 points, and other
        lens models) projects every point on its own, and the numpy side is elementwise save for the rotation's
        product, done per group."""
        p = np.asarray(points_mm, np.float64).reshape(-1, 3)
        d = np.ravel(np.asarray(self.dist, np.float64))
        if len(p) == 0:
            return np.zeros((0, 2))
        if len(d) not in (0, 4, 5, 8) or group < 256:
            px, _ = cv2.projectPoints(p.reshape(-1, 1, 3), self.rvec, self.tvec, self.K, self.dist)
            return np.asarray(px, np.float64).reshape(-1, 2)
        return np.concatenate([self.project(p[i:i + group]) for i in range(0, len(p), group)])

    @cached_property
    def _rot(self) -> F64:
        return self.R

    def pixel_to_plane(self, px: npt.ArrayLike, z_mm: float) -> F64:
        """Pixels (N, 2) -> board points (N, 3) on the horizontal plane ``z = z_mm``."""
        und = undistort_normalised(px, self.K, self.dist)
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
            "markers_rescued": list(self.markers_rescued),
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


Solution = tuple[float, F64, F64]  # (rms px, rvec, tvec)
Judge = Callable[[list[int], F64, F64, list[Solution]], Solution]  # (ids solved from, K, dist, both solutions)


class PoseTieError(BoardNotVisibleError):
    """Two poses fit the markers read nearly alike and nothing else in the picture tells them apart."""


def _solve(obj: F64, img: F64, K: F64, dist: F64, both: bool = False, judge: Judge | None = None,
           ids: list[int] | None = None, refine_below_px: float = math.inf) -> tuple[F64, F64]:
    """Planar PnP (IPPE) refined by Levenberg-Marquardt.  ``both``: IPPE's other solution is refined too
    and kept when it is a distinct pose fitting the corners better *after* refinement
    (``pose_refine_both``); ``judge`` decides between two distinct solutions fitting nearly alike
    (``pose_tie_ratio``)."""
    if both:
        return _solve_both(obj, img, K, dist, judge, ids or [], refine_below_px)
    return _solve_first(obj, img, K, dist)


def _solve_first(obj: F64, img: F64, K: F64, dist: F64, start: list[F64] | None = None) -> tuple[F64, F64]:
    """IPPE's solution fitting best before refinement (``cv2.solvePnP``), refined.  ``start``: gets
    IPPE's unrefined solution."""
    ok, rvec, tvec = cv2.solvePnP(obj, img, K, dist, flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        raise cv2.error("solvePnP failed")
    if start is not None:
        start += [np.asarray(rvec, np.float64).reshape(3).copy(), np.asarray(tvec, np.float64).reshape(3).copy()]
    rvec, tvec = cv2.solvePnPRefineLM(obj, img, K, dist, rvec, tvec)
    r, t = np.asarray(rvec, np.float64).reshape(3), np.asarray(tvec, np.float64).reshape(3)
    if not (np.all(np.isfinite(r)) and np.all(np.isfinite(t))):  # IPPE's NaN for collinear points (calibration.pose)
        raise cv2.error("solvePnP gave no finite pose")
    if t[2] < 0:  # the board behind the camera: the mirror solution
        raise cv2.error("board behind the camera")
    return r, t


_DISTINCT_DEG = 1.0  # two refined solutions closer than this (rotation) are one pose
# IPPE's other solution is refined only when it fits within this many times the worst fit a pose may have
# (``max_rms_px``) before refinement: the second solution of most pictures is off by tens of pixels
_SECOND_FIT_FACTOR = 2.0


def _rms(obj: F64, img: F64, K: F64, dist: F64, r: F64, t: F64) -> float:
    p, _ = cv2.projectPoints(obj, r, t, K, dist)
    return float(np.sqrt(np.mean(np.sum((np.asarray(p, np.float64).reshape(-1, 2) - img) ** 2, axis=1))))


def _pose_solutions(obj: F64, img: F64, K: F64, dist: F64, refine_below_px: float = math.inf) -> list[Solution]:
    """The pose ``cv2.solvePnP`` gives (refined, as without the switch) and IPPE's other solution, refined,
    when it is a distinct pose: (rms px, rvec, tvec), the better refined fit first (the first pose on a
    tie).  Only finite poses with the board in front of the camera; an IPPE solution fitting worse than
    ``refine_below_px`` before refinement is not refined (cost: most pictures' second solution is off by
    tens of pixels)."""
    out: list[Solution] = []
    start: list[F64] = []
    try:
        r, t = _solve_first(obj, img, K, dist, start)
        out.append((_rms(obj, img, K, dist, r, t), r, t))
    except cv2.error:
        pass
    n, rvecs, tvecs, err = cv2.solvePnPGeneric(obj, img, K, dist, flags=cv2.SOLVEPNP_IPPE)
    errs = np.asarray(err, np.float64).reshape(-1)
    for k in range(int(n)):
        r0, t0 = np.asarray(rvecs[k], np.float64).reshape(3, 1), np.asarray(tvecs[k], np.float64).reshape(3, 1)
        if not (np.all(np.isfinite(r0)) and np.all(np.isfinite(t0))) or not errs[k] <= refine_below_px:
            continue
        if start and np.array_equal(r0.reshape(3), start[0]) and np.array_equal(t0.reshape(3), start[1]):
            continue  # (the solution solvePnP started from: refined above)
        rvec, tvec = cv2.solvePnPRefineLM(obj, img, K, dist, r0, t0)
        r, t = np.asarray(rvec, np.float64).reshape(3), np.asarray(tvec, np.float64).reshape(3)
        if not (np.all(np.isfinite(r)) and np.all(np.isfinite(t))) or t[2] < 0:
            continue
        if any(_rotation_deg(r, s[1]) < _DISTINCT_DEG for s in out):
            continue
        out.append((_rms(obj, img, K, dist, r, t), r, t))
    out.sort(key=lambda s: s[0])  # (stable: the first pose on an exact tie)
    return out[:2]


def _rotation_deg(r1: F64, r2: F64) -> float:
    a, _ = cv2.Rodrigues(np.asarray(r1, np.float64).reshape(3, 1))
    b, _ = cv2.Rodrigues(np.asarray(r2, np.float64).reshape(3, 1))
    return math.degrees(math.acos(float(np.clip((np.trace(np.asarray(a) @ np.asarray(b).T) - 1.0) / 2.0, -1.0, 1.0))))


def _solve_both(obj: F64, img: F64, K: F64, dist: F64, judge: Judge | None, ids: list[int],
                refine_below_px: float = math.inf) -> tuple[F64, F64]:
    sols = _pose_solutions(obj, img, K, dist, refine_below_px)
    if not sols:
        raise cv2.error("solvePnP gave no finite pose with the board in front of the camera")
    if judge is not None and len(sols) == 2:
        pick = judge(ids, K, dist, sols)
        return pick[1], pick[2]
    return sols[0][1], sols[0][2]


def _marker_rms(obj: F64, img: F64, K: F64, dist: F64, rvec: F64, tvec: F64) -> F64:
    p, _ = cv2.projectPoints(obj, rvec, tvec, K, dist)
    err = np.linalg.norm(np.asarray(p).reshape(-1, 2) - img, axis=1).reshape(-1, 4)
    return np.asarray(np.sqrt((err**2).mean(axis=1)), np.float64)


def _describe_ids(ids: list[int]) -> str:
    return ", ".join(str(i) for i in sorted(ids))


@lru_cache(maxsize=16)
def _own_detector(dictionary: str, ids: tuple[int, ...], max_errors: int, min_side: float) -> FastMarkerDetector:
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    return FastMarkerDetector(d, ids, max_errors=max_errors, min_side_px=min_side)


def _sharpen(grey: U8, sigma: float, amount: float) -> U8:
    """Unsharp mask: ``grey + amount * (grey - blurred)``."""
    blurred = cv2.GaussianBlur(grey, (0, 0), sigma)
    return np.asarray(cv2.addWeighted(grey, 1.0 + amount, blurred, -amount, 0), np.uint8)


def _fit_pose(obj: dict[int, F64], img: dict[int, F64], K: F64, dist: F64,
              cfg: BoardLocateConfig, judge: Judge | None = None) -> tuple[list[int], list[int], F64, F64]:
    """Planar PnP over every marker's corners; markers fitting much worse than the others are dropped
    (at most three rounds).  Returns (ids kept, ids dropped, rvec, tvec); ``cv2.error`` when no pose."""
    keep = sorted(img)
    dropped: list[int] = []
    both = cfg.pose_refine_both
    below = _SECOND_FIT_FACTOR * cfg.max_rms_px
    rvec, tvec = _solve(np.concatenate([obj[i] for i in keep]), np.concatenate([img[i] for i in keep]), K, dist, both,
                        judge, keep, below)
    for _ in range(3):
        rms = _marker_rms(np.concatenate([obj[i] for i in keep]), np.concatenate([img[i] for i in keep]),
                          K, dist, rvec, tvec)
        limit = max(cfg.marker_outlier_px, 4.0 * float(np.median(rms)))
        bad = [keep[j] for j in np.nonzero(rms > limit)[0]]
        if not bad or len(keep) - len(bad) < cfg.min_markers:
            break
        dropped += bad
        keep = [i for i in keep if i not in bad]
        rvec, tvec = _solve(np.concatenate([obj[i] for i in keep]), np.concatenate([img[i] for i in keep]), K, dist,
                            both, judge, keep, below)
    return keep, dropped, rvec, tvec


def _consistent(obj: dict[int, F64], trusted: dict[int, F64], new: dict[int, F64], K: F64, dist: F64,
                cfg: BoardLocateConfig, judge: Judge | None = None) -> dict[int, F64]:
    """The markers of ``new`` that fit one flat board with the ``trusted`` ones: each tried alone with
    them (a pose solved over both), kept when every marker then fits within ``max_rms_px``.  A code
    read with a bit wrong names another marker of the board, far from where that one is printed."""
    if len(trusted) < cfg.min_markers:
        return dict(new)
    return {i: q for i, q in new.items() if _flat_pose(obj, {**trusted, i: q}, K, dist, cfg.max_rms_px,
                                                        cfg.pose_refine_both, judge) is not None}


def _flat_pose(obj: dict[int, F64], markers: dict[int, F64], K: F64, dist: F64,
               max_rms_px: float, both: bool = False, judge: Judge | None = None) -> tuple[F64, F64] | None:
    """The pose solved over ``markers`` (id -> corners in the picture) when every one of them then fits
    within ``max_rms_px`` (they lie on one flat board), else None."""
    ids = sorted(markers)
    o, m = np.concatenate([obj[j] for j in ids]), np.concatenate([markers[j] for j in ids])
    try:
        rvec, tvec = _solve(o, m, K, dist, both, judge, ids, _SECOND_FIT_FACTOR * max_rms_px)
    except (cv2.error, PoseTieError):  # (two poses alike: not one flat board that can be trusted)
        return None
    if float(_marker_rms(o, m, K, dist, rvec, tvec).max()) > max_rms_px:
        return None
    return rvec, tvec


def _markers_in_view(obj: dict[int, F64], K: F64, dist: F64, rvec: F64, tvec: F64,
                     size: tuple[int, int], min_side: float) -> dict[int, F64]:
    """The board's markers the pose puts wholly inside the picture (and in front of the camera, at
    least ``min_side`` px a side): id -> (4, 2) predicted corners."""
    ids = sorted(obj)
    pts = np.concatenate([obj[i] for i in ids])
    r, _ = cv2.Rodrigues(rvec)
    z = (pts @ np.asarray(r, np.float64).T)[:, 2] + tvec[2]
    px, _ = cv2.projectPoints(pts.reshape(-1, 1, 3), rvec, tvec, K, dist)
    quads = np.asarray(px, np.float64).reshape(-1, 4, 2)
    w, h = size
    # (every marker's tests at once, session 19: each value computed as per marker before -- the sides' lengths
    # by the same sums of squares, ``np.linalg.norm`` along the last axis)
    d = quads - np.roll(quads, 1, axis=1)
    side = np.sqrt(np.add.reduce(d * d, axis=2)).min(axis=1)
    lo, hi = quads.min(axis=1), quads.max(axis=1)  # (M, 2)
    ok = (z.reshape(-1, 4) > 0).all(axis=1) & (side >= min_side) & (lo[:, 0] >= 2) & (lo[:, 1] >= 2) \
        & (hi[:, 0] <= w - 3) & (hi[:, 1] <= h - 3)
    return {i: quads[j] for j, i in enumerate(ids) if ok[j]}


@lru_cache(maxsize=512)
def _camera_for(camera: CameraCalibration, name: str, size: tuple[int, int]) -> tuple[F64, F64]:
    """The calibration's camera matrix and distortion, scaled to the picture's size."""
    cam = camera
    if tuple(cam.image_size) != size:
        try:
            cam = cam.scaled_to(size)
        except BoardsideInputError as exc:
            raise BoardCalibrationError(f"{name!r}: {exc}") from None
    return np.asarray(cam.camera_matrix, np.float64), np.asarray(cam.dist_coeffs, np.float64).reshape(-1)


def _one_marker(grey: U8, spec: BoardSpec, obj: dict[int, F64], own: dict[int, F64], K: F64, dist: F64,
                size: tuple[int, int], cfg: BoardLocateConfig, judge: Judge | None = None) -> dict[int, F64]:
    """One marker read: both poses of its square tried.  Under each, the other markers are matched by
    their look nearest first (a pose from one small square is rough further away), the pose solved
    again after each one matched; the pose that explains more of them is kept (at least
    ``rescue_one_marker_matches``, all fitting one flat board with the marker read), or none."""
    (i0, c0), = own.items()
    try:
        n, rvecs, tvecs, _err = cv2.solvePnPGeneric(obj[i0], c0, K, dist, flags=cv2.SOLVEPNP_IPPE)
    except cv2.error:
        return {}
    best: dict[int, F64] = {}
    centre = obj[i0].mean(axis=0)
    wide = replace(cfg, rescue_guided_window=cfg.rescue_one_marker_window,
                   rescue_guided_max_offset=cfg.rescue_one_marker_window)
    for k in range(int(n)):
        rvec = np.asarray(rvecs[k], np.float64).reshape(3)
        tvec = np.asarray(tvecs[k], np.float64).reshape(3)
        if tvec[2] <= 0:
            continue
        in_view = _markers_in_view(obj, K, dist, rvec, tvec, size, cfg.min_side_px)
        got: dict[int, F64] = {}
        for i in sorted((i for i in in_view if i != i0), key=lambda j: float(np.linalg.norm(obj[j].mean(0) - centre))):
            m = _matched(grey, spec, obj, [i], K, dist, rvec, tvec, wide if not got else cfg)
            if i not in m:
                continue
            pose = _flat_pose(obj, {**own, **got, i: m[i]}, K, dist, cfg.max_rms_px, cfg.pose_refine_both, judge)
            if pose is None:
                continue
            got[i] = m[i]
            rvec, tvec = pose
        if len(got) >= cfg.rescue_one_marker_matches and len(got) > len(best):
            best = got
    return best


def _marker_template(dictionary: str, marker_id: int, cell_px: int) -> tuple[F64, int]:
    """The printed marker with one cell of white paper around it, ``cell_px`` pixels a cell:
    (image 0..1, marker side in px)."""
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    n = int(d.markerSize) + 2
    m = np.asarray(cv2.aruco.generateImageMarker(d, int(marker_id), n * cell_px, borderBits=1), np.float64) / 255.0
    return np.pad(m, cell_px, constant_values=1.0), n * cell_px


def _matched(grey: U8, spec: BoardSpec, obj: dict[int, F64], ids: list[int], K: F64, dist: F64, rvec: F64,
             tvec: F64, cfg: BoardLocateConfig, scores: dict[int, float] | None = None) -> dict[int, F64]:
    """Markers found by their printed look where the pose puts them: each marker (with a cell of its
    white margin) drawn as the pose would show it, slightly blurred, and matched (normalised
    cross-correlation) in a window around that place; the best shift, to a fraction of a pixel, moves
    the predicted corners.  No code is read, so a blurred marker whose cells run together is still
    found; a marker partly covered matches poorly and is left out (``rescue_match_min_ncc``)."""
    h, w = grey.shape[:2]
    cell_px = 8
    out: dict[int, F64] = {}
    img = grey.astype(np.float32)
    for i in ids:
        tpl, side_px = _marker_template(spec.dictionary, i, cell_px)
        c = obj[i]
        ex, ey = (c[1] - c[0]) / side_px, (c[3] - c[0]) / side_px  # board mm per template px
        o = c[0] - cell_px * (ex + ey)
        tw = float(tpl.shape[0])
        outer = np.array([o, o + tw * ex, o + tw * (ex + ey), o + tw * ey], np.float64)
        pts = np.concatenate([outer, c])
        px, _ = cv2.projectPoints(pts.reshape(-1, 1, 3), rvec, tvec, K, dist)
        px = np.asarray(px, np.float64).reshape(-1, 2)
        quad, corners = px[:4], px[4:]
        side = float(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1).mean())
        r = math.ceil(max(cfg.rescue_match_min_radius_px, cfg.rescue_guided_window * side))
        bx0, by0 = math.floor(float(quad[:, 0].min())), math.floor(float(quad[:, 1].min()))
        bx1, by1 = math.ceil(float(quad[:, 0].max())) + 1, math.ceil(float(quad[:, 1].max())) + 1
        wx0, wy0, wx1, wy1 = max(0, bx0 - r), max(0, by0 - r), min(w, bx1 + r), min(h, by1 + r)
        bw, bh = bx1 - bx0, by1 - by0
        if bw < 6 or bh < 6 or wx1 - wx0 < bw + 2 or wy1 - wy0 < bh + 2:
            continue
        src = np.array([[0, 0], [tw, 0], [tw, tw], [0, tw]], np.float32)
        hm = cv2.getPerspectiveTransform(src, (quad - [bx0, by0]).astype(np.float32))
        warped = cv2.warpPerspective(tpl.astype(np.float32), hm, (bw, bh), flags=cv2.INTER_AREA)
        # only the drawn marker and its margin count (beyond may be the table: a marker near the edge)
        mask = cv2.warpPerspective(np.ones_like(tpl, np.float32), hm, (bw, bh), flags=cv2.INTER_LINEAR)
        mask = (mask > 0.99).astype(np.float32)
        if mask.sum() < 0.3 * bw * bh:
            continue
        warped = cv2.GaussianBlur(warped, (0, 0), cfg.rescue_match_blur_px)
        res = cv2.matchTemplate(img[wy0:wy1, wx0:wx1], warped, cv2.TM_CCOEFF_NORMED, mask=mask)
        res = np.nan_to_num(np.asarray(res, np.float64), nan=-1.0, posinf=-1.0, neginf=-1.0)
        yy, xx = np.unravel_index(int(res.argmax()), res.shape)
        best = float(res[yy, xx])
        if best < cfg.rescue_match_min_ncc:
            continue
        sub = [0.0, 0.0]
        for k, (a, b, cc) in enumerate(
            [(res[yy, xx - 1], best, res[yy, xx + 1]) if 0 < xx < res.shape[1] - 1 else (0.0, 0.0, 0.0),
             (res[yy - 1, xx], best, res[yy + 1, xx]) if 0 < yy < res.shape[0] - 1 else (0.0, 0.0, 0.0)]):
            den = a - 2 * b + cc
            if den < 0:
                sub[k] = float(np.clip(0.5 * (a - cc) / den, -0.5, 0.5))
        dx = (wx0 + xx + sub[0]) - bx0
        dy = (wy0 + yy + sub[1]) - by0
        if math.hypot(dx, dy) > cfg.rescue_guided_max_offset * side + cfg.rescue_match_min_radius_px:
            continue
        out[i] = corners + np.array([dx, dy])
        if scores is not None:
            scores[i] = best
    return out


def _refuse_ctrl_mat(grey: U8, own_found: int, name: str, spec: BoardSpec, cfg: BoardLocateConfig) -> None:
    """Raise :class:`WrongBoardError` when the picture shows the CTRL play mat (its markers, of another
    dictionary than the boards', outnumber the board's own).  Looked for only when the board cannot be
    located, to say what the picture shows instead."""
    mat = MatSpec()
    seen = {int(i) for i in detect_mat(grey, mat).marker_ids.ravel()}
    if len(seen) >= cfg.min_other_markers and len(seen) > own_found:
        raise WrongBoardError(
            f"{name!r} shows the CTRL play mat ({len(seen)} of its {mat.dictionary} markers), not the "
            f"{spec.game} board {spec.name!r}"
        )


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
    grey = to_grey(image)
    quality = check_image(image, name, cfg.picture, grey=grey)  # (the grey picture converted once, for both)
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
    sharp: U8 | None = None
    own_ids = tuple(sorted(own_world))

    def look_again() -> dict[int, F64]:
        """The board's own markers in the sharpened picture (one bit may differ), not found before."""
        nonlocal sharp
        if sharp is None:
            sharp = _sharpen(grey, cfg.rescue_sharpen_sigma_px, cfg.rescue_sharpen_amount)
        det = _own_detector(spec.dictionary, own_ids, cfg.rescue_max_bit_errors, cfg.min_side_px)
        corners, found_ids = det.detect(sharp, refine=True, refine_found=True)
        return {int(i): np.asarray(c, np.float64).reshape(4, 2) for c, i in zip(corners, found_ids, strict=True)
                if int(i) not in own}

    rescued: list[int] = []
    matched: dict[int, F64] = {}  # markers found by their look (no code read), session 7
    if len(own) < cfg.min_markers and cfg.rescue:
        more = look_again()
        own.update(more)
        rescued += sorted(more)
    obj = {i: np.array([[x, y, 0.0] for x, y in own_world[i]], np.float64) for i in own_world}

    def tie_break(ids: list[int], k_now: F64, d_now: F64, sols: list[Solution]) -> Solution:
        """Between IPPE's two refined solutions fitting nearly alike (session 19): the one under which
        more of the board's markers not read, put in view, match their printed look there."""
        (rms0, _r0, _t0), (rms1, _r1, _t1) = sols[:2]
        if rms1 > cfg.pose_tie_ratio * rms0:
            return sols[0]
        seen = []
        for _rms, r, t in sols[:2]:
            todo = [i for i in _markers_in_view(obj, k_now, d_now, r, t, (w, h), cfg.min_side_px) if i not in ids]
            seen.append(len(_matched(grey, spec, obj, todo, k_now, d_now, r, t, cfg)))
        if seen[0] != seen[1]:
            return sols[0] if seen[0] > seen[1] else sols[1]
        if rms1 > cfg.pose_refuse_ratio * rms0:
            return sols[0]
        raise PoseTieError(
            f"{name!r}: the board's pose cannot be told from markers {_describe_ids(ids)}: two poses fit them "
            f"nearly alike ({rms0:.1f} and {rms1:.1f} px) and no other marker is seen to choose between them "
            "(markers nearly on one line, or a blurred picture): hold the camera still or show more of the board")

    judge: Judge | None = tie_break if cfg.pose_refine_both else None
    if len(own) == 1 and cfg.rescue and cfg.min_markers > 1:
        # one marker read: its square has two mirror-image poses; the one under which the most other
        # markers are matched by their look is kept, when at least ``rescue_one_marker_matches`` are
        # (without a calibration, a few focal lengths are tried: the webcams' fields of view)
        guesses = [_camera_for(camera, name, (w, h))] if camera is not None else [
            (np.array([[f * max(w, h), 0.0, (w - 1) / 2.0], [0.0, f * max(w, h), (h - 1) / 2.0], [0.0, 0.0, 1.0]]),
             np.zeros(5)) for f in cfg.rescue_focal_guesses]
        best: dict[int, F64] = {}
        for k_guess, d_guess in guesses:
            got = _one_marker(grey, spec, obj, own, k_guess, d_guess, (w, h), cfg, judge)
            if len(got) > len(best):
                best = got
        matched.update(best)
        own.update(best)
    if len(own) < cfg.min_markers or rescued or matched:
        # too few of the board's markers, or found only by the second look: the CTRL mat's patterns, read
        # with a bit wrong, can pass for a few board markers (two mat views were located as boards)
        _refuse_ctrl_mat(grey, len(own), name, spec, cfg)
    if len(own) < cfg.min_markers:
        first, last = min(own_world), max(own_world)
        if not own:
            # no marker read in a blurred picture: say so (session 7) rather than "not in the picture"
            blurred = blurred_message(name, quality["sharpness"], f"no marker of the {spec.game} board", cfg.picture)
            if blurred is not None:
                raise BoardNotVisibleError(blurred)
            # the board may be in the picture with its markers unreadable (as vision.locate says of the mat)
            raise BoardNotVisibleError(
                f"{name!r}: the {spec.game} board is not in the picture (no marker {first}..{last} of "
                f"{spec.dictionary} found); if the board is in the picture, its markers could not be read: "
                "hold the camera still (motion blur), come closer or light the board evenly"
            )
        blurred = blurred_message(name, quality["sharpness"],
                                  f"only marker {_describe_ids(list(own))} of the {spec.game} board", cfg.picture)
        if blurred is not None:
            raise BoardNotVisibleError(blurred)
        raise BoardNotVisibleError(
            f"{name!r}: too little of the {spec.game} board is visible (marker {_describe_ids(list(own))} "
            f"only; need {cfg.min_markers} of the {len(own_world)} printed markers)"
        )
    if camera is None:
        def intrinsics() -> tuple[F64, F64]:
            ids_now = sorted(own)
            return _self_intrinsics([obj[i] for i in ids_now], [own[i] for i in ids_now], (w, h),
                                    len(ids_now) >= cfg.self_k1_min_markers)
        K, dist = intrinsics()
        source = "self-estimated"
    else:
        K, dist = _camera_for(camera, name, (w, h))
        source = "calibration"
    try:
        keep, dropped, rvec, tvec = _fit_pose(obj, own, K, dist, cfg, judge)
        if cfg.rescue:
            in_view = _markers_in_view(obj, K, dist, rvec, tvec, (w, h), cfg.min_side_px)
            n_read = len(set(keep) & set(in_view))
            if n_read < cfg.rescue_found_share * len(in_view) and (
                    n_read < cfg.rescue_enough_markers or n_read < cfg.rescue_enough_share * len(in_view)):
                trusted = {i: own[i] for i in keep}
                more = _consistent(obj, trusted, look_again(), K, dist, cfg, judge)
                own.update(more)
                rescued += sorted(more)
                if more:
                    if camera is None:
                        K, dist = intrinsics()
                    keep, dropped, rvec, tvec = _fit_pose(obj, own, K, dist, cfg, judge)
                    in_view = _markers_in_view(obj, K, dist, rvec, tvec, (w, h), cfg.min_side_px)
                for _ in range(cfg.rescue_match_rounds):  # each round: the markers not yet found, better pose
                    todo = sorted(i for i in in_view if i not in own)
                    got = _consistent(obj, {i: own[i] for i in keep}, _matched(grey, spec, obj, todo, K, dist, rvec,
                                                                             tvec, cfg), K, dist, cfg, judge)
                    if not got:
                        break
                    matched.update(got)
                    own.update(got)
                    if camera is None:
                        K, dist = intrinsics()
                    keep, dropped, rvec, tvec = _fit_pose(obj, own, K, dist, cfg, judge)
                    in_view = _markers_in_view(obj, K, dist, rvec, tvec, (w, h), cfg.min_side_px)
    except cv2.error:
        raise BoardNotVisibleError(f"{name!r}: the board's pose cannot be solved from markers "
                                   f"{_describe_ids(list(own))}") from None
    rms_all = _marker_rms(np.concatenate([obj[i] for i in keep]), np.concatenate([own[i] for i in keep]),
                          K, dist, rvec, tvec)
    rms_px = float(np.sqrt(np.mean(rms_all**2)))
    if rms_px > cfg.max_rms_px:
        _refuse_ctrl_mat(grey, len(own), name, spec, cfg)  # (the mat's patterns can pass for a few board markers)
        raise BoardNotVisibleError(
            f"{name!r}: the board's markers do not fit one flat board (reprojection {rms_px:.1f} px): "
            "is the board bent or the calibration for another camera?"
        )
    t3 = time.perf_counter()
    if timings is not None:
        timings["locate.check_s"] = t1 - t0
        timings["locate.markers_s"] = t2 - t1
        timings["locate.pose_s"] = t3 - t2
    return BoardPose(spec, K, dist, rvec, tvec, (w, h), tuple(keep), tuple(dropped), rms_px, source,
                     {i: own[i] for i in keep}, {i: c for i, c in found.items() if i not in own_world},
                     tuple(i for i in [*rescued, *sorted(matched)] if i in keep))
