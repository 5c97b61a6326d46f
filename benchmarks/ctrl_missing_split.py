"""Why does a free CTRL reading lack a truth block: hidden, misplaced, or other?  (issue 5; docs/vision.md,
"Session 15: blocks behind the reading's blocks").

For every rendered scene under each ``--fixtures`` root the pipeline reads the pictures of ``--views`` without
history (truth intrinsics, as ``benchmarks/ctrl_vision.py``).  Every truth block the reading lacks (its cell empty
or another colour in the reading) is put in one kind:

* ``hidden``: the renderer shows no pixel of it in any picture read (``visibility.block_faces``);
* ``pair-adjacent``: the reading has a block of the same colour the truth lacks in one of its 26 neighbours;
* ``pair-ray``: ... or in front of it on a camera's line of sight (the truth cell's centre projects inside that
  block's projection, nearer the camera), not adjacent;
* ``miscoloured``: the reading has a block of another colour there (and no such pair);
* ``other``.

Each missing block is also marked ``front-stopped`` when no weighted sampled ray reaches its cell before the
reading's first full cell (``RayScorer.labels_reaching`` on the reading: every ray through it meets a block of the
reading first).  For each pair the MOVE (the extra block taken away, the truth block added, same colour) is priced
on the reading's own sampled rays (the free rules' scorer, captured from the pipeline) and on the fine rays (every
pixel where the two cells project, ``vision.fine_rays``): ``gain`` = rays explained more with the move.  And
whether the move keeps every block connected and held (``free_rules._unsupported`` does not grow).

SIMULATED data only (the renderer's truth).  Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.ctrl_free_split import shown_blocks
from benchmarks.ctrl_scenes import compare_reading, load_scene, parse_views, scene_dirs
from engine.ctrl.geometry import Cell
from vision import pipeline
from vision.fine_rays import cell_pixels, fine_scorer
from vision.free_rules import _unsupported
from vision.labels import Label
from vision.pipeline import score_images
from vision.reconstruct import RayScorer, ViewEvidence

_captured: dict[str, Any] = {}


@contextmanager
def capturing() -> Iterator[dict[str, Any]]:
    """While open, the free reading's last step before the flags (``pipeline.add_by_fine_rays``) records what
    it is given -- the free rules' scorer, the pictures, colour models and views -- in the yielded dict (cleared
    per reading by the caller); the pipeline's result is the same."""
    orig = getattr(pipeline, "add_by_fine_rays")  # noqa: B009 (not re-exported by the module)

    def capture(state: Any, scorer: Any, skip: Any, pictures: Any, models: Any, views: Any, cfg: Any = None) -> Any:
        _captured.update(scorer=scorer, pictures=pictures, models=models, views=views, cfg=cfg)
        return orig(state, scorer, skip, pictures, models, views, cfg)

    setattr(pipeline, "add_by_fine_rays", capture)  # noqa: B010
    try:
        yield _captured
    finally:
        setattr(pipeline, "add_by_fine_rays", orig)  # noqa: B010


def _hull(view: ViewEvidence, cell: Cell) -> tuple[Any, float] | None:
    cam = view.camera
    s = cam.block_mm
    off = np.array([[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)], np.float64)
    corners = (np.asarray(cell, np.float64)[None, :] + off) * s
    if not np.all(cam.depth(corners) > 0):
        return None
    pc = cam.project(corners)
    centre = (np.asarray(cell, np.float64) + 0.5)[None, :] * s
    return cv2.convexHull(pc.astype(np.float32)), float(cam.depth(centre)[0])


def in_front(views: list[ViewEvidence], front: Cell, behind: Cell) -> bool:
    """Does ``front`` cover ``behind``'s centre in some picture (nearer the camera)?"""
    for v in views:
        a, b = _hull(v, front), _hull(v, behind)
        if a is None or b is None or a[1] >= b[1]:
            continue
        s = v.camera.block_mm
        pc = v.camera.project((np.asarray(behind, np.float64) + 0.5)[None, :] * s)[0]
        if cv2.pointPolygonTest(a[0], (float(pc[0]), float(pc[1])), False) >= 0:
            return True
    return False


