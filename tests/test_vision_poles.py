"""Flag poles on start blocks (set-up checks, issue 5 item 5): seen where rendered flags stand, not
seen on start blocks without a flag.  Cameras from the fixtures' recorded truth, so only the detector
is under test; the whole check-setup command runs on the rendered pictures too."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from boardside.cli import main
from calibration.camera import read_image
from engine.ctrl import State
from engine.ctrl.moves import FlagSpot
from vision.camera import ViewCamera
from vision.flag_margin import POLE_TEST
from vision.poles import PoleConfig, PoleJudge, pole_evidence

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"
VIEWS = ("px", "mx", "py", "my", "top")


def _scene(name: str) -> tuple[State, list[np.ndarray], list[ViewCamera]]:
    d = FIXTURES / name
    truth = State.from_json(json.loads((d / "scene.json").read_text())["state"])
    images, cams = [], []
    for v in VIEWS:
        c = json.loads((d / f"{v}.json").read_text())["camera"]
        images.append(read_image(d / f"{v}.jpg"))
        cams.append(ViewCamera(np.array(c["K"]), np.array(c["dist"]), np.array(c["rvec"], float),
                               np.array(c["t"], float), tuple(c["image_size"]), 22.0))
    return truth, images, cams


def test_no_pole_seen_on_start_blocks_without_a_flag() -> None:
    standing = judged = 0
    for name in sorted(p.name for p in FIXTURES.glob("scene_*")):
        if json.loads((FIXTURES / name / "scene.json").read_text())["stage"] == "setup":
            continue
        truth, images, cams = _scene(name)
        for color, start in truth.starts.items():
            spot = FlagSpot.on_block(start, (0, 0, 1))
            if truth.flags.get(color) == spot or spot.cell in truth.blocks:
                continue
            judged += 1
            standing += pole_evidence(images, cams, spot).standing()
    assert judged >= 8 and standing == 0


def test_poles_seen_where_set_up_flags_stand() -> None:
    seen = total = 0
    for name in ("scene_000", "scene_005", "scene_010", "scene_020", "scene_030"):
        truth, images, cams = _scene(name)
        for color, start in truth.starts.items():
            spot = FlagSpot.on_block(start, (0, 0, 1))
            assert truth.flags.get(color) == spot
            total += 1
            seen += pole_evidence(images, cams, spot).standing()
    assert seen >= total // 2  # measured: 11 of 19 (two pictures needed; banners are read separately)


@pytest.mark.parametrize("scene", ["scene_000", "scene_010"])
def test_check_setup_confirms_a_flag_by_its_pole(scene: str, capsys: pytest.CaptureFixture[str]) -> None:
    d = FIXTURES / scene
    code = main(["ctrl", "check-setup", *[str(d / f"{v}.jpg") for v in VIEWS], "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["valid"] is True
    assert any(p["code"] == "flag-by-pole" for p in doc["problems"])


def _legal_spot_poles(name: str, cfg: PoleConfig) -> tuple[list[int], list[int]]:
    """Pictures showing a pole at every legal spot of every colour's flag (with the truth's blocks and
    the other flags), split into the true spots and the others."""
    import cv2

    from vision.history import spots_for_flag

    truth, images, cams = _scene(name)
    greys = [cv2.cvtColor(i, cv2.COLOR_BGR2GRAY).astype(np.float32) for i in images]
    judge = PoleJudge(greys, cams, cfg=cfg, occupied=set(truth.blocks))
    true_views: list[int] = []
    false_views: list[int] = []
    for color, flag in truth.flags.items():
        spots = spots_for_flag(truth, color)
        for sp, ev in zip(spots, judge.evidence(spots), strict=True):
            (true_views if sp == flag else false_views).append(len(ev.views_seen))
    return true_views, false_views


# the lighter-line test as flag-ambiguous uses it (light_only, dark_min_grey 130)
LIGHTER = POLE_TEST


def test_lighter_line_test_sees_far_fewer_poles_where_no_flag_stands() -> None:
    # every third played fixture scene (13), every legal spot of every flag (1281 spots, 38 with the
    # flag): measured, spots without a flag showing a pole in two or more pictures 47 with either
    # polarity -> 14 counting lighter lines only -> 15 with light dark lines too; true spots 25 -> 20 -> 23
    # of 38
    counts: dict[str, list[int]] = {}  # test -> false spots standing, true spots standing, true spots
    for name in sorted(p.name for p in FIXTURES.glob("scene_*"))[::3]:
        if json.loads((FIXTURES / name / "scene.json").read_text())["stage"] == "setup":
            continue
        for key, cfg in (("either", PoleConfig()), ("lighter", PoleConfig(light_only=True)), ("used", LIGHTER)):
            true_views, false_views = _legal_spot_poles(name, cfg)
            c = counts.setdefault(key, [0, 0, 0])
            c[0] += sum(v >= 2 for v in false_views)
            c[1] += sum(v >= 2 for v in true_views)
            c[2] += len(true_views)
    either, lighter, used = counts["either"], counts["lighter"], counts["used"]
    assert either[2] == used[2] >= 30
    assert lighter[0] <= used[0] <= 0.4 * either[0]  # false poles: a third as many
    assert lighter[1] < used[1]  # light poles in front of lighter things: seen again
    assert used[1] >= 0.55 * used[2]  # most true poles still seen


def test_a_dark_line_is_not_a_pole() -> None:
    # fixture scene_004: nothing stands at -6,2,1 -x, but a dark line between lighter areas runs along
    # where its pole would be in two pictures (one of them also shows a lighter line there)
    truth, images, cams = _scene("scene_004")
    spot = FlagSpot.parse("flag -6,2,1 -x")
    assert spot not in truth.flags.values()
    either = pole_evidence(images, cams, spot, occupied=set(truth.blocks))
    used = pole_evidence(images, cams, spot, cfg=LIGHTER, occupied=set(truth.blocks))
    assert either.standing() and not used.standing()
    assert set(used.views_seen) < set(either.views_seen)
