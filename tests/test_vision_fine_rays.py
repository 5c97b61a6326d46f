"""Finer rays where the sampled ones cannot decide (vision.fine_rays, issue 5; docs/vision.md, "Session 14: finer rays
where the sampled ones cannot decide").

The rule's own logic with stub scorers (which candidates it prices, the gain and share it asks, one block at a time,
the 22 blocks of a colour), and the pixels it samples with a real camera: every ``stride``-th pixel of the cells'
projection only.  The ray prices themselves come from ``RayScorer.deltas`` on the traced fine rays."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import vision.fine_rays as fine_rays
from benchmarks.ctrl_scenes import load_scene, parse_views
from engine.ctrl import new_state
from engine.ctrl.geometry import Cell
from engine.ctrl.state import State
from vision.camera import ViewCamera
from vision.fine_rays import add_by_fine_rays, cell_pixels
from vision.pipeline import score_images
from vision.reconstruct import ViewEvidence

TOP: Cell = (3, 1, 3)  # on a pink stack of three, the fourth level
SIDE: Cell = (6, 1, 1)  # beside the pink overhang's end


class _Sampled:
    """The sampled rays: every priced cell within the limit (``deltas`` from a table, else 1000)."""

    def __init__(self, table: Mapping[tuple[Cell, str], int]) -> None:
        self.table = dict(table)

    def in_volume(self, cell: Cell) -> bool:
        return abs(cell[0]) < 9 and abs(cell[1]) < 9 and 0 <= cell[2] < 9

    def set_base(self, blocks: Mapping[Cell, str]) -> int:
        return 0

    def deltas(self, placements: Sequence[Sequence[Cell]], color: str) -> list[int]:
        return [self.table.get((cells[0], color), 1000) for cells in placements]


class _Fine(_Sampled):
    """The fine rays: prices from a table; ``share`` per (cell, colour): (agree, disagree, changed)."""

    def __init__(self, table: Mapping[tuple[Cell, str], int], share: Mapping[tuple[Cell, str], tuple[int, int, int]]):
        super().__init__(table)
        self.share = dict(share)
        self.bases: list[dict[Cell, str]] = []

    def set_base(self, blocks: Mapping[Cell, str]) -> int:
        self.bases.append(dict(blocks))
        return 0

    def deltas(self, placements: Sequence[Sequence[Cell]], color: str) -> list[int]:
        # a block already added changes the others' prices: the base is the blocks so far
        return [0 if cells[0] in self.bases[-1] else self.table.get((cells[0], color), 1000) for cells in placements]


def _pile() -> State:
    setup = new_state(4)
    pink = {(3, 1, 0): "pink", (3, 1, 1): "pink", (3, 1, 2): "pink", (4, 1, 1): "pink", (5, 1, 1): "pink"}
    return replace(setup, blocks={**setup.blocks, **pink}, flags={})


def _run(monkeypatch: pytest.MonkeyPatch, state: State, sampled: Mapping[tuple[Cell, str], int],
         fine: _Fine) -> tuple[dict[Cell, str], list[fine_rays.FineBlock]]:
    def fake_scorer(*_args: Any, **_kw: Any) -> _Fine:
        return fine

    def fake_agreeing(_f: Any, _blocks: Mapping[Cell, str], cell: Cell, colour: str) -> tuple[int, int, int]:
        return fine.share[(cell, colour)]

    monkeypatch.setattr(fine_rays, "fine_scorer", fake_scorer)
    monkeypatch.setattr(fine_rays, "_agreeing", fake_agreeing)
    blocks, added, _ = add_by_fine_rays(state, _Sampled(sampled), [], [], [], [])  # type: ignore[arg-type]
    return blocks, added


def test_a_block_every_pixel_shows_is_added_and_its_sides_named(monkeypatch: pytest.MonkeyPatch) -> None:
    state = _pile()
    fine = _Fine({(TOP, "pink"): -40, (TOP, "blue"): 30}, {(TOP, "pink"): (50, 10, 60)})
    blocks, added = _run(monkeypatch, state, {(TOP, "pink"): 2, (TOP, "blue"): 3}, fine)
    assert blocks[TOP] == "pink"
    assert [(a.cell, a.colour, a.gain) for a in added] == [(TOP, "pink", 40)]
    base, alt = state.side_scores(), replace(state, blocks=blocks).side_scores()
    assert set(added[0].sides) == {s for s in base if base[s] != alt[s]}


def test_too_small_a_gain_or_a_depth_tie_adds_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    state = _pile()
    small = _Fine({(TOP, "pink"): -(fine_rays.FINE_MIN_GAIN - 1)}, {(TOP, "pink"): (19, 0, 19)})
    assert _run(monkeypatch, state, {(TOP, "pink"): 2}, small)[1] == []
    # many fine rays argue over whole faces, a few more for the block: a depth tie, not a sliver
    tie = _Fine({(TOP, "pink"): -60}, {(TOP, "pink"): (1030, 970, 2000)})
    assert _run(monkeypatch, state, {(TOP, "pink"): 2}, tie)[1] == []


def test_only_cells_the_sampled_rays_cannot_decide_are_priced(monkeypatch: pytest.MonkeyPatch) -> None:
    state = _pile()
    limit = fine_rays.FINE_MAX_SAMPLED
    fine = _Fine({(TOP, "pink"): -80}, {(TOP, "pink"): (80, 0, 80)})
    assert _run(monkeypatch, state, {(TOP, "pink"): limit + 1}, fine)[1] == []
    assert _run(monkeypatch, state, {(TOP, "pink"): -(limit + 1)}, fine)[1] == []
    assert [a.cell for a in _run(monkeypatch, state, {(TOP, "pink"): -limit}, fine)[1]] == [TOP]


def test_best_first_one_at_a_time_and_the_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    state = _pile()
    prices = {(TOP, "pink"): -30, (SIDE, "pink"): -90}
    shares = {(TOP, "pink"): (30, 0, 30), (SIDE, "pink"): (90, 0, 90)}
    fine = _Fine(prices, shares)
    _blocks, added = _run(monkeypatch, state, {(TOP, "pink"): 1, (SIDE, "pink"): 1}, fine)
    assert [a.cell for a in added] == [SIDE, TOP]
    assert fine.bases[1] == {**state.blocks, SIDE: "pink"}  # the second priced on the blocks with the first
    monkeypatch.setattr(fine_rays, "FINE_BLOCKS", False)
    assert _run(monkeypatch, state, {(TOP, "pink"): 1, (SIDE, "pink"): 1}, _Fine(prices, shares))[1] == []


def test_a_colour_with_22_blocks_gets_no_more(monkeypatch: pytest.MonkeyPatch) -> None:
    state = _pile()
    many = {(x, -4, 0): "pink" for x in range(-4, 8)} | {(x, -5, 0): "pink" for x in range(-4, 8)}
    full = replace(state, blocks={**state.blocks, **dict(list(many.items())[:22 - 5])})
    assert sum(1 for v in full.blocks.values() if v == "pink") == 22
    fine = _Fine({(TOP, "pink"): -80}, {(TOP, "pink"): (80, 0, 80)})
    assert _run(monkeypatch, full, {(TOP, "pink"): 1}, fine)[1] == []


def test_fine_pixels_cover_the_cells_projection_only() -> None:
    K = np.array([[900.0, 0, 640], [0, 900.0, 360], [0, 0, 1]])
    cam = ViewCamera.look_at((400.0, -300.0, 350.0), (33.0, 33.0, 0.0), K, (1280, 720))
    view = ViewEvidence(cam, np.zeros((720, 1280), np.uint8))
    cell: Cell = (1, 1, 0)
    corners = np.array([[cell[0] + a, cell[1] + b, cell[2] + c] for a in (0, 1) for b in (0, 1) for c in (0, 1)],
                       np.float64) * cam.block_mm
    pc = cam.project(corners)
    for stride in (1, 2):
        pix = cell_pixels(view, [cell], stride)
        assert len(pix) == len({(int(x), int(y)) for x, y in pix}) > 0
        assert np.all(pix.min(axis=0) >= np.floor(pc.min(axis=0)))
        assert np.all(pix.max(axis=0) <= np.ceil(pc.max(axis=0)))
        assert np.all((pix - stride // 2) % stride == 0)
    assert len(cell_pixels(view, [cell], 1)) > 3 * len(cell_pixels(view, [cell], 2))
    assert len(cell_pixels(view, [], 1)) == 0


@pytest.mark.parametrize("on", [True, False])
def test_fixture_blocks_slivers_show_are_read_and_named(monkeypatch: pytest.MonkeyPatch, on: bool) -> None:
    """fixtures/ctrl/scene_004, five rendered (SIMULATED) pictures, read free: a blue block at -1,0,0 and a pink one at
    3,-1,0 (both in the truth) are read only from the finer rays, each named with the sides it changes."""
    monkeypatch.setattr(fine_rays, "FINE_BLOCKS", on)
    scene = load_scene(Path(__file__).resolve().parents[1] / "fixtures" / "ctrl" / "scene_004",
                       views=parse_views("five"))
    res = score_images(scene.pics, scene.spec, scene.camera, None)
    slivers = {(-1, 0, 0): "blue", (3, -1, 0): "pink"}
    assert all(scene.truth.blocks.get(c) == v for c, v in slivers.items())
    named = {p.where for p in res.problems if p.code == "fine-rays"}
    if on:
        assert all(res.state.blocks.get(c) == v for c, v in slivers.items())
        assert named == {"cell -1,0,0", "cell 3,-1,0"}
        without = replace(res.state, blocks={c: v for c, v in res.state.blocks.items() if c not in slivers})
        base, alt = res.state.side_scores(), without.side_scores()
        assert {s for s in base if base[s] != alt[s]} <= set(res.uncertain_sides)
    else:
        assert not any(res.state.blocks.get(c) == v for c, v in slivers.items()) and not named


def test_sides_changed_by_matches_side_scores() -> None:
    """``free_rules.sides_changed_by`` (the two lines of sight through the cell only) names exactly the sides whose
    ``side_scores`` row a block added there changes, on the first committed fixtures' truth states, with its flags and
    without, for every empty flag-free cell beside a block and every colour in play."""
    import json

    from engine.ctrl.geometry import ALL_DIRS, CENTRAL_CUBE, SIDES
    from vision.free_rules import sides_changed_by

    root = Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"
    checked = 0
    for sc in sorted(root.glob("scene_*"))[:6]:
        truth = State.from_json(json.loads((sc / "scene.json").read_text())["state"])
        for state in (truth, replace(truth, flags={})):
            base = state.side_scores()
            pinned = {f.cell for f in state.flags.values()}
            occupied = set(state.blocks) | set(CENTRAL_CUBE)
            cells = {(c[0] + d[0], c[1] + d[1], c[2] + d[2]) for c in occupied for d in ALL_DIRS}
            for cell in sorted(cells - occupied - pinned):
                if cell[2] < 0:
                    continue
                for colour in state.colors:
                    alt = replace(state, blocks={**state.blocks, cell: colour}).side_scores()
                    want = tuple(s for s in SIDES if alt[s] != base[s])
                    assert sides_changed_by(state, cell, colour) == want, (sc.name, cell, colour)
                    checked += 1
    assert checked > 1000


def test_deltas_each_matches_deltas(monkeypatch: pytest.MonkeyPatch) -> None:
    """``RayScorer.deltas_each`` (every colour on one gather, used by ``free_rules.depth_tie_candidates``) gives
    exactly ``deltas`` of each cell alone, for every colour, on every call a fixture's free reading makes."""
    from vision.reconstruct import RayScorer

    seen: list[int] = []
    each = RayScorer.deltas_each

    def checked(self: RayScorer, cells: Sequence[Cell], colors: Sequence[str]) -> dict[str, list[int]]:
        got = each(self, cells, colors)
        for colour in colors:
            assert got[colour] == self.deltas([[c] for c in cells], colour), colour
            seen.append(len(cells))
        return got

    monkeypatch.setattr(RayScorer, "deltas_each", checked)
    scene = load_scene(Path(__file__).resolve().parents[1] / "fixtures" / "ctrl" / "scene_004",
                       views=parse_views("all"))
    score_images(scene.pics, scene.spec, scene.camera, None)
    assert seen and sum(seen) > 20
