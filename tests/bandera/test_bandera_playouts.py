"""Random playouts checking the invariants of Captura la Bandera after every step."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.bandera import Move, MoveKind, State, new_state, validate_state
from engine.bandera.board import ZONE_A, all_squares, royal_range
from engine.core import IllegalMoveError, random_playout
from engine.motion import Heading

ALL_KINDS_WITH_SQUARE = [k for k in MoveKind if k not in (MoveKind.PASS, MoveKind.END)]
STEP_KINDS = {MoveKind.CUBE, MoveKind.TOWER, MoveKind.LOWER, MoveKind.ROYAL, MoveKind.CHAR}


def every_candidate() -> list[Move]:
    out = [Move(MoveKind.PASS), Move(MoveKind.END)]
    for sq in all_squares():
        out.append(Move(MoveKind.PLACE, sq))
        out.append(Move(MoveKind.STACK, sq))
        for k in STEP_KINDS:
            out.extend(Move(k, sq, h) for h in Heading)
    return out


CANDIDATES = every_candidate()


def check_invariants(s: State) -> None:
    doc = s.to_json()
    errors = [p for p in validate_state(doc) if p.severity == "error"]
    assert errors == [], [str(p) for p in errors]
    assert State.from_json(doc) == s
    assert s.cubes_on_board() + s.supply == s.cubes_total
    for sq, h in s.stacks.items():
        assert h in (1, 2) and sq not in ZONE_A
    for p, sq in s.royal.items():
        assert s.stacks[sq] == 2 and sq in royal_range(s.players, s.players.index(p))
    for sq in s.chars.values():
        assert sq in s.stacks  # characters never touch the board
    if len(s.players) == 2:
        assert len(s.captures) <= 1
    if s.is_chance_node():
        assert s.legal_moves() == [] and sum(p for _, p in s.chance_outcomes()) == Fraction(1)
        return
    if s.is_terminal():
        assert s.legal_moves() == [] and abs(sum(s.returns().values()) - 1.0) < 1e-9
        return
    if s.phase == "move":
        assert s.points >= 1 and s.points + s.spent == s.movement_roll
    legal = s.legal_moves()
    # the move generator and the rule checker are written independently: they must agree
    by_checker = {m for m in CANDIDATES if s.why_illegal(m) is None}
    assert set(legal) == by_checker
    assert len(set(legal)) == len(legal)
    for m in legal:
        assert Move.parse(str(m)) == m


def play_checked(seed: int, players: int, level: str, max_turns: int) -> State:
    rng = random.Random(seed)
    s = new_state(players, level, max_turns=max_turns)
    check_invariants(s)
    while not s.is_terminal():
        if s.is_chance_node():
            nxt = s.apply(s.sample_chance(rng))
        else:
            move = rng.choice(s.legal_moves())
            nxt = s.apply(move)
            if move.kind in STEP_KINDS and nxt.phase == "move" and nxt.to_move == s.to_move:
                cost = s.points - nxt.points
                assert cost >= 1
                if move.kind is MoveKind.TOWER:
                    assert cost == 3
                if move.kind is MoveKind.LOWER:
                    assert cost == 5
                if move.kind in (MoveKind.CUBE, MoveKind.ROYAL):
                    assert cost == 1
        assert nxt.supply <= s.supply and len(nxt.captures) >= len(s.captures)
        s = nxt
        check_invariants(s)
    return s


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    players=st.sampled_from([2, 3, 4]),
    level=st.sampled_from(["easy", "medium", "hard"]),
)
def test_random_playouts_keep_every_invariant(seed: int, players: int, level: str) -> None:
    play_checked(seed, players, level, max_turns=20)


def test_illegal_candidates_are_refused_by_apply() -> None:
    rng = random.Random(7)
    s = new_state(3, max_turns=40)
    checked = 0
    while not s.is_terminal():
        if s.is_chance_node():
            s = s.apply(s.sample_chance(rng))
            continue
        legal = set(s.legal_moves())
        for m in rng.sample(CANDIDATES, 40):
            if m not in legal:
                with pytest.raises(IllegalMoveError):
                    s.apply(m)
                checked += 1
        s = s.apply(rng.choice(sorted(legal, key=Move.sort_key)))
    assert checked > 100


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_long_random_playouts_keep_every_invariant(players: int) -> None:
    for seed in range(3):
        play_checked(1000 + seed, players, "easy", max_turns=400)


@pytest.mark.slow
def test_random_games_reach_a_capture() -> None:
    final, moves, chances = random_playout(new_state(2, max_turns=5000), random.Random(0), max_steps=10**6)
    assert final.is_terminal() and moves > 0 and chances > 0
