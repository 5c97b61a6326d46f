"""Virtual cameras: intrinsics, Brown-Conrady distortion, pose, and the distortion remap.

Conventions are OpenCV's: a world point X (mm, battlefield frame) maps to camera
coordinates ``Xc = R @ X + t`` (x right, y down, z forward), then through ``K`` and the
distortion ``(k1, k2, p1, p2, k3)`` exactly as ``cv2.projectPoints`` does.  The renderer
draws an undistorted pinhole image with a wider field of view and then *applies* the
distortion with ``cv2.remap``, so the recorded (K, dist) is the truth of the picture.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.camera import CameraCalibration

F64 = npt.NDArray[np.float64]


@dataclass(frozen=True)
class CameraModel:
    width: int
    height: int
    K: tuple[tuple[float, ...], ...]
    dist: tuple[float, float, float, float, float]
    R: tuple[tuple[float, ...], ...]
    t: tuple[float, float, float]

    @property
    def k_matrix(self) -> F64:
        return np.asarray(self.K, dtype=np.float64)

    @property
    def dist_coeffs(self) -> F64:
        return np.asarray(self.dist, dtype=np.float64)

    @property
    def rotation(self) -> F64:
        return np.asarray(self.R, dtype=np.float64)

    @property
    def translation(self) -> F64:
        return np.asarray(self.t, dtype=np.float64)

    @property
    def centre(self) -> F64:
        """Camera centre in world mm."""
        return np.asarray(-self.rotation.T @ self.translation)

    def project(self, points: npt.ArrayLike) -> F64:
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 1, 3)
        rvec, _ = cv2.Rodrigues(self.rotation)
        img, _ = cv2.projectPoints(pts, rvec, self.translation, self.k_matrix, self.dist_coeffs)
        return np.asarray(img.reshape(-1, 2))

    def to_json(self) -> dict[str, Any]:
        rvec, _ = cv2.Rodrigues(self.rotation)
        return {
            "image_size": [self.width, self.height],
            "K": [[round(v, 4) for v in row] for row in self.K],
            "dist": [round(v, 6) for v in self.dist],
            "dist_model": "opencv (k1, k2, p1, p2, k3)",
            "R": [[round(v, 8) for v in row] for row in self.R],
            "t": [round(v, 4) for v in self.t],
            "rvec": [round(float(v), 8) for v in rvec.ravel()],
            "pose": "world->camera: Xc = R @ Xw + t (mm, OpenCV axes: x right, y down, z forward)",
            "centre_mm": [round(float(v), 3) for v in self.centre],
        }

    @staticmethod
    def from_json(doc: dict[str, Any]) -> CameraModel:
        w, h = doc["image_size"]
        return CameraModel(
            int(w),
            int(h),
            tuple(tuple(float(v) for v in row) for row in doc["K"]),
            tuple(float(v) for v in doc["dist"]),  # type: ignore[arg-type]
            tuple(tuple(float(v) for v in row) for row in doc["R"]),
            tuple(float(v) for v in doc["t"]),  # type: ignore[arg-type]
        )


def look_at(
    eye: npt.ArrayLike,
    target: npt.ArrayLike,
    roll_deg: float = 0.0,
    world_up: npt.ArrayLike = (0.0, 0.0, 1.0),
) -> tuple[F64, F64]:
    """World->camera (R, t) for a camera at ``eye`` looking at ``target`` (OpenCV axes)."""
    e = np.asarray(eye, dtype=np.float64)
    z = np.asarray(target, dtype=np.float64) - e
    z /= np.linalg.norm(z)
    up = np.asarray(world_up, dtype=np.float64)
    if abs(float(np.dot(up, z))) > 0.999:
        up = np.array([0.0, 1.0, 0.0])
    x = np.cross(z, up)  # right = forward x up  (y down)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    rows = np.stack([x, y, z])
    r = math.radians(roll_deg)
    roll = np.array([[math.cos(r), -math.sin(r), 0], [math.sin(r), math.cos(r), 0], [0, 0, 1]])
    rot = roll @ rows
    return rot, -rot @ e


def intrinsics(
    width: int, height: int, hfov_deg: float, pp_offset: tuple[float, float] = (0.0, 0.0), aspect: float = 1.0
) -> F64:
    fx = (width / 2) / math.tan(math.radians(hfov_deg) / 2)
    return np.array(
        [
            [fx, 0.0, width / 2 - 0.5 + pp_offset[0]],
            [0.0, fx * aspect, height / 2 - 0.5 + pp_offset[1]],
            [0.0, 0.0, 1.0],
        ]
    )


def make_camera(width: int, height: int, K: F64, dist: npt.ArrayLike, R: F64, t: F64) -> CameraModel:
    return CameraModel(
        width,
        height,
        tuple(tuple(float(v) for v in row) for row in K),
        tuple(float(v) for v in np.asarray(dist, dtype=np.float64).ravel()[:5]),  # type: ignore[arg-type]
        tuple(tuple(float(v) for v in row) for row in R),
        tuple(float(v) for v in np.asarray(t).ravel()),  # type: ignore[arg-type]
    )


def ideal_rays(camera: CameraModel) -> tuple[F64, F64]:
    """For every output pixel, the undistorted normalised image coordinates (x, y) it sees."""
    h, w = camera.height, camera.width
    uu, vv = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    pts = np.stack([uu.ravel(), vv.ravel()], axis=1).reshape(-1, 1, 2)
    und = cv2.undistortPoints(
        pts,
        camera.k_matrix,
        camera.dist_coeffs,
        None,
        None,
        None,
        (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-10),
    ).reshape(h, w, 2)
    return np.asarray(und[..., 0], dtype=np.float64), np.asarray(und[..., 1], dtype=np.float64)


@dataclass(frozen=True)
class SourceView:
    """The undistorted pinhole image the path tracer renders for a (possibly distorted) camera."""

    width: int
    height: int
    focal: float
    map_x: npt.NDArray[np.float32]
    map_y: npt.NDArray[np.float32]

    @property
    def hfov_deg(self) -> float:
        return math.degrees(2 * math.atan((self.width / 2) / self.focal))


def source_view(camera: CameraModel, supersample: float = 1.0, margin_px: float = 3.0) -> SourceView:
    """Choose a centred pinhole source image that covers every ray of ``camera`` and the remap maps."""
    x, y = ideal_rays(camera)
    fx = float(camera.k_matrix[0, 0]) * supersample
    fy = float(camera.k_matrix[1, 1]) * supersample
    f = max(fx, fy)
    half_w = float(np.max(np.abs(x))) * f + margin_px
    half_h = float(np.max(np.abs(y))) * f + margin_px
    w = math.ceil(half_w) * 2
    h = math.ceil(half_h) * 2
    cx, cy = w / 2 - 0.5, h / 2 - 0.5
    return SourceView(w, h, f, (x * f + cx).astype(np.float32), (y * f + cy).astype(np.float32))


def distort_image(source: npt.NDArray[Any], view: SourceView, nearest: bool = False) -> npt.NDArray[Any]:
    """Resample the undistorted render into the distorted camera image."""
    interp = cv2.INTER_NEAREST if nearest else cv2.INTER_LINEAR
    if not nearest and view.width > view.map_x.shape[1] * 1.3:
        # supersampled source: low-pass before sampling (area-like anti-aliasing)
        k = view.width / view.map_x.shape[1]
        source = cv2.GaussianBlur(source, (0, 0), 0.5 * k)
    return np.asarray(cv2.remap(source, view.map_x, view.map_y, interp, borderMode=cv2.BORDER_REFLECT))


def sample_distortion(rng: np.random.Generator, hfov_deg: float) -> tuple[float, float, float, float, float]:
    """Brown-Conrady coefficients typical of webcams/phones: barrel for wide lenses, mild otherwise."""
    wide = (hfov_deg - 55.0) / 35.0  # 0 .. 1
    k1 = float(rng.uniform(-0.05, 0.05) - 0.28 * wide * rng.uniform(0.4, 1.0))
    k2 = float(rng.uniform(-0.02, 0.06) + (0.08 * wide if k1 < -0.15 else 0.0))
    p1 = float(rng.normal(0, 0.0008))
    p2 = float(rng.normal(0, 0.0008))
    return (k1, k2, p1, p2, 0.0)


def distortion_is_monotonic(K: F64, dist: npt.ArrayLike, width: int, height: int) -> bool:
    """True when the radial map is monotonic out to the image corners (a physically sane lens)."""
    k1, k2, _p1, _p2, k3 = (list(np.asarray(dist, dtype=np.float64).ravel()) + [0.0] * 5)[:5]
    r_max = math.hypot(width / K[0, 0], height / K[1, 1]) * 0.75
    r = np.linspace(0, r_max, 400)
    rd = r * (1 + k1 * r**2 + k2 * r**4 + k3 * r**6)
    return bool(np.all(np.diff(rd) > 0))


def truth_calibration(camera: Mapping[str, Any], source: str = "render truth (simulated camera)") -> CameraCalibration:
    """The intrinsics a rendered picture was taken with, from its truth file's ``"camera"`` object
    (``K``, ``dist``, ``image_size``, as :meth:`CameraModel.to_json` writes them), as the
    :class:`~calibration.camera.CameraCalibration` a user with a calibration file of that camera would
    give the readers.  SIMULATED: the camera is the renderer's; its ``rms`` is 0."""
    w, h = camera["image_size"]
    return CameraCalibration(np.array(camera["K"], np.float64), np.array(camera["dist"], np.float64),
                             (int(w), int(h)), 0.0, source=source)
