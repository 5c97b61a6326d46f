"""A flag read where no picture shows its pole, while the other spot of the same cell (the flag plugged into the
neighbouring block, its pole pointing another way) shows its pole and a banner as strong, is moved there
(``vision.flag_margin.same_cell_pole_moves``; docs/vision.md, "Session 9: flag poles").  Rendered (SIMULATED)
fixture pictures, read a round back as ``benchmarks/ctrl_vision.py --previous --turns-back round`` does, with
the step on and off.

scene_018: the yellow flag stands at 0,4,0 pointing -x (plugged into the block at 1,4,0); its banner scores 73
sampled rays there and 73 at 0,4,0 +y (plugged into 0,3,0), where the banner read it.  One picture shows the
-x pole, none the +y one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import vision.pipeline as pipeline
from benchmarks.ctrl_scenes import load_scene
from engine.ctrl.moves import FlagSpot
from engine.ctrl.record import turns_back
from vision.pipeline import score_images

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"


@pytest.mark.parametrize("on", [True, False])
def test_same_cell_flag_moved_to_the_pole_a_picture_shows(monkeypatch: pytest.MonkeyPatch, on: bool) -> None:
    monkeypatch.setattr(pipeline, "SAME_CELL_POLE_MOVES", on)
    scene = load_scene(FIXTURES / "scene_018", with_camera=True)
    before = turns_back(scene.truth, len(scene.truth.colors))
    res = score_images(scene.pics, scene.spec, scene.camera, before)
    assert scene.truth.flags["yellow"] == FlagSpot((0, 4, 0), "-x")
    assert dict(res.state.blocks) == dict(scene.truth.blocks)
    assert not res.trusted  # either way: the two spots' banners cannot tell them apart
    moved = [p for p in res.problems if p.code == "flag-ambiguous" and p.where == "yellow flag"
             and "the pole pointing another way" in p.message]
    if on:
        assert res.state.flags["yellow"] == scene.truth.flags["yellow"]
        assert len(moved) == 1 and "flag 0,4,0 +y" in moved[0].message
        assert "+y" in res.uncertain_sides  # the side the spot read would change
    else:
        assert res.state.flags["yellow"] == FlagSpot((0, 4, 0), "+y")
        assert not moved
