"""Reading the robot's tag on simulated-camera frames: position, heading, cell, confidence, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from calibration.boards import RobotTag, board_spec
from engine.motion import Heading
from vision.robot_tag import (
    BoardNotVisibleError,
    ImageRejectedError,
    RobotNotFoundError,
    RobotTracker,
    WrongBoardError,
    detect_markers,
    detect_tag_upsampled,
    fit_square,
    heading_of,
    read_robot,
    read_robot_in_image,
)
from vision.sim_camera import SimCameraSettings, SimulatedCamera

SPEC = board_spec("quirky", scenario="first-dance")


@pytest.fixture(scope="module")
def cam() -> SimulatedCamera:
    return SimulatedCamera(SPEC, RobotTag(), SimCameraSettings(seed=1))


@pytest.fixture(scope="module")
def side_cam() -> SimulatedCamera:
    # low and from the east-north-east: the tag's height matters most here
    return SimulatedCamera(SPEC, RobotTag(), SimCameraSettings(elevation_deg=40, azimuth_deg=70, seed=2, k1=-0.1))


def angle_diff(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


POSES = [(25.0, 25.0, 0.0), (137.0, 81.0, 97.0), (275.0, 225.0, 181.5), (160.0, 190.0, 271.0), (88.0, 140.0, 33.0)]


@pytest.mark.parametrize("truth", POSES)
def test_pose_within_a_few_millimetres_and_a_degree(cam: SimulatedCamera, side_cam: SimulatedCamera,
                                                    truth: tuple[float, float, float]) -> None:
    for c in (cam, side_cam):
        frame = c.frame(truth)
        r, board = read_robot_in_image(frame, SPEC, c.calibration)
        assert math.hypot(r.x_mm - truth[0], r.y_mm - truth[1]) < 2.0, (r, truth)
        assert angle_diff(r.heading_deg, truth[2]) < 1.0, (r, truth)
        assert r.cell == SPEC.cell_of_mm(truth[0], truth[1])
        assert r.heading is heading_of(truth[2])
        assert r.confidence > 0.8
        assert abs(r.side_mm - 30.0) < 1.0
        assert len(board.markers_seen) >= board.markers_total - 2  # the robot may hide one


def test_without_a_calibration_the_camera_is_estimated_from_the_board(cam: SimulatedCamera) -> None:
    truth = (137.0, 81.0, 97.0)
    r, board = read_robot_in_image(cam.frame(truth), SPEC, None)
    assert board.intrinsics == "self-estimated"
    assert math.hypot(r.x_mm - truth[0], r.y_mm - truth[1]) < 3.0
    assert angle_diff(r.heading_deg, truth[2]) < 1.5


def test_cell_and_heading_in_engine_terms(cam: SimulatedCamera) -> None:
    r, _ = read_robot_in_image(cam.frame((125.0, 225.0, 2.0)), SPEC, cam.calibration)
    assert r.cell == (2, 4)
    assert r.heading is Heading.E
    assert str(r.pose) == "2,4,E"
    doc = r.to_json()
    assert doc["cell"] == [2, 4] and doc["heading"] == "E"


def test_the_tag_height_is_accounted_for(side_cam: SimulatedCamera) -> None:
    """Reading the tag as if it lay on the board (height 0) puts the robot centimetres away from
    the camera; the measured tag size then disagrees with the printed one and confidence drops."""
    truth = (137.0, 81.0, 97.0)
    frame = side_cam.frame(truth)
    good, board = read_robot_in_image(frame, SPEC, side_cam.calibration)
    markers = detect_markers(frame, SPEC.dictionary, [230])
    flat = read_robot(markers, board, RobotTag(230, 30.0, 0.0))
    assert math.hypot(good.x_mm - truth[0], good.y_mm - truth[1]) < 2.0
    assert math.hypot(flat.x_mm - truth[0], flat.y_mm - truth[1]) > 20.0
    assert flat.side_mm > 32.0
    assert flat.confidence < 0.5 < good.confidence


def test_fit_square_recovers_a_rotated_square() -> None:
    tag = RobotTag()
    model = np.asarray(tag.corners_local_mm())
    for hdg in (0.0, 45.0, 90.0, 200.0, 359.0):
        th = math.radians(hdg)
        fwd, left = np.array([math.cos(th), math.sin(th)]), np.array([-math.sin(th), math.cos(th)])
        pts = np.array([10.0, -5.0]) + model[:, :1] * fwd + model[:, 1:] * left
        x, y, h, rms = fit_square(pts, model)
        assert (x, y) == pytest.approx((10.0, -5.0))
        assert angle_diff(h, hdg) < 1e-9
        assert rms < 1e-9


def test_heading_of_rounds_to_the_nearest_compass_point() -> None:
    # degrees counter-clockwise from east
    assert [heading_of(a).name for a in (0, 44, 46, 134, 136, 224, 226, 314, 316, -10)] == list("EENNWWSSEE")


def test_no_robot_in_view(cam: SimulatedCamera) -> None:
    with pytest.raises(RobotNotFoundError, match="robot tag 230 not seen"):
        read_robot_in_image(cam.frame(None), SPEC, cam.calibration)


def test_another_robots_tag_is_not_taken_for_ours(cam: SimulatedCamera) -> None:
    with pytest.raises(RobotNotFoundError, match="robot tag 231 not seen"):
        read_robot_in_image(cam.frame((125.0, 125.0, 0.0)), SPEC, cam.calibration, RobotTag(231))


def test_no_board_in_view(cam: SimulatedCamera) -> None:
    rng = np.random.default_rng(0)
    blank = rng.integers(60, 200, (720, 1280, 3)).astype(np.uint8)  # a cluttered table, no board
    with pytest.raises(BoardNotVisibleError, match="the quirky board is not in the picture"):
        read_robot_in_image(blank, SPEC, cam.calibration)


def test_the_wrong_games_board_is_not_found(cam: SimulatedCamera) -> None:
    bandera = board_spec("bandera")
    with pytest.raises(WrongBoardError, match="shows a quirky board"):
        read_robot_in_image(cam.frame((125.0, 125.0, 0.0)), bandera, cam.calibration)


def test_a_dark_frame_finds_nothing(cam: SimulatedCamera) -> None:
    dark = (cam.frame((125.0, 125.0, 0.0)) // 40).astype(np.uint8)
    with pytest.raises(ImageRejectedError, match="too dark"):
        read_robot_in_image(dark, SPEC, cam.calibration)


def test_the_tracker_follows_the_board_and_relocates_when_it_is_lost(
    cam: SimulatedCamera, side_cam: SimulatedCamera
) -> None:
    tracker = RobotTracker(SPEC, cam.calibration)
    for truth in POSES[:3]:
        r, _ = tracker.read(cam.frame(truth))
        full, _ = read_robot_in_image(cam.frame(truth), SPEC, cam.calibration)
        assert math.hypot(r.x_mm - truth[0], r.y_mm - truth[1]) < 2.0
        assert math.hypot(r.x_mm - full.x_mm, r.y_mm - full.y_mm) < 0.5
    assert tracker.relocates == 1
    # the camera was moved: the board's pose is solved again from its markers
    truth = POSES[3]
    r, _ = tracker.read(side_cam.frame(truth))
    assert math.hypot(r.x_mm - truth[0], r.y_mm - truth[1]) < 3.0
    # the board out of sight: the full locate stage runs again and says so
    rng = np.random.default_rng(1)
    with pytest.raises(BoardNotVisibleError):
        tracker.read(rng.integers(60, 200, (720, 1280, 3)).astype(np.uint8))
    assert tracker.relocates == 2


def test_the_tracker_reports_an_unusable_frame(cam: SimulatedCamera) -> None:
    tracker = RobotTracker(SPEC, None)
    tracker.read(cam.frame(POSES[1]))
    assert tracker.camera is not None and tracker.camera.source == "estimated from the board"
    dark = (cam.frame(POSES[1]) // 40).astype(np.uint8)
    with pytest.raises(ImageRejectedError, match="too dark"):
        tracker.read(dark)


def test_the_upsampled_search_maps_corners_back_to_the_frame(cam: SimulatedCamera) -> None:
    """The fallback for a small or blurred tag (found in the rendered fixtures: a tag at the far edge
    of the board) looks again in the board's area upsampled 2x; its corners land where a direct
    detection puts them."""
    frame = cam.frame(POSES[2])
    _, board = read_robot_in_image(frame, SPEC, cam.calibration)
    direct = detect_markers(frame, SPEC.dictionary, [230]).of(230)
    up = detect_tag_upsampled(frame, board, [230], 45.0).of(230)
    assert direct is not None and up is not None
    assert np.abs(direct - up).max() < 0.3
