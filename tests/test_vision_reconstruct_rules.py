"""The reconstruct stage's use of the rules and its search's reach (issue 5, item 6).

* At most 22 blocks of a colour (rulebook "Components"): checked on SYNTHETIC label maps (exact
  rasterized labels) of an illegal pile with 25 blue blocks, where the pictures alone support all 25.
* The search reaches blocks that carving emptied beyond the carved hull's neighbours, and keeps a
  strongly seen group whose link to the pile was misread: checked on rendered fixtures (before,
  scene_038's blue block at 2,-2,1, showing a whole face to the +x camera, was missed, and
  scene_026's yellow block at 1,4,2 was dropped as floating; docs/vision.md, "Session 3")."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from benchmarks.ctrl_scenes import load_scene
from engine.ctrl.geometry import Cell
from vision.camera import ViewCamera
from vision.pipeline import score_images
from vision.reconstruct import ReconstructConfig, ViewEvidence, reconstruct
from vision.synthetic import render_labels, standard_cameras

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"


def _views(blocks: dict[Cell, str]) -> list[ViewEvidence]:
    size = (640, 360)
    k = np.array([[480.0, 0, 320], [0, 480.0, 180], [0, 0, 1]])
    cams: dict[str, ViewCamera] = standard_cameras(k, size, elevation_deg=35.0)
    return [ViewEvidence(cam, render_labels(blocks, {}, cam), side) for side, cam in cams.items()]


def _wall(n: int) -> dict[Cell, str]:
    """``n`` blue blocks in a one-block-thick wall against the Central Cube's -y face and beyond,
    every block visible from the -y side."""
    cells = [(x, -1, z) for z in range(3) for x in range(-3, 6)] + [(x, -1, 3) for x in range(-3, 6)]
    return {c: "blue" for c in cells[:n]}


def test_a_colour_never_gets_more_than_22_blocks() -> None:
    blocks = _wall(25)
    assert len(blocks) == 25
    # without the rule the pictures support all 25 (the rule is what removes 3, not the evidence)
    free = reconstruct(_views(blocks), ReconstructConfig(max_per_colour=99))
    assert sum(1 for v in free.blocks.values() if v == "blue") == 25
    capped = reconstruct(_views(blocks))
    n_blue = sum(1 for v in capped.blocks.values() if v == "blue")
    assert n_blue == 22
    assert set(capped.blocks) <= set(blocks)  # the ones kept are real blocks


def test_a_legal_pile_is_untouched_by_the_limit() -> None:
    blocks = _wall(22)
    recon = reconstruct(_views(blocks))
    assert recon.blocks == blocks


def test_search_reaches_blocks_beyond_the_carved_hull() -> None:
    scene = load_scene(FIXTURES / "scene_038", with_camera=True)
    truth = json.loads((FIXTURES / "scene_038" / "scene.json").read_text())["state"]
    assert {"cell": [2, -2, 1], "color": "blue"} in truth["blocks"]
    res = score_images(scene.pics, scene.spec, scene.camera)
    assert res.state.blocks.get((2, -2, 1)) == "blue"


def test_a_strongly_seen_group_is_reconnected_through_a_misread_cell() -> None:
    # scene_026: the yellow block at 1,4,2 shows in several pictures (its rays weigh ~300), but the
    # block joining it to the pile was misread, so it used to be dropped as "floating"
    scene = load_scene(FIXTURES / "scene_026", with_camera=True)
    truth = json.loads((FIXTURES / "scene_026" / "scene.json").read_text())["state"]
    assert {"cell": [1, 4, 2], "color": "yellow"} in truth["blocks"]
    res = score_images(scene.pics, scene.spec, scene.camera)
    assert res.state.blocks.get((1, 4, 2)) == "yellow"
    assert (1, 4, 2) not in res.reconstruction.ignored


def test_the_search_runs_again_behind_colour_left_out_as_floating() -> None:
    # scene_023 (five pictures): colour read in the air in front of one camera, where no other picture
    # carves it, hid the yellow block at 1,3,1 from the search; left out as floating, it hid it no more,
    # but the block was only read once the search ran again (docs/vision.md, "Session 14: blocks the free
    # reading leaves out")
    scene = load_scene(FIXTURES / "scene_023", with_camera=True)
    truth = json.loads((FIXTURES / "scene_023" / "scene.json").read_text())["state"]
    assert {"cell": [1, 3, 1], "color": "yellow"} in truth["blocks"]
    res = score_images(scene.pics, scene.spec, scene.camera)
    assert res.reconstruction.ignored  # the colour in the air is there, and left out
    assert res.state.blocks.get((1, 3, 1)) == "yellow"
