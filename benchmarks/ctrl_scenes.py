"""Loading a recorded (rendered) CTRL fixture scene for the camera benchmarks: the truth state, the
mat, the five pictures and the camera calibration recorded with them."""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardside.fixtures_render.camera import truth_calibration
from calibration.camera import CameraCalibration, read_image
from calibration.mat import MatSpec
from engine.ctrl import State
from engine.ctrl.geometry import Cell

VIEWS = ("px", "mx", "py", "my", "top")
#: Extra pictures a scene may hold besides the five: each side again from low down (rendered for
#: measurement with ``boardside fixtures render --low-views``; see docs/vision.md "Session 11 (lead)").
LOW_VIEWS = ("px_low", "mx_low", "py_low", "my_low")


def parse_views(text: str) -> tuple[str, ...]:
    """``--views`` of the CTRL benchmarks: a comma-separated list of picture stems, or ``five`` (the
    default: the five a player takes), ``low`` (the four low ones) or ``all`` (nine)."""
    out: list[str] = []
    for word in (w.strip() for w in text.split(",")):
        if word == "five":
            out += VIEWS
        elif word == "low":
            out += LOW_VIEWS
        elif word == "all":
            out += VIEWS + LOW_VIEWS
        elif word in VIEWS + LOW_VIEWS:
            out.append(word)
        else:
            raise ValueError(f"unknown view {word!r}: expected five, low, all or stems of {VIEWS + LOW_VIEWS}")
    return tuple(dict.fromkeys(out))


@dataclass
class CtrlScene:
    name: str
    doc: dict[str, Any]  # scene.json
    truth: State
    spec: MatSpec
    pics: list[tuple[str, Any]]  # (name, BGR image) per view present
    camera: CameraCalibration | None  # the recorded intrinsics (None when asked not to use them)


def scene_dirs(root: Path | str) -> list[Path]:
    """The recorded scenes under ``root`` (``scene_*`` folders holding a ``scene.json``), in name order."""
    return sorted(p for p in Path(root).glob("scene_*") if (p / "scene.json").exists())


def load_scene(directory: Path, with_camera: bool = True, views: tuple[str, ...] = VIEWS) -> CtrlScene:
    """The scene in ``directory`` with the pictures of ``views`` it holds (missing ones are skipped)."""
    doc = json.loads((directory / "scene.json").read_text())
    pics: list[tuple[str, Any]] = []
    cam = None
    for v in views:
        if not (directory / f"{v}.jpg").exists():
            continue
        pics.append((f"{directory.name}/{v}.jpg", read_image(directory / f"{v}.jpg")))
        if cam is None and with_camera:
            vt = json.loads((directory / f"{v}.json").read_text())["camera"]
            cam = truth_calibration(vt)
    return CtrlScene(directory.name, doc, State.from_json(doc["state"]), MatSpec.from_json(doc["mat"]), pics, cam)


@dataclass(frozen=True)
class Comparison:
    """A reading against the truth, as every CTRL benchmark counts it."""

    wrong_cells: list[Cell]  # sorted: cells whose content (empty or a colour) differs
    wrong_sides: list[str]  # in the sheet's side order: sides whose score row differs
    silent_sides: list[str]  # ... those the reading did not report uncertain
    flags_wrong: list[str]  # the truth's colours whose flag was read elsewhere (or not at all)
    flags_same: bool  # every flag as in the truth, and no other
    winner_right: bool

    @property
    def state_exact(self) -> bool:
        return not self.wrong_cells and self.flags_same

    @property
    def sides_exact(self) -> bool:
        return not self.wrong_sides


def compare_reading(got: State, truth: State, uncertain_sides: Collection[str]) -> Comparison:
    """How the state read (``got``, with the sides it reports uncertain) compares with ``truth``."""
    gs, ts = got.side_scores(), truth.side_scores()
    wrong_sides = [side for side in ts if gs.get(side) != ts[side]]
    return Comparison(
        wrong_cells=sorted(c for c in set(truth.blocks) | set(got.blocks) if truth.blocks.get(c) != got.blocks.get(c)),
        wrong_sides=wrong_sides, silent_sides=[side for side in wrong_sides if side not in uncertain_sides],
        flags_wrong=[c for c in truth.colors if got.flags.get(c) != truth.flags.get(c)],
        flags_same=dict(got.flags) == dict(truth.flags), winner_right=got.winners() == truth.winners())


def read_with_evidence(directory: Path, views: tuple[str, ...] = VIEWS) -> tuple[CtrlScene, Any, list[Any]]:
    """Load a scene and read it freely (``vision.pipeline.score_images``, no previous state), keeping the
    reconstruct stage's per-picture evidence (``ViewEvidence`` list) for benchmarks that look inside the reading:
    (scene, SceneResult, evidence)."""
    import vision.pipeline as pipeline  # (late: loading scenes alone needs no pipeline)

    captured: dict[str, Any] = {}
    original = pipeline.reconstruct

    def capture(evidence: list[Any], cfg: Any) -> Any:
        captured["evidence"] = evidence
        return original(evidence, cfg)

    sc = load_scene(directory, views=views)
    pipeline.reconstruct = capture  # type: ignore[assignment]
    try:
        res = pipeline.score_images(sc.pics, sc.spec, sc.camera)
    finally:
        pipeline.reconstruct = original
    return sc, res, captured.get("evidence", [])
