"""Rule checks return data: every problem in words, with its rulebook passage."""

from __future__ import annotations

import random

from engine.ctrl import State, check_setup, new_state, validate_state

from .test_state import play_random


def codes(problems: list) -> set[str]:  # type: ignore[type-arg]
    return {p.code for p in problems}


def doc_with(**changes: object) -> dict:  # type: ignore[type-arg]
    doc = new_state(4).to_json()
    doc.update(changes)
    return doc


def test_setup_and_random_positions_are_valid() -> None:
    assert validate_state(new_state(4).to_json()) == []
    assert check_setup(new_state(3)) == []
    s, _ = play_random(new_state(4), random.Random(4), 12)
    assert [p for p in validate_state(s) if p.severity == "error"] == []


def test_floating_block_is_not_connected() -> None:
    doc = doc_with()
    doc["blocks"] += [{"cell": [8, 8, 0], "color": "blue"}] * 1 + [{"cell": [8, 9, 0], "color": "blue"},
                                                                     {"cell": [8, 10, 0], "color": "blue"}]
    probs = validate_state(doc)
    assert "not-connected" in codes(probs)
    assert any("8,8,0" in str(p) and "Central Cube" in str(p) for p in probs)


def test_too_many_blocks_of_a_colour() -> None:
    doc = doc_with()
    doc["blocks"] += [{"cell": [-1, y, z], "color": "pink"} for y in range(-3, 4) for z in range(0, 4)
                      if (y, z) != (1, 0)][:22]
    probs = validate_state(doc)
    assert "too-many" in codes(probs)
    assert any("23 pink blocks" in p.message for p in probs)


def test_blocks_come_in_threes() -> None:
    doc = doc_with()
    doc["blocks"].append({"cell": [1, -1, 1], "color": "blue"})
    doc["flags"] = [f for f in doc["flags"] if f["color"] != "blue"]
    assert "count-not-turns" in codes(validate_state(doc))


def test_flag_problems() -> None:
    doc = doc_with(flags=[{"color": "blue", "cell": [3, 1, 1], "points": "+z"},
                          {"color": "pink", "cell": [3, 1, -1], "points": "-z"},
                          {"color": "green", "cell": [1, 1, 1], "points": "+z"}])
    probs = validate_state(doc)
    c = codes(probs)
    assert {"flag-not-plugged", "flag-down", "flag-below-table", "flag-in-block"} <= c
    assert any("blue flag" in p.where and "pink block" in p.message for p in probs)


def test_duplicate_cells_and_inside_cube() -> None:
    doc = doc_with()
    doc["blocks"] += [{"cell": [1, 1, 1], "color": "blue"}, {"cell": [3, 1, 0], "color": "green"}]
    c = codes(validate_state(doc))
    assert "inside-cube" in c and "duplicate-cell" in c


def test_hanging_block() -> None:
    s = new_state(4)
    doc = s.to_json()
    # a blue block under an overhang: blue blocks at (1,-1,1),(1,-2,1),(1,-3,1) and one at (1,-3,0)?
    # simpler: a block at (4,1,1)... use a block whose only neighbour is above it
    doc["blocks"] += [{"cell": [1, -1, 1], "color": "blue"}, {"cell": [1, -1, 2], "color": "blue"},
                      {"cell": [1, -2, 2], "color": "blue"}, {"cell": [1, -2, 1], "color": "pink"}]
    doc["blocks"] = [b for b in doc["blocks"] if b["cell"] != [1, -1, 0]] + [{"cell": [1, -1, 0], "color": "blue"}]
    probs = validate_state(doc)
    # (1,-2,1) touches (1,-1,1) beside it: not hanging
    assert "hanging" not in codes(probs)
    doc["blocks"].append({"cell": [1, -3, 1], "color": "pink"})
    doc["blocks"].append({"cell": [1, -3, 2], "color": "pink"})
    doc["blocks"].append({"cell": [1, -4, 2], "color": "pink"})
    doc["blocks"].append({"cell": [1, -4, 1], "color": "yellow"})
    probs = validate_state(doc)
    assert any(p.code == "hanging" and "1,-4,1" in p.where for p in probs) is False  # touches (1,-3,1)
    doc["blocks"].append({"cell": [1, -5, 2], "color": "yellow"})
    doc["blocks"].append({"cell": [1, -6, 2], "color": "yellow"})
    doc["blocks"].append({"cell": [1, -6, 1], "color": "green"})
    probs = validate_state(doc)
    assert any(p.code == "hanging" and "1,-6,1" in p.where for p in probs)


def test_start_problems() -> None:
    doc = doc_with(starts={"blue": [1, -1, 1], "pink": [3, 1, 0], "yellow": [1, 3, 0], "green": [-1, 1, 0]})
    c = codes(validate_state(doc))
    assert {"start-missing", "start-off-table"} <= c


def test_check_setup() -> None:
    s = new_state(4)
    doc = s.to_json()
    doc["flags"][0]["points"] = "+x"
    doc["flags"][0]["cell"] = [2, -1, 0]
    probs = check_setup(State.from_json(doc))
    assert any(p.code == "setup-flag" and "blue" in p.message for p in probs)
    later, _ = play_random(s, random.Random(1), 2)
    assert "setup-count" in codes(check_setup(later))


def test_problem_text_names_piece_place_and_rule() -> None:
    doc = doc_with()
    doc["blocks"].append({"cell": [9, 9, 9], "color": "yellow"})
    p = next(p for p in validate_state(doc) if p.code == "not-connected")
    text = str(p)
    assert "yellow block at 9,9,9" in text and "Central Cube" in text and "rulebook" in text
