"""The ``boardside bandera`` commands, run through ``boardside.cli.main``."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from boardside.cli import main
from engine.bandera import State
from engine.bandera.record import replay

HERE = Path(__file__).parent


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["bandera", *args])
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, doc: Any, name: str = "state.json") -> str:
    p = tmp_path / name
    p.write_text(json.dumps(doc), encoding="utf-8")
    return str(p)


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for cmd in ("new", "moves", "play", "validate", "selfplay", "replay", "apply", "show"):
        assert cmd in out


def test_new_json_is_a_valid_setup(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "new", "--players", "3", "--level", "medium", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["players"] == ["blue", "red", "green"] and doc["cubes"] == 18 and doc["supply"] == 12
    code, out, _ = run(capsys, "validate", write(tmp_path, doc))
    assert code == 0 and "ok" in out


def test_new_text_draws_the_board(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "new")
    assert code == 0
    rows = out.splitlines()
    assert rows[4].split()[0] == "3" and "2Bb" in rows[4] and "2Rr" in rows[4] and rows[4].count("#") == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["new", "--players", "7"], "2 to 4 players, got 7"),
        (["new", "--level", "extreme"], "unknown level 'extreme'"),
        (["play", "--dice", "loaded"], "--dice must be 'auto' or 'manual', got 'loaded'"),
        (["new", "--players", "many"], "Invalid value for '--players'"),
    ],
)
def test_bad_options_exit_2_with_one_line(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    code, _, err = run(capsys, *args)
    assert code == 2
    lines = [line for line in err.splitlines() if line.startswith("boardside: error")]
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in err


def test_moves_at_a_roll_and_at_a_decision(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "new", "--json")
    code, out, _ = run(capsys, "moves", write(tmp_path, json.loads(out)), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["chance"] and doc["moves"] == []
    assert [(o["event"], o["probability"]) for o in doc["outcomes"]] == [
        ("start:blue", "1/2"),
        ("start:red", "1/2"),
    ]
    golden = json.loads((HERE / "golden" / "g5_midgame_roll5.json").read_text())
    code, out, _ = run(capsys, "moves", write(tmp_path, golden["state"]), "--json")
    assert code == 0 and sorted(json.loads(out)["moves"]) == golden["moves"]
    code, out, _ = run(capsys, "moves", write(tmp_path, golden["state"]))
    assert code == 0 and "  15. end" in out


def test_validate_exit_codes(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "new", "--json")
    doc = json.loads(out)
    doc["board"].append({"x": 5, "y": 3, "cubes": 1})
    doc["supply"] -= 1
    code, out, _ = run(capsys, "validate", write(tmp_path, doc))
    assert code == 1
    assert "cubes at (5,3): a cube stands in zone A" in out and "2 problem(s)" in out  # + extra set-up cube
    code, out, _ = run(capsys, "validate", write(tmp_path, doc), "--json")
    report = json.loads(out)
    assert code == 1 and not report["ok"] and {p["code"] for p in report["problems"]} == {"zone-a", "setup-extra-cube"}
    # unreadable: not JSON, missing, another game
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    for path in (str(bad), str(tmp_path / "missing.json"), write(tmp_path, {"game": "ctrl"}, "ctrl.json")):
        code, out, err = run(capsys, "validate", path)
        assert code == 2 and err.count("\n") == 1 and err.startswith("boardside: error:")


def test_moves_on_a_broken_state_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "new", "--json")
    doc = json.loads(out)
    doc["supply"] = 1
    code, _, err = run(capsys, "moves", write(tmp_path, doc))
    assert code == 2 and "invalid Captura la Bandera state" in err


def test_apply_checks_every_step(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    run(capsys, "new", "-o", str(tmp_path / "s.json"))
    code, out, _ = run(
        capsys,
        "apply",
        str(tmp_path / "s.json"),
        "start:blue",
        "place:4",
        "place 1,3",
        "move:1",
        "char 0,3 E",
        "-o",
        str(tmp_path / "t.json"),
        "--json",
    )
    assert code == 0
    t = State.from_json(json.loads(out))
    assert t.chars["blue"] == (1, 3) and t.to_move == "red"
    assert json.loads((tmp_path / "t.json").read_text()) == json.loads(out)
    code, _, err = run(capsys, "apply", str(tmp_path / "s.json"), "start:blue", "place:4", "place 8,3")
    assert code == 2 and "step 3: illegal move 'place 8,3': blue may not place cubes in zone C" in err
    code, _, err = run(capsys, "apply", str(tmp_path / "s.json"), "start:blue", "fly 1,1")
    assert code == 2 and "step 2: invalid move 'fly 1,1'" in err


def test_replay_a_record(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "replay", str(HERE / "records" / "hand_capture.json"), "--json")
    assert code == 0
    final = State.from_json(json.loads(out))
    assert final.winners() == ["blue"]
    code, out, _ = run(capsys, "replay", str(HERE / "records" / "hand_capture.json"))
    assert "winner blue" in out and "22 step(s) replayed" in out


def test_selfplay_figures_are_reproducible(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    args = ("selfplay", "--games", "2", "--seed", "5", "--max-turns", "30", "--json")
    code, out, _ = run(capsys, *args, "--records", str(tmp_path))
    assert code == 0
    a = json.loads(out)
    assert a["games"] == 2 and a["moves"] > 0 and a["turns"] == 60 and a["stopped_by_turn_limit"] == 2
    assert a["rule_problems"] == 0
    assert set(a["wins"]) == {"blue", "red"} and sum(a["wins"].values()) == pytest.approx(2.0)
    assert a["games_per_s"] > 0
    _, out2, _ = run(capsys, *args)
    b = json.loads(out2)
    for key in ("moves", "chance_events", "turns", "wins", "captures"):
        assert a[key] == b[key]
    # the saved records replay to games of the reported length
    saved = sorted(tmp_path.glob("bandera-5-*.json"))
    assert len(saved) == 2
    finals = [replay(json.loads(p.read_text()))[-1] for p in saved]
    assert sum(f.turn for f in finals) == a["turns"] and all(f.stopped for f in finals)
    code, _, _ = run(capsys, "selfplay", "--games", "0", "--json")
    assert code == 2


def test_play_hot_seat_with_program_dice(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    record = tmp_path / "game.json"
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 400))
    code, out, _ = run(capsys, "play", "--seed", "11", "--max-turns", "4", "--record", str(record))
    assert code == 0 and "game over (stopped by the turn limit)" in out
    rec = json.loads(record.read_text())
    assert rec["steps"][0].startswith("start:")
    final = replay(rec)[-1]
    assert final.is_terminal() and final.turn == 4
    # the same seed and the same answers give the same game
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 400))
    run(capsys, "play", "--seed", "11", "--max-turns", "4", "--record", str(tmp_path / "again.json"))
    assert json.loads((tmp_path / "again.json").read_text())["steps"] == rec["steps"]


def test_play_with_dice_entered_by_the_players(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    record = tmp_path / "game.json"
    script = "\n".join(
        [
            "purple",  # not a player: asked again
            "blue",  # blue won the roll-off
            "4",  # placement roll
            "place 1,3",
            "undo",  # take it back
            "place 1,2",
            "seven",  # not a die: asked again
            "2",  # movement roll
            "undo",  # cannot undo a die
            "cube 1,2 N",
            "char 0,3 E",  # blue steps down onto the cube: the turn ends (2 points used)
            "quit",
        ]
    )
    monkeypatch.setattr("sys.stdin", io.StringIO(script + "\n"))
    code, out, _ = run(capsys, "play", "--dice", "manual", "--record", str(record))
    assert code == 0
    assert "not understood: 'purple'" in out and "not understood: 'seven'" in out
    assert "nothing to undo since the last roll" in out and "game stopped" in out
    rec = json.loads(record.read_text())
    assert rec["steps"] == ["start:blue", "place:4", "place 1,2", "move:2", "cube 1,2 N", "char 0,3 E"]
    s = replay(rec)[-1]
    assert s.chars["blue"] == (1, 3) and s.to_move == "red" and s.phase == "place_roll"


def test_play_stops_cleanly_at_end_of_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("fly away\n"))
    code, out, _ = run(capsys, "play", "--seed", "1")
    assert code == 0 and "invalid move 'fly away'" in out and "game stopped" in out


def test_top_level_validate_dispatches_to_bandera(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _, out, _ = run(capsys, "new", "--players", "4", "--json")
    doc = json.loads(out)
    assert main(["validate", "bandera", write(tmp_path, doc)]) == 0
    doc["characters"]["red"] = {"x": 5, "y": 5}  # a character on the bare board
    assert main(["validate", "bandera", write(tmp_path, doc)]) == 1
    assert "red's character at (5,5): a character stands on the bare board" in capsys.readouterr().out


def test_render_draws_zones_cubes_flags_and_characters(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import cv2

    from boardside.bandera_picture import CUBE, PLAIN, ZONE_A_COLOUR, ZONE_B_COLOUR, player_colour, square_box

    golden = json.loads((HERE / "golden" / "g5_midgame_roll5.json").read_text())
    pic = tmp_path / "pos.png"
    code, out, _ = run(capsys, "render", write(tmp_path, golden["state"]), "-o", str(pic), "--cell", "80")
    assert code == 0 and "wrote" in out
    img = cv2.imread(str(pic))
    assert img is not None
    assert img.shape[1] == 80 + 10 * 80 and img.shape[0] > 80 + 7 * 80
    state = State.from_json(golden["state"])

    def px(sq: tuple[int, int], dx: int, dy: int) -> tuple[int, ...]:
        left, t, _, _ = square_box(sq[0], sq[1], 80, 40)
        return tuple(int(v) for v in img[t + dy, left + dx])

    assert px((4, 3), 8, 8) == ZONE_A_COLOUR
    assert px((3, 0), 40, 40) == PLAIN
    assert px((0, 0), 40, 40) == ZONE_B_COLOUR
    assert px((6, 6), 55, 55) == CUBE  # the single cube at (6, 6)
    assert px((9, 3), 44, 20) == player_colour(state, "red")  # red's flag on its royal tower
    assert px((1, 3), 20, 80 - 20 - 11 + 3) == player_colour(state, "blue")  # blue's character
    code, _, err = run(capsys, "render", write(tmp_path, golden["state"]), "-o", str(tmp_path / "x.png"), "--cell", "5")
    assert code == 2 and "--cell must be between 20 and 400 pixels, got 5" in err
