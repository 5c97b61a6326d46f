"""Regression check for speed work on the CTRL camera pipeline (issue 5): same results, less CPU.

Runs ``vision.pipeline.score_images`` on every scene of fixtures/ctrl (camera intrinsics from each
scene's truth file, as ``benchmarks/ctrl_vision.py`` does) and records per scene what the pipeline
decided -- the reconstruction's blocks, flags, flag scores, confidence, unobserved and ignored cells,
and the final state's blocks, flags and turns -- plus CPU seconds (``time.process_time``) per stage.

    python benchmarks/ctrl_vision_regress.py --save /tmp/base.json            # record a baseline
    python benchmarks/ctrl_vision_regress.py --compare /tmp/base.json         # same outputs?

``--previous`` gives each scene the state one turn back (as ``ctrl_vision.py --previous``) so the
history search (vision/history.py, priced by the reconstruct stage's ray model) is checked too;
``--turns-back round`` a round back, ``--known-turns`` tells the reading how many turns were played (as
``ctrl_vision.py --known-turns`` and followed games do), ``--views all`` reads the nine pictures (as
``ctrl_vision.py``).
Each scene's record also holds how the reading compares with the truth (state exact, sides exact,
trusted, wrong and silently wrong sides), and ``--compare`` prints a line per scene whose figures
changed (e.g. ``trusted True -> False``), so a change's gains and losses can be listed scene by scene.
The stage timings are taken by the pipeline's own clock, which this script points at
``time.process_time`` (CPU seconds of this process) instead of the wall clock.  Last line: one JSON
object (differences and CPU figures).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import types
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

import vision.pipeline as pipeline_mod
import vision.reconstruct as reconstruct_mod
from benchmarks.ctrl_scenes import compare_reading, load_scene, parse_views, scene_dirs
from engine.ctrl import State
from engine.ctrl.record import turns_back_chain
from vision.pipeline import score_images

#: the per-scene figures against the truth (compared and listed apart from the pipeline's outputs)
FIGURES = ("state_exact", "sides_exact", "trusted", "wrong_sides", "silent_sides", "flags_wrong")


def _cpu_clock() -> None:
    """Make the pipeline's stage timings CPU seconds (they read ``time.perf_counter``)."""
    shim = types.SimpleNamespace(perf_counter=time.process_time, process_time=time.process_time,
                                 time=time.time)
    setattr(pipeline_mod, "time", shim)  # noqa: B010 - the pipeline's own clock, swapped on purpose
    setattr(reconstruct_mod, "time", shim)  # noqa: B010


def _cell(c: Any) -> str:
    return ",".join(str(int(v)) for v in c)


def _outputs(res: pipeline_mod.SceneResult) -> dict[str, Any]:
    r = res.reconstruction
    return {
        "recon_blocks": {_cell(c): col for c, col in sorted(r.blocks.items())},
        "recon_flags": {k: str(v) for k, v in sorted(r.flags.items())},
        "flag_scores": {k: float(v) for k, v in sorted(r.flag_scores.items())},
        "confidence": {_cell(c): round(float(v), 9) for c, v in sorted(r.confidence.items())},
        "unobserved": [_cell(c) for c in r.unobserved],
        "ignored": {_cell(c): col for c, col in sorted(r.ignored.items())},
        "first_hit_pixels": {_cell(c): v for c, v in sorted(r.first_hit_pixels.items())},
        "state_blocks": {_cell(c): col for c, col in sorted(res.state.blocks.items())},
        "state_flags": {k: str(v) for k, v in sorted(res.state.flags.items())},
        "turns": list(res.turns),
        "problems": sorted(f"{p.code}|{p.where}|{p.severity}" for p in res.problems),
        # the rest of what the reading says (session 18): every problem's message, the sides and flags in doubt
        "messages": sorted(f"{p.code}|{p.where}|{p.message}" for p in res.problems),
        "uncertain_sides": dict(sorted(res.uncertain_sides.items())),
        "uncertain_flags": list(res.uncertain_flags),
        "uncertain_flag_spots": list(res.uncertain_flag_spots),
    }


