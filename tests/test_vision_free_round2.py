"""Free reading, round 2 (vision.free_rules, issue 5): what happens after floating blocks are dropped.

* ``refill_after_floating``: a block high above the mat (often a flag's banner seen from afar) took
  rays a block at the pile's foot should explain; once it is dropped, the cells ahead on its rays
  next to the pile are priced again.  Rendered (SIMULATED) fixture scene_023: the yellow block at
  1,4,0 (in the truth) was read only this way before session 14; since then the reconstruct stage's search runs
  again once floating colour is left out (``vision.reconstruct.REFINE_AFTER_FLOATING``) and reads it itself, so
  the refill's tests switch that off.
* The read banner of the colour is priced too: in fixture scene_035 (a warm mat read as yellow) a
  yellow block at 7,5,0, empty in the truth, explained rays the yellow banner already explains.
* A refill never makes a colour's possible block count impossible (1, 4, 7, ...: rulebook "Game
  Turn"): fixture scene_030, a set-up read right, would otherwise get a second yellow block.
* ``recolour_connectors``: a block added to reconnect a group keeps the colour that explains the
  pictures best once the group is connected (checked on fixture scene_038's pictures, with the
  truth's blocks and one of them given a wrong colour).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import vision.free_rules as free_rules
import vision.opening as opening_mod
import vision.pipeline as pipeline_mod
import vision.reconstruct as reconstruct_mod
from benchmarks.ctrl_scenes import load_scene
from vision.free_rules import recolour_connectors
from vision.pipeline import SceneResult, score_images
from vision.reconstruct import RayScorer

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"


def _read(name: str) -> tuple[Any, SceneResult]:
    scene = load_scene(FIXTURES / name, with_camera=True)
    return scene, score_images(scene.pics, scene.spec, scene.camera, None)


def test_rays_of_a_dropped_floating_block_are_given_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(free_rules, "REFILL_FLOATING", True)  # off in the product (see its comment)
    monkeypatch.setattr(reconstruct_mod, "REFINE_AFTER_FLOATING", False)  # the search as the refill was made for
    scene, res = _read("scene_023")
    assert any(p.code == "ignored-floating" for p in res.problems)
    assert [p.where for p in res.problems if p.code == "refilled"] == ["cell 1,4,0"]
    assert res.state.blocks.get((1, 4, 0)) == scene.truth.blocks[(1, 4, 0)] == "yellow"


def test_without_the_refill_the_block_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(free_rules, "REFILL_FLOATING", False)
    # the refill alone: session 7's connect_hidden fills the same (hidden) cell by the support rule, and since
    # session 14 the search itself reads it once the floating colour is gone
    monkeypatch.setattr(free_rules, "CONNECT_HIDDEN", False)
    monkeypatch.setattr(reconstruct_mod, "REFINE_AFTER_FLOATING", False)
    _, res = _read("scene_023")
    assert (1, 4, 0) not in res.state.blocks
    assert not any(p.code == "refilled" for p in res.problems)
    monkeypatch.setattr(reconstruct_mod, "REFINE_AFTER_FLOATING", True)
    _, res = _read("scene_023")
    assert res.state.blocks.get((1, 4, 0)) == "yellow"


@pytest.mark.slow
def test_the_colours_banner_is_priced_against_a_refill(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(free_rules, "REFILL_FLOATING", True)
    monkeypatch.setattr(opening_mod, "READ_OPENINGS", False)  # the misread set-up as read before session 6
    # the refill alone: session 7's relocation moves a block of that misread spill into 7,5,0 by itself
    monkeypatch.setattr(free_rules, "RELOCATE_BLOCKS", False)
    scene, res = _read("scene_035")
    assert (7, 5, 0) not in scene.truth.blocks
    assert (7, 5, 0) not in res.state.blocks
    monkeypatch.setattr(free_rules, "REFILL_FLAG_GUARD", False)
    _, res = _read("scene_035")
    assert res.state.blocks.get((7, 5, 0)) == "yellow"


def test_connector_colour_is_chosen_again(monkeypatch: pytest.MonkeyPatch) -> None:
    caught: dict[str, RayScorer] = {}
    real = free_rules.repair_after_floating

    def spy(blocks: Any, scorer: RayScorer, *args: Any) -> Any:
        caught["scorer"] = scorer
        return real(blocks, scorer, *args)

    monkeypatch.setattr(pipeline_mod, "repair_after_floating", spy)
    scene, _ = _read("scene_038")
    truth = dict(scene.truth.blocks)
    # a block that many rays show (on the pile's +x edge, top), given a wrong colour
    cell = max((c for c in truth if c[0] >= 2), key=lambda c: (c[2], c[0]))
    right = truth[cell]
    wrong = next(c for c in sorted(set(truth.values())) if c != right)
    blocks = {**truth, cell: wrong}
    changed = recolour_connectors(blocks, caught["scorer"], [cell])
    assert changed == {cell: wrong}
    assert blocks[cell] == right
    # a block that is not a connector is left alone
    blocks = {**truth, cell: wrong}
    assert recolour_connectors(blocks, caught["scorer"], []) == {}
    assert blocks[cell] == wrong


@pytest.mark.slow
def test_a_refill_never_makes_a_possible_count_impossible(monkeypatch: pytest.MonkeyPatch) -> None:
    # fixture scene_030, a set-up read right: a yellow banner's rays would add a second yellow block
    monkeypatch.setattr(free_rules, "REFILL_FLOATING", True)
    # (the search as the refill was made for: since session 14 it runs again once floating colour is gone, and
    # then the refill adds nothing here even without the guard)
    monkeypatch.setattr(reconstruct_mod, "REFINE_AFTER_FLOATING", False)
    scene, res = _read("scene_030")
    assert res.state.blocks == scene.truth.blocks
    monkeypatch.setattr(free_rules, "REFILL_COUNT_GUARD", False)
    # (since session 6 the opening step would also put the set-up right: off, to see the guard alone)
    monkeypatch.setattr(opening_mod, "READ_OPENINGS", False)
    _, res = _read("scene_030")
    assert res.state.blocks.get((2, 3, 0)) == "yellow" and (2, 3, 0) not in scene.truth.blocks
