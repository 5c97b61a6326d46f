"""The free reading leaves out blocks on the mat whose pixels are far paler than their colour's blocks
(a tinted shadow on the white mat, not a block): ``vision.free_rules.drop_pale_mat_blocks``, with the
saturation the classify stage measures (``vision.classify.saturation``) carried by the rays
(``RayScorer.first_hit_saturation``, ``RayScorer.without_pale``); docs/vision.md, "Session 10: the free
reading's score sheet".

SYNTHETIC label maps (``vision.synthetic.render_labels``) of a fixture state with one more blue block on
the mat, whose pixels are given a low saturation (a shadow) or the plastic's (a block)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

import vision.free_rules as free_rules
from calibration.colour import ColourModel
from engine.ctrl import State
from engine.ctrl.geometry import Cell
from vision.camera import ViewCamera
from vision.classify import classify, saturation
from vision.free_rules import drop_pale_mat_blocks
from vision.labels import COLOR_LABELS
from vision.reconstruct import RayScorer, ViewEvidence, reconstruct
from vision.synthetic import render_labels, standard_cameras

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"
PHANTOM: Cell = (1, -2, 0)  # on the mat, in front of fixture scene_026's blue start block


def _truth() -> State:
    return State.from_json(json.loads((FIXTURES / "scene_026" / "scene.json").read_text())["state"])


def _views(blocks: Mapping[Cell, str], flags: State, pale_cell: Cell | None) -> list[ViewEvidence]:
    """Label maps of ``blocks``; every piece-coloured pixel has saturation 1.0 except those ``pale_cell``'s
    block shows (0.3: the shadow's pale paper)."""
    size = (640, 360)
    k = np.array([[480.0, 0, 320], [0, 480.0, 180], [0, 0, 1]])
    cams: dict[str, ViewCamera] = standard_cameras(k, size, elevation_deg=35.0)
    out = []
    for side, cam in cams.items():
        lab = render_labels(blocks, flags.flags, cam)
        sat = np.where(np.isin(lab, [int(v) for v in COLOR_LABELS.values()]), 1.0, np.nan).astype(np.float32)
        if pale_cell is not None:
            without = render_labels({c: v for c, v in blocks.items() if c != pale_cell}, flags.flags, cam)
            sat[(lab != without) & ~np.isnan(sat)] = 0.3
        out.append(ViewEvidence(cam, lab, side, saturation=sat))
    return out


def _read(pale: bool) -> tuple[dict[Cell, str], RayScorer, State]:
    truth = _truth()
    assert PHANTOM not in truth.blocks
    blocks = {**truth.blocks, PHANTOM: "blue"}
    recon = reconstruct(_views(blocks, truth, PHANTOM if pale else None))
    assert recon.scorer is not None and recon.blocks.get(PHANTOM) == "blue"  # the pictures show a block there
    return dict(recon.blocks), recon.scorer, truth


def test_a_pale_block_on_the_mat_is_left_out_and_its_pixels_with_it() -> None:
    blocks, scorer, truth = _read(pale=True)
    sats = scorer.first_hit_saturation(blocks)
    # (where it hides the blue start block the pixel is blue either way, and keeps the plastic's saturation)
    assert len(sats[PHANTOM]) > 10 and float(np.median(sats[PHANTOM])) == pytest.approx(0.3)
    above = np.concatenate([sats[c] for c, v in blocks.items() if v == "blue" and c[2] >= 1])
    assert len(above) > 100 and np.allclose(above, 1.0)
    before = dict(blocks)
    dropped, limits = drop_pale_mat_blocks(blocks, scorer, truth.starts)
    assert [(c, col) for c, col, _ in dropped] == [(PHANTOM, "blue")]
    assert dropped[0][2] == pytest.approx(0.3)
    assert PHANTOM not in blocks and {c: v for c, v in before.items() if c != PHANTOM} == blocks
    assert limits == {"blue": pytest.approx(0.45)}
    # without the pale pixels little shows a block there any more: leaving it out costs only the few rays
    # where it hid the start block (which this reading misses behind it)
    pale_free = scorer.without_pale(limits)
    assert pale_free is not scorer
    full_cost = scorer.cost(blocks) - scorer.cost(before)
    assert full_cost > 20 and pale_free.cost(blocks) - pale_free.cost(before) < full_cost // 2


def test_a_block_as_saturated_as_its_colour_stays() -> None:
    blocks, scorer, truth = _read(pale=False)
    before = dict(blocks)
    assert drop_pale_mat_blocks(blocks, scorer, truth.starts) == ([], {})
    assert blocks == before
    assert scorer.without_pale({"blue": 0.45}) is scorer  # no pixel that pale


class _Sats:
    """A scorer stub: the saturations of each block's rays."""

    def __init__(self, sats: Mapping[Cell, list[float]]) -> None:
        self.sats = {c: np.array(v, np.float32) for c, v in sats.items()}

    def first_hit_saturation(self, blocks: Mapping[Cell, str]) -> dict[Cell, npt.NDArray[np.float32]]:
        return {c: self.sats.get(c, np.zeros(0, np.float32)) for c in blocks}


STARTS = {"blue": (1, -1, 0), "pink": (3, 1, 0)}
SAT = [1.0] * 40
PALE = [0.3] * 12


def test_start_blocks_blocks_above_the_mat_and_held_blocks_stay() -> None:
    blocks = {(1, -1, 0): "blue", (1, -1, 1): "blue", (2, -1, 1): "blue",
              (1, -2, 0): "blue",  # pale, on the mat: goes
              (1, -3, 0): "blue",  # pale, held only by 1,-2,0: goes with it
              (2, -1, 0): "blue",  # pale but it alone holds 2,-2,0 (not pale): stays
              (2, -2, 0): "blue",
              (3, -1, 1): "blue"}  # pale but above the mat: stays
    scorer = _Sats({(1, -1, 0): PALE, (1, -1, 1): SAT, (2, -1, 1): SAT, (1, -2, 0): PALE, (1, -3, 0): PALE,
                    (2, -1, 0): PALE, (2, -2, 0): SAT, (3, -1, 1): PALE})
    dropped, limits = drop_pale_mat_blocks(blocks, scorer, STARTS)  # type: ignore[arg-type]
    assert sorted(c for c, _, _ in dropped) == [(1, -3, 0), (1, -2, 0)]
    assert (1, -1, 0) in blocks and (2, -1, 0) in blocks and (3, -1, 1) in blocks
    assert set(limits) == {"blue"}


def test_too_few_reference_rays_nothing_goes() -> None:
    blocks = {(1, -1, 0): "blue", (1, -2, 0): "blue"}
    scorer = _Sats({(1, -1, 0): [1.0] * 20, (1, -2, 0): PALE})
    assert drop_pale_mat_blocks(dict(blocks), scorer, STARTS) == ([], {})  # type: ignore[arg-type]


def test_switched_off_nothing_goes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(free_rules, "DROP_PALE_MAT_BLOCKS", False)
    blocks = {(1, -1, 0): "blue", (1, -1, 1): "blue", (1, -2, 0): "blue"}
    scorer = _Sats({(1, -1, 0): SAT, (1, -1, 1): SAT, (1, -2, 0): PALE})
    assert drop_pale_mat_blocks(blocks, scorer, STARTS) == ([], {})  # type: ignore[arg-type]
    assert (1, -2, 0) in blocks


def test_saturation_of_a_block_pixel_and_of_tinted_paper() -> None:
    """The plastic's blue keeps its chroma / lightness when darker; a pale blue tint of white paper (as
    the mat in a shadow lit by a cooler fill) is far less saturated; paper and grey get none."""
    bgr = np.array([[[200, 90, 20], [100, 45, 10], [205, 185, 170], [230, 230, 230]]], np.uint8)
    model = ColourModel()
    labels = classify(bgr, model)
    sat = saturation(bgr, labels, model)
    assert int(labels[0, 0]) == int(COLOR_LABELS["blue"]) and int(labels[0, 1]) == int(COLOR_LABELS["blue"])
    assert sat[0, 0] > 0.9 and sat[0, 1] > 0.9
    if int(labels[0, 2]) == int(COLOR_LABELS["blue"]):
        assert sat[0, 2] < 0.45 * sat[0, 0]
    else:
        assert np.isnan(sat[0, 2])
    assert np.isnan(sat[0, 3])


def test_the_pipeline_reports_a_block_left_out_and_prices_the_rest_without_the_pale_pixels(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Wiring, on fixture scene_026 read free: a block the step leaves out is reported (``pale-on-mat``, and
    ``side-uncertain`` on the sides a block there would show on), and the later rules and the flags get the
    scorer without the pale pixels (here: every blue pixel counted pale)."""
    import vision.pipeline as pipeline
    from benchmarks.ctrl_scenes import load_scene

    seen: dict[str, RayScorer] = {}
    left: list[tuple[Cell, str]] = []

    def fake_drop(blocks: dict[Cell, str], scorer: RayScorer, starts: Mapping[str, Cell],
                  ) -> tuple[list[tuple[Cell, str, float]], dict[str, float]]:
        seen["full"] = scorer
        cell = min(c for c, v in blocks.items() if c[2] == 0 and c != starts.get(v))  # a block on the mat
        left.append((cell, blocks.pop(cell)))
        return [(cell, left[-1][1], 0.3)], {left[-1][1]: 10.0}

    real_pick = pipeline.pick_flags

    def spy_pick(state: State, colours: list[str], scorer: RayScorer, weak: set[str]) -> object:
        seen["flags"] = scorer
        return real_pick(state, colours, scorer, weak)

    monkeypatch.setattr(pipeline, "drop_pale_mat_blocks", fake_drop)
    monkeypatch.setattr(pipeline, "pick_flags", spy_pick)
    scene = load_scene(FIXTURES / "scene_026")
    res = pipeline.score_images(scene.pics, scene.spec, scene.camera, None)
    notes = [p for p in res.problems if p.code == "pale-on-mat"]
    cell = left[0][0]
    assert [p.where for p in notes] == [f"cell {cell[0]},{cell[1]},{cell[2]}"]
    assert "0.30 times as saturated" in notes[0].message
    assert cell not in res.state.blocks  # no later rule puts it back: its colour's pixels are all "pale" here
    shadow_sides = [p.where for p in res.problems if p.code == "side-uncertain" and "as a shadow" in p.message]
    assert shadow_sides and all(s.removeprefix("side ") in res.uncertain_sides for s in shadow_sides)
    assert seen["flags"] is not seen["full"]  # the flags are priced without the pale pixels
    monkeypatch.setattr(pipeline, "PALE_FREE_FLAGS", False)
    pipeline.score_images(scene.pics, scene.spec, scene.camera, None)
    assert seen["flags"] is seen["full"]
