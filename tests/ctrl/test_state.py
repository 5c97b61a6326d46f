"""Turn structure, legality, interchange round trips, records and random playouts."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core import IllegalMoveError, InvalidMoveError, InvalidStateError
from engine.ctrl import (
    FlagSpot,
    GameRecord,
    NoFlag,
    Pass,
    Placement,
    State,
    Turn,
    new_state,
    parse_move,
    validate_state,
)
from engine.ctrl.geometry import CENTRAL_CUBE, neighbours


def play_random(state: State, rng: random.Random, turns: int) -> tuple[State, list[Turn]]:
    done: list[Turn] = []
    for _ in range(turns):
        if state.is_terminal():
            break
        a = rng.choice(list(state.legal_moves()))
        mid = state.apply(a)
        b = rng.choice(list(mid.legal_moves()))
        state = mid.apply(b)
        done.append(Turn(a if isinstance(a, Placement) else None, b if isinstance(b, FlagSpot) else None))
    return state, done


def test_turn_order_and_phases() -> None:
    s = new_state(4)
    assert s.current_player() == "blue" and s.phase == "place"
    s = s.apply(s.legal_moves()[0])
    assert s.phase == "flag" and "blue" not in s.flags  # the flag was removed (step 1)
    s = s.apply(s.legal_moves()[0])
    assert s.to_move == "pink" and s.phase == "place" and "blue" in s.flags
    assert "blue" not in s.first_turn_pending


def test_two_player_variant_turn_order_and_owners() -> None:
    s = new_state(2, scoring={"player1": "blue", "player2": "green"})
    order = []
    for _ in range(4):
        order.append((s.to_move, s.current_player()))
        s = s.apply(s.legal_moves()[0]).apply(FlagSpot.parse(str(s.apply(s.legal_moves()[0]).legal_moves()[0])))
    assert order == [("blue", "player1"), ("pink", "player2"), ("yellow", "player1"), ("green", "player2")]


def test_three_players_use_the_first_three_colours() -> None:
    s = new_state(3)
    assert s.colors == ("blue", "pink", "yellow") and set(s.starts) == {"blue", "pink", "yellow"}


def test_illegal_moves_are_rejected_with_reasons() -> None:
    s = new_state(4)
    with pytest.raises(IllegalMoveError, match="occupied"):
        s.apply(Placement.parse("0,0,0 0,0,1 0,0,2"))
    with pytest.raises(IllegalMoveError, match="first turn"):
        s.apply(Placement.parse("2,-1,0 3,0,0 4,1,0"))
    with pytest.raises(IllegalMoveError, match="cannot pass"):
        s.apply(Pass())
    with pytest.raises(IllegalMoveError, match="place blocks"):
        s.apply(FlagSpot.parse("flag 1,-1,1 +z"))
    mid = s.apply(s.legal_moves()[0])
    with pytest.raises(IllegalMoveError, match="point down"):
        mid.apply(FlagSpot((1, -1, -1), "-z"))
    with pytest.raises(IllegalMoveError, match="plugged into a blue block"):
        mid.apply(FlagSpot((3, 1, 1), "+z"))
    with pytest.raises(IllegalMoveError, match="must plug"):
        mid.apply(NoFlag())


def test_flag_spots_never_point_down_and_are_on_own_blocks() -> None:
    s, _ = play_random(new_state(4), random.Random(5), 9)
    mid = s.apply(s.legal_moves()[0])
    for spot in mid.legal_moves():
        assert isinstance(spot, FlagSpot)
        assert spot.points != "-z"
        assert mid.blocks[spot.block] == s.to_move
        assert spot.cell not in mid.occupied


@pytest.mark.parametrize("text", ["1,-1,1 1,-1,2 1,-1,3", "pass", "flag 1,-1,4 +z", "noflag"])
def test_move_text_round_trip(text: str) -> None:
    m = parse_move(text)
    assert str(m) == text
    assert eval(repr(m)) == m


@pytest.mark.parametrize("bad", ["", "1,2", "1,2,3 1,2,3 4,5,6", "flag 1,2,3 up", "a,b,c"])
def test_malformed_moves(bad: str) -> None:
    with pytest.raises(InvalidMoveError):
        parse_move(bad)


@given(st.lists(st.tuples(st.integers(-9, 9), st.integers(-9, 9), st.integers(0, 9)), min_size=1, max_size=3,
                unique=True), st.sampled_from(["+x", "-x", "+y", "-y", "+z"]), st.booleans())
def test_turn_round_trip_property(cs: list[tuple[int, int, int]], d: str, pas: bool) -> None:
    t = Turn(None if pas else Placement.of(cs), FlagSpot(cs[0], d))
    assert Turn.parse(str(t)) == t
    assert eval(repr(t)) == t


def test_state_json_round_trip_preserves_everything() -> None:
    s, _ = play_random(new_state(4), random.Random(11), 10)
    doc = json.loads(json.dumps(s.to_json()))
    s2 = State.from_json(doc)
    assert s2.to_json() == s.to_json()
    assert s2.placements() == s.placements()
    assert s2.side_scores() == s.side_scores()


def test_minimal_interchange_document() -> None:
    doc = {"game": "ctrl", "blocks": [{"cell": [1, -1, 0], "color": "blue"}, {"cell": [3, 1, 0], "color": "pink"}],
           "flags": [{"color": "blue", "cell": [1, -1, 1], "points": "+z"}],
           "starts": {"blue": [1, -1, 0], "pink": [3, 1, 0]}, "to_move": "pink", "first_turn": True}
    s = State.from_json(doc)
    assert s.colors == ("blue", "pink") and s.to_move == "pink"
    assert s.first_turn_pending == frozenset({"pink"})


@pytest.mark.parametrize("doc,msg", [
    ([], "JSON object"),
    ({"game": "gridopolis"}, "not a CTRL state"),
    ({"blocks": [{"cell": [1, 2], "color": "blue"}], "starts": {"blue": [1, -1, 0]}}, "three integers"),
    ({"blocks": [{"cell": [1, 2, 3], "color": "purple"}], "starts": {"blue": [1, -1, 0]}}, "purple"),
    ({"blocks": [], "starts": {"blue": [1, -1, 0]}, "flags": [{"color": "blue", "cell": [1, 1, 1],
                                                               "points": "up"}]}, "up"),
    ({"blocks": [], "starts": {}}, "starts"),
    ({"blocks": [], "starts": {"blue": [1, -1, 0]}, "to_move": "pink"}, "not a colour in play"),
])
def test_malformed_documents(doc: object, msg: str) -> None:
    with pytest.raises(InvalidStateError, match=msg):
        State.from_json(doc)


def test_record_round_trip_and_replay() -> None:
    rng = random.Random(2)
    s0 = new_state(3)
    final, turns = play_random(s0, rng, 200)
    rec = GameRecord(s0, turns)
    doc = json.loads(json.dumps(rec.to_json()))
    rec2 = GameRecord.from_json(doc)
    assert [str(t) for t in rec2.turns] == [str(t) for t in turns]
    assert rec2.final().to_json() == final.to_json()
    assert final.is_terminal() and doc["result"]["winners"] == final.winners()


def test_record_with_an_illegal_turn_names_it() -> None:
    s0 = new_state(4)
    rec = GameRecord(s0, [Turn.parse("0,0,3 1,0,3 2,0,3 flag 0,0,4 +z")])
    with pytest.raises(IllegalMoveError, match="turn 1"):
        rec.final()


@pytest.mark.parametrize("players,seed", [(4, 0), (4, 1), (3, 2), (2, 3)])
def test_random_playouts_keep_invariants(players: int, seed: int) -> None:
    rng = random.Random(seed)
    sc = {"player1": "blue", "player2": "green"} if players == 2 else None
    s = new_state(players, scoring=sc)
    steps = 0
    while not s.is_terminal():
        moves = s.legal_moves()
        assert moves, "a non-terminal state always has a move (possibly a pass)"
        m = rng.choice(list(moves))
        s = s.apply(m)
        steps += 1
        assert not (s.blocks.keys() & CENTRAL_CUBE)
        assert all(c[2] >= 0 for c in s.blocks)
        assert all(n <= 22 for n in s.counts.values())
        for color, f in s.flags.items():
            assert f.points != "-z" and s.blocks[f.block] == color and f.cell not in s.occupied
        if s.phase == "place":
            errors = [p for p in validate_state(s) if p.severity == "error"]
            assert not errors, errors
        for cell in s.blocks:  # every block touches something that is not above it
            assert any(n in s.occupied for n in neighbours(cell) if n != (cell[0], cell[1], cell[2] + 1))
    assert steps > 0
    tot = s.totals()
    assert all(v >= 0 for v in tot.values())
    assert sum(s.returns().values()) == pytest.approx(1.0)
    if all(s.remaining(c) == 0 for c in s.colors):
        assert all(n == 22 for n in s.counts.values())


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000))
def test_placements_are_physical_paths(seed: int) -> None:
    s, _ = play_random(new_state(4), random.Random(seed), 8)
    if s.is_terminal():
        return
    for pl in s.placement_sets():
        assert not pl & s.occupied
        assert all(c[2] >= 0 for c in pl)
        assert not pl & s.other_flag_cells(s.to_move or "")
        # the cells form a chain where neighbours are at most one step apart on each axis
        cells = sorted(pl)
        assert any(n in s.occupied or n in pl for c in cells for n in neighbours(c))
        # at least one cell touches a block of the mover's colour (the first block)
        own = set(s.blocks_of(s.to_move or ""))
        assert any(n in own for c in pl for n in neighbours(c))
