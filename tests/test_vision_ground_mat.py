"""The free reading leaves out blocks on the mat whose colour the other pictures show on the mat itself
(``vision.free_rules.drop_ground_mat_blocks``, ``RayScorer.colour_on_ground``); docs/vision.md, "Session 12:
the free reading with nine pictures".

A stub scorer for the rule's own logic, and the rendered (SIMULATED) fixture scene_039 read from its nine
pictures: a hard shadow under a warm key reads as rows of blue blocks on the mat."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

import vision.free_rules as free_rules
from benchmarks.ctrl_scenes import load_scene, parse_views
from engine.ctrl.geometry import Cell
from vision.free_rules import drop_ground_mat_blocks
from vision.pipeline import score_images

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"


class _Ground:
    """A scorer whose ``colour_on_ground`` answers from a table: cell -> (checked, on the ground)."""

    def __init__(self, table: Mapping[Cell, tuple[int, int]]) -> None:
        self.table = dict(table)
        self.patch: dict[Cell, tuple[int, int]] = {}  # cell -> (flat patch cost - block cost, rays priced)

    def colour_on_ground(self, blocks: Mapping[Cell, str], cell: Cell) -> tuple[int, int]:
        return self.table.get(cell, (0, 0))

    def flat_patch_deltas(self, blocks: Mapping[Cell, str], cells: list[Cell], bin_size: float = 0.25,
                          min_views: int = 2) -> list[tuple[int, int]]:
        return [self.patch.get(c, (0, 0)) for c in cells]


def _drop(blocks: dict[Cell, str], table: Mapping[Cell, tuple[int, int]],
          starts: Mapping[str, Cell]) -> list[Cell]:
    return [c for c, _, _ in drop_ground_mat_blocks(blocks, _Ground(table), starts)]  # type: ignore[arg-type]


def test_only_non_start_blocks_on_the_mat_with_their_colour_around_go() -> None:
    # each beside the Central Cube, so none holds another
    blocks = {(1, -1, 0): "blue", (0, -1, 0): "blue", (2, -1, 0): "blue", (3, 0, 0): "blue", (1, -1, 1): "blue",
              (3, 1, 0): "blue"}
    table = {(1, -1, 0): (50, 50),  # the start block: never
             (0, -1, 0): (40, 39),  # 97.5 %: goes
             (2, -1, 0): (19, 19),  # too few places checked
             (3, 0, 0): (40, 36),  # 90 %: stays
             (1, -1, 1): (40, 40),  # above the mat: never
             (3, 1, 0): (20, 20)}  # goes
    out = _drop(blocks, table, {"blue": (1, -1, 0)})
    assert sorted(out) == [(0, -1, 0), (3, 1, 0)]
    assert (0, -1, 0) not in blocks and (2, -1, 0) in blocks and (1, -1, 1) in blocks


def test_a_candidate_holding_a_kept_block_stays(monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = {(1, -1, 0): "blue", (1, -2, 0): "blue", (1, -2, 1): "blue"}
    out = _drop(blocks, {(1, -2, 0): (40, 40)}, {"blue": (1, -1, 0)})
    assert out == [] and (1, -2, 0) in blocks  # it holds 1,-2,1 (rulebook "The Battlefield")
    monkeypatch.setattr(free_rules, "DROP_GROUND_MAT_BLOCKS", False)
    blocks = {(1, -1, 0): "blue", (4, -2, 0): "blue"}
    assert _drop(blocks, {(4, -2, 0): (40, 40)}, {"blue": (1, -1, 0)}) == []


def test_hard_shadow_blocks_are_left_out_and_reported() -> None:
    scene = load_scene(FIXTURES / "scene_039", views=parse_views("all"))
    res = score_images(scene.pics, scene.spec, scene.camera, None)
    left = [p for p in res.problems if p.code == "colour-on-mat"]
    assert len(left) >= 2
    cells = [tuple(int(v) for v in p.where.split()[1].split(",")) for p in left]
    assert not [c for c in cells if c in scene.truth.blocks]  # each a shadow, none a block
    assert all(p.severity == "warning" for p in left)
    # every wrong side stays reported
    truth, got = scene.truth.side_scores(), res.state.side_scores()
    assert all(side in res.uncertain_sides for side in truth if truth[side] != got[side])


def test_a_block_a_flat_patch_explains_far_worse_stays_with_low_pictures() -> None:
    # the colour on the mat around a true block bled from it (held13 scene_012, low10 scene_003, nine pictures):
    # a flat patch in its place explains the pictures far worse than the block (docs/vision.md, "Session 14")
    blocks = {(1, -1, 0): "blue", (0, -1, 0): "blue", (3, 0, 0): "blue"}
    ground = _Ground({(0, -1, 0): (40, 40), (3, 0, 0): (40, 40)})
    ground.patch = {(0, -1, 0): (255, 300), (3, 0, 0): (44, 300)}  # patch cost - block cost, rays priced
    starts = {"blue": (1, -1, 0)}
    got = drop_ground_mat_blocks(dict(blocks), ground, starts, low_pictures=4)  # type: ignore[arg-type]
    assert [c for c, _, _ in got] == [(3, 0, 0)]
    # without the low pictures (or not known) the patch is not asked: both go
    for low in (0, None):
        got = drop_ground_mat_blocks(dict(blocks), ground, starts, low_pictures=low)  # type: ignore[arg-type]
        assert sorted(c for c, _, _ in got) == [(0, -1, 0), (3, 0, 0)]
