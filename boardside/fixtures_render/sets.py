"""Recorded fixture sets: plans (from a seed), rendering (resumable), and manifests.

A set lives in ``fixtures/<set>/``: one directory per scene with its JPEG views and a
``truth.json`` per view, and ``manifest.json`` listing every file with its truth.  A set is
fully determined by its name, seed and size; ``boardside fixtures render <set>`` re-renders it
(files already present are skipped, so an interrupted run resumes).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from boardside.fixtures_render.camera import (
    CameraModel,
    distortion_is_monotonic,
    intrinsics,
    look_at,
    make_camera,
    sample_distortion,
)
from boardside.fixtures_render.errors import FixtureSetError
from boardside.fixtures_render.scene import (
    TABLES,
    Lighting,
    PieceLook,
    SceneSpec,
    add_clutter,
    add_ctrl_pieces,
    add_mat,
    add_table,
    apply_lighting,
)
from boardside.fixtures_render.sensor import SensorEffects, develop, encode_jpeg

MANIFEST_FORMAT = 1
WIDTH, HEIGHT = 1280, 720
#: The five views a player takes, and their file stems (no leading "+"/"-" in file names).
SIDES: dict[str, str] = {"+x": "px", "-x": "mx", "+y": "py", "-y": "my", "top": "top"}
SIDE_AZIMUTH = {"+x": 0.0, "+y": 90.0, "-x": 180.0, "-y": 270.0}
#: Extra pictures (``render_set(..., low_views=True)``): each side again from low down, straight at it
#: (elevation 12-20 deg), as ``ctrl score-images`` advises for blocks the five pictures leave undecided.
LOW_VIEWS: dict[str, str] = {"+x low": "px_low", "-x low": "mx_low", "+y low": "py_low", "-y low": "my_low"}
LOW_ELEVATION_DEG = (12.0, 20.0)


@dataclass(frozen=True)
class RenderSettings:
    spp: int = 6
    supersample: float = 0.75
    denoise: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "spp": self.spp,
            "supersample": self.supersample,
            "denoise": self.denoise,
            "renderer": "mitsuba3 llvm_ad_rgb path tracer + OIDN",
        }


@dataclass(frozen=True)
class SetDef:
    name: str
    kind: str  # "ctrl" | "calibration"
    seed: int
    count: int
    device: str | None = None  # calibration sets: "webcam" | "phone"


SETS: dict[str, SetDef] = {
    "ctrl": SetDef("ctrl", "ctrl", 20261121, 40),
    "calib_webcam": SetDef("calib_webcam", "calibration", 7001, 16, "webcam"),
    "calib_phone": SetDef("calib_phone", "calibration", 7002, 16, "phone"),
}


# ----------------------------------------------------------------------------- devices and poses


@dataclass(frozen=True)
class Device:
    """A virtual camera: a webcam or a phone, with fixed intrinsics and lens."""

    kind: str
    hfov_deg: float
    K: tuple[tuple[float, ...], ...]
    dist: tuple[float, float, float, float, float]

    @staticmethod
    def sample(rng: np.random.Generator, kind: str | None = None) -> Device:
        kind = kind or ("webcam" if rng.random() < 0.5 else "phone")
        for _ in range(100):
            if kind == "webcam":
                hfov = float(rng.uniform(60, 90))
                pp = (float(rng.normal(0, 8)), float(rng.normal(0, 6)))
                k = intrinsics(WIDTH, HEIGHT, hfov, pp, aspect=float(rng.uniform(0.998, 1.002)))
                dist = sample_distortion(rng, hfov)
            else:
                hfov = float(rng.uniform(55, 75))
                pp = (float(rng.normal(0, 4)), float(rng.normal(0, 4)))
                k = intrinsics(WIDTH, HEIGHT, hfov, pp)
                d = sample_distortion(rng, hfov)
                dist = (d[0] * 0.5, d[1] * 0.5, d[2] * 0.5, d[3] * 0.5, 0.0)
            if distortion_is_monotonic(k, dist, WIDTH, HEIGHT):
                return Device(kind, hfov, tuple(tuple(float(v) for v in row) for row in k), dist)
        raise RuntimeError("could not sample a sane lens")  # pragma: no cover

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "hfov_deg": round(self.hfov_deg, 2),
            "image_size": [WIDTH, HEIGHT],
            "K": [[round(v, 4) for v in row] for row in self.K],
            "dist": [round(v, 6) for v in self.dist],
        }

    def camera(self, R: npt.NDArray[np.float64], t: npt.NDArray[np.float64]) -> CameraModel:
        return make_camera(WIDTH, HEIGHT, np.asarray(self.K), self.dist, R, t)


def _vfov(device: Device) -> float:
    fy = device.K[1][1]
    return 2 * math.degrees(math.atan((HEIGHT / 2) / fy))


def view_pose(
    device: Device, side: str, target: npt.NDArray[np.float64], radius: float, rng: np.random.Generator
) -> tuple[CameraModel, dict[str, float]]:
    """Where a player holds the camera to show ``side`` (oblique 25-75 deg for the four sides; a low view
    ``"+x low"`` ... 12-20 deg, straight at the side)."""
    if side == "top":
        elev = float(rng.uniform(76, 89))
        az = float(rng.uniform(0, 360))
    elif side in LOW_VIEWS:
        elev = float(rng.uniform(*LOW_ELEVATION_DEG))
        az = SIDE_AZIMUTH[side.split()[0]] + float(rng.uniform(-6, 6))
    else:
        elev = float(rng.uniform(25, 75))
        az = SIDE_AZIMUTH[side] + float(rng.uniform(-18, 18))
    roll = float(np.clip(rng.normal(0, 2.5), -6, 6))
    fill = float(rng.uniform(0.95, 1.35))
    frame_r = max(radius * fill, 85.0 * float(rng.uniform(1.0, 1.25)))
    half = math.radians(min(_vfov(device), device.hfov_deg) / 2)
    dist = frame_r / math.tan(half)
    e, a = math.radians(elev), math.radians(az)
    aim = target + rng.normal(0, radius * 0.12, 3)
    eye = aim + dist * np.array([math.cos(e) * math.cos(a), math.cos(e) * math.sin(a), math.sin(e)])
    R, t = look_at(eye, aim, roll_deg=roll)
    return device.camera(R, t), {
        "elevation_deg": round(elev, 2),
        "azimuth_deg": round(az % 360, 2),
        "roll_deg": round(roll, 2),
        "distance_mm": round(dist, 1),
    }


# ----------------------------------------------------------------------------- the mat


def mat_texture(block_mm: float = 22.0, px_per_mm: float = 5.0) -> tuple[Any, npt.NDArray[np.uint8]]:
    """The project's printed play mat (calibration.mat) as (spec, RGB image with row 0 = +y edge)."""
    from calibration.mat import MatSpec, render_mat

    spec = MatSpec.for_paper("A3", block_mm=block_mm)
    img = render_mat(spec, px_per_mm).image
    return spec, np.ascontiguousarray(img[..., ::-1])


