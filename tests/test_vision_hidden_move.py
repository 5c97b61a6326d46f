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


def _brute_hidden_move_doubts(state: State, hidden: list[Cell]) -> dict[str, list[Cell]]:
    """The rule as it was written before session 18: whole ``side_scores`` compared for every move."""
    from engine.ctrl.geometry import ALL_DIRS, CENTRAL_CUBE

    starts = {cell for colour, cell in state.starts.items() if state.blocks.get(cell) == colour}
    pinned = {f.block for f in state.flags.values()} | {f.cell for f in state.flags.values()}
    base = state.side_scores()
    before = free_rules._unsupported(state.blocks)
    out: dict[str, list[Cell]] = {}
    for u in sorted(hidden):
        if u in state.blocks or u in CENTRAL_CUBE or u in pinned or u[2] < 0:
            continue
        changed: set[str] = set()
        for d in ALL_DIRS:
            n = (u[0] + d[0], u[1] + d[1], u[2] + d[2])
            if n not in state.blocks or n in starts or n in pinned:
                continue
            blocks = {c: v for c, v in state.blocks.items() if c != n}
            blocks[u] = state.blocks[n]
            if free_rules._unsupported(blocks) - {u} - before:
                continue
            alt = replace(state, blocks=blocks).side_scores()
            changed.update(side for side in base if alt[side] != base[side])
        for side in changed:
            out.setdefault(side, []).append(u)
    return out


def _fixture_states() -> list[State]:
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"
    out = []
    for sc in sorted(root.glob("scene_*"))[:4]:
        truth = State.from_json(json.loads((sc / "scene.json").read_text())["state"])
        out += [truth, replace(truth, flags={})]
    return out


def test_sides_changed_by_move_matches_side_scores() -> None:
    """``free_rules.sides_changed_by_move`` (the lines of sight through the two cells only, session 18) names
    exactly the sides whose ``side_scores`` row changes when a block stands one cell off, for every block of the
    first committed fixtures' truth states (with their flags and without) moved to every empty flag-free
    neighbour (face, edge and corner)."""
    from engine.ctrl.geometry import CENTRAL_CUBE, SIDES

    around = [(dx, dy, dz) for dx in (-1, 0, 1) for dy in (-1, 0, 1) for dz in (-1, 0, 1) if (dx, dy, dz) != (0, 0, 0)]
    checked = changed = 0
    for state in _fixture_states()[1:4]:  # scene_000 without flags, scene_001 with and without
        base = state.side_scores()
        flagged = {f.cell for f in state.flags.values()}
        for src in sorted(state.blocks):
            for d in around:
                dst = (src[0] + d[0], src[1] + d[1], src[2] + d[2])
                if dst in state.blocks or dst in CENTRAL_CUBE or dst in flagged or dst[2] < 0:
                    continue
                blocks = {c: v for c, v in state.blocks.items() if c != src} | {dst: state.blocks[src]}
                alt = replace(state, blocks=blocks).side_scores()
                want = {s for s in SIDES if alt[s] != base[s]}
                assert free_rules.sides_changed_by_move(state, src, dst) == want, (src, dst)
                checked += 1
                changed += bool(want)
    assert checked > 500 and 0 < changed < checked


def test_hidden_move_doubts_matches_the_whole_side_scores() -> None:
    """The faster ``hidden_move_doubts`` (session 18) gives the doubts the whole-``side_scores`` comparison gave,
    with every empty cell next to a block taken as hidden, on the first fixtures' truth states and the pile above."""
    from engine.ctrl.geometry import ALL_DIRS, CENTRAL_CUBE

    with_doubts = 0
    for state in [_pile(), *_fixture_states()]:
        occupied = set(state.blocks) | set(CENTRAL_CUBE)
        hidden = sorted({(c[0] + d[0], c[1] + d[1], c[2] + d[2]) for c in occupied for d in ALL_DIRS} - occupied)
        want = _brute_hidden_move_doubts(state, hidden)
        got = hidden_move_doubts(state, hidden)
        assert got == want
        with_doubts += bool(want)
    assert with_doubts >= 5
