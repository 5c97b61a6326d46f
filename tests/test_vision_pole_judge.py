"""vision.poles.PoleJudge judges many flag spots at once; these tests pin it to
vision.poles.pole_evidence spot by spot, on rendered (SIMULATED) fixture pictures with the fixtures'
recorded truth cameras: the same pictures judged, the same pictures showing the pole, for every
legal flag spot of every colour, with and without the blocks' occlusion, for both pole tests."""

from __future__ import annotations

import json
from dataclasses import replace

import cv2
import numpy as np
import pytest

from calibration.camera import read_image
from calibration.mat import MatSpec
from engine.ctrl import State
from engine.ctrl.moves import FlagSpot
from tests.test_vision_poles import FIXTURES, _scene
from vision.camera import ViewCamera
from vision.flag_margin import POLE_TEST
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


def _nine(name: str) -> tuple[list[np.ndarray], list[ViewCamera], set[tuple[int, int, int]], list[FlagSpot]]:
    """The fixture scene's nine pictures (five and four low ones) with truth cameras that know the mat's ring."""
    d = FIXTURES / name
    doc = json.loads((d / "scene.json").read_text())
    spec, truth = MatSpec.from_json(doc["mat"]), State.from_json(doc["state"])
    ring = (spec.paper_world_rect(), spec.clear_world_rect())
    images, cams = [], []
    for v in ("px", "mx", "py", "my", "top", "px_low", "mx_low", "py_low", "my_low"):
        c = json.loads((d / f"{v}.json").read_text())["camera"]
        images.append(cv2.cvtColor(read_image(d / f"{v}.jpg"), cv2.COLOR_BGR2GRAY).astype(np.float32))
        cams.append(ViewCamera(np.array(c["K"]), np.array(c["dist"]), np.array(c["rvec"], float),
                               np.array(c["t"], float), tuple(c["image_size"]), spec.block_mm, mat_ring=ring))
    spots = list(dict.fromkeys(sp for c in truth.colors for sp in truth.flag_spots(c)))
    return images, cams, set(truth.blocks), spots


@pytest.mark.parametrize("ring", ["all", "low"])
def test_pole_judge_agrees_with_pole_evidence_leaving_out_the_mat_ring(ring: str) -> None:
    greys, cams, occupied, spots = _nine("scene_004")
    cfg = PoleConfig(light_only=True, dark_min_grey=130.0, ring=ring)
    got = PoleJudge(greys, cams, cfg=cfg, occupied=occupied).evidence(spots)
    want = [pole_evidence(greys, cams, sp, cfg=cfg, occupied=occupied) for sp in spots]
    assert [(g.views_judged, g.views_seen) for g in got] == [(w.views_judged, w.views_seen) for w in want]
    plain = PoleJudge(greys, cams, cfg=replace(cfg, ring=None), occupied=occupied).evidence(spots)
    # pictures of some spots are no longer judged (not a vacuous comparison); none gains a verdict
    assert sum(p.views_judged for p in plain) > sum(g.views_judged for g in got)
    assert all(set(g.views_seen) <= set(p.views_seen) for g, p in zip(got, plain, strict=True))
    if ring == "low":  # only the low pictures (indices 5-8) lose verdicts
        assert all(set(p.views_seen) - set(g.views_seen) <= {5, 6, 7, 8} for g, p in zip(got, plain, strict=True))


def test_mat_ring_backdrop_geometry() -> None:
    """A point the camera sees against the printed ring is left out; against the clear centre, a block,
    or with no ring known, it is not."""
    from vision.poles import _Backdrop

    k = np.array([[800.0, 0, 640], [0, 800.0, 360], [0, 0, 1]])
    ring = ((-100.0, -100.0, 166.0, 166.0), (-60.0, -60.0, 126.0, 126.0))  # world mm: paper, clear centre
    cam = replace(ViewCamera.look_at((33.0, 400.0, 80.0), (33.0, 0.0, 20.0), k, (1280, 720)), mat_ring=ring)
    near = np.array([[33.0, 180.0, 10.0]])  # its line of sight meets the table at y ~ 149 mm: the ring
    far = np.array([[33.0, 120.0, 10.0]])  # ... at y ~ 85 mm: the clear centre
    assert _ends_on_ring(cam, near[0], ring) and not _ends_on_ring(cam, far[0], ring)
    assert _Backdrop(set()).against_ring(cam, near).tolist() == [True]
    assert _Backdrop(set()).against_ring(cam, far).tolist() == [False]
    # a block between the point and the ring: the point is seen against the block
    assert _Backdrop({(1, 7, 0)}).against_ring(cam, near).tolist() == [False]
    assert _Backdrop({(1, 7, 2)}).against_ring(cam, near).tolist() == [True]  # above the line of sight
    assert _Backdrop(set()).against_ring(replace(cam, mat_ring=None), near).tolist() == [False]


def _ends_on_ring(cam: ViewCamera, p: np.ndarray, ring: tuple[tuple[float, ...], tuple[float, ...]]) -> bool:
    c = cam.center
    g = c + (c[2] / (c[2] - p[2])) * (p - c)
    (px0, py0, px1, py1), (cx0, cy0, cx1, cy1) = ring
    on = px0 <= g[0] <= px1 and py0 <= g[1] <= py1
    return bool(on and not (cx0 <= g[0] <= cx1 and cy0 <= g[1] <= cy1))


def test_low_picture_ring_line_is_no_pole() -> None:
    """Fixture scene_004's low +y picture shows a light line where a green flag at -6,2,1 -x would stand: the
    white gap between two rows of the mat's ring squares, seen flat from low down.  With the ring left out it
    is no pole there, while the true green pole at -3,3,1 -x (in front of the blocks) still counts."""
    greys, cams, occupied, _spots = _nine("scene_004")
    rival, true = FlagSpot.parse("flag -6,2,1 -x"), FlagSpot.parse("flag -3,3,1 -x")
    py_low = 7
    plain = PoleJudge(greys, cams, cfg=PoleConfig(light_only=True, dark_min_grey=130.0), occupied=occupied)
    judge = PoleJudge(greys, cams, cfg=POLE_TEST, occupied=occupied)
    assert POLE_TEST.ring == "low"
    assert py_low in plain.evidence([rival])[0].views_seen
    assert py_low not in judge.evidence([rival])[0].views_seen
    assert py_low in judge.evidence([true])[0].views_seen
