"""A banner seen by its outline (vision.banner_outline; docs/vision.md, "Session 18: banners in front of their own
colour"): a banner in front of blocks of its own colour gives no banner ray, but a flat rectangle of another shade
standing where the spot puts it still shows its edges.  Synthetic: a flat picture of one shade (the blocks behind,
all of the banner's colour) with the banner's projected rectangle filled one shade lighter."""

from __future__ import annotations

import numpy as np
import pytest

from engine.ctrl.moves import FlagSpot
from vision.banner_outline import OUTLINE, OutlineConfig, OutlineJudge, _edges, banner_sides
from vision.camera import ViewCamera
from vision.pieces import FLAG
from vision.pole_neutral import only_spot

S = 22.0
K = np.array([[855.0, 0.0, 640.0], [0.0, 855.0, 360.0], [0.0, 0.0, 1.0]])
UP = FlagSpot((1, -3, 2), "+z")  # plugged into the block at 1,-3,1
NEAR = FlagSpot((2, -3, 2), "+z")  # another legal spot, one cell over


def _camera() -> ViewCamera:
    target = (1.5 * S, -2.5 * S, 2.5 * S)
    return ViewCamera.look_at((1.5 * S, -2.5 * S - 330.0, 2.5 * S + 200.0), target, K, (1280, 720), block_mm=S)


def _picture(cam: ViewCamera, spot: FlagSpot | None, side: tuple[int, int, int], shade: int = 150,
             behind: int = 110) -> np.ndarray:
    """Flat ``behind`` grey, with the banner at ``spot`` hanging towards ``side`` filled with ``shade``."""
    import cv2

    img = np.full((720, 1280), behind, np.uint8)
    if spot is not None:
        ends, _ = _edges(spot, side, FLAG)
        corners = np.array([ends[1][0], ends[1][1], ends[0][1], ends[0][0]]) * S  # lower edge, then tip edge back
        q = cam.project(corners)
        cv2.fillConvexPoly(img, np.round(q).astype(np.int32), shade)
    return img.astype(np.float32)


def test_a_lighter_banner_in_front_of_its_own_colour_shows_its_outline() -> None:
    cam = _camera()
    side = (1, 0, 0)  # hangs towards +x: its plane faces the camera on -y
    assert side in banner_sides(UP)
    judge = OutlineJudge([_picture(cam, UP, side)], [cam], occupied={(1, -3, 1), (2, -3, 1)})
    views = judge.views(UP)
    assert views[banner_sides(UP).index(side)] == [0]
    assert judge.best(UP) == [0]
    # the same picture without the banner shows no outline anywhere
    bare = OutlineJudge([_picture(cam, None, side)], [cam], occupied={(1, -3, 1), (2, -3, 1)})
    assert bare.best(UP) == [] and bare.best(NEAR) == []


def test_another_spot_does_not_take_the_banner_as_its_own() -> None:
    cam = _camera()
    judge = OutlineJudge([_picture(cam, UP, (1, 0, 0))], [cam], occupied={(1, -3, 1), (2, -3, 1)})
    assert judge.best(NEAR) == []
    assert only_spot({UP: judge.best(UP), NEAR: judge.best(NEAR)}, 1) == UP


def test_a_banner_seen_edge_on_is_not_judged() -> None:
    cam = _camera()
    side = (0, 1, 0)  # hangs towards +y: its plane contains the camera's line of sight nearly
    judge = OutlineJudge([_picture(cam, UP, (1, 0, 0))], [cam], occupied=set())
    assert judge.shares(0, UP, side) is None


def test_a_banner_of_the_same_shade_shows_nothing() -> None:
    """The limit: a banner lit exactly as the faces behind it (the same orientation) has no outline to show."""
    cam = _camera()
    judge = OutlineJudge([_picture(cam, UP, (1, 0, 0), shade=110)], [cam], occupied=set())
    assert judge.best(UP) == []


def test_a_banner_hidden_by_a_block_in_front_is_not_judged() -> None:
    cam = _camera()
    side = (1, 0, 0)
    in_front = {(1, -4, 2), (2, -4, 2), (1, -4, 3), (2, -4, 3)}
    hidden = OutlineJudge([_picture(cam, UP, side)], [cam], occupied={(1, -3, 1), *in_front})
    assert hidden.shares(0, UP, side) is None


@pytest.mark.parametrize("views,expected", [({UP: [0, 1], NEAR: [0]}, UP), ({UP: [0, 1], NEAR: [1, 2]}, None),
                                            ({UP: [0], NEAR: []}, None)])
def test_only_outline_spot_needs_strictly_most_pictures(views: dict[FlagSpot, list[int]],
                                                       expected: FlagSpot | None) -> None:
    assert only_spot(views, 2) == expected


def test_outline_config_defaults_are_the_measured_ones() -> None:
    assert OutlineConfig() == OUTLINE
    assert OUTLINE.min_edges == 2 and OUTLINE.max_inside_std == 8.0


def test_held17_pink_banner_in_front_of_pink_is_not_singled_out_by_its_outline() -> None:
    """The committed case (``fixtures/ctrl_history/held17f_h1_scene_014``, rendered, SIMULATED): pink's flag stands
    at 2,0,4 +z in front of pink blocks (px shows 936 of its pixels, no banner ray).  Its outline shows in one picture
    only (mx, where the spot read lies on the same line of sight), as at several other legal spots, so the outline
    step (``OUTLINE_MOVES``) does not place a missing pink flag: the limit measured in docs/vision.md, "Session 18"."""
    import json
    from dataclasses import replace
    from pathlib import Path

    from boardside.fixtures_render.camera import truth_calibration
    from calibration.camera import read_image
    from calibration.mat import MatSpec
    from engine.ctrl import State
    from vision.pipeline import _outline_moves, score_images

    root = Path(__file__).resolve().parent.parent / "fixtures"
    name = "held17f_h1_scene_014"
    case = json.loads((root / "ctrl_history" / "cases.json").read_text())["cases"][name]
    scene = root / "ctrl_history" / name
    pics = [(f"{name}/{v}.jpg", read_image(scene / f"{v}.jpg")) for v in ("px", "mx", "py", "my", "top")]
    cam = truth_calibration(json.loads((scene / "px.json").read_text())["camera"])
    spec = MatSpec.from_json(json.loads((scene / "scene.json").read_text())["mat"])
    previous, truth = State.from_json(case["previous"]), State.from_json(case["truth"])
    res = score_images(pics, spec, cam, previous, turns_played=case["turns_played"])
    assert res.reconstruction.scorer is not None
    from vision.pipeline import _greys

    judge = OutlineJudge(_greys(res.pictures), res.cameras, set(truth.blocks))
    true, read = truth.flags["pink"], FlagSpot((4, 0, 3), "+z")
    assert judge.best(true) == [1] and judge.best(read) == []  # mx only, and nothing at the spot read
    without = replace(truth, flags={c: f for c, f in truth.flags.items() if c != "pink"})
    weak: set[str] = set()
    state, changed = _outline_moves(without, {"pink"}, res.reconstruction.scorer, res.pictures, res.cameras, weak, [])
    assert changed == {} and "pink" not in state.flags and not weak
