"""The CLI: boardside mat print / calibrate camera / pose / self / colours, and their bad inputs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import cv2
import numpy as np
import pytest
from calib_sim import View

from boardside.cli import main
from calibration.mat import PAPER_SIZES_MM


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code: int, err: str, pattern: str) -> None:
    assert code == 2
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("boardside: error:"), err
    assert re.search(pattern, lines[0]), lines[0]
    assert "Traceback" not in err


def _pdf_page_mm(path: Path) -> tuple[float, float]:
    box = re.search(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]", path.read_bytes())
    assert box is not None
    return float(box.group(1)) / 72 * 25.4, float(box.group(2)) / 72 * 25.4


@pytest.mark.parametrize("paper", sorted(PAPER_SIZES_MM))
def test_mat_print_pdf_has_true_paper_size(capsys, tmp_path: Path, paper: str) -> None:
    out = tmp_path / "mat.pdf"
    code, stdout, _ = run(
        capsys,
        "mat",
        "print",
        "--game",
        "ctrl",
        "--paper",
        paper,
        "--block-mm",
        "20",
        "--dpi",
        "100",
        "-o",
        out,
    )
    assert code == 0 and out.exists() and "wrote" in stdout
    w, h = _pdf_page_mm(out)
    assert (w, h) == pytest.approx(PAPER_SIZES_MM[paper], abs=0.05)
    spec = json.loads((tmp_path / "mat.json").read_text())
    assert spec["paper"] == paper and spec["block_mm"] == 20


def test_mat_print_png_at_300_dpi(capsys, tmp_path: Path) -> None:
    from PIL import Image

    out = tmp_path / "mat.png"
    code, stdout, _ = run(capsys, "mat", "print", "--paper", "A4", "-o", out, "--json")
    assert code == 0
    doc = json.loads(stdout)
    assert doc["mat"]["paper"] == "A4" and doc["layout"]["footprint_world"] == [0.0, 0.0, 66.0, 66.0]
    with Image.open(out) as im:
        assert im.size == (round(297 / 25.4 * 300), round(210 / 25.4 * 300))
        assert im.info["dpi"] == pytest.approx((300, 300), abs=0.01)


def test_mat_print_bad_inputs(capsys, tmp_path: Path) -> None:
    assert_one_line_error(
        *run(capsys, "mat", "print", "--paper", "A4", "--block-mm", "40", "-o", tmp_path / "m.pdf")[::2],
        "does not fit",
    )
    assert_one_line_error(
        *run(capsys, "mat", "print", "--paper", "A5", "-o", tmp_path / "m.pdf")[::2], "unknown paper 'A5'"
    )
    assert_one_line_error(*run(capsys, "mat", "print", "-o", tmp_path / "m.svg")[::2], r"\.pdf or \.png")


@pytest.fixture(scope="module")
def board_dir(tmp_path_factory, chessboard_views: list[View]) -> Path:
    d = tmp_path_factory.mktemp("boards")
    for i, v in enumerate(chessboard_views[:8]):
        cv2.imwrite(str(d / f"view{i:02d}.png"), v.image)
    cv2.imwrite(str(d / "view99-empty.png"), np.full((512, 640, 3), 120, np.uint8))
    return d


def test_calibrate_camera_from_a_folder(capsys, tmp_path: Path, board_dir: Path) -> None:
    out = tmp_path / "cam.json"
    code, stdout, _ = run(
        capsys, "calibrate", "camera", board_dir, "--chessboard", "9x6:25", "-o", out, "--json"
    )
    assert code == 0
    doc = json.loads(stdout)
    saved = json.loads(out.read_text())
    assert doc["camera_matrix"] == saved["camera_matrix"]
    for key in ("rms", "camera_matrix", "dist_coeffs", "image_size", "per_view_errors", "date", "board"):
        assert key in saved
    assert saved["image_size"] == [640, 512] and saved["rms"] < 0.3
    assert [Path(v).name for v in saved["views_without_board"]] == ["view99-empty.png"]
    assert len(saved["per_view_errors"]) == len(saved["views"]) == 8
    code, stdout, _ = run(capsys, "calibrate", "camera", board_dir, "--chessboard", "9x6:25", "-o", out)
    assert code == 0 and "board not found in 1: " in stdout and "view99-empty.png" in stdout


def test_calibrate_camera_bad_inputs(capsys, tmp_path: Path, board_dir: Path) -> None:
    empty = board_dir / "view99-empty.png"
    one = board_dir / "view00.png"
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), np.full((256, 320, 3), 120, np.uint8))
    junk = tmp_path / "junk.jpg"
    junk.write_text("not a picture")
    out = tmp_path / "cam.json"
    cb = ("--chessboard", "9x6:25", "-o", out)
    assert_one_line_error(
        *run(capsys, "calibrate", "camera", empty, empty, *cb)[::2], "not found in any image"
    )
    assert_one_line_error(*run(capsys, "calibrate", "camera", one, *cb)[::2], "at least 3 views")
    assert_one_line_error(*run(capsys, "calibrate", "camera", one, small, *cb)[::2], "differ in size")
    assert_one_line_error(*run(capsys, "calibrate", "camera", one, junk, *cb)[::2], "cannot decode image")
    assert_one_line_error(
        *run(capsys, "calibrate", "camera", tmp_path / "nope.png", *cb)[::2], "image not found"
    )
    assert_one_line_error(
        *run(capsys, "calibrate", "camera", one, "--chessboard", "9by6", "-o", out)[::2], "9by6"
    )
    assert_one_line_error(*run(capsys, "calibrate", "camera", one, "-o", out)[::2], "exactly one target")
    assert not out.exists()  # nothing half-written


def test_calibrate_camera_live_without_a_device(capsys, tmp_path: Path) -> None:
    code, _, err = run(
        capsys, "calibrate", "camera", "--camera", "7", "--chessboard", "9x6", "-o", tmp_path / "c.json"
    )
    assert_one_line_error(code, err, "cannot open camera 7")


@pytest.mark.hardware(device="camera")
def test_live_camera_opens(pytestconfig) -> None:  # pragma: no cover - needs a real camera
    from calibration.live import open_camera

    cap = open_camera(int(pytestconfig.getoption("--camera")))
    ok, frame = cap.read()
    cap.release()
    assert ok and frame is not None


@pytest.fixture(scope="module")
def mat_dir(tmp_path_factory, mat_views: list[View]) -> Path:
    d = tmp_path_factory.mktemp("mats")
    for i, v in enumerate(mat_views):
        cv2.imwrite(str(d / f"mat{i}.png"), v.image)
    return d


def test_calibrate_self_pose_and_colours(capsys, tmp_path: Path, mat_dir: Path) -> None:
    cam = tmp_path / "cam.json"
    code, stdout, err = run(capsys, "calibrate", "self", mat_dir, "--mat", "A3:22", "-o", cam)
    assert code == 0, err
    cal = json.loads(cam.read_text())
    assert "self-calibration" in cal["source"] and cal["mat"]["paper"] == "A3"
    assert cal["camera_matrix"][0][0] == pytest.approx(1000.0, rel=0.01)

    pose_file, picture = tmp_path / "pose.json", tmp_path / "pose.png"
    code, stdout, err = run(
        capsys,
        "calibrate",
        "pose",
        mat_dir / "mat0.png",
        "--mat",
        "A3:22",
        "-c",
        cam,
        "-o",
        pose_file,
        "--annotate",
        picture,
    )
    assert code == 0, err
    assert "pose good" in stdout and picture.exists()
    pose = json.loads(pose_file.read_text())
    assert pose["facing_side"] == "-y" and pose["quality"] == "good" and pose["corners_seen"] >= 20

    colours = tmp_path / "colours.json"
    code, stdout, err = run(
        capsys,
        "calibrate",
        "colours",
        mat_dir / "mat0.png",
        "--mat",
        "A3:22",
        "-c",
        cam,
        "-o",
        colours,
        "--json",
    )
    assert code == 0, err
    model = json.loads(colours.read_text())
    assert model["classes"]["white"]["source"] == "mat" and model["mat"]["paper"] == "A3"
    assert_one_line_error(
        *run(capsys, "calibrate", "colours", mat_dir / "mat0.png", "-o", colours, "--place", "purple:1,2,0")[
            ::2
        ],
        "unknown colour class 'purple'",
    )
    assert_one_line_error(
        *run(capsys, "calibrate", "colours", mat_dir / "mat0.png", "-o", colours, "--place", "blue:1,2")[::2],
        "cannot read --place",
    )


def test_pose_bad_inputs(capsys, tmp_path: Path) -> None:
    blank = tmp_path / "table.png"
    cv2.imwrite(str(blank), np.full((720, 1280, 3), 90, np.uint8))
    assert_one_line_error(*run(capsys, "calibrate", "pose", blank)[::2], "not found")
    assert_one_line_error(*run(capsys, "calibrate", "pose", blank, "--mat", "B5")[::2], "unknown paper 'B5'")
    bad = tmp_path / "cam.json"
    bad.write_text("{}")
    assert_one_line_error(
        *run(capsys, "calibrate", "pose", blank, "-c", bad)[::2], "not a Boardside camera calibration"
    )
