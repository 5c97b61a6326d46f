"""Consistency checks of recorded fixture sets, and the contact sheet.

Needs only OpenCV and the engine (never the renderer)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from boardside.fixtures_render.camera import CameraModel

WIDTH, HEIGHT = 1280, 720


def load_manifests(root: Path) -> list[tuple[Path, dict[str, Any]]]:
    out = []
    for path in sorted(root.glob("*/manifest.json")):
        out.append((path.parent, json.loads(path.read_text())))
    return out


def check_view(set_dir: Path, view: dict[str, Any]) -> list[str]:
    problems = []
    path = set_dir / view["file"]
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        return [f"{path}: does not decode as an image"]
    if img.shape[:2] != (HEIGHT, WIDTH):
        problems.append(f"{path}: size {img.shape[1]}x{img.shape[0]}, expected {WIDTH}x{HEIGHT}")
    cam = CameraModel.from_json(view["camera"])
    if (cam.width, cam.height) != (WIDTH, HEIGHT):
        problems.append(f"{path}: camera image_size {cam.width}x{cam.height} does not match the image")
    r = cam.rotation
    if not np.allclose(r @ r.T, np.eye(3), atol=1e-6) or abs(np.linalg.det(r) - 1) > 1e-6:
        problems.append(f"{path}: camera R is not a rotation")
    return problems


def check_ctrl_scene(set_dir: Path, scene: dict[str, Any]) -> list[str]:
    from boardside.fixtures_render.ctrl_states import problems as rule_problems
    from boardside.fixtures_render.ctrl_states import score_document

    where = f"{set_dir.name}/{scene.get('dir', scene.get('scene'))}"
    out = [f"{where}: rule problem: {p}" for p in rule_problems(scene["state"])]
    expected = score_document(scene["state"])
    stored = scene.get("scores")
    if stored != json.loads(json.dumps(expected)):
        out.append(f"{where}: stored scores {stored!r} differ from the engine's {expected!r}")
    sides = sorted(v.get("side") for v in scene["views"] if not v.get("low"))
    if sides != sorted(["+x", "-x", "+y", "-y", "top"]):
        out.append(f"{where}: views {sides!r}, expected the four sides and the top")
    low = sorted(v.get("side") for v in scene["views"] if v.get("low"))
    if low and low != sorted(["+x", "-x", "+y", "-y"]):
        out.append(f"{where}: low views {low!r}, expected none or one of each of the four sides")
    return out


def check_root(root: Path) -> tuple[list[str], dict[str, int]]:
    problems: list[str] = []
    images = 0
    manifests = load_manifests(root)
    for set_dir, m in manifests:
        listed = set()
        for scene in m["scenes"]:
            for view in scene["views"]:
                listed.add(view["file"])
                problems.extend(check_view(set_dir, view))
                images += 1
            if m.get("kind") == "ctrl":
                problems.extend(check_ctrl_scene(set_dir, scene))
        on_disk = {str(p.relative_to(set_dir)) for p in set_dir.glob("scene_*/*.jpg")}
        for extra in sorted(on_disk - listed):
            problems.append(f"{set_dir.name}/{extra}: image not listed in the manifest")
    return problems, {"sets": len(manifests), "images": images}


def contact_sheet(
    root: Path, output: Path, count: int = 24, tile: tuple[int, int] = (320, 180), columns: int = 4
) -> int:
    """A grid of fixture images with a caption each (scene, side, stage, light), CTRL first."""
    picks: list[tuple[Path, str]] = []
    for set_dir, m in load_manifests(root):
        scenes = m["scenes"]
        if m.get("kind") == "ctrl":
            for k, scene in enumerate(scenes):
                if not scene["views"]:
                    continue
                view = scene["views"][k % len(scene["views"])]
                light = scene.get("lighting", {})
                cap = (
                    f"{scene['dir']} {view['side']} {scene['stage']} {scene['players']}p "
                    f"{light.get('kelvin', '?')}K{' dim' if light.get('dim') else ''}"
                )
                picks.append((set_dir / view["file"], cap))
        else:
            for scene in scenes[:2]:
                for view in scene["views"][:1]:
                    picks.append((set_dir / view["file"], f"{m['set']} {scene['dir']}"))
    ctrl = [p for p in picks if "calib" not in p[1]]
    calib = [p for p in picks if "calib" in p[1]]
    n_calib = min(len(calib), 4)
    step = max(1, len(ctrl) // max(1, count - n_calib))
    chosen = ctrl[::step][: count - n_calib] + calib[:n_calib]
    if not chosen:
        raise FileNotFoundError(str(root / "*/manifest.json"))
    rows = (len(chosen) + columns - 1) // columns
    tw, th = tile
    sheet = np.full((rows * (th + 22), columns * tw, 3), 255, np.uint8)
    for i, (path, cap) in enumerate(chosen):
        img = cv2.imread(str(path))
        if img is None:
            continue
        r, c = divmod(i, columns)
        y, x = r * (th + 22), c * tw
        sheet[y : y + th, x : x + tw] = cv2.resize(img, (tw, th), interpolation=cv2.INTER_AREA)
        cv2.putText(sheet, cap, (x + 4, y + th + 15), cv2.FONT_HERSHEY_SIMPLEX, 0.38, (20, 20, 20), 1, cv2.LINE_AA)
    output.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(output), sheet, [int(cv2.IMWRITE_JPEG_QUALITY), 85])
    return len(chosen)
