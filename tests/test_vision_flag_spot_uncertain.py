"""A flag whose rival spot changes no side (docs/vision.md, "Session 17: a flag recorded wrong without a question").

``vision.flag_margin.ambiguous_flags`` weighs only the rival spots that change a side's count: a rival that
changes none cannot spoil the score sheet.  But a followed game records where each flag stands, and a later turn's
sides depend on it.  ``fixtures/ctrl_history/held17f_h1_scene_014`` (rendered, SIMULATED; session 17's held-out
followed game, five pictures, read from the recorded position one turn back): pink's flag is read at 4,0,3 +z
(evidence 10: banner rays from the -x picture beyond the mat, no pole) where it stands at 2,0,4 +z (evidence 5),
a rival changing no side; the reading was trusted and recorded without a question.  With
``flag_margin.NEUTRAL_RIVALS`` such a rival makes the flag's SPOT uncertain (``SceneResult.uncertain_flag_spots``,
a ``flag-spot-uncertain`` warning), and ``ctrl follow`` has it confirmed (``flags_to_confirm``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from boardside.ctrl_follow import flags_to_confirm
from engine.ctrl import GameRecord, State
from engine.ctrl.moves import FlagSpot
from tests.ctrl_flag_fakes import FakeScorer, fake_poles

ROOT = Path(__file__).resolve().parents[1] / "fixtures"
VIEWS = ("px", "mx", "py", "my", "top")


def _pink_position() -> State:
    doc = json.loads((ROOT / "ctrl_followed" / "game_000" / "game.json").read_text())
    return list(GameRecord.from_json(doc["record"]).states())[2]  # pink flag at 3,2,1 +y


def _rivals(state: State) -> tuple[FlagSpot, FlagSpot]:
    """A legal pink spot that changes no side and one that changes some."""
    from vision.history import spots_for_flag
    from vision.pipeline import FlagSideCheck

    check = FlagSideCheck(state.blocks, state.flags, state.colors)
    read = state.flags["pink"]
    spots = [sp for sp in spots_for_flag(state, "pink") if sp != read]
    neutral = [sp for sp in spots if not check.changed_sides("pink", sp)]
    changing = [sp for sp in spots if check.changed_sides("pink", sp)]
    assert neutral and changing
    return neutral[0], changing[0]


@pytest.mark.parametrize("neutral", [False, True])
def test_a_close_rival_that_changes_no_side_is_weighed_only_with_neutral(neutral: bool,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.flag_margin as fm

    state = _pink_position()
    read = state.flags["pink"]
    quiet, loud = _rivals(state)
    monkeypatch.setattr(fm, "PoleJudge", fake_poles({}))
    # as held17 scene_014: the spot read 10 banner rays, the side-neutral rival 5; the side-changing one far off
    scorer = FakeScorer({str(read): 10.0, str(quiet): 5.0, str(loud): -1.0})
    out = fm.ambiguous_flags(state, ["pink"], scorer, [], [], neutral=neutral)  # type: ignore[arg-type]
    assert [(a.color, a.rival, a.sides) for a in out] == ([("pink", quiet, ())] if neutral else [])


def test_neutral_mode_leaves_the_side_changing_rivals_to_the_usual_test(monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.flag_margin as fm

    state = _pink_position()
    read = state.flags["pink"]
    _quiet, loud = _rivals(state)
    monkeypatch.setattr(fm, "PoleJudge", fake_poles({}))
    scorer = FakeScorer({str(read): 10.0, str(loud): 8.0})
    assert fm.ambiguous_flags(state, ["pink"], scorer, [], [], neutral=True) == []  # type: ignore[arg-type]
    usual = fm.ambiguous_flags(state, ["pink"], scorer, [], [])  # type: ignore[arg-type]
    assert [a.rival for a in usual] == [loud] and usual[0].sides


@pytest.mark.parametrize("on", [False, True])
def test_held17_pink_flag_recorded_wrong_is_confirmed_with_the_switch(on: bool,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.flag_margin as fm
    from boardside.fixtures_render.camera import truth_calibration
    from calibration.camera import read_image
    from calibration.mat import MatSpec
    from vision.pipeline import score_images

    monkeypatch.setattr(fm, "NEUTRAL_RIVALS", on)
    name = "held17f_h1_scene_014"
    case = json.loads((ROOT / "ctrl_history" / "cases.json").read_text())["cases"][name]
    scene = ROOT / "ctrl_history" / name
    pics = [(f"{name}/{v}.jpg", read_image(scene / f"{v}.jpg")) for v in VIEWS]
    cam = truth_calibration(json.loads((scene / "px.json").read_text())["camera"])
    spec = MatSpec.from_json(json.loads((scene / "scene.json").read_text())["mat"])
    previous, truth = State.from_json(case["previous"]), State.from_json(case["truth"])
    res = score_images(pics, spec, cam, previous, turns_played=case["turns_played"])
    assert res.state.blocks == truth.blocks
    assert str(res.state.flags["pink"]) == "flag 4,0,3 +z" != str(truth.flags["pink"])  # the misread, either way
    assert res.trusted  # the score sheet does not depend on it: a warning only
    assert res.uncertain_flag_spots == (["pink"] if on else [])
    assert any(p.code == "flag-spot-uncertain" and p.where == "pink flag" for p in res.problems) is on
    confirm = flags_to_confirm(res.trusted, [*res.uncertain_flags, *res.uncertain_flag_spots], previous, res.state)
    assert confirm == (["pink"] if on else [])
