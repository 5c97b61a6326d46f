"""Session 17, Captura la Bandera: the thin-line (pole / edge-on banner) measurement of
benchmarks/bandera_pole_lines.py (docs/boards_vision.md, "Session 17: edge-on banners"; a royal tower is two
cubes with a pole and banner on top, docs/rules/bandera.md, section 3).  Synthetic pictures: a thin line drawn
where a pole on a tower's top projects is found there; a blank picture and a wide bar (a character's body, a
cube's side) give no line."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from benchmarks.bandera_pole_lines import auc, lab_image, pole_line
from calibration.boards import board_spec
from vision.board_locate import BoardPose

# a development render's camera (bdev bandera scene_000: 35 degrees up, 520 mm away), no lens distortion
_RVEC = np.array([2.17491698, -0.20849927, 0.13584614])
_TVEC = np.array([-143.1978, 70.7109, 416.6976])
_K = np.array([[1105.2, 0.0, 638.6], [0.0, 1105.9, 365.4], [0.0, 0.0, 1.0]])


def _pose() -> BoardPose:
    return BoardPose(board_spec("bandera"), _K, np.zeros(5), _RVEC, _TVEC, (1280, 720), (), (), 0.0, "calibration")


def _picture(pose: BoardPose, at: tuple[float, float, float], thickness_mm: float) -> np.ndarray:
    """A grey picture with a dark vertical band, ``thickness_mm`` wide, standing at ``at`` up to 30 mm."""
    img = np.full((720, 1280, 3), 170, np.uint8)
    x, y, z = at
    if thickness_mm > 0:
        p = pose.project(np.array([[x, y, z], [x, y, z + 30.0], [x + 1.0, y, z]]))
        px_per_mm = float(np.hypot(*(p[2] - p[0])))
        cv2.line(img, tuple(round(float(v)) for v in p[0]), tuple(round(float(v)) for v in p[1]), (60, 60, 60),
                 max(1, round(thickness_mm * px_per_mm)))
    return img


def test_a_thin_line_on_the_top_is_found_where_it_stands() -> None:
    pose = _pose()
    cx, cy = pose.spec.cell_centre_mm(9, 3)
    top = 44.0
    line = pole_line(lab_image(_picture(pose, (cx + 5.0, cy - 3.0, top), 2.2)), pose, cx, cy, top)
    assert line.score > 15.0, line
    # (places along the line of sight project onto the same line: only the place across it is told)
    cam = pose.camera_position
    sight = np.array([cx - cam[0], cy - cam[1]]) / np.hypot(cx - cam[0], cy - cam[1])
    across = float(np.dot(np.array(line.at_mm) - np.array([5.0, -3.0]), [-sight[1], sight[0]]))
    assert abs(across) <= 1.0, (line, across)
    blank = pole_line(lab_image(_picture(pose, (cx, cy, top), 0.0)), pose, cx, cy, top)
    assert blank.score < 1.0, blank
    # a band as wide as a character's body: its sides are edges, not a line
    wide = pole_line(lab_image(_picture(pose, (cx + 5.0, cy - 3.0, top), 9.0)), pose, cx, cy, top)
    assert wide.score < 0.3 * line.score, (wide, line)


def test_bad_input_is_named() -> None:
    pose = _pose()
    with pytest.raises(ValueError, match=r"width_mm=-1\.0"):
        pole_line(lab_image(_picture(pose, (0.0, 0.0, 44.0), 0.0)), pose, 0.0, 0.0, 44.0, width_mm=-1.0)
    with pytest.raises(ValueError, match="shape"):
        lab_image(np.zeros((4, 4), np.uint8))
    assert auc([2.0, 3.0], [1.0]) == 1.0 and auc([1.0], [1.0]) == 0.5
