"""Never guess silently with the game's history (issue 5, item 3; ``score-images --previous``).

Checked on rendered (SIMULATED) fixture scenes:

* scene_028, one turn back: after the right green turn the history search adds a blue turn at the
  foot of the Central Cube -- a cool shadow on the mat read as blue -- whose third block the pictures
  contradict (``vision.turn_check``).  The turn is reported (``doubtful-turn``), the result is not
  trusted, and every side it changes is reported uncertain.  Without the check the shadow turn was
  taken, trusted, and its wrong sides were silent.  With ``LEAVE_OUT_DOUBTFUL_LAST_TURN`` (off: see
  its comment) the turn is left out and the reading is the true position.
* scene_009, a round back: pink played but its flag was not found; the rules put it on the battlefield
  (rulebook "Game Turn" step 3), and where it stands changes a side: ``flag-missing``, not trusted.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import vision.pipeline as pipeline
import vision.turn_check as turn_check
from benchmarks.ctrl_scenes import CtrlScene, load_scene
from engine.ctrl import State
from engine.ctrl.record import turns_back
from vision.history import explain_turns
from vision.pipeline import SceneResult, score_images
from vision.turn_check import block_support

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"


def _back(truth: State, turns: int) -> State:
    previous = turns_back(truth, turns)
    assert previous != truth
    return previous


def _read(name: str, turns: int | None) -> tuple[CtrlScene, SceneResult]:
    scene = load_scene(FIXTURES / name, with_camera=True)
    previous = _back(scene.truth, len(scene.truth.colors) if turns is None else turns)
    return scene, score_images(scene.pics, scene.spec, scene.camera, previous)


def _wrong_sides(scene: CtrlScene, res: SceneResult) -> list[str]:
    got, want = res.state.side_scores(), scene.truth.side_scores()
    return [s for s in want if got.get(s) != want[s]]


@pytest.mark.slow
def test_a_turn_the_pictures_contradict_is_reported_and_not_trusted(monkeypatch: pytest.MonkeyPatch) -> None:
    # since session 8 the weakly coloured blue pixels (a shadowed mat under a warm key light) are left out of
    # the history search, and the shadow turn is no longer taken: the reading is right and trusted
    scene, res = _read("scene_028", 1)
    assert res.trusted and not _wrong_sides(scene, res) and res.state.blocks == scene.truth.blocks
    # the doubtful-turn check is tested as before, with those pixels counted
    monkeypatch.setattr(pipeline, "HISTORY_WEAK_CHROMA", 0.0)
    scene, res = _read("scene_028", 1)
    # (since session 10 the same shadow turn is also reported for its pale pixels, vision.turn_check.faint_turns)
    doubts = [p for p in res.problems if p.code == "doubtful-turn" and "contradict" in p.message]
    assert len(doubts) == 1 and "-1,0,0 0,-1,0 1,-2,0" in doubts[0].message and "left out" not in doubts[0].message
    assert not res.trusted
    # the shadow turn is kept, but no wrong side is silent
    wrong = _wrong_sides(scene, res)
    assert wrong and set(wrong) <= set(res.uncertain_sides)
    assert len(res.turns) == 2

    # leaving the doubtful last turn out (off by default) reads the true position
    monkeypatch.setattr(turn_check, "LEAVE_OUT_DOUBTFUL_LAST_TURN", True)
    scene, res = _read("scene_028", 1)
    doubts = [p for p in res.problems if p.code == "doubtful-turn" and "contradict" in p.message]
    assert len(doubts) == 1 and "left out" in doubts[0].message
    assert not res.trusted
    # without the shadow turn the reading is the true position, and the sides it would change are reported
    assert res.state.blocks == scene.truth.blocks and not _wrong_sides(scene, res)
    assert res.turns == ["-1,0,1 -1,1,1 -1,2,1 flag -2,2,1 -x"]
    assert {"+x", "-x", "-y", "top"} <= set(res.uncertain_sides)
    # the turn's contradicted block: far more rays show the mat there than a block
    assert res.reconstruction.scorer is not None
    shadow = dict(res.state.blocks) | {(-1, 0, 0): "blue", (0, -1, 0): "blue", (1, -2, 0): "blue"}
    support = block_support(shadow, [(1, -2, 0)], res.reconstruction.scorer)
    assert support[(1, -2, 0)] <= -25
    # with the check turned off the shadow turn was taken and trusted, its wrong sides silent
    monkeypatch.setattr(turn_check, "LEAVE_OUT_DOUBTFUL_LAST_TURN", False)
    monkeypatch.setattr(pipeline, "explain_checked",
                        lambda *a, cfg=None, **k: (explain_turns(*a, cfg, **k), []))
    monkeypatch.setattr(pipeline, "_doubtful_turn_problems", lambda *a: ({}, []))
    monkeypatch.setattr(pipeline, "FAINT_TURN_CHECK", False)  # session 10's pale-pixel check catches it too
    _, off = _read("scene_028", 1)
    assert off.trusted and any(s not in off.uncertain_sides for s in _wrong_sides(scene, off))
    assert len(off.turns) == 2


@pytest.mark.slow
def test_a_movers_flag_not_found_is_not_trusted(monkeypatch: pytest.MonkeyPatch) -> None:
    scene, res = _read("scene_009", None)
    assert "pink" not in res.state.flags and "pink" in scene.truth.flags
    assert [p.where for p in res.problems if p.code == "flag-missing"] == ["pink flag"]
    assert not res.trusted
    assert all(s in res.uncertain_sides for s in _wrong_sides(scene, res))
    monkeypatch.setattr(pipeline, "_missing_mover_flags", lambda *a: [])
    # (the rival-spot check, session 6, flags another of this reading's flags: off too, to see this one alone)
    monkeypatch.setattr(pipeline, "_ambiguous_flag_problems", lambda *a: [])
    _, off = _read("scene_009", None)
    assert off.trusted and _wrong_sides(scene, off)

