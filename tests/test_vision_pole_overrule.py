"""A pole plain in three or more pictures overrules a banner read where no picture shows a pole
(vision.pole_overrule, ``vision.pipeline.POLE_OVERRULES``; docs/vision.md, "Session 8: flags").

Checked on rendered (SIMULATED) fixture pictures, each with the rule on and off:

* scene_034 a round back: the blue flag's banner was read at 3,-1,0 +x from stray blue rays, where no
  picture shows a pole; its true spot 2,-5,0 -y shows a lighter pole line in three pictures;
* scene_037 read free: the pink flag's banner hangs in front of pink blocks and was not made out;
  its pole at 4,1,2 +x shows in three pictures.
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
def test_a_pole_in_three_pictures_overrules_a_banner_without_one(monkeypatch: pytest.MonkeyPatch, on: bool) -> None:
    monkeypatch.setattr(pipeline, "POLE_OVERRULES", on)
    scene = load_scene(FIXTURES / "scene_034", with_camera=True)
    before = turns_back(scene.truth, len(scene.truth.colors))
    res = score_images(scene.pics, scene.spec, scene.camera, before)
    truth = scene.truth.flags["blue"]
    assert truth == FlagSpot.parse("flag 2,-5,0 -y")
    assert res.state.blocks == scene.truth.blocks
    notes = [p for p in res.problems if p.code == "flag-by-pole" and p.where == "blue flag"]
    if on:
        assert res.state.flags["blue"] == truth
        assert notes and "2,-5,0 -y" in notes[0].message and "no picture shows a pole" in notes[0].message
    else:
        assert res.state.flags["blue"] != truth and not notes


@pytest.mark.parametrize("on", [True, False])
def test_a_flag_not_found_is_placed_by_a_pole_in_three_pictures(monkeypatch: pytest.MonkeyPatch, on: bool) -> None:
    monkeypatch.setattr(pipeline, "POLE_OVERRULES", on)
    scene = load_scene(FIXTURES / "scene_037", with_camera=True)
    res = score_images(scene.pics, scene.spec, scene.camera)
    truth = scene.truth.flags["pink"]
    assert truth == FlagSpot.parse("flag 4,1,2 +x")
    if on:
        assert res.state.flags.get("pink") == truth
        assert "pink flag" in [p.where for p in res.problems if p.code == "flag-by-pole"]
        # its place is shown: no longer a flag missing (an error)
        assert not [p for p in res.problems if p.code == "flag-missing" and p.where == "pink flag"]
    else:
        assert "pink" not in res.state.flags
        assert [p for p in res.problems if p.code == "flag-missing" and p.where == "pink flag"]
