"""The free reading with ``free_rules.EDGE_MOVES`` off and on, scene by scene (issue 5; docs/vision.md, "Session 17:
blocks one cell off").

Each scene under each root is read twice in one process (switch off, then on; truth intrinsics, no history) and
compared with the truth as ``benchmarks/ctrl_vision.py`` counts it: state exact, every side exact, winner, trusted,
wrong sides, silent wrong sides, wrong cells, the sides reported uncertain, CPU seconds (``time.process_time``), and
the rule's ``edge-moved`` notes.  One JSON line per scene is appended to ``--out``; the last line printed is a
summary (off / on).

    python benchmarks/ctrl_edge_moves_ab.py --views five --out /tmp/ab5.jsonl --fixtures /tmp/held13/ctrl ...

SIMULATED data only (the renderer's truth).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import vision.free_rules as free_rules
import vision.pipeline as pipeline
from benchmarks.ctrl_scenes import compare_reading, load_scene, parse_views, scene_dirs


def read_both(scene_dir: Path, views: tuple[str, ...]) -> dict[str, Any]:
    """One scene read with the rule off and on: the figures of each (``error`` when the pictures are rejected)."""
    sc = load_scene(scene_dir, views=views)
    rec: dict[str, Any] = {"scene": f"{scene_dir.parent.parent.name}/{scene_dir.name}"}
    saved = free_rules.EDGE_MOVES
    try:
        for on in (False, True):
            free_rules.EDGE_MOVES = on
            t0 = time.process_time()
            try:
                res = pipeline.score_images(sc.pics, sc.spec, sc.camera)
            except Exception as exc:  # a rejected picture set: reported, not counted
                rec["error"] = repr(exc)[:200]
                return rec
            cpu = time.process_time() - t0
            cmp = compare_reading(res.state, sc.truth, res.uncertain_sides)
            rec["on" if on else "off"] = {
                "exact": not cmp.wrong_cells and not cmp.flags_wrong, "sides_exact": cmp.sides_exact,
                "winner": cmp.winner_right, "trusted": res.trusted, "wrong_sides": sorted(cmp.wrong_sides),
                "silent": sorted(cmp.silent_sides), "wrong_cells": len(cmp.wrong_cells), "cpu": round(cpu, 3),
                "blocks": sorted(f"{c[0]},{c[1]},{c[2]}:{v}" for c, v in res.state.blocks.items()),
                "moves": [p.message for p in res.problems if p.code == "edge-moved"],
                "uncertain": sorted(res.uncertain_sides)}
    finally:
        free_rules.EDGE_MOVES = saved
    return rec


def summary(recs: list[dict[str, Any]]) -> dict[str, Any]:
    ok = [r for r in recs if "on" in r]
    out: dict[str, Any] = {"readings": len(ok), "rejected": len(recs) - len(ok)}
    for k in ("off", "on"):
        x = [r[k] for r in ok]
        out[k] = {"exact": sum(a["exact"] for a in x), "sides_exact": sum(a["sides_exact"] for a in x),
                  "winner": sum(a["winner"] for a in x), "trusted": sum(a["trusted"] for a in x),
                  "wrong_sides": sum(len(a["wrong_sides"]) for a in x),
                  "trusted_but_sides_wrong": sum(a["trusted"] and bool(a["wrong_sides"]) for a in x),
                  "silent_sides": sum(len(a["silent"]) for a in x), "wrong_cells": sum(a["wrong_cells"] for a in x),
                  "sides_uncertain": sum(len(a["uncertain"]) for a in x),
                  "cpu_median": round(statistics.median(a["cpu"] for a in x), 3) if x else None}
    out["moves"] = sum(len(r["on"]["moves"]) for r in ok)
    out["readings_changed"] = sum(r["on"]["blocks"] != r["off"]["blocks"] for r in ok)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fixtures", nargs="+", required=True)
    ap.add_argument("--views", default="five")
    ap.add_argument("--out", required=True, help="append one JSON line per scene here")
    args = ap.parse_args()
    views = parse_views(args.views)
    recs: list[dict[str, Any]] = []
    with open(args.out, "a") as fh:
        for root in args.fixtures:
            for sc in scene_dirs(root):
                rec = read_both(sc, views)
                recs.append(rec)
                fh.write(json.dumps(rec) + "\n")
                fh.flush()
    print(json.dumps(summary(recs)))


if __name__ == "__main__":
    main()