def blockers(scorer: RayScorer, got: dict[Cell, str], truth: Any, cell: Cell) -> dict[str, int]:
    """The weighted sampled rays through ``cell`` (on the reading ``got`` as base) by what they meet first before
    it: ``none`` (they reach it), ``true`` (a block the truth has there too), ``extra`` (a block the truth lacks or
    colours otherwise), ``cube``."""
    m = scorer._model  # measurement tool
    i = scorer._index(cell)
    if i < 0:
        return {}
    hyp = scorer._hyp_of(got)
    rows = m.rays_of[i]
    cols = m.cols_of(i)
    keep = m.weight[rows] > 0
    rows, cols = rows[keep], cols[keep]
    _, first = m.predict_first(hyp, rows)
    out: Counter[str] = Counter()
    for r, c, f in zip(rows.tolist(), cols.tolist(), first.tolist(), strict=True):
        if f >= c:
            out["none"] += 1
            continue
        b = scorer._vol.cell(int(m.idx[r, f]))
        out["cube" if b not in got else "true" if truth.get(b) == got[b] else "extra"] += 1
    return dict(out)


def _kind(obs: int, pred: int) -> str:
    free = (int(Label.BACKGROUND), int(Label.CUBE))
    if obs in free and pred in free:
        return "free-free"
    if pred in free:
        return "colour-where-mat"  # the pixel shows a colour where these blocks leave the mat / Cube
    if obs in free:
        return "mat-where-block"  # the pixel shows the mat where these blocks put a block face
    return "colour-swap"


def truth_rays(scorer: RayScorer | None, truth: Any, got: dict[Cell, str], names: list[str]) -> dict[str, int]:
    """The weighted sampled rays (the reconstruct stage's own, every ray) that the truth fails to explain and the
    reading does (``truth-fails:KIND:high|low``), and the reverse (``reading-fails:...``), by kind: ``_kind`` of
    the observed label and the label the failing set of blocks predicts; ``low`` for the four low pictures."""
    if scorer is None:
        return {}
    view, _pix, obs = scorer.rays()
    pt, pg = scorer.predictions(truth), scorer.predictions(got)
    w = scorer.counted()
    low = np.array(["_low" in n for n in names] + [False])[np.minimum(view, len(names))]
    out: Counter[str] = Counter()
    for tag, bad, good in (("truth-fails", pt, pg), ("reading-fails", pg, pt)):
        sel = np.flatnonzero(w & (bad != obs) & (good == obs))
        for i in sel.tolist():
            out[f"{tag}:{_kind(int(obs[i]), int(bad[i]))}:{'low' if low[i] else 'high'}"] += 1
    return dict(out)


