"""validate_state on broken documents, and the Move notation."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from bandera_helpers import position
from hypothesis import given
from hypothesis import strategies as st

from engine.bandera import BanderaOptionError, Move, MoveKind, State, new_state, parse_event, validate_state
from engine.bandera.moves import parse_step
from engine.core import ChanceEvent, InvalidMoveError, InvalidStateError
from engine.motion import Heading


def setup_doc(players: int = 2) -> dict[str, Any]:
    return new_state(players).to_json()


def codes(doc: Any) -> list[str]:
    return [p.code for p in validate_state(doc)]


def test_a_fresh_setup_is_valid_for_every_player_count_and_level() -> None:
    for n in (2, 3, 4):
        for level in ("easy", "medium"):
            assert validate_state(new_state(n, level).to_json()) == []


def test_hard_level_with_many_players_is_only_a_warning() -> None:
    problems = validate_state(new_state(4, "hard").to_json())
    assert [(p.code, p.severity) for p in problems] == [("level-hard-players", "warning")]


def test_unreadable_documents_raise() -> None:
    with pytest.raises(InvalidStateError, match="JSON object"):
        validate_state([1, 2])
    with pytest.raises(InvalidStateError, match="'game' is 'ctrl'"):
        validate_state({"game": "ctrl"})
    with pytest.raises(InvalidStateError, match="'players'"):
        validate_state({"game": "bandera", "players": "blue"})


def test_cube_in_zone_a_is_named_with_its_square_and_rule() -> None:
    doc = setup_doc()
    doc["phase"], doc["turn"], doc["to_move"] = "place_roll", 3, "blue"
    doc["board"].append({"x": 4, "y": 3, "cubes": 1})
    doc["supply"] -= 1
    problems = validate_state(doc)
    assert [p.code for p in problems] == ["zone-a"]
    p = problems[0]
    assert p.where == "cubes at (4,3)" and "zone A" in p.message and "fig. 12" in p.rule


def test_setup_problems_in_words() -> None:
    doc = setup_doc()
    doc["board"] = [
        {"x": 0, "y": 2, "cubes": 2, "flag": "blue"},  # not on its start square
        {"x": 9, "y": 3, "cubes": 2, "flag": "red"},
        {"x": 5, "y": 5, "cubes": 1},  # an extra cube at the start
    ]
    doc["supply"] = 17
    doc["characters"]["blue"] = {"x": 0, "y": 2}
    found = validate_state(doc)
    assert [p.code for p in found] == ["setup-royal", "setup-extra-cube"]
    assert "blue's royal tower stands at (0,3), not at (0,2)" in found[0].message


def test_counting_problems() -> None:
    doc = setup_doc()
    doc["supply"] = 20
    assert codes(doc) == ["cube-count"]
    doc = setup_doc()
    doc["cubes"] = 30
    assert codes(doc) == ["level-cubes"]
    doc = setup_doc()
    doc["level"] = "impossible"
    assert codes(doc) == ["level"]


def test_piece_problems() -> None:
    doc = setup_doc()
    doc["phase"], doc["turn"], doc["to_move"] = "move_roll", 4, "red"
    doc["board"] += [
        {"x": 12, "y": 1, "cubes": 1},
        {"x": 3, "y": 3, "cubes": 3},
        {"x": 3, "y": 3, "cubes": 1},
    ]
    doc["supply"] = 15
    doc["characters"]["red"] = {"x": 6, "y": 6}  # on the bare board
    found = codes(doc)
    assert found == ["off-board", "too-tall", "duplicate-square", "character-on-table"]


def test_royal_tower_problems() -> None:
    doc = position(4).to_json()
    doc["board"][0]["cubes"] = 1  # blue's royal tower with one cube
    doc["supply"] += 1
    moved = next(e for e in doc["board"] if e.get("flag") == "yellow")
    moved["y"] = 2  # yellow's tower below the central square: off its rail
    doc["characters"]["yellow"] = {"x": 0, "y": 2}
    found = validate_state(doc)
    assert [p.code for p in found] == ["royal-height", "royal-off-rail"]
    assert found[1].where == "yellow's royal tower at (0,2)" and "(0,3) to (0,6)" in found[1].message


def test_flag_and_capture_problems() -> None:
    doc = position(3).to_json()
    # red's tower without its flag, and the flag not recorded as captured
    doc["board"] = [{"x": e["x"], "y": e["y"], "cubes": 2} if e.get("flag") == "red" else e for e in doc["board"]]
    assert codes(doc) == ["flag-missing"]
    doc["captures"] = [{"by": "green", "flag": "red", "turn": 2}]
    assert codes(doc) == []
    doc["captures"].append({"by": "red", "flag": "red", "turn": 3})
    assert codes(doc) == ["capture-self", "capture-twice"]


def test_character_on_an_uncaptured_royal_tower() -> None:
    doc = position(roll=4).to_json()
    doc["characters"]["blue"] = {"x": 9, "y": 3}
    assert codes(doc) == ["character-on-royal"]


def test_game_end_consistency() -> None:
    doc = position(roll=4, cubes={(8, 3): 1}, chars={"blue": (8, 3)}).to_json()
    doc["board"] = [{**e, "flag": None} if e.get("flag") == "red" else e for e in doc["board"]]
    doc["captures"] = [{"by": "blue", "flag": "red", "turn": 5}]
    assert "not-over" in codes(doc)
    doc2 = new_state(2).to_json()
    doc2["phase"] = "over"
    assert codes(doc2) == ["over"]


def test_phase_and_dice_problems() -> None:
    doc = position(roll=4).to_json()
    doc["points"] = 6
    assert codes(doc) == ["points"]
    doc = position(phase="place", placement_roll=3, placements_left=1).to_json()
    assert codes(doc) == ["place-roll"]
    doc = position(phase="place", placement_roll=4, placements_left=2).to_json()
    assert codes(doc) == ["place-left"]
    doc = position().to_json()
    doc["movement_roll"] = 9
    assert "die" in codes(doc)
    doc = position().to_json()
    doc["to_move"] = "purple"
    assert codes(doc) == ["to-move"]


def test_malformed_entries_are_problems_not_crashes() -> None:
    doc = setup_doc()
    doc["board"].append({"x": "a", "y": 1, "cubes": 1})
    doc["board"].append({"x": 1, "y": 1, "cubes": "two"})
    doc["characters"]["red"] = [9, 3]
    doc["captures"] = [{"by": "blue"}]
    found = codes(doc)
    assert found[:2] == ["board-entry", "board-entry"] and "capture-entry" in found and "character-entry" in found


def test_from_json_refuses_a_broken_state_with_the_first_problem() -> None:
    doc = setup_doc()
    doc["supply"] = 3
    with pytest.raises(InvalidStateError, match=r"cubes: 4 cubes on the board \+ 3 in the supply"):
        State.from_json(doc)


def test_validate_never_raises_on_mangled_documents() -> None:
    base = position(4, roll=5, cubes={(3, 3): 1}).to_json()
    for key in list(base):
        if key in ("game", "players"):
            continue
        for junk in (None, "x", -1, [], {}, [1, 2], {"x": 1}):
            doc = copy.deepcopy(base)
            doc[key] = junk
            validate_state(doc)  # problems, never an exception


# --------------------------------------------------------------------------- moves


def test_move_text_round_trip_and_repr() -> None:
    for text in (
        "place 3,4",
        "stack 0,0",
        "pass",
        "cube 3,4 E",
        "tower 9,6 S",
        "lower 1,1 W",
        "royal 0,3 N",
        "char 1,3 E",
        "end",
    ):
        m = Move.parse(text)
        assert str(m) == text
        assert eval(repr(m), {"Move": Move}) == m
    assert Move.parse("  CUBE 3 , 4  e ") == Move(MoveKind.CUBE, (3, 4), Heading.E)


@given(
    kind=st.sampled_from([MoveKind.CUBE, MoveKind.TOWER, MoveKind.LOWER, MoveKind.ROYAL, MoveKind.CHAR]),
    x=st.integers(0, 9),
    y=st.integers(0, 6),
    h=st.sampled_from(list(Heading)),
)
def test_step_round_trip(kind: MoveKind, x: int, y: int, h: Heading) -> None:
    m = Move(kind, (x, y), h)
    assert Move.parse(str(m)) == m


@pytest.mark.parametrize(
    "text",
    [
        "",
        "jump 3,4",
        "cube 3,4",
        "cube E",
        "place 3,4 N",
        "pass 1,1",
        "cube 10,0 N",
        "place -1,2",
        "cube 3,4 NE",
        "end now",
        "char 3;4 E",
    ],
)
def test_malformed_moves(text: str) -> None:
    with pytest.raises(InvalidMoveError, match="invalid move"):
        Move.parse(text)


def test_chance_event_notation() -> None:
    assert parse_event("place:4") == ChanceEvent("place", 4)
    assert parse_event("start:green") == ChanceEvent("start", "green")
    assert parse_step("move:6") == ChanceEvent("move", 6)
    assert parse_step("end") == Move(MoveKind.END)
    for bad in ("place:0", "move:7", "roll:3", "move:x"):
        with pytest.raises(InvalidMoveError):
            parse_event(bad)


def test_bad_options() -> None:
    with pytest.raises(BanderaOptionError, match="2 to 4 players, got 5"):
        new_state(5)
    with pytest.raises(BanderaOptionError, match="unknown level 'extreme'"):
        new_state(2, "extreme")
    with pytest.raises(BanderaOptionError, match="'blue' and 'red'"):
        new_state(["blue", "green"])
    with pytest.raises(BanderaOptionError, match="first player 'pink'"):
        new_state(2, first="pink")
    assert new_state(["ana", "bo", "cy"]).royal == {"ana": (0, 0), "bo": (9, 0), "cy": (9, 6)}


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 12) | st.sampled_from(["blue", "red", "green", "x", "move"]),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.sampled_from(["x", "y", "cubes", "flag"]), kids),
    max_leaves=8,
)
KEYS = list(position(3, roll=5, cubes={(3, 3): 1}).to_json())


@given(key=st.sampled_from(KEYS), value=JSON, index=st.integers(0, 5))
def test_fuzzed_documents_give_problems_or_a_typed_error(key: str, value: Any, index: int) -> None:
    doc = position(3, roll=5, cubes={(3, 3): 1}).to_json()
    target = doc[key]
    if isinstance(target, list) and target and isinstance(target[0], dict):
        entry = target[index % len(target)]
        entry[sorted(entry)[index % len(entry)]] = value  # mangle one field of one entry
    elif isinstance(target, dict) and target:
        target[sorted(target)[index % len(target)]] = value
    else:
        doc[key] = value
    try:
        problems = validate_state(doc)
    except InvalidStateError:
        return  # only when 'game' or 'players' is unreadable
    if any(p.severity == "error" for p in problems):
        with pytest.raises(InvalidStateError):
            State.from_json(doc)
    else:
        State.from_json(doc).legal_moves()
