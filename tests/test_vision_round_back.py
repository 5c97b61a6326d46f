"""Reading a whole round of turns back (``score-images --previous`` with the position a round earlier, as
``ctrl follow --every round`` reads; docs/vision.md, "Session 9: reading a round back").  Checked on
rendered (SIMULATED) fixture pictures, as ``benchmarks/ctrl_vision.py --previous --turns-back round``
reads them; each test also runs with its mechanism switched off and shows the blocks misread then.

* scene_027: the blue turn's blocks stand in the pile's shade, and their weakly coloured blue pixels are
  left out of the history search (session 8, hard shadows); without them another blue turn explains the
  pictures 8 sampled pixels better.  Told apart with those pixels counted (``WEAK_TIE_BREAK``), the
  truth's turn is taken -- and the reading stays ``doubtful-turn`` (not trusted): the pictures without
  the weak pixels cannot tell the two apart.
* scene_012: the first turn's (blue) blocks are mostly hidden by the later turns' blocks, so, priced
  before those turns, they explain less than other blue placements and fell out of a beam of 4; a beam
  of 6 (``HISTORY_BEAM``) keeps them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import vision.pipeline as pipeline
from benchmarks.ctrl_scenes import CtrlScene, load_scene
from engine.ctrl.record import turns_back
from vision.pipeline import SceneResult, score_images

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"


def _read_round_back(name: str) -> tuple[CtrlScene, SceneResult, int]:
    scene = load_scene(FIXTURES / name, with_camera=True)
    before = turns_back(scene.truth, len(scene.truth.colors))
    res = score_images(scene.pics, scene.spec, scene.camera, before)
    cells = set(scene.truth.blocks) | set(res.state.blocks)
    return scene, res, sum(1 for c in cells if scene.truth.blocks.get(c) != res.state.blocks.get(c))


@pytest.mark.parametrize("on", [True, False])
def test_turns_the_search_cannot_tell_apart_are_told_apart_by_the_weak_pixels(monkeypatch: pytest.MonkeyPatch,
                                                                              on: bool) -> None:
    monkeypatch.setattr(pipeline, "WEAK_TIE_BREAK", on)
    _, res, wrong_cells = _read_round_back("scene_027")
    assert not res.trusted  # either way: the choice is doubtful
    assert any(p.code == "doubtful-turn" for p in res.problems)
    if on:
        assert wrong_cells == 0
    else:
        assert wrong_cells == 2  # the blue turn read one block off


@pytest.mark.parametrize("beam", [6, 4])
def test_a_first_turn_hidden_by_later_turns_stays_in_the_beam(monkeypatch: pytest.MonkeyPatch, beam: int) -> None:
    monkeypatch.setattr(pipeline, "HISTORY_BEAM", beam)
    _, res, wrong_cells = _read_round_back("scene_012")
    assert not res.trusted  # its blue flag is not found (flag-missing) either way
    if beam == 6:
        assert wrong_cells == 0
    else:
        assert wrong_cells == 4


def test_the_weak_tail_counts_every_last_turn_that_explains_little() -> None:
    # depth costs: the best continuation's unexplained rays after 0, 1, 2 ... turns (dev held scene_001 one
    # turn back: the truth's one turn, then a hidden turn explaining nothing and one explaining 11 rays)
    assert pipeline._weak_tail([1628, 1030, 1030, 1019, 1081], 3) == 2
    assert pipeline._weak_tail([1628, 1030, 1030, 1019], 3) == 2
    assert pipeline._weak_tail([1628, 1030], 1) == 0  # the turn explains 598 rays
    assert pipeline._weak_tail([500, 450, 420], 2) == 2  # every turn read explains little
    assert pipeline._weak_tail([500], 0) == 0
    # the error's trigger is unchanged: a tail exactly when the last turn alone explains fewer than the gain
    for costs in ([900, 700, 690], [900, 850, 700], [900, 810, 700, 650]):
        n = len(costs) - 1
        gain = pipeline._last_turn_gain(costs, n)
        assert (pipeline._weak_tail(costs, n) > 0) == (gain is not None and gain < pipeline.WEAK_LAST_TURN_GAIN)
