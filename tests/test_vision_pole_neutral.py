"""The pole seen as an uncoloured line across coloured blocks (vision.pole_neutral), on the rendered fixtures."""

from __future__ import annotations

import pytest

from engine.ctrl.moves import FlagSpot
from tests.test_vision_poles import _scene
from vision.history import spots_for_flag
from vision.pole_neutral import NeutralPoleJudge, only_spot


def test_the_true_spot_is_the_only_one_far_more_often_than_another() -> None:
    true_only = other_only = flags = 0
    for name in [f"scene_{i:03d}" for i in range(1, 40, 4)]:
        truth, images, cams = _scene(name)
        judge = NeutralPoleJudge(images, cams, set(truth.blocks))
        for color, flag in truth.flags.items():
            spots = spots_for_flag(truth, color)
            flags += 1
            top = only_spot(judge.views(spots))
            true_only += top == flag
            other_only += top is not None and top != flag
    assert flags >= 30  # 36: the true spot alone 18 times, another spot alone once
    assert true_only >= 4 * max(other_only, 1)


def test_a_green_flag_on_green_blocks_shows_its_pole() -> None:
    # fixture scene_017: the green flag stands upright on a green block; its banner shows nothing the green
    # blocks do not explain, and the grey-level line tests show its pole in one picture, another spot's in two
    truth, images, cams = _scene("scene_017")
    flag = truth.flags["green"]
    assert flag == FlagSpot.parse("flag 0,4,1 +z")
    views = NeutralPoleJudge(images, cams, set(truth.blocks)).views(spots_for_flag(truth, "green"))
    assert views[flag] and only_spot(views) == flag


def test_grey_pictures_are_refused() -> None:
    truth, images, cams = _scene("scene_017")
    with pytest.raises(ValueError, match="colour picture"):
        NeutralPoleJudge([img[..., 0] for img in images], cams, set(truth.blocks))
