"""validate_state / from_json: every problem in words (which piece, where, what rule)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from engine.core import InvalidStateError
from engine.gridopolis import State, new_state, validate_state


def doc(players: int = 2) -> dict[str, Any]:
    return copy.deepcopy(new_state(players).to_json())


def codes(d: Any) -> list[str]:
    return [p.code for p in validate_state(d) if p.severity == "error"]


def only(d: Any, code: str) -> str:
    found = [p for p in validate_state(d) if p.code == code]
    assert found, validate_state(d)
    return str(found[0])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_standard_setups_are_right(players: int) -> None:
    assert validate_state(doc(players)) == []


def test_not_a_gridopolis_document_raises() -> None:
    with pytest.raises(InvalidStateError, match="JSON object"):
        validate_state([1, 2])
    with pytest.raises(InvalidStateError, match="'ctrl'"):
        validate_state({"game": "ctrl"})


def test_malformed_fields_are_reported_not_raised() -> None:
    d = doc()
    d["pads"][0] = [1, "x", 0]
    d["markers"][0]["king"] = "yes"
    d["players"][1]["forward"] = "up"
    problems = validate_state(d)
    assert {p.code for p in problems} == {"format"}
    text = " | ".join(str(p) for p in problems)
    assert "[1, 'x', 0] is not a pad" in text and "'yes'" in text and "'up'" in text
    with pytest.raises(InvalidStateError, match="invalid Gridopolis state"):
        State.from_json(d)


def test_marker_on_a_missing_pad() -> None:
    d = doc()
    d["markers"][0]["pad"] = [9, 9, 0]
    msg = only(d, "marker-off-grid")
    assert "green pawn at 9,9,0" in msg
    with pytest.raises(InvalidStateError, match="9,9,0"):
        State.from_json(d)


def test_two_markers_on_one_pad() -> None:
    d = doc()
    d["markers"][1]["pad"] = d["markers"][0]["pad"]
    assert "two markers share the pad" in only(d, "marker-stack")


def test_unsupported_pad_and_floating_post() -> None:
    d = doc()
    d["pads"].append([3, 3, 4])
    d["posts"].append([3, 3, 4])
    assert "not held up" in only(d, "unsupported")
    assert "stands on nothing" in only(d, "post")


def test_hyper_pad_count_and_node_conflict() -> None:
    d = doc()
    d["hyper_pads"].pop()
    assert "Matrix places five" in only(d, "hyper-pads")
    d = doc()
    d["hyper_pads"][0] = d["kingerizers"][0]["pad"]
    assert "share the pad" in only(d, "node-conflict")


def test_start_row_must_be_three_in_a_row_across_the_way() -> None:
    d = doc()
    for k in d["kingerizers"]:
        if k["player"] == "green" and k["pad"] == [4, 0, 0]:
            k["pad"] = [3, 1, 0]
    msg = only(d, "start-row")
    assert "green's kingerizers" in msg and "straight" in msg


def test_blocker_count_and_placement() -> None:
    d = doc()
    d["blockers"] = [{"pad": [3, 3, 0], "player": "green"}]  # placed, but green still holds two
    assert "exactly 2" in only(d, "blockers")
    d["players"][0]["blockers"] = 1
    d["turns"] = 1
    d["to_move"] = "blue"
    assert codes(d) == []  # mid-game: fine
    d["markers"][0]["pad"] = [3, 3, 0]
    assert "blocker box" in only(d, "marker-on-blocker")


def test_captures_must_account_for_missing_markers() -> None:
    d = doc()
    d["markers"].pop()
    d["turns"] = 5
    assert "1 markers are off the grid-set" in only(d, "captures")
    d["players"][0]["captured"] = 1
    assert codes(d) == []


def test_setup_markers_start_as_pawns_on_their_own_start_row() -> None:
    d = doc()
    d["markers"][0]["pad"] = [3, 1, 0]
    msg = only(d, "setup-marker")
    assert "not on green's start row" in msg and "3,1,0" in msg
    d = doc()
    d["markers"][0]["king"] = True
    assert "all markers begin as pawns" in only(d, "setup-king")
    # the same finding does not stop a state from loading (it is a set-up rule)
    assert State.from_json(d).markers


def test_setup_levels_and_posts() -> None:
    d = doc()
    d["posts"] = [p for p in d["posts"] if p != [2, 2, 1]]
    assert "level 1 stands on 3 posts" in only(d, "setup-posts")
    d = doc()
    d["pads"] = [p for p in d["pads"] if p[2] != 2]
    d["posts"] = [p for p in d["posts"] if p[2] != 2]
    d["hyper_pads"] = [[3, 3, 1], [2, 2, 0], [4, 2, 0], [2, 4, 0], [4, 4, 0]]
    assert "three levels" in only(d, "setup-levels")


def test_layout_differences_are_warnings() -> None:
    d = doc()
    d["pads"].append([5, 3, 0])
    problems = validate_state(d)
    assert [p.severity for p in problems] == ["warning"]
    assert "differs from the standard Matrix layout" in str(problems[0])


def test_to_move_must_be_a_player_with_markers() -> None:
    d = doc()
    d["to_move"] = "purple"
    assert "'purple'" in only(d, "to-move")
    d = doc()
    d["markers"] = [m for m in d["markers"] if m["player"] != "blue"] + [
        {"pad": [3, 6, 0], "player": "blue", "king": False}
    ]
    d["players"][0]["captured"] = 2
    d["to_move"] = "blue"
    d["turns"] = 3
    assert codes(d) == []


def test_king_move_must_name_a_king_of_the_player_to_move() -> None:
    d = doc()
    d["king_move"] = [2, 0, 0]
    assert "does not hold a king" in only(d, "king-move")


def test_problem_mentions_rulebook_passage() -> None:
    d = doc()
    d["markers"][0]["pad"] = [9, 9, 0]
    problem = next(p for p in validate_state(d) if p.code == "marker-off-grid")
    assert problem.rule.startswith("Gridopolis rulebook")
    assert problem.where == "green pawn at 9,9,0"
