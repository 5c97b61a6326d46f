"""Sides put in doubt by an empty cell the pictures hardly tell from a full one (vision.free_rules.depth_tie_doubts,
issue 5 "never guess silently"; docs/vision.md, "Session 13: depth ties").

Session 13's held-out fresh13c scene_028 (nine SIMULATED pictures, read free): a pink block at the fourth level
that the +y side's orthographic line shows, but that changes the reading's cost by about 3 sampled rays in all
nine pictures; read absent, trusted, +y wrong and not reported.  A stub scorer here (the rule's own logic: which
cells are legal, which prices count, which sides change); the ray prices come from ``RayScorer.deltas``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import pytest

import vision.free_rules as free_rules
from engine.ctrl import new_state
from engine.ctrl.geometry import Cell
from engine.ctrl.state import State
from vision.free_rules import depth_tie_candidates, depth_tie_doubts

TOP: Cell = (3, 1, 3)  # on a pink stack of three, the fourth level
UNDER: Cell = (5, 1, 0)  # under the end of an overhang: only the block above would touch it


class _Prices:
    """A scorer whose ``deltas`` answer from a table (cell, colour) -> rays (else 1000); records what it priced."""

    def __init__(self, table: Mapping[tuple[Cell, str], int]) -> None:
        self.table = dict(table)
        self.priced: set[Cell] = set()
        self.bases = 0

    def in_volume(self, cell: Cell) -> bool:
        return abs(cell[0]) < 9 and abs(cell[1]) < 9 and 0 <= cell[2] < 9

    def set_base(self, blocks: Mapping[Cell, str]) -> int:
        self.bases += 1
        return 0

    def deltas(self, placements: Sequence[Sequence[Cell]], color: str) -> list[int]:
        self.priced.update(c for cells in placements for c in cells)
        return [self.table.get((cells[0], color), 1000) for cells in placements]


def _pile() -> State:
    setup = new_state(4)
    pink = {(3, 1, 1): "pink", (3, 1, 2): "pink", (4, 1, 1): "pink", (5, 1, 1): "pink"}
    return replace(setup, blocks={**setup.blocks, **pink}, flags={})


def _sides_with(state: State, cell: Cell, colour: str) -> set[str]:
    base, alt = state.side_scores(), replace(state, blocks={**state.blocks, cell: colour}).side_scores()
    return {s for s in base if base[s] != alt[s]}


def test_a_block_the_rays_barely_reach_puts_the_sides_it_changes_in_doubt() -> None:
    state = _pile()
    scorer = _Prices({(TOP, "pink"): 3, (TOP, "blue"): 40})
    doubts = depth_tie_doubts(state, scorer, [], max_rays=8)  # type: ignore[arg-type]
    want = _sides_with(state, TOP, "pink")
    assert want and set(doubts) == want
    assert all([(t.cell, t.colour, t.rays) for t in ties] == [(TOP, "pink", 3)] for ties in doubts.values())
    assert str(doubts[sorted(want)[0]][0]) == "pink 3,1,3"
    # explaining a few rays MORE with it counts the same (the reading left it out anyway)
    doubts = depth_tie_doubts(state, _Prices({(TOP, "pink"): -3}), [], max_rays=8)  # type: ignore[arg-type]
    assert set(doubts) == want


def test_a_clear_price_a_hidden_cell_and_the_switch_leave_no_doubt(monkeypatch: pytest.MonkeyPatch) -> None:
    state = _pile()
    assert depth_tie_doubts(state, _Prices({(TOP, "pink"): 30}), [], max_rays=8) == {}  # type: ignore[arg-type]
    scorer = _Prices({(TOP, "pink"): 3})
    assert depth_tie_doubts(state, scorer, [TOP], max_rays=8) == {}  # type: ignore[arg-type]
    assert TOP not in scorer.priced  # hidden cells have their own doubts
    monkeypatch.setattr(free_rules, "DEPTH_TIE_RAYS", 0)
    assert depth_tie_doubts(state, _Prices({(TOP, "pink"): 3}), []) == {}  # type: ignore[arg-type]
    monkeypatch.setattr(free_rules, "DEPTH_TIE_RAYS", 8)
    assert set(depth_tie_doubts(state, _Prices({(TOP, "pink"): 3}), [])) == _sides_with(state, TOP, "pink")  # type: ignore[arg-type]


def test_only_cells_a_block_could_stand_in_are_priced() -> None:
    state = _pile()
    scorer = _Prices({(UNDER, "pink"): 0})
    ties = depth_tie_candidates(state, scorer, [], 8)  # type: ignore[arg-type]
    assert UNDER not in scorer.priced and not ties  # held by nothing but the block above (rulebook "The Battlefield")
    assert (9, 9, 0) not in scorer.priced  # touching nothing: not connected
    assert all(c[2] >= 0 for c in scorer.priced)
    walled = replace(state, blocks={**state.blocks, (2, 4, 0): "pink", (1, 5, 0): "pink", (0, 4, 0): "pink",
                                    (1, 4, 1): "pink"})
    scorer = _Prices({})
    depth_tie_candidates(walled, scorer, [], 8)  # type: ignore[arg-type]
    assert (1, 4, 0) not in scorer.priced  # shows on no side: nothing to doubt
    assert TOP in scorer.priced and scorer.bases == 1
