"""``boardside validate GAME STATE.json`` for every game whose engine is present."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from boardside.cli import main
from engine.ctrl import new_state


def test_validate_ctrl_ok_and_problems(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(new_state(3).to_json()))
    assert main(["validate", "ctrl", str(good)]) == 0
    assert "OK" in capsys.readouterr().out
    doc = new_state(3).to_json()
    doc["flags"][0]["points"] = "-z"
    doc["flags"][0]["cell"] = [1, -1, -1]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    assert main(["validate", "ctrl", str(bad), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert not out["valid"] and any(p["code"] == "flag-down" for p in out["problems"])


def test_validate_unknown_game_and_unreadable_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "chess", str(tmp_path / "x.json")]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err
    assert main(["validate", "ctrl", str(tmp_path / "missing.json")]) == 2
    assert "not found" in capsys.readouterr().err
