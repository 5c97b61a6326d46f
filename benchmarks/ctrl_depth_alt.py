"""Blocks one cell off: a block of the free reading whose move to a neighbouring cell costs few sampled rays
(issue 5; docs/vision.md, "Session 17: blocks one cell off").

Session 16 (``benchmarks/ctrl_extra_front.py``, ``move_back_cost``) found blocks read one cell too near / high
whose true cell behind stays empty, the sampled rays preferring the wrong cell by a few rays only.  Here the
candidates are listed WITHOUT the truth, as a rule would see them: the pipeline's free reading is stopped where the
finer rays are asked (``vision.fine_rays.add_by_fine_rays``: the blocks after the relocation, lowering, pocket and
hidden-cell steps, and the scorer those steps used), and every block of it (start blocks and flag cells aside) is
priced at each cell ``free_rules.depth_alternatives`` offers (one down, or one cell along a picture's viewing
direction; ``RayScorer.move_gains``).  A move costing at most ``--max-cost`` sampled rays is a candidate.  Then,
for each candidate:

* ``fine``: the two placements priced on every pixel where either cell projects (``vision.fine_rays``; positive
  = fine rays the move explains net), and the share of the fine rays it changes;
* ``edge``: which placement's outline the picture's grey gradient follows (``vision.fine_rays.outline_score``:
  mean gradient on the outline pixels only the reading predicts, against those only the moved block predicts,
  over every picture showing either; positive = the moved block's outline is the stronger);
* the truth: ``alt`` (the truth has the colour at the target and not at the read cell), ``read`` (the reverse),
  ``both`` / ``neither``.

SIMULATED data only (the renderer's truth).  Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.ctrl_scenes import load_scene, parse_views, scene_dirs
from engine.ctrl.geometry import Cell
from vision import fine_rays, free_rules


def _name(scene_dir: Path) -> str:
    return f"{scene_dir.parent.parent.name}/{scene_dir.name}"


def analyse(scene_dir: Path, views: tuple[str, ...], max_cost: int) -> tuple[list[dict[str, Any]], float]:
    """Candidate rows of one scene, and the CPU seconds the candidates' pricing took."""
    import vision.pipeline as pipeline

    captured: dict[str, Any] = {}
    original = pipeline.add_by_fine_rays

    def capture(*args: Any, **kw: Any) -> Any:
        out = original(*args, **kw)
        captured["args"] = args
        captured["blocks"] = dict(out[0])
        return out

    sc = load_scene(scene_dir, views=views)
    pipeline.add_by_fine_rays = capture  # type: ignore[assignment]
    try:
        pipeline.score_images(sc.pics, sc.spec, sc.camera)
    finally:
        pipeline.add_by_fine_rays = original
    if "args" not in captured:
        return [], 0.0
    state, scorer, _skip, pictures, models, evidence, cfg = captured["args"]
    blocks: dict[Cell, str] = captured["blocks"]
    truth: dict[Cell, str] = dict(sc.truth.blocks)
    t0 = time.process_time()
    cands = free_rules.depth_alternatives(blocks, scorer, state.starts, [e.camera for e in evidence],
                                          set(state.flags.values()) if state.flags else set(), max_cost)
    judged = fine_rays.judge_alternatives(blocks, cands, pictures, models, evidence, cfg)
    cpu = time.process_time() - t0
    rows: list[dict[str, Any]] = []
    for cand, j in zip(cands, judged, strict=True):
        src, dst, colour = cand.cell, cand.target, blocks[cand.cell]
        at_src, at_dst = truth.get(src) == colour, truth.get(dst) == colour
        group = "alt" if at_dst and not at_src else "read" if at_src and not at_dst else (
            "both" if at_src else "neither")
        rows.append({"scene": _name(scene_dir), "cell": list(src), "target": list(dst), "colour": colour,
                     "offset": [dst[i] - src[i] for i in range(3)], "cost": cand.cost, "group": group,
                     "fine_gain": j.fine_gain, "fine_share": round(j.fine_share, 3), "fine_changed": j.fine_changed,
                     "fine_add": j.fine_add,
                     "edge": None if j.edge is None else round(j.edge, 3), "edge_views": j.edge_views,
                     "edge_pixels": j.edge_pixels})
    return rows, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fixtures", nargs="+", required=True)
    ap.add_argument("--views", default="five")
    ap.add_argument("--scenes", help="comma-separated scene names to read (default all)")
    ap.add_argument("--max-cost", type=int, default=20, help="sampled rays a move may cost to be a candidate")
    ap.add_argument("--save", help="write every candidate's row here (JSON)")
    args = ap.parse_args()
    views = parse_views(args.views)
    wanted = set(args.scenes.split(",")) if args.scenes else None
    rows: list[dict[str, Any]] = []
    cpus: list[float] = []
    for root in args.fixtures:
        for sc in scene_dirs(root):
            if wanted is not None and sc.name not in wanted:
                continue
            try:
                got, cpu = analyse(sc, views, args.max_cost)
            except Exception as exc:  # a rejected picture set: reported, not counted
                print(json.dumps({"scene": str(sc), "error": repr(exc)}), flush=True)
                continue
            rows += got
            cpus.append(cpu)
            print(json.dumps({"scene": str(sc), "candidates": len(got), "cpu": round(cpu, 3),
                              "groups": dict(Counter(r["group"] for r in got))}), flush=True)
    if args.save:
        Path(args.save).write_text(json.dumps(rows))
    summary: dict[str, Any] = {"views": list(views), "candidates": len(rows),
                               "groups": dict(Counter(r["group"] for r in rows)),
                               "cpu_median": round(float(np.median(cpus)), 3) if cpus else None}
    for g in ("alt", "read"):
        sel = [r for r in rows if r["group"] == g]
        summary[g] = {"fine_gain_q": [float(x) for x in np.quantile([r["fine_gain"] for r in sel], [.1, .5, .9])]
                      if sel else None,
                      "edge_q": [round(float(x), 3) for x in np.quantile(
                          [r["edge"] for r in sel if r["edge"] is not None], [.1, .5, .9])]
                      if any(r["edge"] is not None for r in sel) else None}
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
