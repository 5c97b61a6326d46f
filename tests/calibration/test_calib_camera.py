"""Camera intrinsics from simulated views with known intrinsics and distortion."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from calib_sim import CAM, View
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.camera import CameraCalibration, calibrate, outlier_threshold
from calibration.errors import (
    CalibrationFileError,
    ImageSizeMismatchError,
    NoBoardFoundError,
    TargetSpecError,
    TooFewViewsError,
)
from calibration.synthetic import SimCamera, project, render_view
from calibration.targets import CharucoSpec, ChessboardSpec, MatTarget, parse_target


def _check_recovered(cal: CameraCalibration, cam: SimCamera = CAM) -> None:
    for got, want in [(cal.fx, cam.fx), (cal.fy, cam.fy), (cal.cx, cam.cx), (cal.cy, cam.cy)]:
        assert abs(got - want) / want < 0.005, (got, want)
    assert cal.rms < 0.3


def test_chessboard_recovers_intrinsics(chessboard_views: list[View]) -> None:
    named = [(f"v{i}", v.image) for i, v in enumerate(chessboard_views)]
    cal = calibrate(named, ChessboardSpec.parse("9x6:25"))
    _check_recovered(cal)
    assert np.allclose(cal.dist_coeffs[:2], CAM.dist[:2], atol=0.02)
    assert len(cal.views) == len(named) and not cal.dropped_views and not cal.views_without_board


def test_charuco_recovers_intrinsics(charuco_views: list[View]) -> None:
    named = [(f"v{i}", v.image) for i, v in enumerate(charuco_views)]
    cal = calibrate(named, CharucoSpec.parse("7x5:40:30:DICT_5X5_100"))
    _check_recovered(cal)
    assert cal.board["type"] == "charuco"


def test_chessboard_corners_are_subpixel_accurate(chessboard_views: list[View]) -> None:
    target = ChessboardSpec.parse("9x6:25")
    for v in chessboard_views[:4]:
        det = target.detect(cv2.cvtColor(v.image, cv2.COLOR_BGR2GRAY))
        assert det is not None
        truth = project(target.object_points, CAM, v.rvec, v.tvec)
        err = np.linalg.norm(det.image_points - truth, axis=1)
        err_rev = np.linalg.norm(det.image_points[::-1] - truth, axis=1)  # OpenCV may start at the far end
        assert min(err.max(), err_rev.max()) < 0.25


def test_outlier_view_is_reported_and_dropped(chessboard_views: list[View]) -> None:
    # one view taken through a different lens (a zoomed, undistorted camera): it cannot fit the others
    other = SimCamera(700.0, 700.0, 300.0, 270.0, (0.25, 0.0, 0.0, 0.0, 0.0), (640, 512))
    target = ChessboardSpec.parse("9x6:25")
    v = chessboard_views[0]
    odd = render_view(target.render(3.0), other, v.rvec, v.tvec * [1, 1, 1.35], np.random.default_rng(3))
    named = [(f"v{i}", w.image) for i, w in enumerate(chessboard_views)] + [("odd-lens", odd)]
    cal = calibrate(named, target)
    assert [d.view for d in cal.dropped_views] == ["odd-lens"]
    assert "odd-lens" not in cal.views
    _check_recovered(cal)
    kept = calibrate(named, target, drop_outliers=False)
    assert "odd-lens" in kept.views and kept.rms > cal.rms


def test_outlier_threshold_is_robust() -> None:
    assert outlier_threshold([0.1, 0.11, 0.12, 0.1, 5.0]) < 1.0
    assert outlier_threshold([0.1] * 5) == 0.5  # floor: sub-pixel views are never outliers


def test_views_without_board_are_named(chessboard_views: list[View]) -> None:
    blank = np.full((512, 640, 3), 128, np.uint8)
    named = [(f"v{i}", w.image) for i, w in enumerate(chessboard_views[:5])] + [("empty.png", blank)]
    cal = calibrate(named, ChessboardSpec.parse("9x6:25"))
    assert cal.views_without_board == ("empty.png",)


def test_bad_inputs(chessboard_views: list[View]) -> None:
    target = ChessboardSpec.parse("9x6:25")
    blank = np.full((512, 640, 3), 128, np.uint8)
    with pytest.raises(NoBoardFoundError, match="not found in any image"):
        calibrate([("a", blank), ("b", blank)], target)
    with pytest.raises(TooFewViewsError, match="at least 3"):
        calibrate([("one", chessboard_views[0].image)], target)
    with pytest.raises(ImageSizeMismatchError, match="differ in size"):
        calibrate(
            [("a", chessboard_views[0].image), ("b", cv2.resize(chessboard_views[1].image, (320, 256)))],
            target,
        )
    with pytest.raises(TooFewViewsError):
        calibrate([], target)


def test_file_round_trip(tmp_path, chessboard_views: list[View]) -> None:
    cal = calibrate(
        [(f"v{i}", w.image) for i, w in enumerate(chessboard_views[:6])], ChessboardSpec.parse("9x6:25")
    )
    path = tmp_path / "cam.json"
    cal.save(path)
    doc = json.loads(path.read_text())
    for key in ("rms", "camera_matrix", "dist_coeffs", "image_size", "per_view_errors", "date", "board"):
        assert key in doc
    assert doc["board"]["spec"] == "9x6:25" and doc["image_size"] == [640, 512]
    back = CameraCalibration.load(path)
    assert np.allclose(back.camera_matrix, cal.camera_matrix, atol=1e-5)
    assert np.allclose(back.dist_coeffs, cal.dist_coeffs, atol=1e-7)
    assert back.views == cal.views
    (tmp_path / "bad.json").write_text('{"kind": "something else"}')
    with pytest.raises(CalibrationFileError):
        CameraCalibration.load(tmp_path / "bad.json")
    with pytest.raises(CalibrationFileError):
        CameraCalibration.load(tmp_path / "missing.json")


def test_scaled_calibration() -> None:
    cal = CameraCalibration(CAM.camera_matrix, CAM.dist_coeffs, CAM.size, 0.1)
    half = cal.scaled_to((320, 256))
    assert half.fx == pytest.approx(CAM.fx / 2) and half.cx == pytest.approx((CAM.cx + 0.5) / 2 - 0.5)
    with pytest.raises(CalibrationFileError, match="aspect"):
        cal.scaled_to((640, 360))


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("9x6:25", ChessboardSpec),
        ("9x6", ChessboardSpec),
        ("7x5:40:30", CharucoSpec),
        ("7x5:40:30:DICT_4X4_50:5", CharucoSpec),
    ],
)
def test_target_specs_round_trip(text: str, kind: type) -> None:
    t = kind.parse(text)
    assert kind.parse(str(t)) == t
    assert eval(repr(t)) == t


def test_parse_target_choices() -> None:
    assert isinstance(parse_target(chessboard="9x6:25"), ChessboardSpec)
    assert isinstance(parse_target(charuco="mat:A4:20"), MatTarget)
    assert isinstance(parse_target(charuco="5x5:30:20"), CharucoSpec)
    for bad in [
        dict(chessboard="9by6"),
        dict(charuco="7x5:40"),
        dict(charuco="7x5:40:50"),
        dict(charuco="7x5:40:30:DICT_NOPE"),
        dict(),
        dict(chessboard="9x6", charuco="7x5:40:30"),
        dict(chessboard="2x2:10"),
    ]:
        with pytest.raises(TargetSpecError):
            parse_target(**bad)


@settings(max_examples=60, deadline=None)
@given(
    cols=st.integers(3, 20),
    rows=st.integers(3, 20),
    sq=st.floats(1.0, 100.0, allow_nan=False),
    ratio=st.floats(0.3, 0.95),
    first=st.integers(0, 20),
)
def test_target_specs_round_trip_exactly(cols: int, rows: int, sq: float, ratio: float, first: int) -> None:
    cb = ChessboardSpec(cols, rows, sq)
    assert ChessboardSpec.parse(str(cb)) == cb
    ch = CharucoSpec(cols, rows, sq, sq * ratio, "DICT_5X5_1000", first)
    assert CharucoSpec.parse(str(ch)) == ch
