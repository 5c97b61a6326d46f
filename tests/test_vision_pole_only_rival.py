"""A rival spot that only a pole shows (no banner ray of its colour there) makes a flag read with history
``flag-ambiguous`` only when its evidence is at least the spot read's (``vision.flag_margin.POLE_ONLY_RIVAL_MARGIN``
= 0), not merely within ``MARGIN`` (10) of it; a rival with banner rays still needs only to come within
``MARGIN`` (docs/vision.md, "Session 15: trusting right readings with history").

The fakes stand in for the pictures: banner rays per spot (``-inf``: none) and pictures showing each spot's pole
(10 evidence per picture beyond the first, ``vision.flag_margin.flag_evidence``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine.ctrl import GameRecord, State
from engine.ctrl.moves import FlagSpot
from vision.poles import PoleEvidence

ROOT = Path(__file__).resolve().parents[1] / "fixtures"
READ = "flag 3,2,1 +y"  # the pink flag of the position below
RIVAL = "flag 3,-1,0 -y"  # another legal pink spot, in another cell, that changes a side


def _pink_position() -> State:
    doc = json.loads((ROOT / "ctrl_followed" / "game_000" / "game.json").read_text())
    return list(GameRecord.from_json(doc["record"]).states())[2]


class _FakeScorer:
    """Banner evidence per spot (``-inf`` where none); nothing contradicts a banner anywhere."""

    def __init__(self, banners: Mapping[str, float]) -> None:
        self.banners = {FlagSpot.parse(k): v for k, v in banners.items()}

    def flag_scores(self, blocks: Any, color: str, spots: Sequence[FlagSpot]) -> list[float]:
        return [self.banners.get(s, -np.inf) for s in spots]

    def banner_seen_against(self, blocks: Any, color: str, spots: Sequence[FlagSpot]) -> list[list[tuple[int, int]]]:
        return [[] for _ in spots]


def _fake_poles(poles: Mapping[str, int]) -> type:
    shown = {FlagSpot.parse(k): n for k, n in poles.items()}

    class _FakeJudge:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pass

        def evidence(self, spots: Sequence[FlagSpot]) -> list[PoleEvidence]:
            return [PoleEvidence(s, 5, list(range(shown.get(s, 0)))) for s in spots]

    return _FakeJudge


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
    monkeypatch.setattr(fm, "PoleJudge", _fake_poles({RIVAL: rival_poles}))
    monkeypatch.setattr(fm, "POLE_ONLY_RIVAL_MARGIN", rule)
    banners = {READ: read_banner, **({RIVAL: rival_banner} if rival_banner is not None else {})}
    greys = [np.zeros((1, 1), np.float32)] * 5  # five pictures (the fake judge does not look at them)
    out = fm.ambiguous_flags(state, ["pink"], _FakeScorer(banners), greys, [])  # type: ignore[arg-type]
    assert [(a.color, str(a.rival)) for a in out] == ([("pink", RIVAL)] if asked else [])
