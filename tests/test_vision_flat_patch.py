"""The free reading leaves out blocks on the mat that a flat patch of their colour on the mat explains better
(``vision.free_rules.drop_flat_patch_blocks``, ``RayScorer.flat_patch_deltas``); docs/vision.md, "Session 13:
colour on the mat as a flat patch".

A stub scorer for the rule's own logic, and the rendered (SIMULATED) fixture scene_024 read from its nine
pictures: a hard shadow under a warm key reads as blue blocks on the mat."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

import vision.free_rules as free_rules
from benchmarks.ctrl_scenes import load_scene, parse_views
from engine.ctrl.geometry import Cell
from vision.free_rules import FlatPatchConfig, drop_flat_patch_blocks
from vision.pipeline import score_images

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"


class _Patch:
    """A scorer whose ``flat_patch_deltas`` answer from a table: cell -> (patch cost - block cost, rays); a cell
    in ``after`` answers its second value once the cell ``after[cell][0]`` has gone."""

    def __init__(self, table: Mapping[Cell, tuple[int, int]],
                 after: Mapping[Cell, tuple[Cell, tuple[int, int]]] | None = None) -> None:
        self.table = dict(table)
        self.after = dict(after or {})
        self.calls = 0

    def flat_patch_deltas(self, blocks: Mapping[Cell, str], cells: Sequence[Cell], bin_size: float = 0.25,
                          min_views: int = 2) -> list[tuple[int, int]]:
        self.calls += 1
        out = []
        for c in cells:
            if c in self.after and self.after[c][0] not in blocks:
                out.append(self.after[c][1])
            else:
                out.append(self.table.get(c, (50, 100)))
        return out


def _drop(blocks: dict[Cell, str], scorer: _Patch, starts: Mapping[str, Cell],
          cfg: FlatPatchConfig | None = None) -> list[Cell]:
    return [c for c, _, _ in drop_flat_patch_blocks(blocks, scorer, starts, cfg)]  # type: ignore[arg-type]


def test_only_non_start_blocks_on_the_mat_a_patch_explains_clearly_better_go() -> None:
    blocks = {(1, -1, 0): "blue", (0, -1, 0): "blue", (2, -1, 0): "blue", (3, 0, 0): "blue", (1, -1, 1): "blue",
              (3, 1, 0): "blue"}
    table = {(1, -1, 0): (-100, 300),  # the start block: never
             (0, -1, 0): (-60, 300),  # the patch explains 60 rays more: goes
             (2, -1, 0): (-20, 300),  # by 20 only (FlatPatchConfig.min_gain): stays
             (3, 0, 0): (5, 300),  # the block explains more: stays
             (1, -1, 1): (-100, 300),  # above the mat: never priced
             (3, 1, 0): (-21, 300)}  # goes
    out = _drop(blocks, _Patch(table), {"blue": (1, -1, 0)})
    assert sorted(out) == [(0, -1, 0), (3, 1, 0)]
    assert (2, -1, 0) in blocks and (1, -1, 1) in blocks and (1, -1, 0) in blocks
    # a lower line leaves out more
    blocks = {(1, -1, 0): "blue", (2, -1, 0): "blue"}
    assert _drop(blocks, _Patch(table), {"blue": (1, -1, 0)}, FlatPatchConfig(min_gain=10)) == [(2, -1, 0)]


_ROW = {(1, -1, 0): "blue", (2, -1, 0): "blue", (3, -1, 0): "blue", (4, -1, 0): "blue", (5, -1, 0): "blue",
        (3, -2, 0): "blue", (4, -2, 0): "blue", (5, -2, 0): "blue"}


def test_the_blocks_behind_one_left_out_are_priced_again() -> None:
    # 4,-2,0 in front of 5,-2,0 (a row along a shadow): with the front one gone, the patch explains the back one
    blocks = dict(_ROW)
    scorer = _Patch({(4, -2, 0): (-80, 300), (5, -2, 0): (30, 200)}, {(5, -2, 0): ((4, -2, 0), (-40, 250))})
    out = _drop(blocks, scorer, {"blue": (1, -1, 0)})
    assert out == [(4, -2, 0), (5, -2, 0)] and scorer.calls == 3
    blocks = dict(_ROW)
    scorer = _Patch({(4, -2, 0): (-80, 300), (5, -2, 0): (30, 200)}, {(5, -2, 0): ((4, -2, 0), (-40, 250))})
    assert _drop(blocks, scorer, {"blue": (1, -1, 0)}, FlatPatchConfig(rounds=1)) == [(4, -2, 0)]


def test_a_candidate_holding_a_kept_block_stays(monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = {(1, -1, 0): "blue", (1, -2, 0): "blue", (1, -2, 1): "blue"}
    out = _drop(blocks, _Patch({(1, -2, 0): (-90, 300)}), {"blue": (1, -1, 0)})
    assert out == [] and (1, -2, 0) in blocks  # it holds 1,-2,1 (rulebook "The Battlefield")
    # with fewer than two pictures taken low down the rule does not run
    blocks = {(1, -1, 0): "blue", (2, -1, 0): "blue"}
    assert [c for c, _, _ in drop_flat_patch_blocks(blocks, _Patch({(2, -1, 0): (-90, 300)}),  # type: ignore[arg-type]
                                                    {"blue": (1, -1, 0)}, low_pictures=1)] == []
    assert [c for c, _, _ in drop_flat_patch_blocks(blocks, _Patch({(2, -1, 0): (-90, 300)}),  # type: ignore[arg-type]
                                                    {"blue": (1, -1, 0)}, low_pictures=4)] == [(2, -1, 0)]
    monkeypatch.setattr(free_rules, "DROP_FLAT_PATCH_BLOCKS", False)
    blocks = {(1, -1, 0): "blue", (2, -1, 0): "blue"}
    assert _drop(blocks, _Patch({(2, -1, 0): (-90, 300)}), {"blue": (1, -1, 0)}) == []


def test_a_patch_explains_the_hard_shadow_not_the_blocks() -> None:
    scene = load_scene(FIXTURES / "scene_024", views=parse_views("all"))
    res = score_images(scene.pics, scene.spec, scene.camera, None)
    scorer = res.reconstruction.scorer
    assert scorer is not None
    truth = dict(scene.truth.blocks)
    ground = sorted(c for c in truth if c[2] == 0)
    # every block standing on the mat that the pictures show explains them better than a patch of its colour
    deltas = scorer.flat_patch_deltas(truth, ground)
    assert sum(n >= 50 for _, n in deltas) >= 10 and all(d > 0 for d, n in deltas if n >= 50)
    # the shadow read as a blue block beside the pile: the patch explains it better
    phantom = (4, -2, 0)
    assert phantom not in truth
    (d, n), = scorer.flat_patch_deltas({**truth, phantom: "blue"}, [phantom])
    assert n > 100 and d < -free_rules.FLAT_PATCH.min_gain
    left = [p for p in res.problems if p.code == "patch-on-mat"]
    assert [p.where for p in left] == ["cell 4,-2,0"] and all(p.severity == "warning" for p in left)
    # the five usual pictures: none is taken low down, the rule does not run
    five = load_scene(FIXTURES / "scene_024", views=parse_views("five"))
    assert not [p for p in score_images(five.pics, five.spec, five.camera, None).problems if p.code == "patch-on-mat"]
