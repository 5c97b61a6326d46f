"""Stand-ins for the pictures in the flag tests (tests/test_vision_flag_questions.py,
tests/test_vision_pole_only_rival.py): banner rays per spot and pictures showing each spot's pole."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from engine.ctrl.moves import FlagSpot
from vision.poles import PoleEvidence


class FakeScorer:
    """Banner evidence per spot (``-inf`` where none); nothing contradicts a banner anywhere."""

    def __init__(self, banners: Mapping[str, float]) -> None:
        self.banners = {FlagSpot.parse(k): v for k, v in banners.items()}

    def flag_scores(self, blocks: Any, color: str, spots: Sequence[FlagSpot]) -> list[float]:
        return [self.banners.get(s, -np.inf) for s in spots]

    def banner_seen_against(self, blocks: Any, color: str, spots: Sequence[FlagSpot]) -> list[list[tuple[int, int]]]:
        return [[] for _ in spots]


def fake_poles(poles: Mapping[str, int]) -> type:
    shown = {FlagSpot.parse(k): n for k, n in poles.items()}

    class _FakeJudge:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pass

        def evidence(self, spots: Sequence[FlagSpot]) -> list[PoleEvidence]:
            # a line of some polarity in every picture: never ``absent`` (flag_margin.ABSENT_POLE_RIVALS)
            return [PoleEvidence(s, 5, list(range(shown.get(s, 0))), list(range(5))) for s in spots]

    return _FakeJudge
