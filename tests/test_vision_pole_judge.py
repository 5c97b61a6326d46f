"""vision.poles.PoleJudge judges many flag spots at once; these tests pin it to
vision.poles.pole_evidence spot by spot, on rendered (SIMULATED) fixture pictures with the fixtures'
recorded truth cameras: the same pictures judged, the same pictures showing the pole, for every
legal flag spot of every colour, with and without the blocks' occlusion, for both pole tests."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.ctrl.moves import FlagSpot
from tests.test_vision_poles import _scene
from vision.poles import PoleConfig, PoleJudge, pole_evidence


@pytest.mark.parametrize("name", ["scene_011", "scene_026"])
@pytest.mark.parametrize("cfg", [PoleConfig(), PoleConfig(light_only=True),
                                 PoleConfig(light_only=True, dark_min_grey=130.0)])
def test_pole_judge_agrees_with_pole_evidence(name: str, cfg: PoleConfig) -> None:
    truth, images, cams = _scene(name)
    greys = [cv2.cvtColor(i, cv2.COLOR_BGR2GRAY).astype(np.float32) for i in images]
    spots = list(dict.fromkeys(sp for c in truth.colors for sp in truth.flag_spots(c)))
    assert len(spots) > 40
    for occupied in (None, set(truth.blocks)):
        judge = PoleJudge(greys, cams, cfg=cfg, occupied=occupied)
        got = judge.evidence(spots[::2])  # asked in two rounds: the second reuses the first's verdicts
        got = judge.evidence(spots)
        want = [pole_evidence(greys, cams, sp, cfg=cfg, occupied=occupied) for sp in spots]
        assert [(g.spot, g.views_judged, g.views_seen) for g in got] == \
            [(w.spot, w.views_judged, w.views_seen) for w in want]
    assert any(w.views_seen for w in want)  # not a vacuous comparison


def test_pole_judge_rejects_mismatched_pictures() -> None:
    _truth, _images, cams = _scene("scene_011")
    with pytest.raises(ValueError, match="4"):
        PoleJudge([np.zeros((4, 4), np.float32)] * 4, cams)
    assert PoleJudge([], []).evidence([FlagSpot.parse("flag 0,0,1 +z")])[0].views_judged == 0
