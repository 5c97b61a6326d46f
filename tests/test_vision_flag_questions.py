"""Which flags a followed game asks the player about (docs/vision.md, "Session 9: flag questions").

* ``vision.flag_margin.ambiguous_flags``: a rival in the SAME cell as the spot read (the flag in the same
  block, its pole out of another face) whose pole no picture shows, while some picture shows the pole read,
  is no rival (``SAME_CELL_POLE_DECIDES``): the two banners hang in nearly the same place, so only the
  poles can tell them apart.  A rival in another cell, or one whose pole a picture shows, still is.
* ``vision.pipeline._shadow_only_flags``: a mover's flag whose banner rays are all weakly coloured pixels
  (none is left without them) and whose pole at most one picture shows is asked about.
* ``RayScorer.without_weak`` keeps the banner rays beyond the mat: a colour with no weak pixels scores its
  banners the same with and without the weak pixels.

The fakes stand in for the pictures: banner rays per spot and pictures showing each spot's pole.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.ctrl import GameRecord, State
from tests.ctrl_flag_fakes import FakeScorer, fake_poles

ROOT = Path(__file__).resolve().parents[1] / "fixtures"


def _pink_position() -> State:
    doc = json.loads((ROOT / "ctrl_followed" / "game_000" / "game.json").read_text())
    return list(GameRecord.from_json(doc["record"]).states())[2]  # pink flag at 3,2,1 +y


@pytest.mark.parametrize(("rival", "rival_poles", "same_cell_rule", "asked", "read_poles"), [
    ("flag 3,2,1 +z", 0, True, False, 3),  # same cell, its pole in no picture: the pole read settles it
    ("flag 3,2,1 +z", 0, False, True, 3),  # (before session 9: the banners alone, 20 against 18)
    ("flag 3,2,1 +z", 1, True, True, 3),  # same cell, but a picture shows its pole too
    ("flag 3,-1,0 -y", 0, True, True, 3),  # another cell: the banner rays still decide
    ("flag 3,2,1 +z", 0, True, False, 1),  # one picture of the pole read is enough (session 11 dropped the
    # upright rival's 3 pictures, SAME_CELL_UPRIGHT_MIN_POLES: it changed no reading measured)
])
def test_same_cell_rival_is_settled_by_the_poles(rival: str, rival_poles: int, same_cell_rule: bool, asked: bool,
                                                 read_poles: int, monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.flag_margin as fm

    state = _pink_position()
    read = state.flags["pink"]
    assert str(read) == "flag 3,2,1 +y"
    monkeypatch.setattr(fm, "PoleJudge", fake_poles({str(read): read_poles, rival: rival_poles}))
    monkeypatch.setattr(fm, "SAME_CELL_POLE_DECIDES", same_cell_rule)
    # the rival 2 rays short of the evidence read (banner, and 10 per picture showing its pole beyond the first)
    scorer = FakeScorer({str(read): 20.0, rival: 18.0 + 10.0 * (read_poles - 1)})
    out = fm.ambiguous_flags(state, ["pink"], scorer, [], [])  # type: ignore[arg-type]
    assert [(a.color, str(a.rival)) for a in out] == ([("pink", rival)] if asked else [])


def test_same_cell_rule_needs_a_pole_at_the_spot_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """Neither pole shown: the banners decide, as before (20 against 18 is within the margin)."""
    import vision.flag_margin as fm

    state = _pink_position()
    monkeypatch.setattr(fm, "PoleJudge", fake_poles({}))
    scorer = FakeScorer({"flag 3,2,1 +y": 20.0, "flag 3,2,1 +z": 18.0})
    out = fm.ambiguous_flags(state, ["pink"], scorer, [], [])  # type: ignore[arg-type]
    assert [str(a.rival) for a in out] == ["flag 3,2,1 +z"]


@pytest.mark.parametrize(("weak_free_banner", "poles", "asked"), [
    (None, 0, True),  # every banner ray a weak pixel, no pole: a shadow as likely as the flag
    (None, 1, True),  # one picture's pole line: common where no flag stands (it counts nothing)
    (None, 2, False),  # two pictures show its pole there
    (6.0, 0, False),  # some banner rays left without the weak pixels
])
def test_flag_read_from_shadow_pixels_only_is_asked(weak_free_banner: float | None, poles: int, asked: bool,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.poles
    from vision.pipeline import _shadow_only_flags

    state = _pink_position()
    read = str(state.flags["pink"])
    monkeypatch.setattr(vision.poles, "PoleJudge", fake_poles({read: poles}))
    full = FakeScorer({read: 15.0})
    weak_free = FakeScorer({} if weak_free_banner is None else {read: weak_free_banner})
    sides: dict[str, int] = {}
    out = _shadow_only_flags(state, {"pink"}, full, weak_free, [], [], sides)  # type: ignore[arg-type]
    assert [(p.code, p.where) for p in out] == ([("flag-ambiguous", "pink flag")] if asked else [])
    assert bool(sides) is asked


@pytest.mark.parametrize("keep_far", [True, False])
def test_weak_free_scorer_keeps_banners_beyond_the_mat(keep_far: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bundled followed game's position 2 (fixtures/ctrl_followed/game_000/scene_002, read from position
    1): the pink flag (read right, its pole in a picture) is seen against the table beyond the mat.  The
    colours with no weak pixels score every legal spot the same with and without the weak pixels -- unless
    the banner rays beyond the mat are dropped, as before session 9 (then the pink banner lost all 75 rays)."""
    import vision.reconstruct as rc
    from boardside.fixtures_render.camera import truth_calibration
    from calibration.camera import read_image
    from calibration.mat import MatSpec
    from vision.history import spots_for_flag
    from vision.pipeline import score_images

    monkeypatch.setattr(rc, "WEAK_FREE_KEEPS_FAR", keep_far)
    game = ROOT / "ctrl_followed" / "game_000"
    doc = json.loads((game / "game.json").read_text())
    states = list(GameRecord.from_json(doc["record"]).states())
    shots = [int(n) for n in doc["shots"]]
    scene = game / "scene_002"
    pics = [(f"scene_002/{v}.jpg", read_image(scene / f"{v}.jpg")) for v in ("px", "mx", "py", "my", "top")]
    cam = truth_calibration(json.loads((scene / "px.json").read_text())["camera"])
    spec = MatSpec.from_json(json.loads((scene / "scene.json").read_text())["mat"])
    res = score_images(pics, spec, cam, states[shots[1]], turns_played=shots[2] - shots[1])
    scorer = res.reconstruction.scorer
    assert scorer is not None
    weak_free = scorer.without_weak()
    assert weak_free is not scorer  # some blue pixels are marked weak
    state = res.state
    assert state.flags["pink"] == states[shots[2]].flags["pink"]
    full = {c: scorer.flag_scores(state.blocks, c, spots_for_flag(state, c)) for c in state.colors if c != "blue"}
    free = {c: weak_free.flag_scores(state.blocks, c, spots_for_flag(state, c)) for c in full}
    assert (full == free) is keep_far
    read = spots_for_flag(state, "pink").index(state.flags["pink"])
    assert (free["pink"][read] > 0) is keep_far
