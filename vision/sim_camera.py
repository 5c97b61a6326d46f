"""A *simulated* camera over a printed board with the robot on it (for tests and ``--camera sim``).

Nothing here knows what the vision code will conclude: it only makes pixels.  The printed board
(:func:`calibration.boards.render_board`) lies at ``z = 0``; the robot is a box whose top, at the
tag's height, carries the printed tag (:func:`calibration.boards.render_robot_tag`) turned to the
robot's true heading.  Every pixel is traced through a pinhole camera with Brown-Conrady lens
distortion (the ray of each, 2x2 supersampled, meets the board or the robot's top), then the frame
is blurred a little and gets sensor noise.  The camera's calibration (intrinsics) is known, as a
user's ``boardside calibrate`` file would give it; its pose is for the vision code to find.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.boards import BoardSpec, RobotTag, render_board, render_robot_tag
from calibration.camera import CameraCalibration

__all__ = ["SimCameraSettings", "SimulatedCamera"]

U8 = npt.NDArray[np.uint8]
F64 = npt.NDArray[np.float64]
F32 = npt.NDArray[np.float32]

_TABLE_RGB = (150, 112, 78)


@dataclass(frozen=True)
class SimCameraSettings:
    """Where the simulated camera stands and how good its pictures are.

    ``azimuth_deg``: compass direction from the board's centre to the camera (180: south of the
    board, looking north); ``elevation_deg`` above the table; the distance is chosen so the board
    fills ``fill`` of the frame.  ``noise`` is the sensor noise's standard deviation in grey levels,
    ``blur`` the Gaussian blur in pixels (focus, motion), ``k1`` the radial lens distortion.
    ``calibration_error``: the calibration handed to the vision code is off from the true camera
    like a real calibration file (focal length by that relative standard deviation, the principal
    point by ``calibration_error * width / 2`` pixels, ``k1`` by ``2 * calibration_error``);
    0 hands over the exact intrinsics."""

    size: tuple[int, int] = (1280, 720)
    hfov_deg: float = 65.0
    elevation_deg: float = 62.0
    azimuth_deg: float = 180.0
    fill: float = 0.88
    noise: float = 2.0
    blur: float = 0.6
    k1: float = -0.06
    gain: float = 1.0
    calibration_error: float = 0.0
    seed: int = 0


def _look_at(eye: F64, target: F64) -> tuple[F64, F64]:
    f = target - eye
    f /= np.linalg.norm(f)
    up = np.array([0.0, 0.0, 1.0])
    r = np.cross(f, up)
    r /= np.linalg.norm(r)
    d = np.cross(f, r)
    rot = np.stack([r, d, f])
    rvec, _ = cv2.Rodrigues(rot)
    return np.asarray(rvec, np.float64).reshape(3), np.asarray(-rot @ eye, np.float64)


class SimulatedCamera:
    """A simulated camera looking at ``spec``'s printed board; :meth:`frame` draws the robot at a pose."""

    SS = 2  # supersampling per axis

    def __init__(self, spec: BoardSpec, tag: RobotTag | None = None, settings: SimCameraSettings | None = None,
                 *, body_mm: float | None = None, body_rgb: tuple[int, int, int] = (52, 96, 178)) -> None:
        self.spec = spec
        self.tag = tag or RobotTag()
        self.settings = s = settings or SimCameraSettings()
        self.rng = np.random.default_rng(s.seed)
        w, h = s.size
        fx = (w / 2) / math.tan(math.radians(s.hfov_deg) / 2)
        k = np.array([[fx, 0, (w - 1) / 2], [0, fx, (h - 1) / 2], [0, 0, 1.0]])
        dist = np.array([s.k1, 0.25 * s.k1 * s.k1, 0.0, 0.0, 0.0])
        self.true_calibration = CameraCalibration(k, dist, (w, h), 0.0, source="simulated camera (exact intrinsics)")
        self.calibration = self.true_calibration
        if s.calibration_error > 0:
            e = s.calibration_error
            rng = np.random.default_rng(s.seed + 1)
            k2 = k.copy()
            k2[0, 0] *= 1 + rng.normal(0, e)
            k2[1, 1] = k2[0, 0] * (1 + rng.normal(0, e / 10))
            k2[0, 2] += rng.normal(0, e * w / 2)
            k2[1, 2] += rng.normal(0, e * w / 2)
            d2 = dist.copy()
            d2[0] += rng.normal(0, 2 * e)
            self.calibration = CameraCalibration(k2, d2, (w, h), 0.3,
                                                 source="simulated camera (calibration with error)")
        sticker = render_robot_tag(self.tag, px_per_mm=12.0)
        n = int(cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.tag.dictionary)).markerSize) + 2
        side_px = max(n, round(self.tag.tag_mm * 12.0))
        self.sticker = sticker
        self.sticker_mm = self.tag.tag_mm * sticker.shape[0] / side_px
        self.body_mm = body_mm if body_mm is not None else max(self.sticker_mm + 8.0, 0.7 * spec.cell_mm)
        self.body_rgb = body_rgb
        # camera pose: look at the board's centre, back off until the whole board fits
        x0, y0, x1, y1 = self._extent()
        centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2, 0.0])
        el, az = math.radians(s.elevation_deg), math.radians(s.azimuth_deg)
        direction = np.array([math.cos(el) * math.sin(az), math.cos(el) * math.cos(az), math.sin(el)])
        corners = np.array([[x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0]], np.float64)
        lo, hi = 50.0, 50_000.0
        for _ in range(40):
            mid = (lo + hi) / 2
            rvec, tvec = _look_at(centre + mid * direction, centre)
            px, _ = cv2.projectPoints(corners, rvec, tvec, k, np.zeros(5))
            px = px.reshape(-1, 2)
            m = (1 - s.fill) / 2
            inside = (px[:, 0].min() >= m * w and px[:, 0].max() <= (1 - m) * w
                      and px[:, 1].min() >= m * h and px[:, 1].max() <= (1 - m) * h)
            lo, hi = (lo, mid) if inside else (mid, hi)
        self.rvec, self.tvec = _look_at(centre + hi * direction, centre)
        self.R = np.asarray(cv2.Rodrigues(self.rvec)[0], np.float64)
        self.C = -self.R.T @ self.tvec
        # every supersampled pixel's ray (distortion removed), once
        ss = self.SS
        xs, ys = np.meshgrid((np.arange(w * ss) + 0.5) / ss - 0.5, (np.arange(h * ss) + 0.5) / ss - 0.5)
        self._grid_shape = (h * ss, w * ss)
        und = cv2.undistortPoints(np.stack([xs, ys], -1).reshape(-1, 1, 2).astype(np.float32), k, dist)
        self._norm = und.reshape(h * ss, w * ss, 2).astype(np.float32)
        self._static = self._render_board()

    # ------------------------------------------------------------------ geometry
    def _extent(self) -> tuple[float, float, float, float]:
        xs = [c[0] for f in self.spec.fiducials for c in f.corners_mm] + [0.0, self.spec.cols * self.spec.cell_mm]
        ys = [c[1] for f in self.spec.fiducials for c in f.corners_mm] + [0.0, self.spec.rows * self.spec.cell_mm]
        pad = 0.02 * max(max(xs) - min(xs), max(ys) - min(ys))
        return min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad

    def _plane(self, norm: npt.NDArray[np.float32], z: float) -> tuple[F32, npt.NDArray[np.bool_]]:
        """Normalised image points (..., 2) -> where their rays meet ``z`` (..., 2) and whether they do."""
        nx, ny = norm[..., 0], norm[..., 1]
        r = self.R.astype(np.float32)
        dx = nx * r[0, 0] + ny * r[1, 0] + r[2, 0]  # R^T [x, y, 1]
        dy = nx * r[0, 1] + ny * r[1, 1] + r[2, 1]
        dz = nx * r[0, 2] + ny * r[1, 2] + r[2, 2]
        dz[np.abs(dz) < 1e-9] = -1e-9
        t = np.float32(z - self.C[2]) / dz
        hit = t > 0
        pts = np.stack([np.float32(self.C[0]) + t * dx, np.float32(self.C[1]) + t * dy], axis=-1)
        return pts.astype(np.float32, copy=False), hit

    def project(self, points_mm: npt.ArrayLike) -> F64:
        p = np.asarray(points_mm, np.float64).reshape(-1, 1, 3)
        px, _ = cv2.projectPoints(p, self.rvec, self.tvec, self.true_calibration.camera_matrix,
                                  self.true_calibration.dist_coeffs)
        return np.asarray(px, np.float64).reshape(-1, 2)

    # ------------------------------------------------------------------ drawing
    def _render_board(self) -> U8:
        ppm = self.settings.size[0] * self.SS / max(1.0, self._extent()[2] - self._extent()[0]) * 1.5
        ppm = float(np.clip(ppm, 1.0, 8.0))
        bi = render_board(self.spec, ppm)
        pts, hit = self._plane(self._norm, 0.0)
        rx0, _, _, ry1 = bi.region_mm
        k = np.float32(bi.px_per_mm)
        mx = (pts[..., 0] - np.float32(rx0)) * k - np.float32(0.5)
        my = (np.float32(ry1) - pts[..., 1]) * k - np.float32(0.5)
        mx[~hit] = -1e6
        # a wooden table: smooth grain
        grain = np.sin(pts[..., 1] * np.float32(0.05) + 3 * np.sin(pts[..., 0] * np.float32(0.004))) * 10
        table = np.stack([np.clip(c + grain, 0, 255) for c in _TABLE_RGB], axis=-1).astype(np.uint8)
        board = cv2.remap(bi.image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
        inside = (mx >= 0) & (my >= 0) & (mx <= bi.image.shape[1] - 1) & (my <= bi.image.shape[0] - 1)
        return np.where(inside[..., None], board, table)

    def frame(self, robot: tuple[float, float, float] | None = None) -> U8:
        """A BGR frame with the robot at ``robot`` = (x_mm, y_mm, heading deg counter-clockwise from east),
        or no robot."""
        img = self._static.copy()
        if robot is not None:
            self._draw_robot(img, *robot)
        w, h = self.settings.size
        out: F32 = cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)
        s = self.settings
        if s.blur > 0:
            out = np.asarray(cv2.GaussianBlur(out, (0, 0), s.blur), np.float32)
        out = out * np.float32(0.86 * s.gain) + np.float32(12.0)  # exposure: white paper is not clipped
        if s.noise > 0:
            out = out + self.rng.normal(0.0, s.noise, out.shape).astype(np.float32)
        rgb = np.clip(out + 0.5, 0, 255).astype(np.uint8)
        return np.ascontiguousarray(rgb[..., ::-1])

    def _draw_robot(self, img: U8, x: float, y: float, heading_deg: float) -> None:
        ss = self.SS
        hgt = self.tag.height_mm
        b = self.body_mm / 2
        th = math.radians(heading_deg)
        fwd = np.array([math.cos(th), math.sin(th)])
        left = np.array([-math.sin(th), math.cos(th)])
        foot = [np.array([x, y]) + fwd * u + left * v for u, v in ((b, b), (b, -b), (-b, -b), (-b, b))]
        box = np.array([[p[0], p[1], z] for z in (0.0, hgt) for p in foot])
        px = self.project(box) * ss + (ss - 1) / 2  # supersampled pixel coordinates
        H, W = self._grid_shape
        # a soft shadow on the board
        shadow = np.zeros((H, W), np.float32)
        sh = self.project(np.array([[p[0] + 4, p[1] - 4, 0.0] for p in foot])) * ss + (ss - 1) / 2
        cv2.fillConvexPoly(shadow, np.round(sh * 16).astype(np.int32), 1.0, cv2.LINE_AA, 4)
        x0, y0 = np.floor(px.min(axis=0)).astype(int) - 24
        x1, y1 = np.ceil(px.max(axis=0)).astype(int) + 24
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
        if x1 <= x0 or y1 <= y0:
            return
        sl = (slice(y0, y1), slice(x0, x1))
        shade = cv2.GaussianBlur(shadow[sl], (0, 0), 3.0 * ss)
        img[sl] = (img[sl].astype(np.float32) * (1 - 0.45 * shade[..., None])).astype(np.uint8)
        # the body: its silhouette, the sides a little darker than the top
        hull = cv2.convexHull(np.round(px * 16).astype(np.int32))
        dark = tuple(int(c * 0.7) for c in self.body_rgb)
        cv2.fillConvexPoly(img, hull, dark, cv2.LINE_AA, 4)
        for i in range(4):  # vertical edges
            a, c = px[i], px[i + 4]
            cv2.line(img, tuple(np.round(a * 16).astype(int)), tuple(np.round(c * 16).astype(int)),
                     tuple(int(v * 0.5) for v in self.body_rgb), max(1, ss), cv2.LINE_AA, 4)
        top = np.round(px[4:] * 16).astype(np.int32)
        cv2.fillConvexPoly(img, top, self.body_rgb, cv2.LINE_AA, 4)
        # the tag sticker on the top, traced pixel by pixel through the lens
        tx0, ty0 = np.floor(px[4:].min(axis=0)).astype(int) - 2
        tx1, ty1 = np.ceil(px[4:].max(axis=0)).astype(int) + 2
        tx0, ty0, tx1, ty1 = max(0, tx0), max(0, ty0), min(W, tx1), min(H, ty1)
        if tx1 <= tx0 or ty1 <= ty0:
            return
        pts, hit = self._plane(self._norm[ty0:ty1, tx0:tx1], hgt)
        rel = pts.astype(np.float64) - np.array([x, y])
        u = rel @ fwd  # along the heading (toward the sticker's printed top)
        v = rel @ left
        half = self.sticker_mm / 2
        inside = hit & (np.abs(u) <= half) & (np.abs(v) <= half)
        n = self.sticker.shape[0]
        col = ((half - v) / self.sticker_mm * n - 0.5).astype(np.float32)
        row = ((half - u) / self.sticker_mm * n - 0.5).astype(np.float32)
        tex = cv2.remap(self.sticker, col, row, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        region = img[ty0:ty1, tx0:tx1]
        region[inside] = tex[inside]

    def to_json(self) -> dict[str, Any]:
        """The simulated camera as a fixture would record it (intrinsics and the true pose)."""
        return {
            "simulated": "simulated camera (ray-traced board and robot)",
            "calibration": self.calibration.to_json(),
            "true_calibration": self.true_calibration.to_json(),
            "rvec": [float(v) for v in self.rvec],
            "tvec": [float(v) for v in self.tvec],
            "settings": {k: getattr(self.settings, k) for k in self.settings.__dataclass_fields__},
        }
