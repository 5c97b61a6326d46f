"""Random playouts checking the invariants after every move (hypothesis picks the games)."""

from __future__ import annotations

import itertools
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import random_playout
from engine.gridopolis import FORWARD_VECTORS, Jump, Kamikaze, Pad, State, Step, new_state, read_state


def check_invariants(before: State, move: object, after: State) -> None:
    # the state file round-trips and passes every consistency check
    doc = json.loads(json.dumps(after.to_json()))
    loaded, problems = read_state(doc)  # what validate_state and State.from_json both use
    errors = [p for p in problems if p.severity == "error"]
    assert errors == [], (str(move), [str(e) for e in errors])
    assert loaded == after
    # markers stand on playable pads; markers are conserved: on the grid-set or held as captures
    assert all(after.is_playable(p) for p in after.markers)
    assert len(after.markers) + sum(p.captured for p in after.players) == 3 * len(after.players)
    # the grid-set only grows, blocker boxes only accumulate, reserves never go negative
    assert before.pads <= after.pads and before.blockers.items() <= after.blockers.items()
    assert all(min(p.blockers, p.pads, p.posts) >= 0 for p in after.players)
    # pawns never move back (a transmission may land anywhere); kings stay kings
    if isinstance(move, Step | Jump):
        marker = before.markers[move.frm]
        fx, fy = FORWARD_VECTORS[before.player(marker.player).forward]
        path = [move.frm, move.to] if isinstance(move, Step) else list(move.path)
        if not marker.king:
            for a, b in itertools.pairwise(path):
                d = a.delta(b)
                assert d[0] * fx + d[1] * fy >= 0, str(move)
        assert after.markers[move.final].player == marker.player
        assert after.markers[move.final].king or not marker.king
    if isinstance(move, Kamikaze):
        assert before.markers[move.over].player != before.markers[move.frm].player
        assert move.frm not in after.markers and move.over not in after.markers
    # every listed legal move is unique and re-parses to itself
    legal = after.legal_moves()
    assert len(set(legal)) == len(legal)
    for m in list(legal)[:40]:
        assert type(m).parse(str(m)) == m


def play(state: State, rng: random.Random, limit: int) -> State:
    for _ in range(limit):
        if state.is_terminal():
            break
        move = rng.choice(list(state.legal_moves()))
        after = state.apply(move)
        check_invariants(state, move, after)
        state = after
    return state


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.sampled_from([2, 3, 4]),
    turn_limit=st.none() | st.integers(1, 30),
)
def test_random_playouts_keep_the_invariants(seed: int, players: int, turn_limit: int | None) -> None:
    final = play(new_state(players, turn_limit=turn_limit), random.Random(seed), 120)
    if final.is_terminal():
        res = final.returns()
        assert sum(res.values()) == pytest.approx(1.0)
        assert final.legal_moves() == ()


def test_marker_moves_only_playouts_reach_kings_and_captures() -> None:
    """Playouts that prefer marker moves exercise crowning, captures and hyper-pads."""
    rng = random.Random(7)
    seen: set[str] = set()
    for _ in range(6):
        state = new_state(2)
        for _ in range(300):
            if state.is_terminal():
                break
            legal = list(state.legal_moves())
            marker_moves = [m for m in legal if m.moves_marker]
            move = rng.choice(marker_moves or legal)
            after = state.apply(move)
            check_invariants(state, move, after)
            if isinstance(move, Jump) and move.capture:
                seen.add("capture")
            if isinstance(move, Jump) and move.capture and len(move.path) > 2:
                seen.add("multi-jump")
            if isinstance(move, Step | Jump) and move.transmit is not None:
                seen.add("transmit")
            if isinstance(move, Kamikaze):
                seen.add("kamikaze")
            if any(m.king for m in after.markers.values()):
                seen.add("king")
            if after.king_move is not None:
                seen.add("second-move")
            state = after
    assert {"capture", "transmit", "king", "second-move"} <= seen, seen


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_full_random_games_end(players: int) -> None:
    rng = random.Random(players)
    for _ in range(10):
        final, moves, _ = random_playout(new_state(players), rng)
        assert final.is_terminal() and moves > 0


def test_pad_values_are_hashable_and_ordered() -> None:
    assert sorted([Pad(1, 0, 1), Pad(0, 5, 0)]) == [Pad(0, 5, 0), Pad(1, 0, 1)]
