"""A pole the pictures could show and do not (docs/vision.md, "Session 19: one turn back, what is left").

* ``vision.poles.PoleEvidence.absent``: at least ``min_judged`` pictures judge the spot and none shows a line along
  its axis of EITHER polarity (``PoleJudge`` fills ``views_line`` whatever ``light_only`` says);
* ``vision.flag_margin.ABSENT_POLE_RIVALS``: such a rival is no rival for ``ambiguous_flags`` (unless the spot read
  is absent too);
* ``vision.pipeline.NEUTRAL_MOVES_ONLY_POLELESS``: the uncoloured-line step does not move a flag away from a spot
  where the lighter-line test shows its pole.

The flag tests use the stand-ins of tests/ctrl_flag_fakes.py (banner rays per spot, pictures showing each pole).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from engine.ctrl import GameRecord, State
from engine.ctrl.moves import FlagSpot
from tests.ctrl_flag_fakes import FakeScorer
from tests.test_vision_poles import _scene
from vision.flag_margin import POLE_TEST
from vision.poles import PoleEvidence, PoleJudge, pole_pixels

ROOT = Path(__file__).resolve().parents[1] / "fixtures"
READ = "flag 3,2,1 +y"  # the pink flag of the position below
RIVAL = "flag 3,-1,0 -y"  # another legal pink spot, in another cell, that changes a side


def _pink_position() -> State:
    doc = json.loads((ROOT / "ctrl_followed" / "game_000" / "game.json").read_text())
    return list(GameRecord.from_json(doc["record"]).states())[2]


def test_absent_needs_enough_pictures_and_no_line_of_either_polarity() -> None:
    sp = FlagSpot.parse(READ)
    assert PoleEvidence(sp, 3, [], []).absent(3)
    assert not PoleEvidence(sp, 2, [], []).absent(3)  # too few pictures could show it
    assert not PoleEvidence(sp, 5, [1], [1]).absent(3)  # a picture shows it
    assert not PoleEvidence(sp, 5, [], [4]).absent(3)  # a darker line: not the lighter pole, but not nothing


def test_pole_judge_records_lines_of_either_polarity() -> None:
    """On a rendered (SIMULATED) fixture scene: the lighter-line judge's ``views_line`` are the pictures the
    either-polarity judge counts, and a dark line drawn along an axis shows in ``views_line`` only."""
    truth, images, cams = _scene("scene_011")
    greys = [cv2.cvtColor(i, cv2.COLOR_BGR2GRAY).astype(np.float32) for i in images]
    spots = list(dict.fromkeys(sp for c in truth.colors for sp in truth.flag_spots(c)))
    light = PoleJudge(greys, cams, cfg=POLE_TEST, occupied=set(truth.blocks)).evidence(spots)
    either = PoleJudge(greys, cams, cfg=POLE_TEST.__class__(ring=POLE_TEST.ring),
                       occupied=set(truth.blocks)).evidence(spots)
    assert [ev.views_line for ev in light] == [ev.views_seen for ev in either]
    assert any(set(ev.views_line) - set(ev.views_seen) for ev in light)  # darker lines exist: not vacuous
    # a black line drawn along one judged spot's axis in one picture: a line there, but no lighter pole
    k, sp = next((k, ev.spot) for ev in light if ev.views_judged for k in range(len(cams))
                 if k not in ev.views_line and PoleJudge([greys[k]], [cams[k]], cfg=POLE_TEST,
                                                         occupied=set(truth.blocks)).evidence([ev.spot])[0].views_judged)
    drawn = greys[k].copy()
    px = pole_pixels(cams[k], sp)
    cv2.polylines(drawn, [np.round(px).astype(np.int32).reshape(-1, 1, 2)], False, 5.0, 1)
    ev = PoleJudge([drawn], [cams[k]], cfg=POLE_TEST, occupied=set(truth.blocks)).evidence([sp])[0]
    assert ev.views_line == [0] and ev.views_seen == []


def _judge(judged: Mapping[str, int], shown: Mapping[str, int], lines: Mapping[str, int]) -> type:
    """A pole judge: per spot, the pictures that can judge it, show a lighter line, show any line."""
    j = {FlagSpot.parse(k): v for k, v in judged.items()}
    s = {FlagSpot.parse(k): v for k, v in shown.items()}
    ln = {FlagSpot.parse(k): v for k, v in lines.items()}

    class _Judge:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pass

        def evidence(self, spots: Sequence[FlagSpot]) -> list[PoleEvidence]:
            return [PoleEvidence(sp, j.get(sp, 5), list(range(s.get(sp, 0))), list(range(ln.get(sp, s.get(sp, 0)))))
                    for sp in spots]

    return _Judge


@pytest.mark.parametrize(("rival_judged", "rival_lines", "read_judged", "switch", "asked"), [
    (3, 0, 0, True, False),  # three pictures could show the rival's pole, none shows a line: no rival
    (3, 0, 0, False, True),  # (as before: a rival within the margin, asked)
    (2, 0, 0, True, True),  # only two pictures could show it: still a rival
    (4, 1, 0, True, True),  # a line of some polarity there: still a rival
    (3, 0, 3, True, True),  # the pole read is absent too: nothing to prefer it by, asked
])
def test_a_rival_whose_pole_is_absent_is_no_rival(rival_judged: int, rival_lines: int, read_judged: int, switch: bool,
                                                  asked: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.flag_margin as fm

    state = _pink_position()
    assert str(state.flags["pink"]) == READ
    monkeypatch.setattr(fm, "ABSENT_POLE_RIVALS", switch)
    monkeypatch.setattr(fm, "PoleJudge", _judge({RIVAL: rival_judged, READ: read_judged}, {}, {RIVAL: rival_lines}))
    greys = [np.zeros((1, 1), np.float32)] * 5  # (the stand-in judge does not look at them)
    # 14 banner rays read, 8 at the rival (within MARGIN: a rival by the banners alone)
    out = fm.ambiguous_flags(state, ["pink"], FakeScorer({READ: 14.0, RIVAL: 8.0}), greys, [])  # type: ignore[arg-type]
    assert [(a.color, str(a.rival)) for a in out] == ([("pink", RIVAL)] if asked else [])


@pytest.mark.parametrize(("read_shown", "switch", "moved"), [(1, True, False), (1, False, True), (0, True, True)])
def test_the_uncoloured_line_does_not_move_a_flag_whose_pole_shows(read_shown: int, switch: bool, moved: bool,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.pipeline as pl
    import vision.poles as poles

    state = _pink_position()
    monkeypatch.setattr(pl, "NEUTRAL_MOVES_ONLY_POLELESS", switch)
    monkeypatch.setattr(poles, "PoleJudge", _judge({}, {READ: read_shown}, {}))

    class _Neutral:  # the uncoloured line shows at RIVAL only, in one picture
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pass

        def views(self, spots: Sequence[FlagSpot]) -> dict[FlagSpot, list[int]]:
            return {sp: [0] if str(sp) == RIVAL else [] for sp in spots}

    import vision.pole_neutral as pn

    monkeypatch.setattr(pn, "NeutralPoleJudge", _Neutral)
    monkeypatch.setattr(pl, "_greys", lambda images: [np.zeros((1, 1), np.float32)] * len(images))
    weak: set[str] = set()
    notes: list[Any] = []
    images = [("px.jpg", np.zeros((4, 4, 3), np.uint8))] * 5
    new, changed = pl._neutral_pole_moves(state, {"pink"}, FakeScorer({}), images, [], weak,  # type: ignore[arg-type]
                                          notes)
    assert (str(new.flags["pink"]) == RIVAL) is moved
    assert ("pink" in changed) is moved
