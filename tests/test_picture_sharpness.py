"""The picture check's blur measure (``vision.locate.edge_sharpness``, session 7, issues #5 and #9):
sensor noise does not make a blurred picture pass, and a picture whose markers a blur made
unreadable is rejected as blurred, not as "not in the picture".

Rendered fixture views (no motion blur in their truth) blurred along a line and given sensor-like
noise here.  Each test would fail with the measure used before (the variance of the Laplacian of
the half-size picture, floor 25), whose value the noise inflates: it is computed alongside."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from boardside.fixtures_render.camera import truth_calibration
from calibration.boards import BoardSpec
from calibration.camera import read_image
from calibration.mat import MatSpec
from vision.board_locate import locate_board
from vision.locate import ImageRejectedError, LocateConfig, check_image, edge_sharpness, locate

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
U8 = npt.NDArray[np.uint8]


def motion_blur(img: U8, length_px: int, angle_deg: float) -> U8:
    """A straight motion blur of ``length_px`` pixels at ``angle_deg``."""
    n = length_px | 1
    k = np.zeros((n, n), np.float32)
    c = n // 2
    dx = np.cos(np.radians(angle_deg)) * (length_px - 1) / 2
    dy = np.sin(np.radians(angle_deg)) * (length_px - 1) / 2
    cv2.line(k, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1)
    return np.asarray(cv2.filter2D(img, -1, k / k.sum()), np.uint8)


def sensor_noise(img: U8, sigma: float, seed: int = 0) -> U8:
    """Grey-level noise of ``sigma`` (a high ISO gain in dim light)."""
    rng = np.random.default_rng(seed)
    noise = rng.normal(0.0, sigma, (*img.shape[:2], 1))
    return np.asarray(np.clip(img.astype(np.float64) + noise, 0, 255), np.uint8)


def laplacian_sharpness(img: U8) -> float:
    """The measure ``check_image`` used before session 7."""
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    small = cv2.resize(grey, (grey.shape[1] // 2, grey.shape[0] // 2), interpolation=cv2.INTER_AREA)
    return float(cv2.Laplacian(small, cv2.CV_64F).var())


def grey_of(img: U8) -> U8:
    return np.asarray(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), np.uint8)


def test_sensor_noise_does_not_pass_a_blurred_mat_view() -> None:
    view = read_image(FIXTURES / "ctrl" / "scene_001" / "top.jpg")  # rendered without motion blur
    blurred = sensor_noise(motion_blur(view, 14, 30.0), 12.0)
    assert laplacian_sharpness(blurred) > 10 * 25  # the old measure: the noise makes it look sharp
    with pytest.raises(ImageRejectedError,
                       match=r"'top.jpg' is blurred \(edge sharpness 0\.\d\d < 0\.25\): hold still"):
        check_image(blurred, "top.jpg")


def test_sensor_noise_leaves_the_measure_alone() -> None:
    view = read_image(FIXTURES / "ctrl" / "scene_001" / "top.jpg")
    for img in (view, motion_blur(view, 9, 120.0)):
        noisy = sensor_noise(img, 12.0, seed=1)
        assert laplacian_sharpness(noisy) > 1.5 * laplacian_sharpness(img)  # the old measure moves
        assert abs(edge_sharpness(grey_of(noisy)) - edge_sharpness(grey_of(img))) < 0.03
    check_image(sensor_noise(view, 12.0), "top.jpg")  # a sharp noisy picture is not rejected
    # and the measure falls with the blur's length whatever its direction
    for angle in (0.0, 30.0, 90.0, 135.0):
        values = [edge_sharpness(grey_of(motion_blur(view, n, angle))) for n in (1, 7, 11, 15)]
        assert values == sorted(values, reverse=True)


def test_a_blurred_mat_view_whose_markers_cannot_be_read_is_called_blurred() -> None:
    # a 9 px motion blur in a noisy picture: not blurred enough to be rejected before reading, but
    # no marker of the mat can be read; the user is told to hold still, not that the mat is missing
    view = sensor_noise(motion_blur(read_image(FIXTURES / "ctrl" / "scene_003" / "px.jpg"), 9, 30.0), 12.0)
    check_image(view, "px.jpg")
    with pytest.raises(ImageRejectedError, match=r"'px.jpg' is blurred .*no marker of the mat could be read: "
                                                 r"hold the camera still"):
        locate(view, "px.jpg", MatSpec(), None)


def test_a_blurred_mat_view_with_one_marker_read_is_called_blurred() -> None:
    # a 9 px motion blur at 90 degrees leaves one marker of the mat readable (too few for a pose):
    # the user is told the picture is blurred, not only that "too little of the mat is visible"
    # (session 9: two held-out renders with 6.7 px of motion blur were rejected that way)
    view = sensor_noise(motion_blur(read_image(FIXTURES / "ctrl" / "scene_003" / "px.jpg"), 9, 90.0), 12.0)
    check_image(view, "px.jpg")
    with pytest.raises(ImageRejectedError, match=r"'px.jpg' is blurred .*one marker.*could be read: "
                                                 r"hold the camera still"):
        locate(view, "px.jpg", MatSpec(), truth_calibration(
            json.loads((FIXTURES / "ctrl" / "scene_003" / "px.json").read_text())["camera"]))


def test_a_blurred_noisy_board_picture_is_rejected_as_blurred() -> None:
    doc = json.loads((FIXTURES / "boards" / "gridopolis" / "scene_001.json").read_text())
    c = doc["camera"]
    cam = truth_calibration(c)
    img = sensor_noise(motion_blur(read_image(FIXTURES / "boards" / "gridopolis" / "scene_001.jpg"), 14, 30.0), 12.0)
    assert laplacian_sharpness(img) > 10 * 25
    with pytest.raises(ImageRejectedError, match=r"'scene_001.jpg' is blurred .*hold still"):
        locate_board(img, BoardSpec.from_json(doc["board"]), cam, name="scene_001.jpg")


def test_tiny_and_flat_pictures() -> None:
    assert edge_sharpness(np.full((2, 2), 100, np.uint8)) == 0.0
    assert edge_sharpness(np.full((720, 1280), 100, np.uint8)) == 0.0  # no edge at all
    with pytest.raises(ImageRejectedError, match="is blurred"):
        check_image(np.full((720, 1280), 100, np.uint8), "grey.jpg")


@pytest.mark.slow
def test_every_rendered_fixture_view_passes_with_a_margin() -> None:
    """No fixture view is rejected as blurred (the renders' motion blur reaches 7 px; every view of
    them is located today), with 20 % to spare on the threshold.  The CTRL low views (session 11) are
    not rejected either, but 4 of the 160 have less than 20 % to spare (0.26-0.29 against 0.25)."""
    cfg = LocateConfig()
    paths = sorted((FIXTURES / "ctrl").glob("scene_*/*.jpg")) + sorted((FIXTURES / "boards").glob("*/scene_*.jpg"))
    assert len(paths) >= 390
    for p in paths:
        grey = grey_of(read_image(p))
        if grey.shape != (720, 1280):
            grey = np.asarray(cv2.resize(grey, (1280, 720), interpolation=cv2.INTER_AREA), np.uint8)
        margin = 1.0 if p.stem.endswith("_low") else 1.2
        assert edge_sharpness(grey) >= margin * cfg.min_sharpness, p


def test_a_blurred_board_picture_with_one_marker_read_is_called_blurred() -> None:
    # bandera with a 14 px blur: one marker read, not enough for a pose; the reason is the blur (before
    # session 7: "too little of the bandera board is visible")
    doc = json.loads((FIXTURES / "boards" / "bandera" / "scene_001.json").read_text())
    c = doc["camera"]
    cam = truth_calibration(c)
    img = sensor_noise(motion_blur(read_image(FIXTURES / "boards" / "bandera" / "scene_001.jpg"), 14, 30.0), 12.0)
    check_image(img, "scene_001.jpg")
    with pytest.raises(ImageRejectedError, match=r"'scene_001.jpg' is blurred \(edge sharpness 0\.\d\d < 0\.45\): "
                                                 r"only marker \d+ of the bandera board could be read"):
        locate_board(img, BoardSpec.from_json(doc["board"]), cam, name="scene_001.jpg")
