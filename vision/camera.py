"""A calibrated view of the battlefield: intrinsics, distortion and pose in world millimetres.

World frame and lattice: docs/coordinates.md (cell ``(i, j, k)`` is the box
``[i*s, (i+1)*s] x [j*s, (j+1)*s] x [k*s, (k+1)*s]``, ``s = block_mm``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.camera import undistort_normalised

F64 = npt.NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class ViewCamera:
    """Pinhole camera with Brown-Conrady distortion; ``rvec, tvec`` map world mm to camera."""

    K: F64
    dist: F64
    rvec: F64
    tvec: F64
    size: tuple[int, int]  # (width, height)
    block_mm: float = 22.0
    #: the mat's printed ChArUco ring in world mm, as ``(paper rect, clear centre rect)`` (each
    #: ``(x_min, y_min, x_max, y_max)``: the ring is the paper outside the clear centre), when known:
    #: the flag pole test leaves out pole points seen against it (vision/poles.py ``PoleConfig.ring``)
    mat_ring: tuple[tuple[float, float, float, float], tuple[float, float, float, float]] | None = None
    R: F64 = field(init=False, repr=False)
    center: F64 = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "K", np.asarray(self.K, np.float64).reshape(3, 3))
        object.__setattr__(self, "dist", np.asarray(self.dist, np.float64).ravel())
        object.__setattr__(self, "rvec", np.asarray(self.rvec, np.float64).reshape(3))
        object.__setattr__(self, "tvec", np.asarray(self.tvec, np.float64).reshape(3))
        R, _ = cv2.Rodrigues(self.rvec)
        object.__setattr__(self, "R", R)
        object.__setattr__(self, "center", -R.T @ self.tvec)

    @classmethod
    def look_at(
        cls, eye: tuple[float, float, float], target: tuple[float, float, float], K: F64,
        size: tuple[int, int], dist: F64 | None = None, block_mm: float = 22.0,
    ) -> ViewCamera:
        """A camera at ``eye`` (world mm) looking at ``target`` with world ``+z`` up in the image."""
        e = np.asarray(eye, np.float64)
        f = np.asarray(target, np.float64) - e
        f /= np.linalg.norm(f)
        up = np.array([0.0, 0.0, 1.0])
        if abs(float(f @ up)) > 0.999:
            up = np.array([0.0, 1.0, 0.0])
        r = np.cross(f, up)
        r /= np.linalg.norm(r)
        d = np.cross(f, r)  # image down
        R = np.stack([r, d, f])  # rows: camera x (right), y (down), z (forward) in world
        rvec, _ = cv2.Rodrigues(R)
        tvec = np.asarray(-R @ e, np.float64)
        return cls(K, np.zeros(5) if dist is None else dist, np.asarray(rvec, np.float64).ravel(), tvec, size,
                   block_mm)

    def project(self, points_mm: F64) -> F64:
        """World points (N, 3) in mm -> pixels (N, 2)."""
        pts = np.asarray(points_mm, np.float64).reshape(-1, 1, 3)
        px, _ = cv2.projectPoints(pts, self.rvec, self.tvec, self.K, self.dist)
        return np.asarray(px, np.float64).reshape(-1, 2)

    def depth(self, points_mm: F64) -> F64:
        """Distance along the optical axis of world points (N, 3)."""
        p = np.asarray(points_mm, np.float64).reshape(-1, 3)
        return (p @ self.R.T + self.tvec)[:, 2]

    def rays(self, pixels: F64) -> F64:
        """Unit ray directions in world coordinates for pixels (N, 2), distortion removed."""
        norm = undistort_normalised(pixels, self.K, self.dist)
        d_cam = np.concatenate([norm, np.ones((len(norm), 1))], axis=1)
        d = d_cam @ self.R  # R^T applied to row vectors
        return d / np.linalg.norm(d, axis=1, keepdims=True)  # type: ignore[no-any-return]

    def to_json(self) -> dict[str, Any]:
        return {"K": self.K.tolist(), "dist": self.dist.tolist(), "rvec": self.rvec.tolist(),
                "tvec": self.tvec.tolist(), "size": list(self.size), "block_mm": self.block_mm}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> ViewCamera:
        return cls(np.array(doc["K"]), np.array(doc["dist"]), np.array(doc["rvec"]), np.array(doc["tvec"]),
                   (int(doc["size"][0]), int(doc["size"][1])), float(doc.get("block_mm", 22.0)))
