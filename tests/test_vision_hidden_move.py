"""Sides put in doubt by a block read next to a cell no picture shows (vision.free_rules.hidden_move_doubts,
issue 5 "never guess silently"; docs/vision.md, "Session 13: never guessing silently").

A hidden cell is hidden by the blocks read around it, so the pictures cannot tell a block read next to it
from the same block in it.  Session 12's fresh scene_021 (nine SIMULATED pictures, read free): a yellow block
read one cell up over an empty hidden cell, trusted, with two sides wrong and not reported -- a block *added*
in the hidden cell shows on no side, so the older rule (hidden cells open to a side) was silent.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

import vision.free_rules as free_rules
from engine.ctrl import new_state
from engine.ctrl.geometry import Cell
from engine.ctrl.moves import FlagSpot
from engine.ctrl.state import State
from vision.free_rules import hidden_move_doubts

HIDDEN: Cell = (-1, 2, 0)  # walled in: cube +x, green start -y, yellow -x and +y (held by blue 0,3,0 and green
# -2,1,0), yellow above


def _pile() -> State:
    setup = new_state(4)
    yellow = {(-1, 2, 1): "yellow", (-2, 2, 0): "yellow", (-1, 3, 0): "yellow", (0, 3, 0): "blue",
              (-2, 1, 0): "green"}
    return replace(setup, blocks={**setup.blocks, **yellow})


def test_a_block_over_a_hidden_cell_puts_the_sides_it_shows_on_in_doubt() -> None:
    doubts = hidden_move_doubts(_pile(), [HIDDEN])
    assert "-x" in doubts  # down in the hidden cell, the block's -x face is behind -2,2,0
    assert all(cells == [HIDDEN] for cells in doubts.values())


def test_no_hidden_cell_no_doubt() -> None:
    assert hidden_move_doubts(_pile(), []) == {}


def test_a_block_with_a_flag_plugged_in_does_not_move(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(free_rules, "HIDDEN_MOVE_NEIGHBOURS", "above")  # the block over the hidden cell only
    state = _pile()
    assert "-x" in hidden_move_doubts(state, [HIDDEN])
    pinned = replace(state, flags={**state.flags, "yellow": FlagSpot.parse("flag -1,2,2 +z")})
    assert hidden_move_doubts(pinned, [HIDDEN]) == {}  # it holds the yellow flag: not moved


def test_a_move_that_leaves_a_block_unheld_is_not_considered() -> None:
    # a lone pink block on the mat held only by the +y wall -1,3,0: that wall cannot move into the hidden cell
    state = replace(_pile(), blocks={**_pile().blocks, (-1, 4, 0): "pink"})
    moved = {c: v for c, v in state.blocks.items() if c != (-1, 3, 0)} | {HIDDEN: "yellow"}
    assert (-1, 4, 0) in free_rules._unsupported(moved)
    only_wall = replace(state, blocks={c: v for c, v in state.blocks.items() if c not in ((-1, 2, 1), (-2, 2, 0))}
                        | {(-1, 2, 1): "pink"}, flags={**state.flags, "pink": FlagSpot.parse("flag -1,2,2 +z")})
    # the block above is pinned by a flag and the -x wall gone (the cell is open to -x: the older rule's case)
    assert hidden_move_doubts(only_wall, [HIDDEN]) == {}


@pytest.mark.parametrize("reach", ["", "above"])
def test_switches(monkeypatch: pytest.MonkeyPatch, reach: str) -> None:
    monkeypatch.setattr(free_rules, "HIDDEN_MOVE_NEIGHBOURS", reach)
    doubts = hidden_move_doubts(_pile(), [HIDDEN])
    assert (doubts == {}) if not reach else ("-x" in doubts)
