"""Simulated camera views of a planar target ("rendered" images, for tests and benchmarks).

These are *simulated* photographs, named as such everywhere: a true-scale target image (chessboard,
ChArUco board or the Boardside mat) is seen by a pinhole camera with OpenCV's distortion model
(``k1 k2 p1 p2 k3``).  For every output pixel the ray is undistorted exactly (iterative
``cv2.undistortPoints`` with tight criteria, computed once per camera), intersected with the target
plane (``z = 0`` in the target's frame) and looked up in the target image (``cv2.remap``); the image
is rendered ``oversample`` times larger and reduced with area averaging (box-filter antialiasing),
then blurred (optics), shaded (uneven light) and given sensor noise.  ``cv2.projectPoints`` of the
same pose and camera gives the ground-truth positions of the target's points.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
import numpy.typing as npt

from calibration.targets import TargetImage

F64 = npt.NDArray[np.float64]
U8 = npt.NDArray[np.uint8]

__all__ = ["SimCamera", "look_at", "project", "render_view"]


@dataclass(frozen=True)
class SimCamera:
    """A simulated camera: ``fx fy cx cy`` (pixels), distortion ``k1 k2 p1 p2 k3``, image size (w, h)."""

    fx: float
    fy: float
    cx: float
    cy: float
    dist: tuple[float, float, float, float, float]
    size: tuple[int, int]

    @property
    def camera_matrix(self) -> F64:
        return np.array([[self.fx, 0.0, self.cx], [0.0, self.fy, self.cy], [0.0, 0.0, 1.0]])

    @property
    def dist_coeffs(self) -> F64:
        return np.array(self.dist, dtype=np.float64)


@lru_cache(maxsize=8)
def _rays(cam: SimCamera, oversample: int) -> F64:
    """Undistorted normalised coordinates (H*os, W*os, 2) of every oversampled pixel centre."""
    w, h = cam.size
    os_ = oversample
    cols = (np.arange(w * os_, dtype=np.float64) + 0.5) / os_ - 0.5
    rows = (np.arange(h * os_, dtype=np.float64) + 0.5) / os_ - 0.5
    grid = np.stack(np.meshgrid(cols, rows), axis=-1).reshape(-1, 1, 2)
    crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-12)
    und = cv2.undistortPoints(grid, cam.camera_matrix, cam.dist_coeffs, criteria=crit)
    out: F64 = np.asarray(und, dtype=np.float64).reshape(h * os_, w * os_, 2)
    return out


def look_at(
    eye: npt.ArrayLike, target: npt.ArrayLike, down: npt.ArrayLike, roll_deg: float = 0.0
) -> tuple[F64, F64]:
    """(rvec, tvec) of a camera at ``eye`` looking at ``target`` with image-down roughly along ``down``
    (all in the target's frame), rolled by ``roll_deg`` about the viewing axis."""
    c = np.asarray(eye, dtype=np.float64)
    z = np.asarray(target, dtype=np.float64) - c
    z /= np.linalg.norm(z)
    x = np.cross(np.asarray(down, dtype=np.float64), z)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    r = np.stack([x, y, z])
    a = math.radians(roll_deg)
    roll = np.array([[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0], [0.0, 0.0, 1.0]])
    r = roll @ r
    rvec, _ = cv2.Rodrigues(r)
    return np.asarray(rvec, dtype=np.float64).reshape(3), -r @ c


def project(points: npt.ArrayLike, cam: SimCamera, rvec: npt.ArrayLike, tvec: npt.ArrayLike) -> F64:
    """Ground-truth pixel positions (N, 2) of target points (N, 3) (``cv2.projectPoints``)."""
    p = np.asarray(points, dtype=np.float64).reshape(-1, 1, 3)
    img, _ = cv2.projectPoints(
        p,
        np.asarray(rvec, np.float64),
        np.asarray(tvec, np.float64),
        cam.camera_matrix,
        cam.dist_coeffs,
    )
    return np.asarray(img, dtype=np.float64).reshape(-1, 2)


def _background(size: tuple[int, int], rng: np.random.Generator) -> U8:
    """A table-like background: smooth random wood-ish texture."""
    w, h = size
    tone = np.array(rng.choice([(70, 110, 150), (60, 80, 100), (110, 130, 140), (40, 60, 90)]), np.float32)
    small = rng.uniform(0.75, 1.25, size=(max(2, h // 60), max(2, w // 60), 1)).astype(np.float32)
    var = np.asarray(cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC), np.float32).reshape(h, w, 1)
    grain = np.asarray(rng.normal(1.0, 0.08, size=(h, max(2, w // 16))).astype(np.float32))
    streaks = np.asarray(cv2.resize(grain, (w, h), interpolation=cv2.INTER_LINEAR), np.float32).reshape(
        h, w, 1
    )
    base = tone[None, None, :] * var * streaks
    out: U8 = np.clip(base, 0, 255).astype(np.uint8)
    return out


def render_view(
    target: TargetImage,
    cam: SimCamera,
    rvec: npt.ArrayLike,
    tvec: npt.ArrayLike,
    rng: np.random.Generator,
    *,
    oversample: int = 2,
    blur_sigma: float = 0.6,
    noise_sigma: float = 2.0,
    shading: float = 0.25,
    background: U8 | None = None,
) -> U8:
    """Simulated photograph (BGR uint8, ``cam.size``) of ``target`` seen from pose (rvec, tvec)
    (target frame -> camera frame).  ``shading`` is the strength of a random linear light gradient."""
    w, h = cam.size
    r, _ = cv2.Rodrigues(np.asarray(rvec, dtype=np.float64))
    t = np.asarray(tvec, dtype=np.float64).reshape(3)
    hn = np.column_stack([r[:, 0], r[:, 1], t])  # [xn, yn, 1] ~ hn @ [X, Y, 1]
    m = target.plane_to_pixel @ np.linalg.inv(hn)
    rays = _rays(cam, oversample)
    hh, ww = rays.shape[:2]
    u = m[0, 0] * rays[..., 0] + m[0, 1] * rays[..., 1] + m[0, 2]
    v = m[1, 0] * rays[..., 0] + m[1, 1] * rays[..., 1] + m[1, 2]
    q = m[2, 0] * rays[..., 0] + m[2, 1] * rays[..., 1] + m[2, 2]
    # q = 1 / depth along the ray (plane_to_pixel is affine): rays meeting the plane behind the camera
    # are outside
    ok = q > 1e-12
    with np.errstate(divide="ignore", invalid="ignore"):
        mx = np.where(ok, u / q, -1e6).astype(np.float32)
        my = np.where(ok, v / q, -1e6).astype(np.float32)
    src = target.image
    # pre-filter the target when it is much finer than the oversampled output (avoid aliasing)
    scale = float(np.median(np.hypot(np.diff(mx[::8, ::8], axis=1), np.diff(my[::8, ::8], axis=1)))) / 8.0
    if np.isfinite(scale) and scale > 1.5:
        src = np.asarray(cv2.GaussianBlur(src, (0, 0), 0.45 * scale), np.uint8)
    marker = np.full(src.shape[:2], 255, np.uint8)
    img = cv2.remap(src, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    inside = cv2.remap(marker, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    bg = background if background is not None else _background((ww, hh), rng)
    if bg.shape[:2] != (hh, ww):
        bg = np.asarray(cv2.resize(bg, (ww, hh), interpolation=cv2.INTER_LINEAR), np.uint8)
    a = inside.astype(np.float32)[..., None] / 255.0
    f = img.astype(np.float32) * a + bg.astype(np.float32) * (1.0 - a)
    if oversample > 1:
        f = cv2.resize(f, (w, h), interpolation=cv2.INTER_AREA)
    if shading > 0:
        gx, gy = rng.uniform(-1, 1, 2)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        light = 1.0 + shading * 0.5 * (gx * (xx / w - 0.5) + gy * (yy / h - 0.5)) * 2
        f *= light[..., None] * rng.uniform(0.8, 1.0)
    if blur_sigma > 0:
        f = cv2.GaussianBlur(f, (0, 0), blur_sigma)
    if noise_sigma > 0:
        f += rng.normal(0.0, noise_sigma, size=f.shape).astype(np.float32)
    return np.clip(f + 0.5, 0, 255).astype(np.uint8)
