"""``boardside board print-tag``: the robot's tag sheet at true size."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from boardside.cli import main
from calibration.boards import BoardSpecError, RobotTag
from calibration.tag_print import render_tag_sheet
from vision.robot_tag import detect_markers


def test_the_printed_tag_is_true_size_and_readable() -> None:
    tag = RobotTag(233, 40.0, 50.0)
    page, (w, h) = render_tag_sheet(tag, "A4", 300.0)
    assert (w, h) == (210.0, 297.0)
    assert page.shape[:2] == (round(297 / 25.4 * 300), round(210 / 25.4 * 300))
    found = detect_markers(page, tag.dictionary, [233])
    c = found.of(233)
    assert c is not None
    side_mm = float(np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1).mean()) / (300 / 25.4)
    assert side_mm == pytest.approx(40.0, abs=0.2)
    # printed upright: the marker's top-left corner is at the top-left (the front is up the page)
    assert c[0][0] < c[1][0] and c[0][1] < c[3][1]


def test_cli_writes_pdf_and_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["board", "print-tag", "--id", "240", "-o", str(tmp_path / "t.pdf"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["tag"]["id"] == 240 and (tmp_path / "t.pdf").read_bytes().startswith(b"%PDF")
    assert main(["board", "print-tag", "-o", str(tmp_path / "t.png"), "--dpi", "100"]) == 0
    assert (tmp_path / "t.png").read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--id", "12"], "not in the reserved range 230..249"),
        (["--tag-mm", "1"], "robot tag size must be 5..200 mm"),
        (["--paper", "B5"], "unknown paper 'B5'"),
        (["-o", "x.svg"], "must be .pdf or .png"),
    ],
)
def test_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], needle: str) -> None:
    args = [str(tmp_path / a) if a.endswith(".svg") else a for a in args]
    assert main(["board", "print-tag", *args]) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1


def test_bad_dpi() -> None:
    with pytest.raises(BoardSpecError, match="dpi must be between 50 and 1200"):
        render_tag_sheet(RobotTag(), "A4", 10.0)


FIX = Path(__file__).resolve().parents[2] / "fixtures" / "boards"


def _scene(n: str) -> tuple[Path, dict[str, object]]:
    doc = json.loads((FIX / "quirky" / f"scene_{n}.json").read_text())
    return FIX / "quirky" / f"scene_{n}.jpg", doc


def _scenario(doc: dict[str, object]) -> str:
    s = str(doc["scenario"])
    return str(FIX / s) if s.endswith(".toml") else s


def test_read_robot_from_a_photo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    img, doc = _scene("003")
    robot = doc["robot"]
    assert isinstance(robot, dict)
    out = tmp_path / "a.png"
    rc = main(["board", "read-robot", str(img), "-s", _scenario(doc), "--tag-id", str(robot["tag"]["id"]),
               "--annotate", str(out), "--json"])
    assert rc == 0
    got = json.loads(capsys.readouterr().out)
    assert got["robot"]["cell"] == robot["cell"] and got["robot"]["heading"] == robot["heading"]
    assert abs(got["robot"]["x_mm"] - robot["x_mm"]) < 3 and abs(got["robot"]["y_mm"] - robot["y_mm"]) < 3
    assert out.read_bytes().startswith(b"\x89PNG")


def test_read_robot_not_seen_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    img, doc = _scene("002")  # the tag is hidden in this scene
    assert main(["board", "read-robot", str(img), "-s", _scenario(doc)]) == 1
    assert "not seen" in capsys.readouterr().out


def test_read_robot_on_another_games_board(capsys: pytest.CaptureFixture[str]) -> None:
    img = FIX / "bandera" / "scene_000.jpg"
    assert main(["board", "read-robot", str(img), "-s", "first-dance"]) == 2
    err = capsys.readouterr().err
    assert "bandera board" in err and len(err.strip().splitlines()) == 1
