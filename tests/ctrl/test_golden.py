"""Golden positions (move counts and scores) and a cross-check of the fast path generator."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.ctrl import State, new_state
from engine.ctrl.geometry import NOT_DOWN, PERP
from engine.ctrl.paths import explain_path, first_cells

GOLDEN = json.loads((Path(__file__).parent / "golden" / "positions.json").read_text())["positions"]


@pytest.mark.parametrize("entry", GOLDEN, ids=[e["name"] for e in GOLDEN])
def test_golden_position(entry: dict) -> None:  # type: ignore[type-arg]
    s = State.from_json(entry["state"])
    if not s.is_terminal():
        assert len(s.placements()) == entry["placements"]
        assert len(s.apply(s.legal_moves()[0]).legal_moves()) == entry["flag_spots_after_first"]
    assert s.side_scores() == entry["sides"]
    assert s.totals() == entry["totals"]
    assert s.winners() == entry["winners"]


def slow_reference(s: State) -> set[frozenset[tuple[int, int, int]]]:
    """Every (first cell, support, direction) walked independently with explain_path."""
    color = s.to_move or ""
    occ = set(s.occupied)
    flags = set(s.other_flag_cells(color))
    forbidden = s.first_turn_forbidden(color)
    length = min(3, s.remaining(color))
    out = set()
    for c1 in first_cells(s.blocks_of(color), occ, flags):
        for n in NOT_DOWN:
            for d in PERP[n]:
                path = explain_path(c1, n, d, occ, flags, length)
                if path is not None and not set(path) & forbidden:
                    out.add(frozenset(path))
    return out


@pytest.mark.parametrize("entry", GOLDEN, ids=[e["name"] for e in GOLDEN])
def test_fast_generator_matches_reference(entry: dict) -> None:  # type: ignore[type-arg]
    s = State.from_json(entry["state"])
    if s.is_terminal():
        return
    assert s.placement_sets() == slow_reference(s)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 100_000), st.integers(1, 25), st.sampled_from([2, 3, 4]))
def test_fast_generator_matches_reference_on_random_positions(seed: int, turns: int, players: int) -> None:
    rng = random.Random(seed)
    sc = {"player1": "blue", "player2": "pink"} if players == 2 else None
    s = new_state(players, scoring=sc)
    for _ in range(turns):
        if s.is_terminal():
            return
        s = s.apply(rng.choice(list(s.legal_moves())))
        s = s.apply(rng.choice(list(s.legal_moves())))
    if not s.is_terminal():
        assert s.placement_sets() == slow_reference(s)
