"""``vision.pipeline.FlagSideCheck`` (which sides a flag standing elsewhere would change, for the
score sheet's "side-uncertain" warnings) gives the same answer as recomputing the whole score sheet
with ``engine.ctrl.scoring.side_scores``, on positions from random legal playouts (2-4 players) and
on spots the pipeline may try: every legal spot of a colour, another flag's cell (two flags in one
cell), a spot on an occupied cell, random cells in every direction."""

from __future__ import annotations

import random

import pytest

from engine.ctrl import SIDES
from engine.ctrl.geometry import DIRECTIONS
from engine.ctrl.moves import FlagSpot
from engine.ctrl.scoring import side_scores
from engine.ctrl.state import State, new_state
from vision.pipeline import FlagSideCheck


def _brute(state: State, color: str, spot: FlagSpot, base: dict[str, dict[str, int]]) -> set[str]:
    alt = side_scores(state.blocks, {**state.flags, color: spot}, state.colors)
    return {side for side in SIDES if alt[side] != base[side]}


def _positions(seed: int, players: int) -> list[State]:
    rng = random.Random(seed)
    st = new_state(players)
    out = [st]
    for _ in range(400):
        if st.is_terminal():
            break
        st = st.apply(rng.choice(list(st.legal_moves())))
        if rng.random() < 0.15:
            out.append(st)
    out.append(st)
    return out


@pytest.mark.parametrize(("seed", "players"), [(1, 4), (2, 4), (3, 3), (4, 2), (5, 4)])
def test_flag_side_check_matches_the_whole_score_sheet(seed: int, players: int) -> None:
    rng = random.Random(seed)
    checked = changed = 0
    for st in _positions(seed, players):
        check = FlagSideCheck(st.blocks, st.flags, st.colors)
        base = side_scores(st.blocks, st.flags, st.colors)
        for color in st.colors:
            spots = list(st.flag_spots(color))
            spots = rng.sample(spots, min(len(spots), 12))
            # other flags' cells, occupied cells and a few random cells near the pile, every direction
            odd = [f.cell for k, f in st.flags.items() if k != color]
            odd += rng.sample(sorted(st.blocks), min(2, len(st.blocks)))
            odd += [(rng.randint(-4, 6), rng.randint(-4, 6), rng.randint(0, 6)) for _ in range(3)]
            spots += [FlagSpot(c, rng.choice(list(DIRECTIONS))) for c in odd]
            for spot in spots:
                want = _brute(st, color, spot, base)
                assert check.changed_sides(color, spot) == want, (st, color, spot)
                checked += 1
                changed += bool(want)
    assert checked > 100 and changed > 10  # the positions exercise both answers
