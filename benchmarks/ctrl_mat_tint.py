"""Which tests tell a tinted / shadowed mat from a block face?  (issue 5; docs/vision.md, "Session 16: mat tint").

For every rendered scene under each ``--fixtures`` root, the pipeline reads the pictures of ``--views`` without
history (truth intrinsics).  Every mat-level block of the reading (z = 0) with at least ``--min-rays`` first-hit
rays of its colour (``RayScorer.rays_meeting_first``) is put in one of two groups by the renderer's truth:

* ``extra-mat``: the truth has no block there and most of those rays reach the mat first with the truth's blocks
  (traced through the truth state: the colour is on the paper -- a tinted shadow, colour bled from a pile);
* ``true``: the truth has a block of that colour there.

Per block, the median over its rays of each candidate test is compared between the groups (AUC: the chance that
an extra-mat block scores above a true one; 0.5 = no use, 0 or 1 = separates):

* ``grey_std``: the grey level's standard deviation in a 7 x 7 square around the pixel (bare paper is smooth);
* ``same_z0`` / ``same_z1``: the share of the other pictures whose label at the ray's point at height 0 (the mat)
  / 1 (a mat-level block's top) is the ray's colour (a mat point is the same point in every picture);
* ``bg_z0``: the share of other pictures that label that mat point as paper;
* ``lightness``: the pixel's grey level over the median grey level of the picture's paper-labelled pixels.

The readings are made with the rule this measurement led to (``free_rules.DROP_SMOOTH_MAT_BLOCKS``) off unless
``--with-smooth-rule``.  ``--thresholds`` lists how many blocks of each group ``grey_std`` below each value takes.
SIMULATED data only (the renderer's truth).  Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.ctrl_scenes import parse_views, read_with_evidence, scene_dirs
from engine.ctrl.geometry import CENTRAL_CUBE
from vision import free_rules
from vision.free_rules import grey_std_at
from vision.labels import COLOR_LABELS, Label
from vision.reconstruct import ViewEvidence

FEATURES = ("grey_std", "same_z0", "same_z1", "bg_z0", "lightness")


def auc(pos: list[float], neg: list[float]) -> float:
    """Mann-Whitney AUC of ``pos`` against ``neg`` (ties count half); NaN values are left out."""
    p = np.asarray(pos, float)
    n = np.asarray(neg, float)
    p, n = p[~np.isnan(p)], n[~np.isnan(n)]
    if not len(p) or not len(n):
        return float("nan")
    allv = np.concatenate([p, n])
    order = np.argsort(allv, kind="mergesort")
    _, start, count = np.unique(allv[order], return_index=True, return_counts=True)
    ranks = np.empty(len(allv))
    ranks[order] = np.repeat(start + (count + 1) / 2.0, count)
    return float((ranks[: len(p)].sum() - len(p) * (len(p) + 1) / 2) / (len(p) * len(n)))


def _agreement(ev: list[ViewEvidence], vi: int, pixels: np.ndarray, label: int, z: float) -> tuple[np.ndarray, ...]:
    """Per pixel of view ``vi``: the share of the other views whose label at the ray's point at height ``z``
    (block units) is ``label``, and the share that label it paper."""
    cam = ev[vi].camera
    s = cam.block_mm
    d = cam.rays(pixels.astype(np.float64))
    c = cam.center / s
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (z - c[2]) / d[:, 2]
    pts = (c + t[:, None] * d) * s
    ok = d[:, 2] < 0
    seen = np.zeros(len(pixels))
    same = np.zeros(len(pixels))
    paper = np.zeros(len(pixels))
    for j, e in enumerate(ev):
        if j == vi or not ok.any():
            continue
        h, w = e.labels.shape
        p = np.full((len(pixels), 2), -1.0)
        p[ok] = e.camera.project(pts[ok])
        dep = np.full(len(pixels), -1.0)
        dep[ok] = e.camera.depth(pts[ok])
        good = ok & (dep > 0) & (p[:, 0] >= 0) & (p[:, 0] < w) & (p[:, 1] >= 0) & (p[:, 1] < h)
        q = p[good].astype(int)
        lab = e.labels[q[:, 1], q[:, 0]]
        seen[good] += 1
        same[good] += lab == label
        paper[good] += lab == int(Label.BACKGROUND)
    with np.errstate(invalid="ignore", divide="ignore"):
        return same / seen, paper / seen


def analyse(scene_dir: Path, views: tuple[str, ...], min_rays: int) -> list[dict[str, Any]]:
    sc, res, evidence = read_with_evidence(scene_dir, views)
    scorer = res.reconstruction.scorer
    ev: list[ViewEvidence] = evidence
    if scorer is None:
        return []
    greys = [cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) for _, img in res.pictures]  # a rejected picture is left out
    paper = [float(np.median(g[e.labels == int(Label.BACKGROUND)])) for g, e in zip(greys, ev, strict=True)]
    read = dict(res.state.blocks)
    truth = dict(sc.truth.blocks)
    # which rays reach the mat first with the truth's blocks: the truth as a reading, its first hits
    model = scorer._model  # a benchmark looks inside
    vol = scorer._vol
    full = np.zeros(vol.n + 1, bool)
    for c in list(truth) + list(CENTRAL_CUBE):
        i = vol.index1(c)
        if i >= 0:
            full[i] = True
    out = []
    for cell, colour in read.items():
        if cell[2] != 0:
            continue
        views_, pixels = scorer.rays_meeting_first(read, [cell], colour)
        if len(views_) < min_rays:
            continue
        group = "true" if truth.get(cell) == colour else None
        if group is None and cell not in truth:
            # the same rays' rows in the model: find them by view and pixel
            key = {(int(v), int(x), int(y)) for v, (x, y) in zip(views_, pixels, strict=True)}
            rows = [r for r in range(len(model.obs)) if (int(model.view[r]), int(model.pixels[r, 0]),
                                                          int(model.pixels[r, 1])) in key]
            idx = model.idx[rows]
            on_mat = ~full[np.where(idx < 0, vol.n, idx)].any(axis=1)
            group = "extra-mat" if on_mat.mean() > 0.5 else None
        if group is None:
            continue
        feats: dict[str, float] = {}
        label = int(COLOR_LABELS[colour])
        per: dict[str, list[np.ndarray]] = {f: [] for f in FEATURES}
        for v in np.unique(views_):
            px = pixels[views_ == v]
            per["grey_std"].append(grey_std_at(greys[int(v)], px, 7))
            per["lightness"].append(greys[int(v)][px[:, 1], px[:, 0]] / max(paper[int(v)], 1.0))
            same0, bg0 = _agreement(ev, int(v), px, label, 0.0)
            same1, _ = _agreement(ev, int(v), px, label, 1.0)
            per["same_z0"].append(same0)
            per["bg_z0"].append(bg0)
            per["same_z1"].append(same1)
        for f in FEATURES:
            with np.errstate(all="ignore"):
                feats[f] = float(np.nanmedian(np.concatenate(per[f])))
        out.append({"scene": f"{scene_dir.parent.name}/{scene_dir.name}", "cell": list(cell), "colour": colour,
                    "group": group, "rays": len(views_), **{k: round(v, 4) for k, v in feats.items()}})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fixtures", nargs="+", required=True)
    ap.add_argument("--views", default="five")
    ap.add_argument("--min-rays", type=int, default=10)
    ap.add_argument("--thresholds", default="1.5,2,2.5,3,3.5")
    ap.add_argument("--save", help="write every block's row here (JSON)")
    ap.add_argument("--with-smooth-rule", action="store_true", help="read with free_rules.DROP_SMOOTH_MAT_BLOCKS on "
                    "(default off: the tests are measured on the readings the rule would judge)")
    args = ap.parse_args()
    free_rules.DROP_SMOOTH_MAT_BLOCKS = args.with_smooth_rule
    views = parse_views(args.views)
    rows: list[dict[str, Any]] = []
    for root in args.fixtures:
        for sc in scene_dirs(root):
            try:
                got = analyse(sc, views, args.min_rays)
            except Exception as exc:  # a rejected picture set: reported, not counted
                print(json.dumps({"scene": str(sc), "error": repr(exc)}), flush=True)
                continue
            rows += got
            print(json.dumps({"scene": str(sc), "extra_mat": sum(r["group"] == "extra-mat" for r in got),
                              "true": sum(r["group"] == "true" for r in got)}), flush=True)
    if args.save:
        Path(args.save).write_text(json.dumps(rows))
    pos = [r for r in rows if r["group"] == "extra-mat"]
    neg = [r for r in rows if r["group"] == "true"]
    out: dict[str, Any] = {"views": list(views), "extra_mat_blocks": len(pos), "true_blocks": len(neg),
                           "extra_mat_colours": {c: sum(r["colour"] == c for r in pos) for c in COLOR_LABELS}}
    out["auc"] = {f: round(auc([r[f] for r in pos], [r[f] for r in neg]), 3) for f in FEATURES}
    out["grey_std_below"] = {t: [sum(r["grey_std"] < float(t) for r in pos), sum(r["grey_std"] < float(t) for r in neg)]
                             for t in args.thresholds.split(",")}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
