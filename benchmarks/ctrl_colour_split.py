"""Which blocks does a CTRL reading put in the right cell but in the wrong colour, and why?  (issue 5; docs/vision.md,
"Session 16: block colours").

For every rendered scene under ``--fixtures`` the pipeline reads the pictures of ``--views`` (truth intrinsics, as
``benchmarks/ctrl_vision.py``; with ``--previous`` the state one turn back is given).  Every truth block the final
reading holds in the same cell in another colour is listed with:

* the scene's lamp (colour temperature, dim, hard / soft shadows);
* the sampled rays that meet the block first **with the truth's blocks** (``RayScorer.predictions``), split by
  picture and by the block face they enter (``+z`` lit top, side faces), each with its label, its pixel saturation
  and its CIELAB hue after the view's white balance;
* the truth's neighbours of the block (a block of the read colour next to it: colour bleed, shared shadow), and
  whether the cell above is full (top face hidden);
* the rays' verdict: weighted mismatches of the reading with the block in its true colour minus the reading's own
  (``cost_delta`` > 0: the labels prefer the wrong colour).

SIMULATED data only (the renderer's truth).  Last line: one JSON object (the confusion counts).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import vision.pipeline as pipeline_mod
from benchmarks.ctrl_scenes import load_scene, parse_views, scene_dirs
from calibration.colour import linear_to_lab, srgb8_to_linear
from engine.ctrl.record import turns_back
from vision.labels import LABEL_COLORS, Label
from vision.pipeline import score_images
from vision.reconstruct import ReconstructConfig

NEIGHBOURS = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))
FACES = ("+x", "-x", "+y", "-y", "+z", "-z")


def _entry_face(origin: np.ndarray, d: np.ndarray, cell: tuple[int, int, int]) -> str:
    """The face of the unit cube ``cell`` (occupying [c, c + 1] per axis, block units) the ray enters by."""
    lo = np.array(cell, float)
    hi = lo + 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        t1 = (lo - origin) / d
        t2 = (hi - origin) / d
    tn = np.fmin(t1, t2)
    a = int(np.nanargmax(tn))
    return ("-" if d[a] > 0 else "+") + "xyz"[a]


def analyse(scene_dir: Path, views: tuple[str, ...], previous: bool) -> dict[str, Any]:
    scene = load_scene(scene_dir, views=views)
    truth = scene.truth
    doc = json.loads((scene_dir / "scene.json").read_text())
    light = doc.get("lighting", {})
    lamp = {"kelvin": light.get("kelvin"), "dim": light.get("dim"), "shadows": light.get("shadows")}
    captured: list[tuple[np.ndarray, Any]] = []
    orig = getattr(pipeline_mod, "classify")  # noqa: B009 (the pipeline's own import, spied on)

    def spy(img: np.ndarray, model: Any, cfg: Any = None) -> np.ndarray:
        captured.append((img, model))
        return np.asarray(orig(img, model, cfg) if cfg is not None else orig(img, model))

    setattr(pipeline_mod, "classify", spy)  # noqa: B010
    try:
        prev = turns_back(truth, 1) if previous else None
        prev = None if prev is truth else prev
        res = score_images(scene.pics, scene.spec, scene.camera, prev)
    except Exception as exc:
        return {"scene": str(scene_dir), "error": str(exc)[:200]}
    finally:
        setattr(pipeline_mod, "classify", orig)  # noqa: B010
    got = res.state.blocks
    wrong = {c: (t, got[c]) for c, t in truth.blocks.items() if c in got and got[c] != t}
    out: dict[str, Any] = {"scene": str(scene_dir), "lamp": lamp, "blocks": []}
    scorer = res.reconstruction.scorer
    if not wrong or scorer is None:
        return out
    st = ReconstructConfig().pixel_stride  # the pipeline classifies every st-th pixel
    view, pixels, obs = scorer.rays()
    m = scorer._model  # measurement tool
    counted = scorer.counted()
    pred_t = scorer.predictions(truth.blocks)
    _, fcol = m.predict_first(scorer._hyp_of(truth.blocks))
    n = len(obs)
    first_idx = np.where(fcol < m.idx.shape[1], m.idx[np.arange(n), np.minimum(fcol, m.idx.shape[1] - 1)], -1)
    base = scorer.cost(got)
    for cell, (tcol, rcol) in wrong.items():
        i = scorer._index(cell)
        rays = np.flatnonzero((first_idx == i) & (pred_t != int(Label.BACKGROUND)))
        fixed = dict(got)
        fixed[cell] = tcol
        rec: dict[str, Any] = {"cell": list(cell), "truth": tcol, "read": rcol,
                               "cost_delta": scorer.cost(fixed) - base,
                               "above_full": (cell[0], cell[1], cell[2] + 1) in truth.blocks,
                               "neighbours": sorted({truth.blocks[(cell[0] + a, cell[1] + b, cell[2] + c)]
                                                     for a, b, c in NEIGHBOURS
                                                     if (cell[0] + a, cell[1] + b, cell[2] + c) in truth.blocks}),
                               "rays": []}
        for r in rays.tolist():
            v = int(view[r])
            x, y = int(pixels[r][0]), int(pixels[r][1])
            img, model = captured[v]
            px = img[min(y // st, img.shape[0] - 1), min(x // st, img.shape[1] - 1)]
            lab = linear_to_lab(np.clip(model.white_balance.apply(srgb8_to_linear(px[::-1].astype(float))), 0.0, None))
            face = _entry_face(m.origins[:, r], m.dirs[:, r], cell)
            rec["rays"].append({
                "view": v, "face": face, "label": LABEL_COLORS.get(int(obs[r]), Label(int(obs[r])).name.lower()),
                "counted": bool(counted[r]), "L": round(float(lab[0]), 1),
                "C": round(float(math.hypot(lab[1], lab[2])), 1),
                "hue": round(float(math.degrees(math.atan2(lab[2], lab[1]))), 1)})
        out["blocks"].append(rec)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fixtures", nargs="+", required=True)
    ap.add_argument("--views", default="five")
    ap.add_argument("--previous", action="store_true")
    ap.add_argument("--save", default="")
    args = ap.parse_args()
    views = parse_views(args.views)
    rows = []
    pairs: Counter[str] = Counter()
    for root in args.fixtures:
        for d in scene_dirs(root):
            row = analyse(d, views, args.previous)
            rows.append(row)
            for b in row.get("blocks", []):
                pairs[f"{b['truth']}->{b['read']}"] += 1
                labs = Counter(r["label"] for r in b["rays"] if r["counted"])
                print(f"{Path(row['scene']).name} {b['cell']} {b['truth']}->{b['read']} lamp={row['lamp']} "
                      f"delta={b['cost_delta']} above={b['above_full']} nb={b['neighbours']} labels={dict(labs)}",
                      flush=True)
    if args.save:
        Path(args.save).write_text(json.dumps(rows))
    print(json.dumps({"scenes": len(rows), "pairs": dict(pairs)}))


if __name__ == "__main__":
    main()
