"""``boardside gridopolis ...`` through boardside.cli.main."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from boardside.cli import main
from engine.gridopolis import State, new_state


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["gridopolis", *args])
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, doc: object, name: str = "state.json") -> str:
    p = tmp_path / name
    p.write_text(json.dumps(doc))
    return str(p)


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for cmd in ("new", "moves", "play", "validate", "selfplay", "show"):
        assert cmd in out


def test_new_json_is_the_setup(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "new", "--players", "3", "--json")
    assert code == 0
    state = State.from_json(json.loads(out))
    assert state == new_state(3)


def test_new_text_draws_three_levels(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "new")
    assert code == 0
    assert "level 2" in out and "level 1" in out and "level 0 (table)" in out
    assert "[g][g][g]" in out and "[b][b][b]" in out and "(.)" in out
    assert "green to move" in out


def test_new_rejects_five_players(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "new", "--players", "5")
    assert code == 2
    assert "--players must be 2, 3 or 4, got 5" in err and "Traceback" not in err


def test_moves_lists_the_legal_moves(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write(tmp_path, new_state(2).to_json())
    code, out, _ = run(capsys, "moves", path, "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["count"] == 100 and doc["to_move"] == "green"
    code, out, _ = run(capsys, "moves", path, "--from", "3,0,0")
    assert code == 0 and "3 legal moves" in out and "3,0,0-4,1,0" in out


def test_validate_exit_codes(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    good = new_state(2).to_json()
    code, out, _ = run(capsys, "validate", write(tmp_path, good))
    assert code == 0 and "set-up OK" in out
    bad = json.loads(json.dumps(good))
    bad["markers"][0]["pad"] = [3, 1, 0]
    bad["hyper_pads"].pop()
    code, out, _ = run(capsys, "validate", write(tmp_path, bad, "bad.json"))
    assert code == 1
    assert "green pawn at 3,1,0" in out and "five" in out and "2 problems found" in out
    code, out, _ = run(capsys, "validate", write(tmp_path, bad, "bad.json"), "--json")
    assert code == 1
    doc = json.loads(out)
    assert doc["ok"] is False and {p["code"] for p in doc["problems"] if p["severity"] == "error"} == {
        "setup-marker",
        "hyper-pads",
    }


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        ('{"game": "quirky"}', "not a Gridopolis state"),
    ],
)
def test_unreadable_files_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, message: str
) -> None:
    p = tmp_path / "x.json"
    p.write_text(content)
    for cmd in ("validate", "moves", "show"):
        code, _out, err = run(capsys, cmd, str(p))
        assert code == 2, cmd
        assert message in err and "Traceback" not in err
        assert len(err.strip().splitlines()) == 1


def test_missing_file_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "validate", str(tmp_path / "nope.json"))
    assert code == 2 and "not found" in err


def test_inconsistent_state_exits_2_for_moves(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    doc = new_state(2).to_json()
    doc["markers"][0]["pad"] = [9, 9, 9]
    code, _, err = run(capsys, "moves", write(tmp_path, doc))
    assert code == 2 and "9,9,9" in err


def test_selfplay_figures_are_reproducible(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "selfplay", "--games", "3", "--seed", "5", "--turn-limit", "15", "--json")
    assert code == 0
    a = json.loads(out)
    assert a["games"] == 3 and a["moves"] > 0 and a["games_per_s"] > 0
    assert sum(a["winners"].values()) == pytest.approx(3.0)
    assert sum(a["endings"].values()) == 3
    code, out, _ = run(capsys, "selfplay", "--games", "3", "--seed", "5", "--turn-limit", "15", "--json")
    b = json.loads(out)
    assert (a["moves"], a["winners"], a["endings"]) == (b["moves"], b["winners"], b["endings"])


def test_selfplay_bad_games(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "selfplay", "--games", "0")
    assert code == 2 and "--games" in err


def test_play_hot_seat_to_the_end(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    lines = [
        "help",
        "3,0,0",  # show that marker's moves
        "3,0,0-3,0,1",  # malformed? no: a legal-looking step to a missing pad -> not played
        "3,1,0-3,2,0",  # nobody there
        "nonsense",
        "3,0,0-3,1,0",  # green
        "block 3,3,0",  # blue
    ]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
    save = tmp_path / "game.json"
    code, out, _ = run(capsys, "play", "--turn-limit", "1", "--save", str(save))
    assert code == 0
    assert "Moves:" in out  # help
    assert "3,0,0-2,1,0 3,0,0-3,1,0 3,0,0-4,1,0" in out
    assert "<.>" in out  # highlighted destinations
    assert "not played: move '3,0,0-3,0,1' is not allowed: there is no pad at 3,0,1" in out
    assert "not played: move '3,1,0-3,2,0' is not allowed: there is no marker at 3,1,0" in out
    assert "not played: invalid move 'nonsense'" in out
    assert "game over (turn-limit)" in out and "winner: green and blue" in out
    saved = State.from_json(json.loads(save.read_text()))
    assert saved.is_terminal() and saved.turns == 2


def test_play_stops_at_end_of_input_and_resumes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    save = tmp_path / "game.json"
    monkeypatch.setattr("sys.stdin", io.StringIO("3,0,0-3,1,0\n"))
    code, out, _ = run(capsys, "play", "--save", str(save))
    assert code == 0 and "end of input" in out
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    code, out, _ = run(capsys, "play", "--state", str(save))
    assert code == 0 and "blue to move" in out and "game stopped" in out


def test_show_draws_a_state(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    s = new_state(4).apply("block 3,3,0")
    code, out, _ = run(capsys, "show", write(tmp_path, s.to_json()))
    assert code == 0 and " # " in out and "red to move" in out


def test_play_undo(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("undo\n3,0,0-3,1,0\nundo\nquit\n"))
    code, out, _ = run(capsys, "play")
    assert code == 0 and "nothing to undo" in out
    assert out.rstrip().splitlines()[-2].endswith("green to move")  # back to green after the undo
