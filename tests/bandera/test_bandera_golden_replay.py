"""Golden positions (hand-counted legal moves) and exact replays of recorded games."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.bandera import State, validate_state
from engine.bandera.record import replay
from engine.core import IllegalMoveError, InvalidMoveError

HERE = Path(__file__).parent
GOLDEN = sorted((HERE / "golden").glob("*.json"))
RECORDS = HERE / "records"


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_there_are_golden_files() -> None:
    assert len(GOLDEN) >= 8


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_position(path: Path) -> None:
    g = load(path)
    assert validate_state(g["state"]) == []
    state = State.from_json(g["state"])
    legal = [str(m) for m in state.legal_moves()]
    assert len(legal) == g["legal_moves"], g["description"]
    if "moves" in g:
        assert sorted(legal) == g["moves"]
    for m in g.get("includes", []):
        assert m in legal
    for m in g.get("excludes", []):
        assert m not in legal
    assert State.from_json(state.to_json()) == state


def test_hand_worked_record_replays_exactly() -> None:
    rec = load(RECORDS / "hand_capture.json")
    states = replay(rec)
    assert len(states) == len(rec["steps"]) + 1
    final = states[-1]
    # worked out by hand from the record (see its description)
    assert final.is_terminal() and final.winners() == ["blue"]
    assert final.stacks == {
        (0, 3): 2,  # blue's royal tower
        (9, 4): 2,  # red's former royal tower, moved one square north on turn 11
        (7, 3): 2,  # red stacked a cube here with a 5 on turn 11
        (8, 3): 1,
        (8, 4): 1,  # blue's cube from (6, 3): N, E, E on turn 12
        (8, 5): 1,
        (3, 3): 1,  # placed by blue with a 4 on turn 12
    }
    assert final.royal == {"blue": (0, 3)}
    assert final.chars == {"blue": (9, 4), "red": (8, 4)}
    assert [(c.by, c.flag, c.turn) for c in final.captures] == [("blue", "red", 14)]
    assert final.supply == 12 and final.turn == 14
    # every intermediate turn boundary as worked out
    turns = [(s.turn, s.to_move) for s in states if s.phase == "place_roll"]
    assert turns == [(10, "blue"), (11, "red"), (12, "blue"), (13, "red"), (14, "blue")]


def test_hand_worked_record_dice_are_part_of_the_record() -> None:
    rec = load(RECORDS / "hand_capture.json")
    # the same moves with a movement roll of 3 instead of 5 on the last turn: the climb is illegal
    steps = list(rec["steps"])
    steps[steps.index("move:5")] = "move:3"
    with pytest.raises(IllegalMoveError, match=r"record step 22: .*single roll of 4, 5 or 6"):
        replay({**rec, "steps": steps})


def test_random_record_replays_to_the_recorded_final_state() -> None:
    rec = load(RECORDS / "random_3p_40turns.json")
    final = replay(rec)[-1]
    assert final.to_json() == rec["final"]
    assert final.is_terminal() and final.stopped and final.turn == 40


def test_replay_reports_the_failing_step() -> None:
    rec = load(RECORDS / "hand_capture.json")
    with pytest.raises(InvalidMoveError, match="record step 2: invalid chance event"):
        replay({**rec, "steps": ["place:3", "move:9"]})
    with pytest.raises(IllegalMoveError, match="record step 3:"):
        replay({**rec, "steps": ["place:3", "move:2", "cube 6,3 E"]})
