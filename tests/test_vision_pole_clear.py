"""Pole evidence clear of a rival's pole (vision.poles ``clear_of``; docs/vision.md, "Session 17: flags on the wrong
face"): a flag seen end-on draws its short line on the axis of its same-cell neighbour's upright pole, so the
upright spot's line test finds "its" pole there.  Points of the axis that lie on the rival's projected pole are
left out when ``clear_of`` names it.  Synthetic: a light line drawn along one spot's projected pole on a flat grey
picture."""

from __future__ import annotations

import itertools

import cv2
import numpy as np

from engine.ctrl.moves import FlagSpot
from vision.camera import ViewCamera
from vision.pieces import FLAG
from vision.poles import PoleConfig, on_rival_poles, pole_evidence, pole_line_shares, pole_pixels

S = 22.0
K = np.array([[855.0, 0.0, 640.0], [0.0, 855.0, 360.0], [0.0, 0.0, 1.0]])
UP = FlagSpot((1, -3, 2), "+z")  # plugged into the block at 1,-3,1
SIDE = FlagSpot((1, -3, 2), "-y")  # plugged into the block at 1,-2,2, pointing at a camera on -y
CFG = PoleConfig(light_only=True)


def _camera(eye: tuple[float, float, float]) -> ViewCamera:
    target = (1.5 * S, -2.5 * S, 2.5 * S)
    return ViewCamera.look_at(eye, target, K, (1280, 720), block_mm=S)


def _picture_with_pole(cam: ViewCamera, spot: FlagSpot) -> np.ndarray:
    """Flat grey with a light 3-pixel line along ``spot``'s projected pole."""
    img = np.full((720, 1280), 90, np.uint8)
    q = pole_pixels(cam, spot, FLAG, 24)
    for a, b in itertools.pairwise(q):
        cv2.line(img, (round(a[0]), round(a[1])), (round(b[0]), round(b[1])), 200, 3)
    return img


def test_a_low_camera_in_line_with_a_level_pole_sees_it_on_the_upright_axis() -> None:
    cam = _camera((1.5 * S, -2.5 * S - 330.0, 2.5 * S + 160.0))  # on the -y side, 26 deg down: SIDE seen end-on
    img = _picture_with_pole(cam, SIDE)
    before = pole_line_shares(img, cam, UP, FLAG, CFG)
    assert before is not None and before[0] >= CFG.line_share  # the false pole the rule is about
    after = pole_line_shares(img, cam, UP, FLAG, CFG, clear_of=[SIDE])
    assert after is None or after[0] < CFG.line_share
    assert not pole_evidence([img], [cam], UP, cfg=CFG, clear_of=[SIDE]).views_seen
    assert pole_evidence([img], [cam], UP, cfg=CFG).views_seen == [0]


def test_a_camera_seeing_both_axes_apart_keeps_the_true_pole() -> None:
    cam = _camera((1.5 * S + 330.0, -2.5 * S, 2.5 * S + 150.0))  # on the +x side: both poles seen side-on, apart
    img = _picture_with_pole(cam, UP)
    kept = pole_line_shares(img, cam, UP, FLAG, CFG, clear_of=[SIDE])
    assert kept is not None and kept[0] >= CFG.line_share
    # and the rival's axis shows no line of its own there
    rival = pole_line_shares(img, cam, SIDE, FLAG, CFG, clear_of=[UP])
    assert rival is None or rival[0] < CFG.line_share


def test_on_rival_poles_marks_only_points_near_the_rival() -> None:
    cam = _camera((1.5 * S + 330.0, -2.5 * S, 2.5 * S + 150.0))
    q = pole_pixels(cam, SIDE, FLAG)
    far = q + np.array([0.0, 40.0])  # the pole runs across the picture here: 40 px below it
    mid = np.array([1.5 * S, -2.5 * S, 2.5 * S])
    assert on_rival_poles(cam, q, mid, [SIDE]).all()
    assert not on_rival_poles(cam, far, mid, [SIDE]).any()
    assert not on_rival_poles(cam, q, mid, []).any()


def test_views_clear_of_unjudged_drops_only_pictures_that_cannot_judge_the_rival() -> None:
    from vision.flag_margin import views_clear_of_unjudged

    low = _camera((1.5 * S, -2.5 * S - 330.0, 2.5 * S + 160.0))  # SIDE end-on: its own axis cannot be judged
    side_on = _camera((1.5 * S + 330.0, -2.5 * S, 2.5 * S + 150.0))  # both axes apart: SIDE judged on its own
    greys = [_picture_with_pole(low, SIDE).astype(np.float32), _picture_with_pole(side_on, UP).astype(np.float32)]
    cams = [low, side_on]
    assert pole_line_shares(greys[0], low, SIDE, FLAG, CFG) is None
    assert pole_line_shares(greys[1], side_on, SIDE, FLAG, CFG) is not None
    seen = pole_evidence(greys, cams, UP, cfg=CFG).views_seen
    assert seen == [0, 1]
    assert views_clear_of_unjudged(greys, cams, UP, SIDE, seen, (), CFG) == [1]
