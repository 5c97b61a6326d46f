"""Sides put in doubt by block counts no game reaches together (vision.free_rules.spread_doubts,
issue 5 "never guess silently").

Players take turns, three blocks a turn (CTRL rulebook "Game Turn"), so two colours still placing
differ by at most 3 blocks.  A free reading with a bigger gap misread blocks (SIMULATED fixture
scene_035, a set-up read with 19 yellow blocks: 18 wrong cells, 5 wrong sides reported as sure), and
every side is reported uncertain for the two colours at the ends of the gap.
"""

from __future__ import annotations

from dataclasses import replace

from engine.ctrl import SIDES, new_state
from vision.free_rules import spread_doubts


def test_plausible_counts_raise_no_doubt() -> None:
    setup = new_state(4)
    assert spread_doubts(setup) == {}
    played = setup.apply(setup.placements()[0])  # blue 4, the others 1: one turn apart
    assert spread_doubts(played) == {}


def test_two_turns_apart_puts_every_side_in_doubt() -> None:
    setup = new_state(4)
    cells = [(1, 4, 0), (1, 5, 0), (1, 6, 0), (2, 4, 0), (2, 5, 0), (2, 6, 0)]  # 7 yellow, blue 1
    many = replace(setup, blocks={**setup.blocks, **{c: "yellow" for c in cells}})
    doubts = spread_doubts(many)
    assert set(doubts) == set(SIDES)
    assert all(cols == ["yellow", "blue"] for cols in doubts.values())


def test_a_colour_with_all_its_blocks_is_left_out() -> None:
    # a colour that placed all 22 blocks stops; the others may then be far behind it legally
    setup = new_state(2)
    full = {(10 + k, 0, 0): "blue" for k in range(21)}
    state = replace(setup, blocks={**setup.blocks, **full})
    assert spread_doubts(state) == {}


def test_blocks_nothing_holds_put_their_sides_in_doubt() -> None:
    from vision.free_rules import support_doubts

    setup = new_state(4)
    assert support_doubts(setup) == {}
    floating = replace(setup, blocks={**setup.blocks, (6, -1, 0): "blue"})  # far from the pile
    doubts = support_doubts(floating)
    assert all(cells == [(6, -1, 0)] for cells in doubts.values())
    assert {"+x", "top"} <= set(doubts)
    # blue blocks on the start block and sideways from it are held; 1,-3,0 touches only the block
    # above it: it would have been placed under it, which no path does
    held = {(1, -1, 1): "blue", (1, -2, 1): "blue", (1, -3, 1): "blue"}
    assert support_doubts(replace(setup, blocks={**setup.blocks, **held})) == {}
    hanging = replace(setup, blocks={**setup.blocks, **held, (1, -3, 0): "blue"})
    doubts = support_doubts(hanging)
    assert doubts and all(cells == [(1, -3, 0)] for cells in doubts.values())


def test_a_start_cell_read_without_its_block_puts_its_sides_in_doubt() -> None:
    from vision.free_rules import start_doubts

    setup = new_state(4)
    assert start_doubts(setup) == {}
    gone = replace(setup, blocks={c: v for c, v in setup.blocks.items() if v != "pink"})
    doubts = start_doubts(gone)
    assert set(doubts) == {"+x", "top", "-y", "+y"}  # pink 3,1,0 stands free on those sides
    assert all(cells == [(3, 1, 0)] for cells in doubts.values())
