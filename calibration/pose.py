"""Pose of the mat: where the camera is in battlefield (world) coordinates, from one image.

:func:`estimate_pose` finds the mat's ChArUco corners (and markers), solves the planar
perspective-n-point problem (``cv2.solvePnP`` with ``SOLVEPNP_IPPE``, refined with
``cv2.solvePnPRefineLM``), drops points that disagree, and returns a :class:`MatPose`: the
transform world mm -> camera, a quality figure (reprojection RMS, corners and markers seen, the
share of the ring seen) and helpers to map lattice cells and world points to pixels and back.

It works when part of the mat is hidden (the battlefield, hands): any six printed corners, or two
whole markers, are enough; more corners spread around the ring give a better pose.

Without a camera calibration :func:`self_calibrate` estimates the intrinsics from one or more mat
views (``cv2.calibrateCamera`` on the mat's corners; with few views the principal point is held at
the image centre, pixels square and tangential distortion zero), so a user can score straight away.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.camera import (
    CameraCalibration,
    DroppedView,
    calibrate_detections,
    calibration_from_solution,
    undistort_normalised,
)
from calibration.errors import NoBoardFoundError, PoseError, TooFewViewsError
from calibration.markers import FastMarkerDetector
from calibration.mat import MatSpec
from calibration.targets import Detection

__all__ = ["MatPose", "MatView", "detect_mat", "estimate_pose", "self_calibrate", "track_pose"]

F64 = npt.NDArray[np.float64]
U8 = npt.NDArray[np.uint8]


@dataclass(frozen=True, eq=False)
class MatView:
    """What was found of the mat in one image: ChArUco corners (ids, pixels, world mm) and the
    whole markers (ids, 4 corners each in pixels and world mm)."""

    corner_ids: npt.NDArray[np.int32]
    corner_px: F64
    corner_world: F64
    marker_ids: npt.NDArray[np.int32]
    marker_px: F64  # (M, 4, 2)
    marker_world: F64  # (M, 4, 3)
    image_size: tuple[int, int]
    gray: U8 | None = None  # the grey image, kept for refining marker corners when needed

    def as_detection(self) -> Detection:
        return Detection(
            self.corner_px.astype(np.float32),
            self.corner_world.astype(np.float32),
            self.corner_ids,
            len(self.marker_ids),
        )


class _MatDetector:
    """Markers found by :class:`calibration.markers.FastMarkerDetector` (only the mat's printed ids;
    OpenCV 5's own ``detectMarkers`` takes 0.4 s per frame here), then ChArUco corner interpolation
    and sub-pixel refinement by ``cv2.aruco.CharucoDetector.detectBoard``."""

    def __init__(self, spec: MatSpec) -> None:
        self.spec = spec
        self.board = spec.charuco_board()
        params = cv2.aruco.DetectorParameters()
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE
        self.fast = FastMarkerDetector(spec.aruco_dictionary, spec.printed_marker_ids())
        cparams = cv2.aruco.CharucoParameters()
        cparams.minMarkers = 2
        self.charuco = cv2.aruco.CharucoDetector(self.board, cparams, params)
        self.valid = spec.corner_ids()
        self.marker_world = spec.marker_corners_world()

    def detect(self, gray: U8) -> MatView:
        h, w = gray.shape[:2]
        mc, ids = self.fast.detect(gray, refine_found=False)
        marker_ids = np.zeros(0, np.int32)
        marker_px = np.zeros((0, 4, 2))
        corner_ids = np.zeros(0, np.int32)
        corner_px = np.zeros((0, 2))
        if len(ids):
            marker_ids = ids
            marker_px = np.concatenate(mc).astype(np.float64).reshape(-1, 4, 2)
            cc, ci, _m, _i = self.charuco.detectBoard(
                gray, markerCorners=tuple(mc), markerIds=ids.reshape(-1, 1)
            )
            if ci is not None and len(ci):
                ci = np.asarray(ci, np.int32).reshape(-1)
                cc = np.asarray(cc, np.float64).reshape(-1, 2)
                keep = np.isin(ci, self.valid)
                corner_ids, corner_px = ci[keep], cc[keep]
        marker_world = (
            np.stack([self.marker_world[int(i)] for i in marker_ids])
            if len(marker_ids)
            else np.zeros((0, 4, 3))
        )
        return MatView(
            corner_ids,
            corner_px,
            self.spec.corner_world(corner_ids) if len(corner_ids) else np.zeros((0, 3)),
            marker_ids,
            marker_px,
            marker_world,
            (w, h),
            gray,
        )


@lru_cache(maxsize=8)
def _detector(spec: MatSpec) -> _MatDetector:
    return _MatDetector(spec)


def _grey(image: npt.NDArray[Any]) -> U8:
    if image.ndim == 3:
        return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8)
    return np.asarray(image, np.uint8)


def detect_mat(image: npt.NDArray[Any], spec: MatSpec) -> MatView:
    """Find the mat's printed corners and markers in an image (BGR or grey)."""
    return _detector(spec).detect(_grey(image))


@dataclass(frozen=True, eq=False)
class MatPose:
    """The camera's pose relative to the mat / battlefield.

    ``rvec``, ``tvec``: world mm -> camera (OpenCV convention, ``x_cam = R x_world + t``).
    Quality: ``rms_px`` (reprojection RMS of the points used), ``corners_seen`` / ``corners_total``,
    ``markers_seen`` / ``markers_total``, ``points_dropped`` (disagreeing points left out) and
    ``ring_coverage`` (share of the ring's four sides with corners seen, 0..1)."""

    spec: MatSpec
    camera: CameraCalibration
    rvec: F64
    tvec: F64
    rms_px: float
    corners_seen: int
    corners_total: int
    markers_seen: int
    markers_total: int
    points_dropped: int
    ring_coverage: float
    used_markers_only: bool = False

    @property
    def rotation(self) -> F64:
        r, _ = cv2.Rodrigues(self.rvec)
        return np.asarray(r, np.float64)

    @property
    def camera_position(self) -> F64:
        """Camera centre in world mm."""
        return np.asarray(-self.rotation.T @ self.tvec.reshape(3), np.float64)

    @property
    def quality(self) -> str:
        """``good`` (sub-pixel, many corners around the ring), ``fair`` or ``poor``."""
        if self.used_markers_only or self.corners_seen < 6 or self.rms_px > 2.0:
            return "poor"
        if self.rms_px <= 0.7 and self.corners_seen >= 12 and self.ring_coverage >= 0.5:
            return "good"
        return "fair"

    def project(self, world: npt.ArrayLike) -> F64:
        """World mm (N, 3) -> pixels (N, 2)."""
        p = np.asarray(world, np.float64).reshape(-1, 1, 3)
        img, _ = cv2.projectPoints(
            p, self.rvec, self.tvec, self.camera.camera_matrix, self.camera.dist_coeffs
        )
        return np.asarray(img, np.float64).reshape(-1, 2)

    def cell_to_pixel(self, cell: Sequence[int]) -> F64:
        """Pixel of the centre of lattice cell ``(i, j, k)`` (docs/coordinates.md)."""
        s = self.spec.block_mm
        i, j, k = cell
        return np.asarray(self.project([[(i + 0.5) * s, (j + 0.5) * s, (k + 0.5) * s]])[0], np.float64)

    def cell_corners_to_pixel(self, cell: Sequence[int]) -> F64:
        """Pixels (8, 2) of the 8 corners of lattice cell ``(i, j, k)``, ``x`` fastest then ``y``, ``z``."""
        s = self.spec.block_mm
        i, j, k = cell
        pts = [[(i + a) * s, (j + b) * s, (k + c) * s] for c in (0, 1) for b in (0, 1) for a in (0, 1)]
        return self.project(pts)

    def pixel_to_table(self, px: npt.ArrayLike, z_mm: float = 0.0) -> F64:
        """Pixels (N, 2) -> world mm (N, 3) on the horizontal plane ``z = z_mm`` (e.g. the table)."""
        und = undistort_normalised(px, self.camera.camera_matrix, self.camera.dist_coeffs)
        r = self.rotation
        c = self.camera_position
        rays = (r.T @ np.column_stack([und, np.ones(len(und))]).T).T
        s = (z_mm - c[2]) / rays[:, 2]
        return np.asarray(c[None, :] + s[:, None] * rays, np.float64)

    def angles_deg(self) -> dict[str, float]:
        """Camera elevation above the table and azimuth (direction from the mat centre to the camera)."""
        centre = np.array([1.5 * self.spec.block_mm, 1.5 * self.spec.block_mm, 0.0])
        d = self.camera_position - centre
        elevation = math.degrees(math.atan2(d[2], math.hypot(d[0], d[1])))
        azimuth = math.degrees(math.atan2(d[1], d[0]))
        return {"elevation": elevation, "azimuth": azimuth, "distance_mm": float(np.linalg.norm(d))}

    def facing_side(self) -> str:
        """The side of the battlefield the camera looks from (``+x``, ``-x``, ``+y``, ``-y`` or ``top``)."""
        return "top" if self.angles_deg()["elevation"] > 70 else self.azimuth_side()

    def azimuth_side(self) -> str:
        """The side (``+x``, ``-x``, ``+y``, ``-y``) whose direction is nearest the camera's, whatever its
        elevation."""
        az = self.angles_deg()["azimuth"]
        return "+x" if -45 <= az < 45 else "+y" if 45 <= az < 135 else "-y" if -135 <= az < -45 else "-x"

    def quality_json(self) -> dict[str, Any]:
        return {
            "quality": self.quality,
            "rms_px": round(self.rms_px, 4),
            "corners_seen": self.corners_seen,
            "corners_total": self.corners_total,
            "markers_seen": self.markers_seen,
            "markers_total": self.markers_total,
            "points_dropped": self.points_dropped,
            "ring_coverage": round(self.ring_coverage, 3),
            "used_markers_only": self.used_markers_only,
        }

    def to_json(self) -> dict[str, Any]:
        a = self.angles_deg()
        return {
            "kind": "boardside.pose",
            "version": 1,
            "rvec": [round(float(v), 8) for v in self.rvec.reshape(3)],
            "tvec": [round(float(v), 5) for v in self.tvec.reshape(3)],
            "camera_position_mm": [round(float(v), 3) for v in self.camera_position],
            "elevation_deg": round(a["elevation"], 3),
            "azimuth_deg": round(a["azimuth"], 3),
            "facing_side": self.facing_side(),
            **self.quality_json(),
            "camera": self.camera.to_json(),
            "mat": self.spec.to_json(),
        }

    @classmethod
    def from_json(cls, doc: Any) -> MatPose:
        from calibration.errors import CalibrationFileError

        if not isinstance(doc, dict) or doc.get("kind") != "boardside.pose":
            raise CalibrationFileError("not a Boardside pose document (no kind 'boardside.pose')")
        try:
            return cls(
                spec=MatSpec.from_json(doc["mat"]),
                camera=CameraCalibration.from_json(doc["camera"]),
                rvec=np.asarray(doc["rvec"], np.float64).reshape(3),
                tvec=np.asarray(doc["tvec"], np.float64).reshape(3),
                rms_px=float(doc["rms_px"]),
                corners_seen=int(doc["corners_seen"]),
                corners_total=int(doc["corners_total"]),
                markers_seen=int(doc["markers_seen"]),
                markers_total=int(doc["markers_total"]),
                points_dropped=int(doc.get("points_dropped", 0)),
                ring_coverage=float(doc.get("ring_coverage", 0.0)),
                used_markers_only=bool(doc.get("used_markers_only", False)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise CalibrationFileError(f"bad pose document: {exc}") from None


def _ring_coverage(spec: MatSpec, world: F64) -> float:
    """Share of the ring's four sides (beyond the clear centre's edges) that have corners."""
    if len(world) == 0:
        return 0.0
    x0, y0, x1, y1 = spec.clear_world_rect()
    sides = [world[:, 0] < x0, world[:, 0] > x1, world[:, 1] < y0, world[:, 1] > y1]
    return sum(bool(s.any()) for s in sides) / 4.0


def _solve(obj: F64, img: F64, cam: CameraCalibration) -> tuple[F64, F64]:
    k, d = cam.camera_matrix, cam.dist_coeffs
    ok, rvec, tvec = cv2.solvePnP(obj, img, k, d, flags=cv2.SOLVEPNP_IPPE)
    # IPPE reports success with a NaN pose for (nearly) collinear points (session 18: a low picture whose
    # outliers were dropped, leaving one row of corners): a pose that is not finite is no pose
    if not ok or not (np.all(np.isfinite(rvec)) and np.all(np.isfinite(tvec))):
        raise PoseError("the mat's pose could not be solved from the points seen")
    rvec, tvec = cv2.solvePnPRefineLM(obj, img, k, d, rvec, tvec)
    if not (np.all(np.isfinite(rvec)) and np.all(np.isfinite(tvec))):
        raise PoseError("the mat's pose could not be solved from the points seen")
    return np.asarray(rvec, np.float64).reshape(3), np.asarray(tvec, np.float64).reshape(3)


def _reproj(obj: F64, img: F64, cam: CameraCalibration, rvec: F64, tvec: F64) -> F64:
    p, _ = cv2.projectPoints(obj, rvec, tvec, cam.camera_matrix, cam.dist_coeffs)
    return np.asarray(np.linalg.norm(np.asarray(p).reshape(-1, 2) - img, axis=1), np.float64)


def _nearly_collinear(obj: F64, min_ratio: float = 0.05) -> bool:
    """Do the world points lie (almost) on one line? (Second principal spread below ``min_ratio``
    of the first.)"""
    xy = obj[:, :2] - obj[:, :2].mean(axis=0)
    sv = np.linalg.svd(xy, compute_uv=False)
    return bool(len(sv) < 2 or sv[1] < min_ratio * max(float(sv[0]), 1e-9))


def _solvable(obj: F64, img: F64, cam: CameraCalibration) -> bool:
    try:
        _solve(obj, img, cam)
    except PoseError:
        return False
    return True


def require_mat(view: MatView, spec: MatSpec) -> None:
    """Raise :class:`NoBoardFoundError` when no marker of the mat was seen at all."""
    if len(view.marker_ids) == 0:
        raise NoBoardFoundError(
            f"the mat was not found in the image (no markers of {spec.dictionary!r} ids "
            f"{spec.first_id}..{spec.first_id + spec.marker_count - 1})"
        )


def pose_from_view(view: MatView, spec: MatSpec, camera: CameraCalibration) -> MatPose:
    """The pose from a :class:`MatView` (see :func:`estimate_pose`)."""
    n_corners = len(view.corner_ids)
    markers_only = n_corners < 6
    if not markers_only:
        obj, img = view.corner_world.copy(), view.corner_px.copy()
    elif len(view.marker_ids) >= 2:
        # a single square has two mirror-image poses that fit equally well (planar ambiguity):
        # markers alone need at least two
        obj, img = view.marker_world.reshape(-1, 3), view.marker_px.reshape(-1, 2)
        if view.gray is not None:  # sub-pixel marker corners (only needed on this path)
            img = FastMarkerDetector._refine_edges(view.gray, view.marker_px.astype(np.float64)).reshape(
                -1, 2
            )
    else:
        require_mat(view, spec)
        raise PoseError(
            f"too little of the mat is visible: {n_corners} corners and one marker "
            "(need 6 corners or 2 whole markers)"
        )
    if len(obj) < 4:
        raise PoseError(
            f"too little of the mat is visible ({n_corners} corners, {len(view.marker_ids)} markers)"
        )
    if not markers_only and len(view.marker_ids) and (_nearly_collinear(obj) or not _solvable(obj, img, camera)):
        # the corners seen lie along one line (one row of the ring, the rest hidden or blurred): the
        # whole markers seen beside them give the second dimension
        mimg = view.marker_px.astype(np.float64)
        if view.gray is not None:
            mimg = FastMarkerDetector._refine_edges(view.gray, mimg)
        obj = np.concatenate([obj, view.marker_world.reshape(-1, 3)])
        img = np.concatenate([img, mimg.reshape(-1, 2)])
    rvec, tvec = _solve(obj, img, camera)
    dropped = 0
    err = _reproj(obj, img, camera, rvec, tvec)
    limit = max(2.0, 4.0 * float(np.median(err)))
    bad = err > limit
    if bad.any() and (~bad).sum() >= 6 and not _nearly_collinear(obj[~bad]):
        # (the points kept must still fix a pose: dropping the outliers of a low picture once left one row of
        # corners, whose pose IPPE gave as NaN -- then the pose from every point is kept)
        try:
            kept = _solve(obj[~bad], img[~bad], camera)
        except PoseError:
            pass
        else:
            dropped = int(bad.sum())
            obj, img = obj[~bad], img[~bad]
            rvec, tvec = kept
            err = _reproj(obj, img, camera, rvec, tvec)
    rms = float(np.sqrt(np.mean(err**2)))
    return MatPose(
        spec=spec,
        camera=camera,
        rvec=rvec,
        tvec=tvec,
        rms_px=rms,
        corners_seen=n_corners,
        corners_total=len(spec.corner_ids()),
        markers_seen=len(view.marker_ids),
        markers_total=len(spec.printed_marker_ids()),
        points_dropped=dropped,
        ring_coverage=_ring_coverage(spec, view.corner_world) if not markers_only else 0.0,
        used_markers_only=markers_only,
    )


def estimate_pose(
    image: npt.NDArray[Any],
    spec: MatSpec,
    camera: CameraCalibration | None = None,
    previous: MatPose | None = None,
) -> MatPose:
    """The mat's pose in one image (BGR or grey).  Without ``camera``, the intrinsics are estimated
    from this single view (:func:`self_calibrate`).  A calibration made at another resolution of the
    same aspect ratio is rescaled.  With ``previous`` (the pose in the last video frame) the corners
    are first looked for where that pose puts them (:func:`track_pose`, a few ms); the full detection
    runs when that fails.  Raises :class:`NoBoardFoundError` if the mat is not in the image,
    :class:`PoseError` if too little of it is visible."""
    grey = _grey(image)
    size = (int(grey.shape[1]), int(grey.shape[0]))
    if previous is not None and previous.spec == spec and tuple(previous.camera.image_size) == size:
        tracked = track_pose(grey, previous)
        if tracked is not None:
            return tracked
    view = _detector(spec).detect(grey)
    require_mat(view, spec)
    if camera is None:
        camera = self_calibrate([view], spec)
    elif tuple(camera.image_size) != size:
        camera = camera.scaled_to(size)
    return pose_from_view(view, spec, camera)


@lru_cache(maxsize=8)
def _corner_probes(spec: MatSpec) -> tuple[npt.NDArray[np.int32], F64, F64, npt.NDArray[np.bool_]]:
    """For every printed corner: its world point, 4 probe points just beside it (inside the four
    squares around it, within the white margin of the marker squares) and which probes are black."""
    ids = spec.corner_ids()
    n_cx = spec.squares_x - 1
    bu, bv = spec.board_origin_mm
    sq = spec.square_mm
    d = 0.06 * sq
    probes = np.zeros((len(ids), 4, 3))
    black = np.zeros((len(ids), 4), bool)
    for n, k in enumerate(ids):
        col, row = int(k) % n_cx + 1, int(k) // n_cx + 1
        for q, (dx, dy) in enumerate([(-d, -d), (d, -d), (d, d), (-d, d)]):
            u, v = bu + col * sq + dx, bv + row * sq + dy
            probes[n, q, :2] = spec.mat_to_world([u, v])
            c, r = col - (dx < 0), row - (dy < 0)
            black[n, q] = (c + r) % 2 == 0
    return ids, spec.corner_world(ids), probes, black


def track_pose(grey: U8, previous: MatPose, max_rms_px: float = 1.0) -> MatPose | None:
    """The pose in a new video frame from the previous frame's pose: each printed corner is refined
    (``cv2.cornerSubPix``) where ``previous`` puts it, kept only if the squares around it still look
    like the printed ones (dark where the pattern is black, light where it is white), and the pose
    is solved again.  ``None`` when too few corners check out (the caller then detects afresh)."""
    spec, cam = previous.spec, previous.camera
    ids, world, probes, black = _corner_probes(spec)
    h, w = grey.shape[:2]
    px = previous.project(world)
    inside = (px[:, 0] > 8) & (px[:, 0] < w - 9) & (px[:, 1] > 8) & (px[:, 1] < h - 9)
    if inside.sum() < 12:
        return None
    ids, world, probes, black, px = ids[inside], world[inside], probes[inside], black[inside], px[inside]
    spacing = np.linalg.norm(previous.project(world[:1] + np.array([spec.square_mm, 0.0, 0.0])) - px[:1])
    win = int(np.clip(spacing / 4.0, 3, 10))
    crit = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 30, 0.01)
    refined = cv2.cornerSubPix(grey, px.reshape(-1, 1, 2).astype(np.float32), (win, win), (-1, -1), crit)
    refined = np.asarray(refined, np.float64).reshape(-1, 2)
    shift = refined - px
    probe_px = previous.project(probes.reshape(-1, 3)).reshape(-1, 4, 2) + shift[:, None, :]
    vals = cv2.remap(
        grey,
        probe_px[..., 0].astype(np.float32),
        probe_px[..., 1].astype(np.float32),
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    ).astype(np.float64)
    dark = np.where(black, vals, np.nan)
    light = np.where(~black, vals, np.nan)
    contrast = np.nanmin(light, axis=1) - np.nanmax(dark, axis=1)
    ok = (contrast > 25) & (np.linalg.norm(shift, axis=1) < win)
    if ok.sum() < 12:
        return None
    view = MatView(
        ids[ok].astype(np.int32),
        refined[ok],
        world[ok],
        np.zeros(0, np.int32),
        np.zeros((0, 4, 2)),
        np.zeros((0, 4, 3)),
        (w, h),
        grey,
    )
    pose = pose_from_view(view, spec, cam)
    if pose.rms_px > max_rms_px or pose.ring_coverage < 0.5:
        return None
    return pose


def _spans_the_plane(view: MatView, min_corners: int = 8, min_spread_mm: float = 5.0) -> bool:
    """A view fit for calibration: at least ``min_corners`` of the mat's corners, not all on one line (a
    low view can show only the near edge's row of corners: no homography, and OpenCV's initialisation
    fails on it).  The spread: the corners' standard deviation across their main direction on the mat, in mm
    (two rows of corners 25 mm apart give 12.5)."""
    if len(view.corner_ids) < min_corners:
        return False
    xy = np.asarray(view.as_detection().object_points, np.float64).reshape(-1, 3)[:, :2]
    centred = xy - xy.mean(axis=0)
    spread = float(np.linalg.svd(centred, compute_uv=False)[-1]) / math.sqrt(len(xy))
    return spread >= min_spread_mm


def self_calibrate(
    views: Sequence[Any], spec: MatSpec, *, names: Sequence[str] | None = None
) -> CameraCalibration:
    """Intrinsics from views of the mat (images or :class:`MatView`), for users without a separate
    camera calibration.

    * 1 view: only the focal length (principal point at the centre, square pixels, no distortion);
    * 2-4 views: focal lengths and ``k1`` (principal point at the centre, no tangential distortion);
    * 5+ views: focal lengths, principal point, ``k1 k2`` with outlier views dropped (``k3`` and the
      tangential terms held at zero: a ring of corners seen from similar heights cannot separate them
      from the principal point; use ``calibrate camera`` for the full model).
    """
    mviews: list[MatView] = [v if isinstance(v, MatView) else detect_mat(v, spec) for v in views]
    labels = list(names) if names is not None else [f"view{i}" for i in range(len(mviews))]
    fit = [_spans_the_plane(v) for v in mviews]
    usable = [(n, v) for n, v, ok in zip(labels, mviews, fit, strict=True) if ok]
    missing = tuple(n for n, ok in zip(labels, fit, strict=True) if not ok)
    if not usable:
        raise NoBoardFoundError(
            "self-calibration needs views showing at least 8 of the mat's corners; none did"
        )
    sizes = {v.image_size for _, v in usable}
    if len(sizes) > 1:
        from calibration.errors import ImageSizeMismatchError

        raise ImageSizeMismatchError(f"mat views differ in size: {sorted(sizes)!r}")
    size = usable[0][1].image_size
    n = len(usable)
    named = [(name, v.as_detection()) for name, v in usable]
    fixed = cv2.CALIB_FIX_PRINCIPAL_POINT | cv2.CALIB_ZERO_TANGENT_DIST | cv2.CALIB_USE_INTRINSIC_GUESS
    if n == 1:
        flags = fixed | cv2.CALIB_FIX_ASPECT_RATIO | cv2.CALIB_FIX_K1 | cv2.CALIB_FIX_K2 | cv2.CALIB_FIX_K3
    elif n < 5:
        flags = fixed | cv2.CALIB_FIX_K2 | cv2.CALIB_FIX_K3
    else:
        # tangential terms trade off against the principal point with a ring of corners seen from
        # similar heights; webcams have negligible decentering, so they are held at zero
        flags = cv2.CALIB_FIX_K3 | cv2.CALIB_ZERO_TANGENT_DIST
    w, h = size
    k0 = np.array([[max(w, h), 0.0, (w - 1) / 2.0], [0.0, max(w, h), (h - 1) / 2.0], [0.0, 0.0, 1.0]])
    solution = calibrate_detections(named, size, flags=flags) if n >= 5 else _calibrate_few(named, size, flags, k0)
    return calibration_from_solution(solution, size, missing, {"type": "mat", "spec": str(spec)},
                                     f"self-calibration from {n} mat view{'s' if n != 1 else ''}", spec)


def _calibrate_few(
    named: Sequence[tuple[str, Detection]], size: tuple[int, int], flags: int, k0: F64
) -> tuple[float, F64, F64, list[tuple[str, float]], list[DroppedView], F64]:
    if not named:
        raise TooFewViewsError("no mat views")
    obj = [d.object_points.reshape(-1, 1, 3) for _, d in named]
    img = [d.image_points.reshape(-1, 1, 2) for _, d in named]
    crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-9)
    rms, k, dist, _r, _t, std, _se, per_view = cv2.calibrateCameraExtended(
        obj, img, size, k0.copy(), np.zeros(5), flags=flags, criteria=crit
    )
    errors = [(name, float(e)) for (name, _), e in zip(named, np.asarray(per_view).reshape(-1), strict=True)]
    return (
        float(rms),
        np.asarray(k, np.float64),
        np.asarray(dist, np.float64).reshape(-1),
        errors,
        [],
        np.asarray(std, np.float64).reshape(-1),
    )
