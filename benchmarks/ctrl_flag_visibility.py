"""How much of each misread CTRL flag do the pictures show?  (issue 5; docs/vision.md, "Session 11: flags with
history").

For every rendered scene under ``--fixtures`` the pipeline reads the pictures (truth intrinsics, as
``benchmarks/ctrl_vision.py``; ``--previous`` / ``--turns-back`` as there), and every flag it reads wrong, does not
find, or reports ``flag-ambiguous`` is measured against the renderer's truth: its pole and banner -- the exact
geometry ``boardside/fixtures_render/scene.py:add_flag`` builds, the banner's side drawn again from the render seed
-- are projected into each view with the view's truth camera, with occlusion by the blocks and the Central Cube.
Per flag and view: the banner's and the pole's pixels visible / before occlusion, the visible banner pixels split
by what stands behind them (a block of the flag's own colour -- then the banner adds no colour the blocks do not
explain -- or anything else: "contrast"), and the pipeline's labels at those pixels.  ``--check`` compares the
projection with the renderer's own count of visible flag pixels (``visibility.flag_pixels`` of each view).

SIMULATED data only: the truth geometry exists for renders, not for photographs.  Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2
import numpy as np
import numpy.typing as npt

from benchmarks.ctrl_scenes import load_scene, scene_dirs
from engine.ctrl.geometry import DIRECTIONS
from engine.ctrl.record import turns_back
from vision.labels import COLOR_LABELS, Label

VIEWS = ("px", "mx", "py", "my", "top")
F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
# the renderer's flag (boardside/fixtures_render/scene.py: add_flag), in mm and block units
POLE_RADIUS_MM = 1.1
POLE_INSIDE_MM = 2.0
POLE_LENGTH = 0.93
BANNER_WIDTH, BANNER_HEIGHT, BANNER_THICK_MM = 0.46, 0.40, 1.0
GAP_MM = 0.4  # blocks' gap (the renderer draws 0.25-0.5 mm)
SAMPLE_MM = 0.25  # surface sampling step: about 0.1 px at the renders' scale
MIN_PX = 30  # "shown in a view": at least this many pixels (about two sampled rays at stride 4)


def scene_seed(scene_dir: Path) -> tuple[int, int]:
    """The render seed and scene index of a rendered scene (a set's manifest.json, or a followed game's game.json)."""
    doc = json.loads((scene_dir / "scene.json").read_text())
    index = int(str(doc["scene"]).split("_")[1])
    parent = scene_dir.resolve().parent
    for name in ("manifest.json", "game.json"):
        if (parent / name).exists():
            return int(json.loads((parent / name).read_text())["seed"]), index
    raise FileNotFoundError(f"no manifest.json or game.json beside {scene_dir!r}: the render seed is unknown")


def banner_sides(scene_dir: Path) -> dict[str, tuple[int, int, int]]:
    """Each flag's banner direction, drawn again as ``build_spec`` / ``add_ctrl_pieces`` draw it: one normal(0, 0.08,
    3) per block, then one integer per flag among the directions perpendicular to its pole (not downwards)."""
    seed, index = scene_seed(scene_dir)
    state = json.loads((scene_dir / "scene.json").read_text())["state"]
    rng = np.random.default_rng([seed, index, 1])
    for _ in state.get("blocks", []):
        rng.normal(0, 0.08, 3)
    out: dict[str, tuple[int, int, int]] = {}
    for f in state.get("flags", []):
        n = np.asarray(DIRECTIONS[str(f["points"])], float)
        cands = [np.asarray(v, float) for v in DIRECTIONS.values() if abs(float(np.dot(v, n))) < 0.5]
        if n[2] == 0:
            cands = [c for c in cands if c[2] >= 0] or cands
        b = cands[int(rng.integers(len(cands)))]
        out[str(f["color"])] = (int(b[0]), int(b[1]), int(b[2]))
    return out


def flag_surface(cell: Sequence[int], points: str, side: Sequence[int], s: float) -> tuple[F64, F64]:
    """Points (mm) sampled on the pole's surface and on the banner's two faces."""
    c = np.asarray(cell, float)
    n = np.asarray(DIRECTIONS[points], float)
    b = np.asarray(side, float)
    face = (c - n + 0.5) * s + n * s / 2
    p0, p1 = face - n * POLE_INSIDE_MM, face + n * POLE_LENGTH * s
    u = np.cross(n, b)
    ts = np.arange(0.0, float(np.linalg.norm(p1 - p0)), SAMPLE_MM)
    ang = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    ring = np.cos(ang)[:, None] * u + np.sin(ang)[:, None] * b
    pole = (p0 + n * ts[:, None, None] + POLE_RADIUS_MM * ring[None]).reshape(-1, 3)
    width, height = BANNER_WIDTH * s, BANNER_HEIGHT * s
    centre = face + n * (POLE_LENGTH * s - height / 2 - 0.5) + b * (width / 2 + 1.0)
    t = np.cross(b, n)
    w, h = np.meshgrid(np.arange(-width / 2, width / 2 + 1e-9, SAMPLE_MM),
                       np.arange(-height / 2, height / 2 + 1e-9, SAMPLE_MM))
    grid = w.reshape(-1, 1) * b + h.reshape(-1, 1) * n
    banner = np.concatenate([centre + sgn * BANNER_THICK_MM / 2 * t + grid for sgn in (-1.0, 1.0)])
    return pole, banner


@dataclass
class Boxes:
    lo: F64
    hi: F64
    colours: list[str]  # per box; "cube" for the Central Cube


def boxes_of(state: Mapping[str, Any], s: float) -> Boxes:
    lo, hi, cols = [], [], []
    for blk in state.get("blocks", []):
        c = np.asarray(blk["cell"], float)
        lo.append(c * s + GAP_MM / 2)
        hi.append((c + 1) * s - GAP_MM / 2)
        cols.append(str(blk["color"]))
    lo.append(np.full(3, GAP_MM / 2))
    hi.append(np.full(3, 3 * s - GAP_MM / 2))
    cols.append("cube")
    return Boxes(np.asarray(lo), np.asarray(hi), cols)


def _slabs(origin: F64, pts: F64, boxes: Boxes) -> tuple[F64, F64]:
    d = pts - origin
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / d
        t1 = (boxes.lo[None] - origin) * inv[:, None]
        t2 = (boxes.hi[None] - origin) * inv[:, None]
    return np.nanmax(np.minimum(t1, t2), axis=2), np.nanmin(np.maximum(t1, t2), axis=2)


def hidden(origin: F64, pts: F64, boxes: Boxes) -> npt.NDArray[np.bool_]:
    """Points a box hides from ``origin`` (the segment origin -> point crosses a box before the point)."""
    tmin, tmax = _slabs(origin, pts, boxes)
    return np.asarray(((tmax >= tmin) & (tmin < 1 - 1e-4) & (tmax > 0)).any(axis=1))


def behind(origin: F64, pts: F64, boxes: Boxes) -> I64:
    """Per point: the index of the first box beyond it along the ray from ``origin`` (-1: none, the mat or table)."""
    tmin, tmax = _slabs(origin, pts, boxes)
    hit = (tmax >= tmin) & (tmax > 1.0)
    tt = np.where(hit, np.maximum(tmin, 1.0), np.inf)
    j = np.argmin(tt, axis=1)
    return np.where(np.isfinite(tt[np.arange(len(tt)), j]), j, -1).astype(np.int64)


def project(camera: Mapping[str, Any], pts: F64) -> F64:
    rot = np.asarray(camera["R"], float)
    rvec, _ = cv2.Rodrigues(rot)
    uv, _ = cv2.projectPoints(pts.reshape(-1, 1, 3), rvec, np.asarray(camera["t"], float),
                              np.asarray(camera["K"], float), np.asarray(camera["dist"], float))
    return np.asarray(uv.reshape(-1, 2), float)


def pixels(uv: F64, size: Sequence[int]) -> set[tuple[int, int]]:
    iu = np.floor(uv).astype(np.int64)
    ok = (iu[:, 0] >= 0) & (iu[:, 0] < size[0]) & (iu[:, 1] >= 0) & (iu[:, 1] < size[1])
    return {(int(u), int(v)) for u, v in iu[ok]}


@dataclass
class ViewFlag:
    """One flag in one view: pixel counts, and the visible banner pixels by what stands behind them."""
    banner_all: int
    banner_seen: int
    pole_all: int
    pole_seen: int
    rendered: int  # the renderer's own count of the flag's visible pixels (pole, banner and tip)
    flag_seen: int  # the projection's visible pixels of pole and banner together
    own_behind: set[tuple[int, int]]  # visible banner pixels with a block of the flag's colour behind
    contrast: set[tuple[int, int]]  # the other visible banner pixels (mat, table, cube, other colours behind)


def flag_in_views(scene_dir: Path, state: Mapping[str, Any], colour: str, cell: Sequence[int], points: str,
                  side: Sequence[int]) -> dict[str, ViewFlag]:
    doc = json.loads((scene_dir / "scene.json").read_text())
    s = float(doc["mat"]["block_mm"])
    pole, banner = flag_surface(cell, points, side, s)
    boxes = boxes_of(state, s)
    out: dict[str, ViewFlag] = {}
    for v in VIEWS:
        path = scene_dir / f"{v}.json"
        if not path.exists():
            continue
        vd = json.loads(path.read_text())
        cam = vd["camera"]
        rot, t = np.asarray(cam["R"], float), np.asarray(cam["t"], float)
        origin = -rot.T @ t
        size = cam["image_size"]
        hid_p, hid_b = hidden(origin, pole, boxes), hidden(origin, banner, boxes)
        uv_p, uv_b = project(cam, pole), project(cam, banner)
        seen_b = banner[~hid_b]
        back = behind(origin, seen_b, boxes) if len(seen_b) else np.zeros(0, np.int64)
        own = np.array([k >= 0 and boxes.colours[k] == colour for k in back.tolist()], bool)
        own_px = pixels(uv_b[~hid_b][own], size) if len(seen_b) else set()
        contrast_px = (pixels(uv_b[~hid_b][~own], size) - own_px) if len(seen_b) else set()
        seen_b_px, seen_p_px = pixels(uv_b[~hid_b], size), pixels(uv_p[~hid_p], size)
        out[v] = ViewFlag(len(pixels(uv_b, size)), len(seen_b_px), len(pixels(uv_p, size)), len(seen_p_px),
                          int(vd["visibility"].get("flag_pixels", {}).get(colour, 0)), len(seen_b_px | seen_p_px),
                          own_px, contrast_px)
    return out


def label_name(lab: int, own: int) -> str:
    if lab == own:
        return "own"
    return {int(Label.UNKNOWN): "unknown", int(Label.BACKGROUND): "background", int(Label.CUBE): "cube",
            int(Label.POLE): "pole"}.get(lab, "other colour")


def category(views: Mapping[str, ViewFlag]) -> str:
    """What the pictures show of the banner: nothing (< MIN_PX in every view), only in front of its own colour,
    or against something else in 1 / 2+ views."""
    if max((v.banner_seen for v in views.values()), default=0) < MIN_PX:
        return "not shown"
    contrast = sum(len(v.contrast) >= MIN_PX for v in views.values())
    return "own colour behind only" if contrast == 0 else "contrast in 1 view" if contrast == 1 else \
        "contrast in 2+ views"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fixtures", default=str(Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"))
    ap.add_argument("--scenes", type=int, default=0, help="only the first N scenes (0 = all)")
    ap.add_argument("--previous", action="store_true", help="read with the state some turns back (as ctrl_vision.py)")
    ap.add_argument("--turns-back", default="1", help="with --previous: a number, or 'round'")
    ap.add_argument("--all-flags", action="store_true", help="measure every flag, right ones too (a control)")
    ap.add_argument("--check", action="store_true", help="only compare the projection with the renderer's counts "
                    "(no reading)")
    args = ap.parse_args()
    from vision.pipeline import score_images

    root = Path(args.fixtures)
    scenes = scene_dirs(root)
    if args.scenes:
        scenes = scenes[: args.scenes]
    summary: Counter[str] = Counter()
    labels: Counter[str] = Counter()
    check_err: list[float] = []
    for sd in scenes:
        doc = json.loads((sd / "scene.json").read_text())
        st = doc["state"]
        sides = banner_sides(sd)
        if args.check:
            for f in st.get("flags", []):
                views = flag_in_views(sd, st, str(f["color"]), f["cell"], str(f["points"]), sides[str(f["color"])])
                for vf in views.values():
                    if vf.rendered >= 100:  # the projection's visible flag pixels against the renderer's count
                        check_err.append(vf.flag_seen / vf.rendered - 1)
            continue
        scene = load_scene(sd)
        prev = None
        if args.previous:
            back = len(scene.truth.colors) if args.turns_back == "round" else int(args.turns_back)
            prev = turns_back(scene.truth, back)
            prev = None if prev is scene.truth else prev
        try:
            res = score_images(scene.pics, scene.spec, scene.camera, prev)
        except Exception as exc:
            print(f"{sd.name}: rejected: {exc}", flush=True)
            continue
        names = [n.split("/")[-1].removesuffix(".jpg") for n, _ in scene.pics]
        truth_blocks = {tuple(b["cell"]): b["color"] for b in st["blocks"]}
        blocks_right = {tuple(c): v for c, v in res.state.blocks.items()} == truth_blocks
        for f in st.get("flags", []):
            colour = str(f["color"])
            read = res.state.flags.get(colour)
            right = read is not None and list(read.cell) == list(f["cell"]) and read.points == f["points"]
            amb = any(p.code == "flag-ambiguous" and p.where == f"{colour} flag" for p in res.problems)
            if right and not amb and not args.all_flags:
                continue
            kind = ("right" if not amb else "right, flag-ambiguous") if right else (
                "not found" if read is None else "same cell, other pole" if list(read.cell) == list(f["cell"])
                else "another cell")
            views = flag_in_views(sd, st, colour, f["cell"], str(f["points"]), sides[colour])
            lab = int(COLOR_LABELS[colour])
            labs: Counter[str] = Counter()
            for k, name in enumerate(names):
                if name not in views:
                    continue
                for part, pxs in (("own colour behind", views[name].own_behind), ("contrast", views[name].contrast)):
                    for u, w in pxs:
                        labs[f"{part}: {label_name(int(res.labels[k][w, u]), lab)}"] += 1
            cat = category(views)
            key = f"{kind} | blocks {'right' if blocks_right else 'wrong'} | {cat}"
            summary[key] += 1
            if blocks_right and not right:
                labels.update(labs)
            print(json.dumps({"scene": sd.name, "colour": colour, "kind": kind, "blocks_right": blocks_right,
                              "truth": f"{f['cell']} {f['points']}", "read": str(read) if read else None,
                              "category": cat, "views": {n: [x.banner_seen, x.banner_all, x.pole_seen, x.pole_all,
                                                            len(x.own_behind), len(x.contrast)]
                                                         for n, x in views.items()},
                              "labels": dict(labs)}), flush=True)
    if args.check:
        err = np.asarray(check_err)
        q = {f"p{p}": round(float(np.percentile(err, p)), 3) for p in (10, 50, 90)}
        print(json.dumps({"views_compared": len(err), "relative_error": q}))
        return
    print(json.dumps({"scenes": len(scenes), "previous": args.previous, "turns_back": args.turns_back,
                      "flags_by_kind_and_category": dict(sorted(summary.items())),
                      "wrong_flags_blocks_right_banner_pixel_labels": dict(sorted(labels.items()))}))


if __name__ == "__main__":
    main()
