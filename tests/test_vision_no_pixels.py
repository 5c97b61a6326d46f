"""Nothing to trace is no error (session 19, held19 scene_028 with nine pictures).

OpenCV 5's ``cv2.undistortPoints`` returns ``None`` for zero points, so ``ViewCamera.rays`` on a picture with no
pixels left to trace raised ``AttributeError: 'NoneType' object has no attribute 'reshape'`` -- a traceback from
``boardside ctrl score-images`` with nine pictures.  Every caller now goes through
``calibration.camera.undistort_normalised`` (the CLI's answer to any such bug: tests/test_cli_os_errors.py).
"""

from __future__ import annotations

import numpy as np

from calibration.camera import undistort_normalised
from vision.camera import ViewCamera

K = np.array([[900.0, 0.0, 640.0], [0.0, 900.0, 360.0], [0.0, 0.0, 1.0]])
DIST = np.array([-0.12, 0.05, 0.0, 0.0, 0.0])


def test_no_pixels_give_no_normalised_points() -> None:
    out = undistort_normalised(np.zeros((0, 2)), K, DIST)
    assert out.shape == (0, 2)


def test_no_pixels_give_no_rays() -> None:
    cam = ViewCamera.look_at((400.0, -300.0, 350.0), (33.0, 33.0, 0.0), K, (1280, 720), dist=DIST)
    assert cam.rays(np.zeros((0, 2))).shape == (0, 3)


def test_rays_unchanged_for_pixels() -> None:
    cam = ViewCamera.look_at((400.0, -300.0, 350.0), (33.0, 33.0, 0.0), K, (1280, 720), dist=DIST)
    px = np.array([[640.0, 360.0], [100.0, 650.0], [1200.0, 40.0]])
    d = cam.rays(px)
    assert d.shape == (3, 3)
    assert np.allclose(np.linalg.norm(d, axis=1), 1.0)
    # each ray, from the camera, reprojects onto its own pixel
    back = cam.project(cam.center[None, :] + 500.0 * d)
    assert np.allclose(back, px, atol=0.05)

