"""Would moving a block one cell, priced on finer rays, put free CTRL readings right?  (issue 5; docs/vision.md,
"Session 15: blocks behind the reading's blocks").  Offline measurement, not a rule of the pipeline.

Every scene under each ``--fixtures`` root is read without history (``--views``, truth intrinsics).  On the final
reading, every block (not on its colour's start cell) is priced moved to each empty neighbouring cell (26; at or
above the mat; not another colour's start cell) on the free rules' sampled rays (``RayScorer.move_gains``, the
scorer captured from the pipeline); the moves the sampled rays cannot decide (gain within +-``--max-sampled``, the
relocation step's own ``RELOCATE_MIN_GAIN``) that leave no more blocks unheld or unconnected are priced again on
every ``stride``-th pixel where the two cells project (``vision.fine_rays``).  A move the fine rays favour by at least
``--min-gain`` fine rays net and ``--min-share`` of those it changes would be taken; each is judged against the truth:
``right`` (the block is an extra of the reading and the target holds that colour in the truth), ``half`` (an extra
moved to a cell the truth leaves empty or colours otherwise), ``wrong`` (the block is right where it is).

SIMULATED data only.  Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.ctrl_missing_split import _captured, capturing
from benchmarks.ctrl_scenes import load_scene, parse_views, scene_dirs
from vision.fine_rays import cell_pixels, fine_scorer
from vision.free_rules import _unsupported, relocation_targets
from vision.pipeline import score_images


def analyse(scene_dir: Path, views: tuple[str, ...], max_sampled: int, min_gain: int, min_share: float,
            stride: int) -> dict[str, Any]:
    scene = load_scene(scene_dir, views=views)
    truth = scene.truth.blocks
    _captured.clear()
    try:
        res = score_images(scene.pics, scene.spec, scene.camera, None)
    except Exception as exc:
        return {"scene": str(scene_dir), "error": str(exc)[:200]}
    scorer = _captured.get("scorer")
    if scorer is None:
        return {"scene": str(scene_dir), "moves": []}
    got = dict(res.state.blocks)
    starts = res.state.starts
    start_of = {c: k for k, c in starts.items()}
    scorer.set_base(got)
    unsup = len(_unsupported(got))
    cands = []
    for b, col in sorted(got.items()):
        if start_of.get(b) == col:
            continue
        free = relocation_targets(b, col, got, start_of, scorer)
        if not free:
            continue
        for e, g in zip(free, scorer.move_gains(b, free), strict=True):
            if abs(g) < max_sampled:
                moved = {k: v for k, v in got.items() if k != b}
                moved[e] = col
                if len(_unsupported(moved)) <= unsup:
                    cands.append((b, e, g))
    out = []
    if cands:
        cells = sorted({c for b, e, _ in cands for c in (b, e)})
        evid = _captured["views"]
        pix = [cell_pixels(v, cells, stride) for v in evid]
        fs = fine_scorer(_captured["pictures"], _captured["models"], evid, pix, _captured["cfg"])
        fs.set_base(got)
        _, _, obs = fs.rays()
        before = fs.predictions(got)
        counted = fs.counted()
        by_b: dict[Any, list[Any]] = {}
        for b, e, g in cands:
            by_b.setdefault(b, []).append((e, g))
        for b, lst in by_b.items():
            gains = fs.move_gains(b, [e for e, _ in lst])
            for (e, g), fg in zip(lst, gains, strict=True):
                if fg < min_gain:
                    continue
                moved = {k: v for k, v in got.items() if k != b}
                moved[e] = got[b]
                after = fs.predictions(moved)
                ch = (before != after) & counted
                share = (int(np.count_nonzero((after == obs) & ch)) - int(np.count_nonzero((before == obs) & ch))) \
                    / max(1, int(np.count_nonzero(ch)))
                col = got[b]
                verdict = ("wrong" if truth.get(b) == col else "right" if truth.get(e) == col else "half")
                out.append({"from": b, "to": e, "colour": col, "sampled": g, "fine": fg, "share": round(share, 3),
                            "taken": share >= min_share, "verdict": verdict})
    return {"scene": str(scene_dir), "candidates": len(cands), "moves": out}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fixtures", nargs="+", required=True)
    ap.add_argument("--views", default="five")
    ap.add_argument("--max-sampled", type=int, default=6)
    ap.add_argument("--min-gain", type=int, default=5, help="fine rays net (at stride 2: a quarter of stride 1's 20)")
    ap.add_argument("--min-share", type=float, default=0.3)
    ap.add_argument("--stride", type=int, default=2)
    ap.add_argument("--save")
    args = ap.parse_args()
    views = parse_views(args.views)
    rows = []
    for root in args.fixtures:
        for sc in scene_dirs(root):
            with capturing():
                row = analyse(sc, views, args.max_sampled, args.min_gain, args.min_share, args.stride)
            rows.append(row)
            print(json.dumps(row, default=list), flush=True)
    if args.save:
        Path(args.save).write_text(json.dumps(rows, default=list))
    taken = Counter(m["verdict"] for r in rows for m in r.get("moves", []) if m["taken"])
    print(json.dumps({"views": list(views), "scenes": len(rows),
                      "candidates": sum(r.get("candidates", 0) for r in rows),
                      "taken": dict(taken)}))


if __name__ == "__main__":
    main()
