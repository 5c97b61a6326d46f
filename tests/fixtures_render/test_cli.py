"""``boardside fixtures`` command line: listing, bad input, checking."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from boardside.cli import main


def test_list_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["fixtures", "list", "--root", str(tmp_path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    names = {s["set"] for s in doc["sets"]}
    assert {"ctrl", "calib_webcam", "calib_phone"} <= names
    assert all(s["views_rendered"] == 0 for s in doc["sets"])


def test_unknown_set_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fixtures", "manifest", "chess"]) == 2
    err = capsys.readouterr().err
    assert "unknown fixture set 'chess'" in err and len(err.strip().splitlines()) == 1


def test_bad_scene_list_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fixtures", "render", "ctrl", "--scenes", "1-x"]) == 2
    assert "--scenes expects" in capsys.readouterr().err


def test_check_reports_an_undecodable_image(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    scene = tmp_path / "calib_x" / "scene_000"
    scene.mkdir(parents=True)
    (scene / "charuco.jpg").write_bytes(b"not a jpeg")
    cam = {
        "image_size": [1280, 720],
        "K": [[900, 0, 640], [0, 900, 360], [0, 0, 1]],
        "dist": [0, 0, 0, 0, 0],
        "R": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
        "t": [0, 0, 500],
    }
    manifest = {
        "set": "calib_x",
        "kind": "calibration",
        "scenes": [{"dir": "scene_000", "views": [{"file": "scene_000/charuco.jpg", "camera": cam}]}],
    }
    (tmp_path / "calib_x" / "manifest.json").write_text(json.dumps(manifest))
    assert main(["fixtures", "check", "--root", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "does not decode" in out and "1 problems" in out


def test_render_without_the_extra_is_a_clear_one_line_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import sys

    import boardside.fixtures_render.mitsuba_backend as backend

    monkeypatch.setattr(backend, "_mi", None)
    monkeypatch.setitem(sys.modules, "mitsuba", None)  # "import mitsuba" now raises ImportError
    assert main(["fixtures", "render", "calib_webcam", "--scenes", "0", "--root", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "[render] extra" in err and len(err.strip().splitlines()) == 1
    assert not any(tmp_path.iterdir())  # nothing half-written
