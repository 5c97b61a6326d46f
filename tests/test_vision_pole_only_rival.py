"""A rival spot that only a pole shows (no banner ray of its colour there) makes a flag read with history
``flag-ambiguous`` only when its evidence is at least the spot read's (``vision.flag_margin.POLE_ONLY_RIVAL_MARGIN``
= 0), not merely within ``MARGIN`` (10) of it; a rival with banner rays still needs only to come within
``MARGIN`` (docs/vision.md, "Session 15: trusting right readings with history").

The fakes stand in for the pictures: banner rays per spot (``-inf``: none) and pictures showing each spot's pole
(10 evidence per picture beyond the first, ``vision.flag_margin.flag_evidence``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from engine.ctrl import GameRecord, State
from tests.ctrl_flag_fakes import FakeScorer, fake_poles

ROOT = Path(__file__).resolve().parents[1] / "fixtures"
READ = "flag 3,2,1 +y"  # the pink flag of the position below
RIVAL = "flag 3,-1,0 -y"  # another legal pink spot, in another cell, that changes a side


def _pink_position() -> State:
    doc = json.loads((ROOT / "ctrl_followed" / "game_000" / "game.json").read_text())
    return list(GameRecord.from_json(doc["record"]).states())[2]


@pytest.mark.parametrize(("read_banner", "rival_banner", "rival_poles", "rule", "asked"), [
    (14.0, None, 2, 0.0, False),  # a pole-only rival (10) below the evidence read (14): settled
    (14.0, None, 2, None, True),  # (before session 15: within MARGIN, asked)
    (18.0, None, 3, 0.0, True),  # 18 against 20 (a pole in three pictures): the rival is stronger, asked
    (10.0, None, 2, 0.0, True),  # a tie with a pole-only rival: asked
    (9.0, None, 2, 0.0, True),  # the rival stronger: asked
    (14.0, 5.0, 2, 0.0, True),  # a rival with banner rays of its own (5 + 10): MARGIN applies, asked
    (14.0, 6.0, 0, 0.0, True),  # a banner-only rival within MARGIN: asked, as before
    (25.0, None, 2, 0.0, False),  # beyond MARGIN: settled either way
    (25.0, None, 2, None, False),
])
def test_a_pole_only_rival_needs_the_evidence_read(read_banner: float, rival_banner: float | None, rival_poles: int,
                                                   rule: float | None, asked: bool,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.flag_margin as fm

    state = _pink_position()
    assert str(state.flags["pink"]) == READ
    monkeypatch.setattr(fm, "PoleJudge", fake_poles({RIVAL: rival_poles}))
    monkeypatch.setattr(fm, "POLE_ONLY_RIVAL_MARGIN", rule)
    banners = {READ: read_banner, **({RIVAL: rival_banner} if rival_banner is not None else {})}
    greys = [np.zeros((1, 1), np.float32)] * 5  # five pictures (the fake judge does not look at them)
    out = fm.ambiguous_flags(state, ["pink"], FakeScorer(banners), greys, [])  # type: ignore[arg-type]
    assert [(a.color, str(a.rival)) for a in out] == ([("pink", RIVAL)] if asked else [])
