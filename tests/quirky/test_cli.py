"""``boardside quirky ...`` end to end through boardside.cli.main."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest

from boardside.cli import main
from engine.quirky import builtin_scenario, new_state, shuffled

from .test_scenario import GOOD


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_scenarios_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "quirky", "scenarios", "--json")
    assert code == 0
    doc = json.loads(out)
    ids = {s["id"] for s in doc["scenarios"]}
    assert {"dust-bunnies", "double-delivery"} <= ids
    assert all({"id", "robot", "title"} <= s.keys() for s in doc["scenarios"])


def test_show_ascii_and_picture(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    png = tmp_path / "board.png"
    code, out, _ = run(capsys, "quirky", "show", "kitchen-crumbs", "-o", str(png))
    assert code == 0
    assert "Kitchen Crumbs" in out and "|u L" in out and "objective:" in out
    import cv2

    img = cv2.imread(str(png))
    assert img is not None and img.shape[1] > 7 * 60 and img.shape[0] > 6 * 60


def test_run_json_gives_the_motion_trace(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "quirky", "run", "first-dance", "--program", "F1 F2 RR", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["motions"] == ["F>0,1,N", "F>0,2,N", "F>0,3,N", "R>0,3,E", "S:N>0,4,E"]
    assert doc["cards"][1]["momentum"] == "N" and doc["outcome"] == "continue"


def test_run_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "quirky", "run", "dust-bunnies", "--program", "F3 RR F2")
    assert code == 0 and "P:bunny1>0,3,N" in out and "collided" in out and "outcome: continue" in out


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["quirky", "run", "first-dance", "--program", "F1 X9"], "unknown card 'X9'"),
        (["quirky", "run", "first-dance", "--program", "  "], "empty program"),
        (["quirky", "run", "nowhere", "--program", "F1"], "unknown scenario 'nowhere'"),
        (["quirky", "run", "missing.toml", "--program", "F1"], "scenario file not found: 'missing.toml'"),
        (["quirky", "solve", "fetch", "--players", "7"], "--players 7 not supported"),
        (["quirky", "selfplay", "--games", "0"], "--games must be >= 1"),
        (["quirky", "validate", "nope.json"], "not found"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], args: list[str], words: str
) -> None:
    code, _, err = run(capsys, *args)
    assert code == 2
    assert words in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_scenario_file_error_names_line_and_column(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    f = tmp_path / "mini.toml"
    f.write_text(GOOD.replace("Q.L", "Q.X"))
    code, _, err = run(capsys, "quirky", "show", str(f))
    assert code == 2 and "line 10, column 3" in err and "'X'" in err
    f.write_text(GOOD)
    code, out, _ = run(capsys, "quirky", "run", str(f), "--program", "RR F1 PK")
    assert code == 0 and "outcome: continue" in out


def test_solve_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "quirky", "solve", "tea-party", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["winnable"] is True and doc["rounds"] == 1 and doc["verified"] is True
    assert doc["plan"] and doc["section"] == "green"


def test_new_then_validate(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "quirky", "new", "fetch", "--players", "2", "--seed", "5", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["game"] == "quirky" and doc["phase"] == "program" and len(doc["hands"]) == 2
    assert all(len(h) == 8 for h in doc["hands"])
    f = tmp_path / "state.json"
    f.write_text(json.dumps(doc))
    code, out, _ = run(capsys, "quirky", "validate", str(f))
    assert code == 0 and "set-up OK" in out
    doc["robot"]["at"] = [3, 3]
    f.write_text(json.dumps(doc))
    code, out, _ = run(capsys, "quirky", "validate", str(f), "--json")
    assert code == 1 and json.loads(out)["problems"][0]["code"] == "start"
    f.write_text("{not json")
    code, _, err = run(capsys, "quirky", "validate", str(f))
    assert code == 2 and "line 1" in err


def test_selfplay_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "quirky", "selfplay", "--games", "8", "--seed", "3", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["games"] == 8 and doc["won"] + doc["lost"] == 8 and doc["invariants"] == "ok"
    code2, out2, _ = run(capsys, "quirky", "selfplay", "--games", "8", "--seed", "3", "--json")
    assert code2 == 0 and json.loads(out2) == doc  # seeded: reproducible


def test_play_hot_seat_from_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    scn = builtin_scenario("dust-bunnies")
    s = shuffled(new_state(scn, 2), random.Random(11))
    h1, h2 = [list(map(str, h)) for h in s.hands]
    lines = [
        "hand 1",
        "",
        "play 1 ZZ",
        "go",
        f"play 1 {h1[0]}",
        f"play 1 {h1[1]}",
        f"play 1 {h1[2]}",
        f"play 2 {h2[0]}",
        f"play 2 {h2[1]}",
        "go",
        "board",
        "quit",
    ]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
    code, out, _ = run(capsys, "quirky", "play", "dust-bunnies", "--players", "2", "--seed", "11")
    assert code == 0
    assert f"p1's hand: {' '.join(h1)}" in out
    assert "not allowed: unknown card 'ZZ'" in out
    assert "not allowed: cannot execute yet" in out
    # hidden: the queue shows only the cards' backs (rulebook, "Comunicado")
    queues = [ln.split("Queue: ", 1)[1] for ln in out.splitlines() if "Queue: " in ln]
    assert any(q.startswith("[") for q in queues)
    for q in queues:
        assert q == "(empty)" or all(w in ("[move]", "[turn]", "[act]") for w in q.split())
    assert "Round 2, battery 5" in out or "You win" in out
    assert "game abandoned" in out


def test_play_to_the_end_on_eof(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code, out, _ = run(capsys, "quirky", "play", "first-dance", "--seed", "1")
    assert code == 0 and "game abandoned" in out


def test_hint_from_a_state_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "quirky", "new", "tea-party", "--seed", "2", "--json")
    f = tmp_path / "s.json"
    f.write_text(out)
    code, out, _ = run(capsys, "quirky", "hint", str(f), "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["winnable"] is True and doc["queue"]
    hand_cards = [c for h in json.loads(f.read_text())["hands"] for c in h]
    for c in doc["queue"]:
        hand_cards.remove(c.split("[")[0])  # every suggested card is in some hand
    code, out, _ = run(capsys, "quirky", "hint", str(f))
    assert code == 0 and out.startswith("this round: ")


def test_show_toml_round_trips_through_a_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "quirky", "show", "fetch", "--toml")
    assert code == 0 and 'id = "fetch"' in out
    f = tmp_path / "my-fetch.toml"
    f.write_text(out.replace('id = "fetch"', 'id = "my-fetch"'))
    code, out, _ = run(capsys, "quirky", "run", str(f), "--program", "MT:ball>robot", "--json")
    assert code == 0 and json.loads(out)["scenario"] == "my-fetch"


def test_play_practice_mode_shows_the_queue_face_up(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    s = shuffled(new_state(builtin_scenario("first-dance"), 2), random.Random(4))
    card = str(s.hands[0][0])
    monkeypatch.setattr("sys.stdin", io.StringIO(f"play 1 {card}\nquit\n"))
    code, out, _ = run(capsys, "quirky", "play", "first-dance", "--players", "2", "--seed", "4", "--practice")
    assert code == 0 and f"Queue: {card}" in out


def test_run_accepts_the_solvers_plan_with_pick_choices(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "quirky", "solve", "double-delivery", "--json")
    plan = json.loads(out)["plan"]
    assert any("[" in c for r in plan for c in r)  # the plan names which token a Pick Up takes
    code, out, _ = run(capsys, "quirky", "run", "double-delivery", "--program", " ".join(plan[0]), "--json")
    assert code == 0 and json.loads(out)["outcome"] == "won"
    code, _, err = run(capsys, "quirky", "run", "double-delivery", "--program", "F1[cup]")
    assert code == 2 and "only Pick Up cards name a token" in err