def analyse(scene_dir: Path, views: tuple[str, ...]) -> dict[str, Any]:
    scene = load_scene(scene_dir, views=views)
    truth = scene.truth
    _captured.clear()
    try:
        res = score_images(scene.pics, scene.spec, scene.camera, None)
    except Exception as exc:
        return {"scene": str(scene_dir), "error": str(exc)[:200]}
    got = dict(res.state.blocks)
    cmp = compare_reading(res.state, truth, res.uncertain_sides)
    shown = shown_blocks(scene_dir, views)
    scorer = _captured.get("scorer")
    evid: list[ViewEvidence] = list(_captured.get("views", []))
    missing = [c for c, col in truth.blocks.items() if got.get(c) != col]
    extras = [c for c, col in got.items() if truth.blocks.get(c) != col]
    items = []
    cost_truth = cost_got = 0
    if scorer is not None:
        cost_truth, cost_got = scorer.cost(truth.blocks), scorer.cost(got)
        scorer.set_base(got)
    base_unsup = len(_unsupported(got))
    for t in sorted(missing):
        col = truth.blocks[t]
        same = [e for e in extras if got[e] == col and e != t]
        adj = [e for e in same if max(abs(e[i] - t[i]) for i in range(3)) == 1]
        ray = [e for e in same if e not in adj and in_front(evid, e, t)]
        kind = ("hidden" if shown.get(t, 0) == 0 else "pair-adjacent" if adj else "pair-ray" if ray else
                "miscoloured" if t in got else "other")
        item: dict[str, Any] = {"cell": t, "colour": col, "kind": kind, "px": shown.get(t, 0),
                                "front_stopped": bool(scorer is not None and len(scorer.labels_reaching(t)) == 0)}
        if scorer is not None:
            item["blockers"] = blockers(scorer, got, truth.blocks, t)
            without = {k: v for k, v in truth.blocks.items() if k != t}
            item["truth_needs"] = scorer.cost(without) - cost_truth  # > 0: the truth's rays want it
            item["reading_add"] = scorer.cost(got) - scorer.cost({**got, t: col})  # > 0: adding it helps
        moves = []
        for e in adj + ray:
            moved = {k: v for k, v in got.items() if k != e}
            moved[t] = col
            mv: dict[str, Any] = {"from": e, "rule_ok": len(_unsupported(moved)) <= base_unsup,
                                  "extra_shown": shown.get(e, 0), "adjacent": e in adj}
            if scorer is not None:
                mv["sampled_gain"] = scorer.cost(got) - scorer.cost(moved)
                pix = [cell_pixels(v, [t, e], 2) for v in evid]
                fs = fine_scorer(_captured["pictures"], _captured["models"], evid, pix, _captured["cfg"])
                mv["fine_gain"] = fs.cost(got) - fs.cost(moved)
                mv["fine_pixels"] = int(sum(len(p) for p in pix))
                mv["fine_changed"] = int(np.count_nonzero((fs.predictions(got) != fs.predictions(moved))
                                                          & fs.counted()))
            moves.append(mv)
        item["moves"] = moves
        items.append(item)
    rays = truth_rays(res.reconstruction.scorer, truth.blocks, got, [n for n, _ in scene.pics])
    return {"scene": str(scene_dir), "truth_rays": rays,
            "wrong_sides": len(cmp.wrong_sides), "wrong_cells": len(cmp.wrong_cells),
            "missing": items, "extras": len(extras), "cost_truth": cost_truth, "cost_reading": cost_got}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fixtures", nargs="+", required=True)
    ap.add_argument("--views", default="five")
    ap.add_argument("--save", help="write every scene's row here (JSON)")
    args = ap.parse_args()
    views = parse_views(args.views)
    rows = []
    for root in args.fixtures:
        for sc in scene_dirs(root):
            with capturing():
                row = analyse(sc, views)
            rows.append(row)
            print(json.dumps({"scene": row["scene"], "kinds": Counter(m["kind"] for m in row.get("missing", [])),
                              "error": row.get("error")}, default=str), flush=True)
    if args.save:
        Path(args.save).write_text(json.dumps(rows, default=list))
    print(json.dumps({"views": list(views), **summary(rows)}))


def _need(n: int) -> str:
    return "needs>=6" if n >= 6 else "needs1-5" if n > 0 else "indifferent" if n == 0 else "prefers-without"


def _front(b: dict[str, int]) -> str:
    if not b:
        return "no-rays"
    if b.get("none", 0):
        return "reached"
    return "extras-in-front" if b.get("extra", 0) else "only-true-in-front"


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of the split over ``rows`` (``analyse``'s)."""
    ok = [r for r in rows if "error" not in r]
    ms = [m for r in ok for m in r["missing"]]
    moves = [mv for m in ms for mv in m["moves"] if "sampled_gain" in mv]
    rays: Counter[str] = Counter()
    for r in ok:
        rays.update(r.get("truth_rays", {}))
    return {
        "scenes": len(rows), "rejected": len(rows) - len(ok), "missing": len(ms),
        "extras": sum(r["extras"] for r in ok),
        "kinds": dict(Counter(m["kind"] for m in ms)),
        "front_stopped": dict(Counter(m["kind"] for m in ms if m["front_stopped"])),
        # what the rays through the missing cell meet first, and does the truth's own cost need the block
        "front_by_need": dict(Counter(f"{_front(m.get('blockers', {}))}:{_need(m.get('truth_needs', 0))}"
                                      for m in ms)),
        "reading_add>=6": sum(m.get("reading_add", 0) >= 6 for m in ms),
        "truth_cost_vs_reading": dict(Counter("truth-higher" if r["cost_truth"] > r["cost_reading"] else "equal"
                                              if r["cost_truth"] == r["cost_reading"] else "truth-lower"
                                              for r in ok)),
        "truth_minus_reading_cost": sum(r["cost_truth"] - r["cost_reading"] for r in ok),
        "moves": len(moves), "moves_sampled>=6": sum(mv["sampled_gain"] >= 6 for mv in moves),
        "moves_sampled>0": sum(mv["sampled_gain"] > 0 for mv in moves),
        "moves_fine>=20": sum(mv["fine_gain"] >= 20 for mv in moves),
        "moves_unchanged": sum(mv["sampled_gain"] == 0 and mv["fine_changed"] == 0 for mv in moves),
        "truth_rays": dict(sorted(rays.items())),
    }

if __name__ == "__main__":
    main()
