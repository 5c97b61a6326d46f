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
from vision.poles import pole_evidence

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
