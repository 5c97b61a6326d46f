"""A CTRL reading with a module-level switch at its default and at another value, scene by scene (issue 5; docs/
vision.md, "Session 19: free reading where every block is seen").

Each scene under each root is read twice in one process (``--switch module:NAME=VALUE``: first as the module has
it, then set to VALUE; truth intrinsics) and compared with the truth as ``benchmarks/ctrl_vision.py`` counts it:
state exact, every side exact, winner, trusted, wrong sides, silent wrong sides, wrong cells, sides reported
uncertain, CPU seconds (``time.process_time``), the blocks read.  Free reading by default; ``--previous``
(with ``--known-turns``) reads one turn back as ``ctrl_vision.py --previous --known-turns``.  Scenes whose
truth blocks every picture read shows a pixel of are marked (``every_block_seen``).  One JSON line per scene
is appended to ``--out``; the last line printed is a summary (off / on; also over the every-block-seen
scenes).

    python benchmarks/ctrl_switch_ab.py --switch vision.free_rules:PALE_KEEP_SEEN_BY_ALL=20 --views five \\
        --out /tmp/ab5.jsonl --fixtures /tmp/held18/ctrl

SIMULATED data only (the renderer's truth).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import vision.pipeline as pipeline
from benchmarks.ctrl_free_split import shown_blocks
from benchmarks.ctrl_scenes import compare_reading, load_scene, parse_views, scene_dirs
from engine.ctrl.record import turns_back_chain


def read_both(scene_dir: Path, views: tuple[str, ...], module: Any, name: str, value: Any,
              previous: bool = False, known_turns: bool = False) -> dict[str, Any]:
    """One scene read with the switch as it is and at ``value``: the figures of each (``error`` when rejected)."""
    sc = load_scene(scene_dir, views=views)
    shown = shown_blocks(scene_dir, views)
    rec: dict[str, Any] = {"scene": f"{scene_dir.parent.parent.name}/{scene_dir.name}",
                           "every_block_seen": all(shown.get(c, 0) > 0 for c in sc.truth.blocks)}
    prev, played = None, None
    if previous:
        chain = turns_back_chain(sc.truth, 1)
        prev, played = chain[-1], len(chain) - 1
        prev = None if prev is sc.truth else prev
    saved = getattr(module, name)
    try:
        for key, val in (("off", saved), ("on", value)):
            setattr(module, name, val)
            t0 = time.process_time()
            try:
                res = pipeline.score_images(sc.pics, sc.spec, sc.camera, prev,
                                            turns_played=played if known_turns and prev else None)
            except Exception as exc:  # a rejected picture set: reported, not counted
                rec["error"] = repr(exc)[:200]
                return rec
            cpu = time.process_time() - t0
            cmp = compare_reading(res.state, sc.truth, res.uncertain_sides)
            rec[key] = {
                "exact": cmp.state_exact, "sides_exact": cmp.sides_exact,
                "winner": cmp.winner_right, "trusted": res.trusted, "wrong_sides": sorted(cmp.wrong_sides),
                "silent": sorted(cmp.silent_sides), "wrong_cells": len(cmp.wrong_cells), "cpu": round(cpu, 3),
                "blocks": sorted(f"{c[0]},{c[1]},{c[2]}:{v}" for c, v in res.state.blocks.items()),
                "flags": sorted(f"{k}:{v}" for k, v in res.state.flags.items()),
                "problems": sorted(f"{p.code}@{p.where}" for p in res.problems),
                "uncertain": sorted(res.uncertain_sides)}
    finally:
        setattr(module, name, saved)
    return rec


def _figures(x: list[dict[str, Any]]) -> dict[str, Any]:
    return {"exact": sum(a["exact"] for a in x), "sides_exact": sum(a["sides_exact"] for a in x),
            "winner": sum(a["winner"] for a in x), "trusted": sum(a["trusted"] for a in x),
            "wrong_sides": sum(len(a["wrong_sides"]) for a in x),
            "trusted_but_sides_wrong": sum(a["trusted"] and bool(a["wrong_sides"]) for a in x),
            "silent_sides": sum(len(a["silent"]) for a in x), "wrong_cells": sum(a["wrong_cells"] for a in x),
            "sides_uncertain": sum(len(a["uncertain"]) for a in x),
            "cpu_median": round(statistics.median(a["cpu"] for a in x), 3) if x else None}


def summary(recs: list[dict[str, Any]]) -> dict[str, Any]:
    ok = [r for r in recs if "on" in r]
    seen = [r for r in ok if r["every_block_seen"]]
    out: dict[str, Any] = {"readings": len(ok), "rejected": len(recs) - len(ok), "every_block_seen": len(seen)}
    for k in ("off", "on"):
        out[k] = _figures([r[k] for r in ok])
        out[k + "_seen"] = _figures([r[k] for r in seen])
    out["readings_changed"] = [r["scene"] for r in ok if any(r["on"][f] != r["off"][f] for f in
                                                             ("blocks", "flags", "problems", "uncertain"))]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fixtures", nargs="+", required=True)
    ap.add_argument("--switch", required=True, help="module:NAME=VALUE (VALUE a Python literal)")
    ap.add_argument("--views", default="five")
    ap.add_argument("--previous", action="store_true", help="read one turn back (the truth's previous state)")
    ap.add_argument("--known-turns", action="store_true", help="with --previous: give the number of turns")
    ap.add_argument("--out", required=True, help="append one JSON line per scene here")
    args = ap.parse_args()
    target, _, literal = args.switch.partition("=")
    mod_name, _, name = target.partition(":")
    module = importlib.import_module(mod_name)
    if not hasattr(module, name):
        sys.exit(f"{mod_name} has no {name}")
    value = ast.literal_eval(literal)
    views = parse_views(args.views)
    recs: list[dict[str, Any]] = []
    with open(args.out, "a") as fh:
        for root in args.fixtures:
            for sc in scene_dirs(root):
                rec = read_both(sc, views, module, name, value, args.previous, args.known_turns)
                recs.append(rec)
                fh.write(json.dumps(rec) + "\n")
                fh.flush()
    print(json.dumps(summary(recs)))


if __name__ == "__main__":
    main()
