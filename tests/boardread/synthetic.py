"""Synthetic (simulated) pictures of a flat printed board: ``render_board`` warped by a known camera.

Used only to test the locate stage against an exactly known pose; the benchmark and the main reading
tests use the rendered-photograph fixtures (``fixtures/boards/``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from calibration.boards import BoardSpec, render_board
from calibration.synthetic import SimCamera, look_at, render_view

F64 = npt.NDArray[np.float64]
U8 = npt.NDArray[np.uint8]

#: the simulated 1280x720 camera (barrel distortion like a webcam)
SIM_CAM = SimCamera(1000.0, 1000.0, 639.5, 359.5, (-0.10, 0.04, 0.0, 0.0, 0.0), (1280, 720))


@dataclass(frozen=True)
class _Target:
    image: U8
    plane_to_pixel: F64


@dataclass(frozen=True)
class SyntheticView:
    image: U8
    rvec: F64
    tvec: F64
    cam: SimCamera


def synthetic_view(spec: BoardSpec, elevation_deg: float, azimuth_deg: float, distance_mm: float,
                   seed: int = 0, cam: SimCamera = SIM_CAM, brightness: float = 1.0) -> SyntheticView:
    """A simulated photograph of the bare printed board (BGR) from the given direction."""
    bi = render_board(spec, 3.0)
    x0, _, _, y1 = bi.region_mm
    k = bi.px_per_mm
    m = np.array([[k, 0.0, -x0 * k - 0.5], [0.0, -k, y1 * k - 0.5], [0.0, 0.0, 1.0]])
    w, h = spec.grid_mm
    target = np.array([w / 2, h / 2, 0.0])
    e, a = np.radians(elevation_deg), np.radians(azimuth_deg)
    eye = target + distance_mm * np.array([np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)])
    rvec, tvec = look_at(eye, target, [0.0, 0.0, -1.0])
    rng = np.random.default_rng(seed)
    img = render_view(_Target(np.ascontiguousarray(bi.image[..., ::-1]), m), cam, rvec, tvec, rng)
    if brightness != 1.0:
        img = np.clip(img.astype(np.float32) * brightness, 0, 255).astype(np.uint8)
    return SyntheticView(img, rvec, tvec, cam)
