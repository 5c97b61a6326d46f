"""Loading a recorded (rendered) CTRL fixture scene for the camera benchmarks: the truth state, the
mat, the five pictures and the camera calibration recorded with them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardside.fixtures_render.camera import truth_calibration
from calibration.camera import CameraCalibration, read_image
from calibration.mat import MatSpec
from engine.ctrl import State

VIEWS = ("px", "mx", "py", "my", "top")


@dataclass
class CtrlScene:
    name: str
    doc: dict[str, Any]  # scene.json
    truth: State
    spec: MatSpec
    pics: list[tuple[str, Any]]  # (name, BGR image) per view present
    camera: CameraCalibration | None  # the recorded intrinsics (None when asked not to use them)


def load_scene(directory: Path, with_camera: bool = True) -> CtrlScene:
    doc = json.loads((directory / "scene.json").read_text())
    pics: list[tuple[str, Any]] = []
    cam = None
    for v in VIEWS:
        if not (directory / f"{v}.jpg").exists():
            continue
        pics.append((f"{directory.name}/{v}.jpg", read_image(directory / f"{v}.jpg")))
        if cam is None and with_camera:
            vt = json.loads((directory / f"{v}.json").read_text())["camera"]
            cam = truth_calibration(vt)
    return CtrlScene(directory.name, doc, State.from_json(doc["state"]), MatSpec.from_json(doc["mat"]), pics, cam)