# ----------------------------------------------------------------------------- plans


@dataclass
class ScenePlan:
    set_name: str
    index: int
    seed: int
    stage: str
    players: int
    state: dict[str, Any]
    look: PieceLook
    lighting: Lighting
    table: str
    clutter: int
    curl_mm: float
    sheen: float
    device: Device
    views: list[str]

    @property
    def scene_id(self) -> str:
        return f"scene_{self.index:03d}"


#: Pieces standing on the mat in half of the calibration shots (the usual CTRL set-up; decoration only).
CALIBRATION_DECOR: dict[str, Any] = {
    "game": "ctrl",
    "blocks": [
        {"cell": [1, -1, 0], "color": "blue"},
        {"cell": [3, 1, 0], "color": "pink"},
        {"cell": [1, 3, 0], "color": "yellow"},
        {"cell": [-1, 1, 0], "color": "green"},
    ],
    "flags": [
        {"color": "blue", "cell": [1, -1, 1], "points": "+z"},
        {"color": "pink", "cell": [3, 1, 1], "points": "+z"},
        {"color": "yellow", "cell": [1, 3, 1], "points": "+z"},
        {"color": "green", "cell": [-1, 1, 1], "points": "+z"},
    ],
}

STAGES = ("setup", "mid", "finished", "mid", "finished")
PLAYERS = (4, 3, 2)


