"""A flag read with history whose best rival legal spot fits the pictures nearly as well is reported
``flag-ambiguous`` (vision/flag_margin.py; issue 5 item 3, "never guess silently").

Checked on rendered (SIMULATED) fixture pictures given the state one turn earlier, as
``benchmarks/ctrl_vision.py --previous``: in scene_014 the last mover's (green) flag is read on the
wrong face (1,1,4 +z; truth 2,1,3 +x), and that reading used to be trusted.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.ctrl_scenes import CtrlScene, load_scene
from engine.ctrl.moves import FlagSpot
from engine.ctrl.record import one_turn_back
from vision.flag_margin import MARGIN, POLE_WEIGHT, flag_evidence, is_ambiguous
from vision.pipeline import SceneResult, score_images

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"


def _one_turn_back(name: str) -> tuple[CtrlScene, SceneResult]:
    scene = load_scene(FIXTURES / name, with_camera=True)
    before = one_turn_back(scene.truth)
    assert before is not None
    return scene, score_images(scene.pics, scene.spec, scene.camera, before)


def test_flag_evidence_puts_banner_and_poles_on_one_scale() -> None:
    assert flag_evidence(float("-inf"), 0) == 0.0  # no banner, no pole
    assert flag_evidence(-3.0, 1) == 0.0  # one picture showing a "pole" is noise: it counts nothing
    assert flag_evidence(12.0, 1) == 12.0
    assert flag_evidence(12.0, 3) == 12.0 + 2 * POLE_WEIGHT


def test_a_flag_with_a_close_rival_spot_is_not_trusted(monkeypatch: pytest.MonkeyPatch) -> None:
    scene, res = _one_turn_back("scene_014")
    truth, got = scene.truth.side_scores(), res.state.side_scores()
    wrong = [side for side in truth if truth[side] != got[side]]
    assert wrong  # the documented misreading: the green flag on the wrong face
    notes = [p for p in res.problems if p.code == "flag-ambiguous"]
    assert [n.where for n in notes] == ["green flag"]
    assert notes[0].severity == "error" and not res.trusted
    assert set(wrong) <= set(res.uncertain_sides)


@pytest.mark.slow
def test_without_the_margin_check_the_wrong_reading_was_trusted(monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.pipeline as pipeline

    monkeypatch.setattr(pipeline, "_ambiguous_flag_problems", lambda *args, **kwargs: [])
    scene, res = _one_turn_back("scene_014")
    assert res.state.side_scores() != scene.truth.side_scores()
    assert res.trusted  # what the margin check is for


def _round_back(name: str) -> tuple[CtrlScene, SceneResult]:
    from engine.ctrl.record import turns_back

    scene = load_scene(FIXTURES / name, with_camera=True)
    before = turns_back(scene.truth, len(scene.truth.colors))
    assert before != scene.truth
    return scene, score_images(scene.pics, scene.spec, scene.camera, before)


def test_with_history_one_picture_of_a_pole_does_not_overrule_the_banner() -> None:
    # scene_011 a round back: the banner puts the green flag at -1,1,3 +z (right); a pole-like line in
    # one picture at -1,1,3 -x used to move it there (HISTORY_POLE_MIN_VIEWS = 2, session 6)
    scene, res = _round_back("scene_011")
    assert res.state.flags["green"] == scene.truth.flags["green"] == FlagSpot.parse("flag -1,1,3 +z")


@pytest.mark.slow
def test_one_picture_of_a_pole_moved_the_flag_before(monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.pipeline as pipeline

    monkeypatch.setattr(pipeline, "HISTORY_POLE_MIN_VIEWS", 1)
    scene, res = _round_back("scene_011")
    assert res.state.flags["green"] == FlagSpot.parse("flag -1,1,3 -x") != scene.truth.flags["green"]


def test_the_rival_test() -> None:
    assert not is_ambiguous(30.0, 0.0)  # rivals without evidence do not count
    assert is_ambiguous(30.0, 30.0 - MARGIN) and not is_ambiguous(30.0, 29.0 - MARGIN)
    assert is_ambiguous(0.0, 0.0)  # nothing shows the flag where it was read: a guess


def test_a_dark_line_at_a_rival_spot_does_not_unsettle_a_flag() -> None:
    # fixture scene_004 one turn back: the green flag is read right (-3,3,1 -x, 11 banner rays); the
    # rival -6,2,1 -x shows a dark line along its pole in two pictures, which the lighter-line pole
    # test (session 7) does not count, so the reading is trusted
    scene, res = _one_turn_back("scene_004")
    assert res.state.flags["green"] == scene.truth.flags["green"] == FlagSpot.parse("flag -3,3,1 -x")
    assert not [p for p in res.problems if p.code == "flag-ambiguous"]
    assert res.trusted and res.state.side_scores() == scene.truth.side_scores()


@pytest.mark.slow
def test_with_either_polarity_the_dark_line_unsettled_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.flag_margin as flag_margin
    from vision.poles import PoleConfig

    monkeypatch.setattr(flag_margin, "POLE_TEST", PoleConfig(light_only=False))
    # (with session 15's POLE_ONLY_RIVAL_MARGIN = 0 the dark-line rival, weaker than the 11 banner rays read, no
    # longer unsettles the flag even so; with the same margin as any rival, as when light_only was chosen, it did)
    monkeypatch.setattr(flag_margin, "POLE_ONLY_RIVAL_MARGIN", None)
    _, res = _one_turn_back("scene_004")
    assert [p.where for p in res.problems if p.code == "flag-ambiguous"] == ["green flag"]
    assert not res.trusted


def test_a_flag_nothing_shows_is_not_trusted() -> None:
    # fixture scene_017 one turn back (session 6's one trusted wrong reading): the green flag ends up at
    # -3,1,0 -y (truth 0,4,1 +z), where no banner ray and no pole shows it; whatever the reading, a
    # trusted one must have every side right
    scene, res = _one_turn_back("scene_017")
    assert not res.trusted or res.state.side_scores() == scene.truth.side_scores()
    if res.state.flags.get("green") == FlagSpot.parse("flag -3,1,0 -y"):
        notes = [p for p in res.problems if p.code == "flag-ambiguous"]
        assert [n.where for n in notes] == ["green flag"] and "nothing in the pictures" in notes[0].message
