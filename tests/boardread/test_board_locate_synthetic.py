"""The locate stage on *synthetic* pictures: the printed board (``render_board``) warped through a
known simulated camera, so the recovered pose can be compared with the exact one."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.boards import board_spec
from calibration.camera import CameraCalibration
from tests.boardread.synthetic import SIM_CAM, synthetic_view
from vision.board_locate import BoardNotVisibleError, WrongBoardError, locate_board
from vision.locate import ImageRejectedError

CAM = CameraCalibration(SIM_CAM.camera_matrix, SIM_CAM.dist_coeffs, SIM_CAM.size, 0.0, source="synthetic")


@pytest.mark.parametrize("game", ["bandera", "gridopolis"])
def test_pose_of_a_synthetic_view_with_calibration(game: str) -> None:
    spec = board_spec(game)
    v = synthetic_view(spec, 52, -60, 720, seed=3)
    pose = locate_board(v.image, spec, CAM)
    assert pose.intrinsics == "calibration"
    assert len(pose.markers_seen) >= 8
    assert np.linalg.norm(pose.tvec - v.tvec) < 2.0  # mm
    assert np.degrees(np.linalg.norm(pose.rvec - v.rvec)) < 0.3


def test_self_estimated_intrinsics_are_close() -> None:
    spec = board_spec("bandera")
    v = synthetic_view(spec, 48, -100, 700, seed=5)
    pose = locate_board(v.image, spec, None)
    assert pose.intrinsics == "self-estimated"
    assert abs(pose.K[0, 0] - SIM_CAM.fx) / SIM_CAM.fx < 0.05
    # a point on the board lands within a pixel or two of where the true camera puts it
    pts = np.array([[0.0, 0.0, 0.0], [320.0, 224.0, 0.0], [160.0, 100.0, 40.0]])
    import cv2

    truth, _ = cv2.projectPoints(pts, v.rvec, v.tvec, SIM_CAM.camera_matrix, SIM_CAM.dist_coeffs)
    assert np.abs(pose.project(pts) - truth.reshape(-1, 2)).max() < 3.0


def test_markers_covered_by_a_hand_still_give_the_pose() -> None:
    spec = board_spec("bandera")
    v = synthetic_view(spec, 55, -80, 700, seed=7)
    img = v.image.copy()
    full = locate_board(img, spec, CAM)
    # cover the whole left half of the picture (half the markers) with a skin-coloured patch
    img[:, : img.shape[1] // 2] = (120, 150, 200)
    pose = locate_board(img, spec, CAM)
    assert len(pose.markers_seen) < len(full.markers_seen)
    assert np.linalg.norm(pose.tvec - v.tvec) < 4.0


def test_wrong_game_board_is_named() -> None:
    v = synthetic_view(board_spec("gridopolis"), 55, -80, 800, seed=1)
    with pytest.raises(WrongBoardError, match=r"shows a gridopolis board .* not the bandera board"):
        locate_board(v.image, board_spec("bandera"), CAM, name="table.jpg")


def test_no_board_in_the_picture() -> None:
    rng = np.random.default_rng(0)
    img = np.clip(rng.normal(120, 30, (720, 1280, 3)), 0, 255).astype(np.uint8)
    import cv2

    img = np.asarray(cv2.GaussianBlur(img, (0, 0), 1.0), np.uint8)
    with pytest.raises(BoardNotVisibleError, match="not in the picture") as exc:
        locate_board(img, board_spec("bandera"), CAM, name="empty.jpg")
    # the board may be there with unreadable markers: the message says what usually causes that
    assert "'empty.jpg'" in str(exc.value)
    assert "markers could not be read: hold the camera still (motion blur)" in str(exc.value)


def test_too_dark_is_rejected_with_the_reason() -> None:
    spec = board_spec("bandera")
    v = synthetic_view(spec, 55, -80, 700, seed=2, brightness=0.08)
    with pytest.raises(ImageRejectedError, match="too dark"):
        locate_board(v.image, spec, CAM, name="dark.jpg")
