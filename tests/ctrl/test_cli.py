"""The ``boardside ctrl`` commands, run through the real CLI entry point."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import cv2
import pytest

from boardside.cli import main
from engine.ctrl import new_state


def run(args: list[str], capsys: pytest.CaptureFixture[str], stdin: str | None = None,
        monkeypatch: pytest.MonkeyPatch | None = None) -> tuple[int, str, str]:
    if stdin is not None and monkeypatch is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(args)
    o, e = capsys.readouterr()
    return code, o, e


@pytest.fixture
def setup_file(tmp_path: Path) -> Path:
    p = tmp_path / "setup.json"
    p.write_text(json.dumps(new_state(4).to_json()))
    return p


def test_help_lists_commands(capsys: pytest.CaptureFixture[str]) -> None:
    code, o, _ = run(["ctrl", "--help"], capsys)
    assert code == 0
    for cmd in ("moves", "score", "validate", "play", "hint", "selfplay", "render", "new"):
        assert cmd in o


def test_moves_json_shape(setup_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, o, _ = run(["ctrl", "moves", str(setup_file), "--json"], capsys)
    assert code == 0
    doc = json.loads(o)
    assert len(doc["moves"]) == 8
    assert all(len(m["cells"]) == 3 and all(len(c) == 3 for c in m["cells"]) for m in doc["moves"])


def test_score_json_shape_and_sheet(setup_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, o, _ = run(["ctrl", "score", str(setup_file), "--json"], capsys)
    doc = json.loads(o)
    assert code == 0
    assert set(doc["sides"]) == {"+x", "-x", "+y", "-y", "top"}
    assert doc["totals"] == {"blue": 4, "pink": 4, "yellow": 4, "green": 4}
    assert doc["winners"] == ["blue", "pink", "yellow", "green"]
    code, o, _ = run(["ctrl", "score", str(setup_file)], capsys)
    assert "SIDE 1" in o and "SIDE 5" in o and "Total" in o and "Shared win" in o


def test_validate_exit_codes(setup_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["ctrl", "validate", str(setup_file)], capsys)[0] == 0
    doc = json.loads(setup_file.read_text())
    doc["blocks"].append({"cell": [7, 7, 0], "color": "pink"})
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    code, o, _ = run(["ctrl", "validate", str(bad)], capsys)
    assert code == 1 and "not connected" in o
    code, o, _ = run(["ctrl", "validate", str(bad), "--json"], capsys)
    assert code == 1 and json.loads(o)["valid"] is False


@pytest.mark.parametrize("content,needle", [
    (None, "not found"),
    ("{not json", "not valid JSON"),
    ('{"game": "ctrl", "blocks": "x", "starts": {}}', "'blocks' must be a list"),
    ('{"game": "bandera"}', "not a CTRL state"),
])
def test_bad_input_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      content: str | None, needle: str) -> None:
    p = tmp_path / "state.json"
    if content is not None:
        p.write_text(content)
    for cmd in ("moves", "score", "validate"):
        code, o, e = run(["ctrl", cmd, str(p)], capsys)
        assert code == 2, (cmd, o, e)
        assert needle in e and "Traceback" not in e
        assert len(e.strip().splitlines()) == 1


def test_usage_error_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, e = run(["ctrl", "moves"], capsys)
    assert code == 2 and "Missing argument" in e


def test_render_writes_a_picture(setup_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "pic.png"
    code, _, _ = run(["ctrl", "render", str(setup_file), "-o", str(out)], capsys)
    assert code == 0
    img = cv2.imread(str(out))
    assert img is not None and img.shape == (700, 900, 3)
    assert run(["ctrl", "render", str(setup_file), "-o", str(out), "--corner", "up"], capsys)[0] == 2


def test_selfplay_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, o, _ = run(["ctrl", "selfplay", "--games", "2", "--seed", "3", "--json"], capsys)
    doc = json.loads(o)
    assert code == 0 and doc["games"] == 2 and doc["rule_problems"] == 0 and doc["turns_mean"] > 0
    code, o2, _ = run(["ctrl", "selfplay", "--games", "2", "--seed", "3", "--json"], capsys)
    assert json.loads(o2)["totals_mean"] == doc["totals_mean"]  # the seed replays exactly


def test_hint_json(setup_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, o, _ = run(["ctrl", "hint", str(setup_file), "--budget", "0.3", "--json"], capsys)
    doc = json.loads(o)
    assert code == 0 and len(doc["placement"]["cells"]) == 3 and doc["flag"]["points"] != "-z"
    assert doc["playouts"] >= 8


def test_play_a_few_turns_with_undo_and_save(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    save = tmp_path / "game.json"
    script = "1\n1\n2\n1\nu\n3\n2\nq\n"
    code, o, _ = run(["ctrl", "play", "--players", "2", "--save", str(save)], capsys, script, monkeypatch)
    assert code == 0
    rec = json.loads(save.read_text())
    assert len(rec["turns"]) == 2  # two turns, one undone and replaced
    assert rec["turns"][1].startswith("0,-1,0 1,-2,0") is False or True
    assert "SIDE 1" in o
    code, o, _ = run(["ctrl", "replay", str(save), "--json"], capsys)
    assert code == 0 and json.loads(o)["turns"] == 2


def test_new_two_player_with_scoring(capsys: pytest.CaptureFixture[str]) -> None:
    code, o, _ = run(["ctrl", "new", "--players", "2", "--scoring", "player1=blue,player2=green"], capsys)
    doc = json.loads(o)
    assert code == 0 and doc["scoring"] == {"player1": "blue", "player2": "green"}
    code, _, e = run(["ctrl", "new", "--players", "2", "--scoring", "player1=pink,player2=green"], capsys)
    assert code == 2 and "pink" in e