def _figures(res: pipeline_mod.SceneResult, truth: State) -> dict[str, Any]:
    """How the reading compares with the truth (as ``benchmarks/ctrl_vision.py`` counts it)."""
    cmp = compare_reading(res.state, truth, res.uncertain_sides)
    return {
        "state_exact": not cmp.wrong_cells and not cmp.flags_wrong, "sides_exact": cmp.sides_exact,
        "trusted": res.trusted, "wrong_sides": sorted(cmp.wrong_sides), "silent_sides": sorted(cmp.silent_sides),
        "flags_wrong": sorted(cmp.flags_wrong),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fixtures", default=str(Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"))
    ap.add_argument("--scenes", type=int, default=0, help="only the first N scenes (0 = all)")
    ap.add_argument("--previous", action="store_true", help="give the state one turn back")
    ap.add_argument("--turns-back", default="1",
                    help="with --previous: how many turns earlier (a number, or 'round': one per colour)")
    ap.add_argument("--known-turns", action="store_true", help="with --previous: tell the reading how many turns "
                    "were played since (as benchmarks/ctrl_vision.py --known-turns)")
    ap.add_argument("--save", help="write the outputs and timings here (JSON)")
    ap.add_argument("--compare", help="compare the outputs with this saved run")
    ap.add_argument("--repeat", type=int, default=1, help="run each scene this many times (min CPU kept)")
    ap.add_argument("--views", default="five", help="pictures read: 'five' (default), 'all' (nine) or stems "
                    "(as benchmarks/ctrl_vision.py)")
    args = ap.parse_args()
    try:
        views = parse_views(args.views)
    except ValueError as exc:
        sys.exit(str(exc))
    _cpu_clock()
    root = Path(args.fixtures)
    scenes = scene_dirs(root)
    if args.scenes:
        scenes = scenes[: args.scenes]
    base = json.loads(Path(args.compare).read_text()) if args.compare else None
    out: dict[str, Any] = {"previous": args.previous, "turns_back": args.turns_back, "views": list(views),
                           "scenes": {}}
    changes: list[str] = []
    diffs: list[str] = []
    cpu_total: list[float] = []
    wall_total: list[float] = []
    stages: dict[str, list[float]] = {}
    for sc in scenes:
        scene = load_scene(sc, views=views)
        truth, spec, pics, cam = scene.truth, scene.spec, scene.pics, scene.camera
        prev = None
        played = 0
        if args.previous:
            back = len(truth.colors) if args.turns_back == "round" else int(args.turns_back)
            chain = turns_back_chain(truth, back)  # as benchmarks/ctrl_vision.py --turns-back does
            prev = None if len(chain) == 1 else chain[-1]
            played = len(chain) - 1
        best_cpu = best_wall = float("inf")
        best_t: dict[str, float] = {}
        rec: dict[str, Any] = {}
        for _ in range(max(1, args.repeat)):
            c0, w0 = time.process_time(), time.perf_counter()
            try:
                res = score_images(pics, spec, cam, prev,
                                   turns_played=played if args.known_turns and prev is not None else None)
            except Exception as exc:
                rec = {"error": f"{type(exc).__name__}: {exc}"}
                break
            cpu, wall = time.process_time() - c0, time.perf_counter() - w0
            rec = _outputs(res)
            rec["figures"] = _figures(res, truth)
            if cpu < best_cpu:
                best_cpu, best_wall, best_t = cpu, wall, dict(res.timings)
        if "error" not in rec:
            rec["cpu_s"] = round(best_cpu, 4)
            rec["wall_s"] = round(best_wall, 4)
            rec["stage_cpu_s"] = {k: round(v, 4) for k, v in best_t.items()}
            cpu_total.append(best_cpu)
            wall_total.append(best_wall)
            for stage, secs in best_t.items():
                stages.setdefault(stage, []).append(secs)
        out["scenes"][sc.name] = rec
        same = ""
        if base is not None:
            b = base["scenes"].get(sc.name, {})
            keys = [k for k in rec if k not in ("cpu_s", "wall_s", "stage_cpu_s", "figures")]
            bad = [k for k in keys if rec.get(k) != b.get(k)]
            same = " same" if not bad else f" DIFFERENT: {bad}"
            if bad:
                diffs.append(f"{sc.name}: {bad}")
            fb, fr = b.get("figures", {}), rec.get("figures", {})
            moved = [f"{k} {fb.get(k)} -> {fr.get(k)}" for k in FIGURES if fb.get(k) != fr.get(k)]
            if moved:
                changes.append(f"{sc.name}: " + "; ".join(moved))
        print(f"{sc.name}: cpu {rec.get('cpu_s')} s wall {rec.get('wall_s')} s{same}", flush=True)
    if args.save:
        Path(args.save).write_text(json.dumps(out, indent=1, sort_keys=True))

    figs = [r["figures"] for r in out["scenes"].values() if "figures" in r]
    n = len(scenes)

    def q(v: list[float], p: float) -> float:
        return round(float(np.percentile(v, p)), 3) if v else float("nan")

    summary = {
        "scenes": len(scenes), "previous": args.previous, "turns_known": bool(args.previous and args.known_turns),
        "turns_back": args.turns_back if args.previous else None,
        "cpu_s_median": q(cpu_total, 50), "cpu_s_p90": q(cpu_total, 90),
        "wall_s_median": q(wall_total, 50),
        "stage_cpu_s_median": {k: round(statistics.median(v), 4) for k, v in sorted(stages.items())},
        "load_avg": [round(x, 2) for x in __import__("os").getloadavg()],
        "compared_with": args.compare, "scenes_different": len(diffs) if base is not None else None,
        "views": list(views), "rejected": n - len(figs),
        "state_exact_share": round(sum(f["state_exact"] for f in figs) / max(1, n), 3),
        "sides_exact_share": round(sum(f["sides_exact"] for f in figs) / max(1, n), 3),
        "trusted_share": round(sum(f["trusted"] for f in figs) / max(1, n), 3),
        "trusted_but_sides_wrong": sum(1 for f in figs if f["trusted"] and f["wrong_sides"]),
        "wrong_sides": sum(len(f["wrong_sides"]) for f in figs),
        "silently_wrong_sides": sum(len(f["silent_sides"]) for f in figs),
    }
    for d in diffs:
        print("DIFF", d)
    for c in changes:
        print("CHANGED", c)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
