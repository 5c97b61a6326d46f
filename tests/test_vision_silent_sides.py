"""No wrong side left unflagged ("never guess silently", issue 5 rule 3; docs/vision.md, "Session 7: no
side wrong and unflagged").  Checked on rendered (SIMULATED) fixture pictures, as
``benchmarks/ctrl_vision.py`` reads them; each test also runs with its mechanism switched off and shows
the side silent (or the reading trusted) then.

* scene_036 a round back: the pink flag is ``flag-ambiguous``; its true spot (4,0,1 +z) is not the rival
  the check names, and the -y side it changes was silent.  An ambiguous flag may stand on any legal spot
  (``AMBIGUOUS_FLAG_ANY_SPOT``).
* scene_039 a round back: ``not-a-legal-continuation`` (the blue turn read on the wrong side of the
  pile); the +y side it changes was silent.  The sides the chosen turns change are uncertain
  (``NOT_LEGAL_TURN_SIDES``).
* scene_033 read free: the green flag is not found, and where it stands changes sides: every colour's
  flag is on the battlefield (rulebook "Setup" 4, "Game Turn" step 3), so the reading is not trusted
  (``FREE_FLAG_MISSING``; here the sides happen to be right -- the rule's cost, measured in the docs).
  Read without the banner rays beyond the mat (session 8), which now find that flag.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import vision.pipeline as pipeline
from benchmarks.ctrl_scenes import CtrlScene, load_scene
from engine.ctrl.record import turns_back
from vision.pipeline import SceneResult, score_images

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"


def _read(name: str, round_back: bool) -> tuple[CtrlScene, SceneResult, list[str]]:
    scene = load_scene(FIXTURES / name, with_camera=True)
    before = turns_back(scene.truth, len(scene.truth.colors)) if round_back else None
    res = score_images(scene.pics, scene.spec, scene.camera, before)
    truth, got = scene.truth.side_scores(), res.state.side_scores()
    return scene, res, [side for side in truth if truth[side] != got[side]]


@pytest.mark.parametrize("on", [True, False])
def test_an_ambiguous_flag_may_stand_on_any_legal_spot(monkeypatch: pytest.MonkeyPatch, on: bool) -> None:
    monkeypatch.setattr(pipeline, "AMBIGUOUS_FLAG_ANY_SPOT", on)
    scene, res, wrong = _read("scene_036", round_back=True)
    assert res.state.flags["pink"] != scene.truth.flags["pink"]  # the documented misreading
    assert "-y" in wrong and [p.where for p in res.problems if p.code == "flag-ambiguous"] == ["pink flag"]
    assert not res.trusted
    if on:
        assert set(wrong) <= set(res.uncertain_sides)
    else:
        assert "-y" not in res.uncertain_sides  # silent: the check named another rival


@pytest.mark.parametrize("on", [True, False])
def test_sides_of_turns_the_pictures_do_not_show_are_uncertain(monkeypatch: pytest.MonkeyPatch, on: bool) -> None:
    monkeypatch.setattr(pipeline, "NOT_LEGAL_TURN_SIDES", on)
    # with the weakly coloured blue pixels left out of the history search (session 8, "following a game
    # under hard shadows") this reading is right; the mechanism is tested as before, with them counted
    monkeypatch.setattr(pipeline, "HISTORY_WEAK_CHROMA", 0.0)
    # the blue turn read on the shadow then also looks paler than the recorded blue blocks (chroma 28 against
    # 43): the faint-turn check (session 10) reports its sides too; left out so that this mechanism is tested alone
    monkeypatch.setattr(pipeline, "FAINT_TURN_CHECK", False)
    _, res, wrong = _read("scene_039", round_back=True)
    assert "+y" in wrong and any(p.code == "not-a-legal-continuation" for p in res.problems)
    assert not res.trusted
    if on:
        assert set(wrong) <= set(res.uncertain_sides)
        assert any(p.code == "side-uncertain" and "legal turns nearest" in p.message for p in res.problems)
    else:
        assert "+y" not in res.uncertain_sides


@pytest.mark.parametrize("on", [True, False])
def test_a_flag_not_found_is_an_error_without_history_too(monkeypatch: pytest.MonkeyPatch, on: bool) -> None:
    import vision.reconstruct as reconstruct

    monkeypatch.setattr(pipeline, "FREE_FLAG_MISSING", on)
    monkeypatch.setattr(reconstruct, "BANNER_RAYS_BEYOND_MAT", False)  # they find this flag (session 8)
    scene, res, _ = _read("scene_033", round_back=False)
    assert "green" not in res.state.flags and "green" in scene.truth.flags
    missing = [p for p in res.problems if p.code == "flag-missing"]
    if on:
        assert [p.where for p in missing] == ["green flag"] and missing[0].severity == "error"
        assert "Setup" in missing[0].rule and not res.trusted
    else:
        assert not missing and res.trusted
