"""Pockets: empty cells the pictures cannot tell from full (vision.free_rules.fill_pockets, issue 5).

A cell in front of a block of its own colour, surrounded by blocks, changes no sampled pixel
whether it is full or not; the search left it empty, and the sides it shows on were wrong without
a word.  Now it is filled when a block there explains its rays at least as well and at least three
of its face neighbours are full, and those sides are reported uncertain.  Checked on the rendered
(SIMULATED) fixture scene_038 (free reading): a blue block at 2,-1,1 and a pink one at 3,0,1, each
between its colour's blocks and the Central Cube.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import vision.pipeline as pipeline_mod
from benchmarks.ctrl_scenes import load_scene
from engine.ctrl import new_state
from engine.ctrl.geometry import CENTRAL_CUBE
from vision.free_rules import pocket_sides
from vision.pipeline import SceneResult, score_images

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"


def _read(name: str) -> tuple[dict[str, dict[str, int]], SceneResult]:
    scene = load_scene(FIXTURES / name, with_camera=True)
    res = score_images(scene.pics, scene.spec, scene.camera, None)
    return scene.truth.side_scores(), res


def test_pockets_are_filled_and_reported() -> None:
    truth, res = _read("scene_038")
    pockets = [p.where for p in res.problems if p.code == "inferred-pocket"]
    assert pockets == ["cell 2,-1,1", "cell 3,0,1"]
    assert res.state.blocks[(2, -1, 1)] == "blue" and res.state.blocks[(3, 0, 1)] == "pink"
    assert res.state.side_scores() == truth


def test_without_pockets_sides_are_wrong(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pipeline_mod, "fill_pockets", lambda blocks, *a, **k: ([], []))
    truth, res = _read("scene_038")
    assert res.state.side_scores() != truth


def test_pocket_sides_are_the_open_lines_of_sight() -> None:
    state = new_state(4)
    occupied = set(state.blocks) | set(CENTRAL_CUBE)
    # on top of the blue start block (1,-1,0): the Central Cube is behind it on the +y side
    assert pocket_sides([(1, -1, 1)], occupied) == {"+x": 1, "-x": 1, "-y": 1, "top": 1}
    assert pocket_sides([], occupied) == {}
