"""The hidden cell under a block read above the mat is filled with that block's colour
(``vision.free_rules.fill_under``, ``FILL_UNDER``; docs/vision.md, "Session 19: free reading where every block is
seen")."""

from __future__ import annotations

import pytest

import vision.free_rules as free_rules
from engine.ctrl.geometry import Cell
from vision.free_rules import fill_under

STARTS: dict[str, Cell] = {"blue": (1, -1, 0), "pink": (3, 1, 0)}


@pytest.fixture
def on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(free_rules, "FILL_UNDER", True)


def test_a_block_one_level_up_gets_the_block_under_it(on: None) -> None:
    blocks: dict[Cell, str] = {(1, -1, 0): "blue", (3, 1, 0): "pink", (4, 1, 0): "pink", (4, 0, 1): "pink"}
    filled, notes = fill_under(blocks, [(4, 0, 0), (5, 5, 0)], STARTS)
    assert filled == [(4, 0, 0)] and blocks[(4, 0, 0)] == "pink"
    assert [(p.code, p.where, p.severity) for p in notes] == [("inferred-under", "cell 4,0,0", "warning")]


def test_down_to_the_mat_through_hidden_cells_only(on: None) -> None:
    blocks: dict[Cell, str] = {(1, -1, 0): "blue", (3, 1, 0): "pink", (5, 1, 3): "pink"}
    filled, _ = fill_under(blocks, [(5, 1, 2), (5, 1, 1)], STARTS)  # (5, 1, 0) is seen empty
    assert filled == [(5, 1, 1), (5, 1, 2)] and (5, 1, 0) not in blocks


def test_start_cells_and_the_23rd_block_stay_empty(on: None) -> None:
    # the pink start cell hidden and empty: no blue block goes there ("Setup" 3)
    blocks: dict[Cell, str] = {(1, -1, 0): "blue", (4, 1, 0): "pink", (3, 1, 1): "blue"}
    assert fill_under(blocks, [(3, 1, 0)], STARTS) == ([], [])
    full = {(x, 9, 0): "blue" for x in range(20)} | {(1, -1, 0): "blue", (3, 1, 0): "pink", (6, 6, 1): "blue"}
    assert sum(v == "blue" for v in full.values()) == 22
    assert fill_under(full, [(6, 6, 0)], STARTS) == ([], [])  # a 23rd blue block: no ("Components")


def test_switched_off_by_default() -> None:
    assert free_rules.FILL_UNDER is False
    blocks: dict[Cell, str] = {(3, 1, 0): "pink", (4, 0, 1): "pink"}
    assert fill_under(blocks, [(4, 0, 0)], STARTS) == ([], [])
    assert (4, 0, 0) not in blocks