def _rng(seed: int, index: int, salt: int = 0) -> np.random.Generator:
    return np.random.default_rng([seed, index, salt])


def plan_scene(sdef: SetDef, index: int, recorded_state: dict[str, Any] | None = None) -> ScenePlan:
    """The scene ``index`` of a set, all drawn from the set's seed.  ``recorded_state`` (the state
    already stored in the set) is reused so a re-render reproduces the recorded truth exactly even
    if the engine's move order changes."""
    rng = _rng(sdef.seed, index)
    if sdef.kind == "ctrl":
        stage = STAGES[index % len(STAGES)]
        players = PLAYERS[(index // len(STAGES)) % len(PLAYERS)] if stage != "setup" else PLAYERS[index % 3]
        if recorded_state is not None:
            state = recorded_state
        else:
            from boardside.fixtures_render.ctrl_states import play_to

            state = play_to(players, stage, random.Random(sdef.seed * 1000 + index))
        views = list(SIDES)
        device = Device.sample(rng)
    else:
        stage, players = "setup", 4
        state = dict(CALIBRATION_DECOR) if index % 2 == 0 else {"game": "ctrl", "blocks": [], "flags": []}
        views = ["charuco"]
        device = Device.sample(_rng(sdef.seed, 0, 99), sdef.device)
    plan = ScenePlan(
        set_name=sdef.name,
        index=index,
        seed=sdef.seed,
        stage=stage,
        players=players,
        state=state,
        look=PieceLook.sample(rng),
        lighting=Lighting.sample(rng, (33.0, 33.0)),
        table=str(rng.choice(TABLES)),
        clutter=int(rng.integers(1, 6)) if rng.random() < 0.45 else 0,
        curl_mm=float(rng.uniform(0.0, 5.0)),
        sheen=float(rng.uniform(0.25, 0.5)),
        device=device,
        views=views,
    )
    return _lights_clear_of_cameras(plan)


#: How close (mm) a light's surface may come to a camera.
LIGHT_CLEARANCE_MM = 50.0


def _lights_clear_of_cameras(plan: ScenePlan) -> ScenePlan:
    """Shrink any light that would enclose or hide a camera of the scene.

    A large soft "sphere" light is an emitter seen from outside only: a camera inside it renders a
    black picture (this happened to ctrl scene_006 view +x).  A "rect" light faces down: a camera
    above it looks at its back.  Only the lights that conflict change, so every other scene keeps
    exactly the plan (and pictures) it had."""
    mat_spec = mat_texture()[0]
    centres = []
    for view in plan.views:
        camera = _view_setup(plan, view, mat_spec)[0]
        R = np.asarray(camera.R, np.float64)
        centres.append(-R.T @ np.asarray(camera.t, np.float64))
    lights = []
    changed = False
    for li in plan.lighting.lights:
        pos = np.asarray(li.position, np.float64)
        if li.kind == "sphere":
            d = min(float(np.linalg.norm(c - pos)) for c in centres)
            if d < li.size + LIGHT_CLEARANCE_MM:
                li = dataclasses.replace(li, size=max(5.0, d - LIGHT_CLEARANCE_MM))
                changed = True
        else:
            for c in centres:
                if c[2] > pos[2] - LIGHT_CLEARANCE_MM:
                    half = max(abs(c[0] - pos[0]), abs(c[1] - pos[1])) - LIGHT_CLEARANCE_MM
                    if half < li.size / 2:
                        li = dataclasses.replace(li, size=max(10.0, 2 * half))
                        changed = True
        lights.append(li)
    if not changed:
        return plan
    return dataclasses.replace(plan, lighting=dataclasses.replace(plan.lighting, lights=tuple(lights)))


def build_spec(plan: ScenePlan, mat: tuple[Any, npt.NDArray[np.uint8]]) -> SceneSpec:
    mat_spec, mat_img = mat
    rng = _rng(plan.seed, plan.index, 1)
    spec = SceneSpec()
    if plan.set_name == "ctrl" or plan.state.get("blocks"):
        add_ctrl_pieces(spec, plan.state, plan.look, mat_spec.block_mm, rng)
    rect = mat_spec.paper_world_rect()
    add_mat(spec, mat_img, rect, plan.curl_mm, plan.sheen)
    add_table(spec, plan.table, rng)
    if plan.clutter:
        add_clutter(spec, rng, rect, plan.clutter)
    apply_lighting(spec, plan.lighting)
    return spec


def battlefield_extent(state: dict[str, Any], s: float) -> tuple[npt.NDArray[np.float64], float]:
    cells = [(0, 0, 0), (2, 2, 2)] + [tuple(b["cell"]) for b in state.get("blocks", [])]
    cells += [tuple(f["cell"]) for f in state.get("flags", [])]
    a = np.asarray(cells, dtype=np.float64)
    lo, hi = a.min(axis=0) * s, (a.max(axis=0) + 1) * s
    centre = (lo + hi) / 2
    return centre, float(np.linalg.norm(hi - lo) / 2)


# ----------------------------------------------------------------------------- truth helpers


def visible_faces(
    result_parts: npt.NDArray[np.int32], normals: npt.NDArray[np.float32], spec: SceneSpec
) -> dict[str, Any]:
    """Per block face: how many pixels of this view show it (from the renderer's label pass)."""
    names = ["+x", "-x", "+y", "-y", "+z", "-z"]
    axis = np.argmax(np.abs(normals), axis=-1)
    sign = np.take_along_axis(normals, axis[..., None], axis=-1)[..., 0] >= 0
    face_idx = axis * 2 + (~sign).astype(np.int64)
    faces: dict[tuple[int, int, int, str], int] = {}
    flags: dict[str, int] = {}
    cube = 0
    valid = result_parts >= 0
    ids, counts = np.unique(result_parts[valid] * 8 + face_idx[valid], return_counts=True)
    for key, n in zip(ids.tolist(), counts.tolist(), strict=True):
        part = spec.parts[key // 8]
        kind = part.label.get("kind")
        if kind == "block":
            x, y, z = part.label["cell"]
            faces[(x, y, z, names[key % 8])] = faces.get((x, y, z, names[key % 8]), 0) + n
        elif kind == "flag":
            c = str(part.label["color"])
            flags[c] = flags.get(c, 0) + n
        elif kind == "cube":
            cube += n
    return {
        "block_faces": [[x, y, z, f, n] for (x, y, z, f), n in sorted(faces.items())],
        "block_faces_format": "[x, y, z, face, visible pixels]",
        "flag_pixels": flags,
        "cube_pixels": cube,
    }


def charuco_truth(
    camera: CameraModel, mat_spec: Any, parts: npt.NDArray[np.int32] | None, spec: SceneSpec
) -> dict[str, Any]:
    """ChArUco corners of the mat that fall inside the image (and on the mat in the label pass)."""
    ids = np.asarray(mat_spec.corner_ids())
    world = np.asarray(mat_spec.corner_world(ids))
    uv = camera.project(world)
    cam_pts = (camera.rotation @ world.T).T + camera.translation
    inside = (
        (uv[:, 0] >= 0) & (uv[:, 0] <= WIDTH - 1) & (uv[:, 1] >= 0) & (uv[:, 1] <= HEIGHT - 1) & (cam_pts[:, 2] > 0)
    )
    mat_index = next((i for i, p in enumerate(spec.parts) if p.name == "mat"), -1)
    out = []
    for i in np.nonzero(inside)[0]:
        u, v = uv[i]
        seen = True
        if parts is not None:
            seen = bool(parts[round(float(v)), round(float(u))] == mat_index)
        out.append([int(ids[i]), round(float(u), 3), round(float(v), 3), seen])
    return {"charuco_corners": out, "charuco_corners_format": "[id, u, v, unoccluded]"}


# ----------------------------------------------------------------------------- rendering


def view_path(root: Path, plan: ScenePlan, view: str) -> tuple[Path, Path]:
    stem = SIDES.get(view) or LOW_VIEWS.get(view) or view
    d = root / plan.set_name / plan.scene_id
    return d / f"{stem}.jpg", d / f"{stem}.json"


def render_view(
    plan: ScenePlan,
    view: str,
    spec: SceneSpec,
    mat: tuple[Any, npt.NDArray[np.uint8]],
    settings: RenderSettings,
    root: Path,
) -> dict[str, Any]:
    """Render one view of a planned scene and write its JPEG and truth JSON (atomically)."""
    from boardside.fixtures_render.mitsuba_backend import render

    mat_spec = mat[0]
    camera, pose, fx, seed, rng = _view_setup(plan, view, mat_spec)
    result = render(
        spec,
        camera,
        spp=settings.spp,
        seed=seed,
        denoise=settings.denoise,
        labels=True,
        supersample=settings.supersample,
    )
    bgr = develop(result.linear, fx, rng)
    jpeg = encode_jpeg(bgr, fx.jpeg_quality)
    jpg_path, json_path = view_path(root, plan, view)
    jpg_path.parent.mkdir(parents=True, exist_ok=True)
    truth: dict[str, Any] = {
        "file": jpg_path.name,
        "side": view if view in SIDES else (view.split()[0] if view in LOW_VIEWS else None),
        **({"low": True} if view in LOW_VIEWS else {}),
        "camera": camera.to_json(),
        "pose": pose,
        "sensor": fx.to_json(),
        "render_seconds": round(result.seconds, 2),
    }
    assert result.part_index is not None and result.normal is not None
    if plan.set_name.startswith("calib"):
        truth.update(charuco_truth(camera, mat_spec, result.part_index, spec))
    else:
        truth["visibility"] = visible_faces(result.part_index, result.normal, spec)
        truth.update(charuco_truth(camera, mat_spec, result.part_index, spec))
    tmp = jpg_path.with_name(f".{jpg_path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(jpeg)
    tmp.replace(jpg_path)
    tmpj = json_path.with_name(f".{json_path.name}.{os.getpid()}.tmp")
    tmpj.write_text(json.dumps(truth, indent=1) + "\n")
    tmpj.replace(json_path)
    return truth


def _view_setup(
    plan: ScenePlan, view: str, mat_spec: Any
) -> tuple[CameraModel, dict[str, float], SensorEffects, int, np.random.Generator]:
    """The camera, pose, sensor effects, render seed and the view's generator (then used for the
    sensor noise) of one view, all from the set's seed."""
    vi = list(SIDES).index(view) if view in SIDES else (20 + list(LOW_VIEWS).index(view) if view in LOW_VIEWS else 0)
    rng = _rng(plan.seed, plan.index, 10 + vi)
    if plan.set_name.startswith("calib"):
        camera, pose = calibration_pose(plan.device, rng, mat_spec)
    else:
        centre, radius = battlefield_extent(plan.state, mat_spec.block_mm)
        camera, pose = view_pose(plan.device, view, centre, radius, rng)
    fx = SensorEffects.sample(rng, plan.lighting.dim)
    return camera, pose, fx, int(rng.integers(1 << 30)), rng


def relabel_set(
    sdef: SetDef, root: Path, settings: RenderSettings, on_view: Callable[[str, float], None] | None = None
) -> int:
    """Recompute the label-pass truth (``visibility``, ``charuco_corners``) of every rendered view
    without touching the images (the label pass is a separate 1-spp render with its own seed)."""
    from boardside.fixtures_render.mitsuba_backend import render_labels

    mat = mat_texture()
    n = 0
    for plan in iter_plans(sdef, root):
        spec: SceneSpec | None = None
        for view in plan.views:
            jpg, js = view_path(root, plan, view)
            if not (jpg.exists() and js.exists()):
                continue
            t0 = time.perf_counter()
            spec = spec or build_spec(plan, mat)
            camera, _pose, _fx, seed, _rng_view = _view_setup(plan, view, mat[0])
            truth = json.loads(js.read_text())
            if truth["camera"] != camera.to_json():
                raise FixtureSetError(f"{js}: recorded camera differs from the set's plan; re-render instead")
            parts, normals = render_labels(spec, camera, seed, settings.supersample)
            if plan.set_name.startswith("calib"):
                truth.update(charuco_truth(camera, mat[0], parts, spec))
            else:
                truth["visibility"] = visible_faces(parts, normals, spec)
                truth.update(charuco_truth(camera, mat[0], parts, spec))
            tmp = js.with_name(f".{js.name}.{os.getpid()}.tmp")
            tmp.write_text(json.dumps(truth, indent=1) + "\n")
            tmp.replace(js)
            n += 1
            if on_view:
                on_view(f"{plan.scene_id}/{jpg.name}", time.perf_counter() - t0)
    write_manifest(sdef, root, settings)
    return n


def calibration_pose(device: Device, rng: np.random.Generator, mat_spec: Any) -> tuple[CameraModel, dict[str, float]]:
    """A calibration shot of the mat: varied tilt, direction, distance and position in the frame."""
    x0, y0, x1, y1 = mat_spec.paper_world_rect()
    centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2, 0.0])
    elev = float(rng.uniform(35, 88))
    az = float(rng.uniform(0, 360))
    roll = float(rng.uniform(-25, 25))
    half = math.radians(min(_vfov(device), device.hfov_deg) / 2)
    dist = float(rng.uniform(150, 230)) / math.tan(half)
    aim = centre + np.array([rng.uniform(-90, 90), rng.uniform(-60, 60), 0.0])
    e, a = math.radians(elev), math.radians(az)
    eye = aim + dist * np.array([math.cos(e) * math.cos(a), math.cos(e) * math.sin(a), math.sin(e)])
    R, t = look_at(eye, aim, roll_deg=roll)
    return device.camera(R, t), {
        "elevation_deg": round(elev, 2),
        "azimuth_deg": round(az, 2),
        "roll_deg": round(roll, 2),
        "distance_mm": round(dist, 1),
    }


def scene_truth(plan: ScenePlan, mat_spec: Any) -> dict[str, Any]:
    from boardside.fixtures_render.ctrl_states import score_document

    doc: dict[str, Any] = {
        "scene": plan.scene_id,
        "stage": plan.stage,
        "players": plan.players,
        "state": plan.state,
        "device": plan.device.to_json(),
        "lighting": plan.lighting.to_json(),
        "table": plan.table,
        "clutter_objects": plan.clutter,
        "mat_curl_mm": round(plan.curl_mm, 2),
        "look": plan.look.to_json(),
        "mat": mat_spec.to_json(),
    }
    if plan.set_name == "ctrl":
        doc["scores"] = score_document(plan.state)
    return doc


def recorded_state(root: Path, sdef: SetDef, index: int) -> dict[str, Any] | None:
    path = root / sdef.name / f"scene_{index:03d}" / "scene.json"
    if path.exists():
        doc = json.loads(path.read_text())
        state = doc.get("state")
        return state if isinstance(state, dict) else None
    return None


def iter_plans(sdef: SetDef, root: Path, only: list[int] | None = None) -> Iterator[ScenePlan]:
    """Plans in the order given by ``only`` (default: every scene in order)."""
    for i in only if only is not None else range(sdef.count):
        if not 0 <= i < sdef.count:
            raise FixtureSetError(f"scene {i!r} is outside set {sdef.name!r} (0..{sdef.count - 1})")
        yield plan_scene(sdef, i, recorded_state(root, sdef, i))


def with_low_views(plan: ScenePlan) -> ScenePlan:
    """``plan`` with the four :data:`LOW_VIEWS` pictured after its own views.  Only the list of views
    changes: the lights were kept clear of the plan's own cameras when it was made (each view's camera,
    sensor and render seed come from its own generator), so the usual pictures render exactly as
    without the low ones."""
    return dataclasses.replace(plan, views=plan.views + [v for v in LOW_VIEWS if v not in plan.views])


def render_set(
    sdef: SetDef,
    root: Path,
    settings: RenderSettings,
    only: list[int] | None = None,
    on_view: Callable[[str, float], None] | None = None,
    force: bool = False,
    low_views: bool = False,
) -> int:
    """Render every missing view of a set (resumable); returns how many views were rendered.  With
    ``low_views`` a CTRL scene also gets the four :data:`LOW_VIEWS` (same scene, light and device; the
    lights are kept clear of the five usual cameras only, so the five pictures stay exactly as rendered
    without them)."""
    mat = mat_texture()
    done = 0
    for plan in iter_plans(sdef, root, only):
        if low_views and sdef.kind == "ctrl":
            plan = with_low_views(plan)
        scene_dir = root / plan.set_name / plan.scene_id
        scene_dir.mkdir(parents=True, exist_ok=True)
        sj = scene_dir / "scene.json"
        if force or not sj.exists():
            tmp = sj.with_name(f".scene.json.{os.getpid()}.tmp")
            tmp.write_text(json.dumps(scene_truth(plan, mat[0]), indent=1) + "\n")
            tmp.replace(sj)
        spec: SceneSpec | None = None
        for view in plan.views:
            jpg, js = view_path(root, plan, view)
            label = f"{plan.scene_id}/{jpg.name}"
            if jpg.exists() and js.exists() and not force:
                if on_view:
                    on_view(label, 0.0)
                continue
            if spec is None:
                spec = build_spec(plan, mat)
            t0 = time.perf_counter()
            render_view(plan, view, spec, mat, settings, root)
            done += 1
            if on_view:
                on_view(label, time.perf_counter() - t0)
    write_manifest(sdef, root, settings)
    return done


def write_manifest(sdef: SetDef, root: Path, settings: RenderSettings) -> dict[str, Any]:
    set_dir = root / sdef.name
    scenes = []
    for scene_dir in sorted(set_dir.glob("scene_*")):
        sj = scene_dir / "scene.json"
        if not sj.exists():
            continue
        scene = json.loads(sj.read_text())
        scene["dir"] = scene_dir.name
        views = []
        for js in sorted(scene_dir.glob("*.json")):
            if js.name == "scene.json":
                continue
            v = json.loads(js.read_text())
            if (scene_dir / v["file"]).exists():
                v["file"] = f"{scene_dir.name}/{v['file']}"
                views.append(v)
        scene["views"] = views
        scenes.append(scene)
    manifest = {
        "format": MANIFEST_FORMAT,
        "set": sdef.name,
        "kind": sdef.kind,
        "seed": sdef.seed,
        "scenes_planned": sdef.count,
        "render": settings.to_json(),
        "rerender": f"python -m boardside fixtures render {sdef.name}",
        "simulated": "rendered photographs (path-traced), not camera captures",
        "frames": "world mm, battlefield frame (docs/coordinates.md); camera pose world->camera (OpenCV)",
        "scenes": scenes,
    }
    (set_dir / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def get_set(name: str) -> SetDef:
    if name not in SETS:
        raise FixtureSetError(f"unknown fixture set {name!r}; known sets: {', '.join(SETS)}")
    return SETS[name]


def decode_ok(path: Path) -> bool:
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    return img is not None and img.shape[:2] == (HEIGHT, WIDTH)
