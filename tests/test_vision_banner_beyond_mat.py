"""Banners seen against the table beyond the mat (vision.reconstruct, ``BANNER_RAYS_BEYOND_MAT``;
docs/vision.md, "Session 8: flags").

The reconstruct stage leaves out every sampled ray that shows a piece colour and reaches the table
beyond the printed mat (the table or clutter may have that colour: it is no evidence of a block).  A
flag's banner high on the pile, seen from a low camera, lies on such rays: its colour was left out
while the rays around it showing the table were kept, so the banner scored nothing and looked
contradicted.  Those rays now count for banners only -- where the picture shows the colour beyond
the mat on few rays (``FAR_COLOUR_MAX_RAYS``), so a table or cloth of a piece's colour does not.
Checked on rendered (SIMULATED) fixture pictures.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import vision.reconstruct as reconstruct
from benchmarks.ctrl_scenes import load_scene
from engine.ctrl.moves import FlagSpot
from vision.pipeline import score_images

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"


@pytest.mark.parametrize("on", [True, False])
def test_a_banner_against_the_table_is_found(monkeypatch: pytest.MonkeyPatch, on: bool) -> None:
    # scene_033 read free: the green flag (-1,1,3 +z, on top of the pile) was not found; its banner's
    # rays reach the table beyond the mat in two pictures
    monkeypatch.setattr(reconstruct, "BANNER_RAYS_BEYOND_MAT", on)
    scene = load_scene(FIXTURES / "scene_033", with_camera=True)
    res = score_images(scene.pics, scene.spec, scene.camera)
    truth = scene.truth.flags["green"]
    assert truth == FlagSpot.parse("flag -1,1,3 +z")
    if on:
        assert res.state.flags.get("green") == truth
        assert res.trusted and res.state.side_scores() == scene.truth.side_scores()
    else:
        assert "green" not in res.state.flags and not res.trusted


@pytest.mark.parametrize("limited", [True, False])
def test_a_table_of_the_banners_colour_is_no_banner(monkeypatch: pytest.MonkeyPatch, limited: bool) -> None:
    # scene_014 (an oak table, read as yellow beyond the mat): thousands of yellow rays beyond the mat
    # in every picture; they would give the yellow flag's spots banner evidence that is the table's
    if not limited:
        monkeypatch.setattr(reconstruct, "FAR_COLOUR_MAX_RAYS", 10**9)
        monkeypatch.setattr(reconstruct, "FAR_TRACE_MAX_RAYS", 10**9)
    scene = load_scene(FIXTURES / "scene_014", with_camera=True)
    res = score_images(scene.pics, scene.spec, scene.camera)
    assert res.reconstruction.scorer is not None
    # a yellow spot on top of the pile with no flag: only the table's yellow is behind it
    spot = FlagSpot.parse("flag 3,1,7 +z")
    assert spot != scene.truth.flags["yellow"]
    score = res.reconstruction.scorer.flag_scores(scene.truth.blocks, "yellow", [spot])[0]
    if limited:
        assert not np.isfinite(score)
    else:
        assert score > 50
