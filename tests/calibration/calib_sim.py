"""Simulated (rendered) camera views for the calibration tests."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from calibration.mat import MatSpec
from calibration.synthetic import SimCamera, look_at, project, render_view
from calibration.targets import CharucoSpec, ChessboardSpec, MatTarget

#: the simulated 640x512 camera to recover: off-centre principal point, strong barrel distortion
CAM = SimCamera(520.0, 522.0, 318.0, 258.0, (-0.28, 0.09, 0.0005, -0.0004, -0.01), (640, 512))
#: the simulated 1280x720 table camera used for pose
TABLE_CAM = SimCamera(1000.0, 1000.0, 639.5, 359.5, (-0.08, 0.05, 0.0, 0.0, 0.0), (1280, 720))


@dataclass
class View:
    image: npt.NDArray[np.uint8]
    rvec: npt.NDArray[np.float64]
    tvec: npt.NDArray[np.float64]


def board_views(target: ChessboardSpec | CharucoSpec, centre: np.ndarray, n: int, seed: int) -> list[View]:
    ti = target.render(3.0)
    rng = np.random.default_rng(seed)
    views: list[View] = []
    while len(views) < n:
        th = np.radians(rng.uniform(10, 45))
        ph = rng.uniform(0, 2 * np.pi)
        d = rng.uniform(300, 480)
        eye = centre + d * np.array([np.sin(th) * np.cos(ph), np.sin(th) * np.sin(ph), -np.cos(th)])
        rv, tv = look_at(eye, centre + rng.normal(0, 15, 3) * [1, 1, 0], [0, 1, 0], rng.uniform(-30, 30))
        if isinstance(target, ChessboardSpec):
            px = project(target.object_points, CAM, rv, tv)
            if not ((px[:, 0] > 8) & (px[:, 0] < 632) & (px[:, 1] > 8) & (px[:, 1] < 504)).all():
                continue
        views.append(View(render_view(ti, CAM, rv, tv, rng, blur_sigma=0.6, noise_sigma=2.0), rv, tv))
    return views


def mat_view(
    spec: MatSpec, rng: np.random.Generator, *, elevation=(30, 55), azimuth=(-120, -60), distance=(520, 650)
) -> View:
    ti = MatTarget(spec).render(3.0)
    th = np.radians(90 - rng.uniform(*elevation))
    ph = np.radians(rng.uniform(*azimuth))
    d = rng.uniform(*distance)
    centre = np.array([1.5 * spec.block_mm, 1.5 * spec.block_mm, 0.0])
    eye = centre + d * np.array([np.sin(th) * np.cos(ph), np.sin(th) * np.sin(ph), np.cos(th)])
    rv, tv = look_at(eye, centre + rng.normal(0, 10, 3) * [1, 1, 0], [0, 0, -1], rng.uniform(-5, 5))
    return View(render_view(ti, TABLE_CAM, rv, tv, rng), rv, tv)


def look_at_moved(
    rvec: np.ndarray, tvec: np.ndarray, shift_mm: tuple[float, float, float], turn_deg: float
) -> tuple[np.ndarray, np.ndarray]:
    """Pose of a camera moved by ``shift_mm`` (camera axes) and turned ``turn_deg`` about its y axis."""
    import cv2

    r, _ = cv2.Rodrigues(np.asarray(rvec, np.float64))
    a = np.radians(turn_deg)
    turn = np.array([[np.cos(a), 0, np.sin(a)], [0, 1, 0], [-np.sin(a), 0, np.cos(a)]])
    r2 = turn @ r
    t2 = turn @ np.asarray(tvec, np.float64) - np.asarray(shift_mm)
    rv2, _ = cv2.Rodrigues(r2)
    return rv2.reshape(3), t2
