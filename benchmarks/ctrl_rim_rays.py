"""Rim rays (issue 5, docs/vision.md "Session 17: rim rays"): the whole pipeline read with and without the
colour rays at a face's rim left out of the blocks' cost (``ReconstructConfig.rim_samples`` / ``rim_next_to``).

Each scene is loaded once and read in every mode (``--modes``: ``free5`` / ``free9`` the free reading with five /
nine pictures, ``prev5`` / ``prev9`` one turn back) with every variant (``--variants``: ``off``, or
``<samples><free|any|both>[half]`` such as ``1free``, ``1freehalf``, or ``align``: rim rays counted, but every ray
traced through the very pixel its label was classified at, ``vision.reconstruct.ALIGN_SAMPLES``); one JSON line per
reading (set, scene, mode, variant, the figures against the truth as ``benchmarks/ctrl_vision.py`` counts them,
process CPU seconds) is appended to ``--out``. ``--summary FILE`` prints the table of a finished run (per mode and
variant: readings, state exact, every side exact, winner right, trusted, trusted with a wrong side, silent wrong
sides, wrong sides, wrong cells, median and p90 CPU) and, per mode, the readings whose figures changed against
``off``.

    python benchmarks/ctrl_rim_rays.py --sets /tmp/held13/ctrl /tmp/held14/ctrl --out /tmp/rim.jsonl
    python benchmarks/ctrl_rim_rays.py --summary /tmp/rim.jsonl

Last line of ``--summary``: one JSON object (the table).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import vision.reconstruct as reconstruct_mod
from benchmarks.ctrl_scenes import compare_reading, load_scene, parse_views, scene_dirs
from engine.ctrl.record import turns_back_chain
from vision.pipeline import score_images
from vision.reconstruct import ReconstructConfig

MODES = {"free5": ("five", False), "free9": ("all", False), "prev5": ("five", True), "prev9": ("all", True)}


def variant_config(name: str) -> ReconstructConfig:
    """``off`` (every ray counts) or ``<samples><free|any|both>[half]`` (e.g. ``1free``; ``half``: every other rim
    ray only, ``ReconstructConfig.rim_every_other``)."""
    if name in ("off", "align"):
        return ReconstructConfig()
    half = name.endswith("half")
    core = name[:-4] if half else name
    for kind in ("free", "any", "both"):
        if core.endswith(kind) and core[: -len(kind)].isdigit():
            return ReconstructConfig(rim_samples=int(core[: -len(kind)]), rim_next_to=kind, rim_every_other=half)
    raise ValueError(f"unknown variant {name!r}: expected 'off' or e.g. '1free', '2any', '1freehalf'")


def run(sets: list[str], modes: list[str], variants: list[str], out: Path, scenes: str) -> None:
    cfgs = {v: variant_config(v) for v in variants}
    only = set(scenes.split(",")) if scenes else None
    done: set[tuple[str, str, str, str]] = set()
    if out.exists():  # resumable
        for line in out.read_text().splitlines():
            r = json.loads(line)
            done.add((r["set"], r["scene"], r["mode"], r["variant"]))
    with out.open("a") as fh:
        for root in sets:
            for sd in scene_dirs(root):
                if only and sd.name not in only:
                    continue
                loaded: dict[str, Any] = {}
                for mode in modes:
                    views_name, with_prev = MODES[mode]
                    todo = [v for v in variants if (root, sd.name, mode, v) not in done]
                    if not todo:
                        continue
                    if views_name not in loaded:
                        loaded[views_name] = load_scene(sd, views=parse_views(views_name))
                    sc = loaded[views_name]
                    if views_name == "all" and len(sc.pics) < 9:
                        continue  # no low pictures
                    prev = None
                    if with_prev:
                        chain = turns_back_chain(sc.truth, 1)
                        prev = None if len(chain) == 1 else chain[-1]
                    for v in todo:
                        rec: dict[str, Any] = {"set": root, "scene": sd.name, "mode": mode, "variant": v}
                        c0 = time.process_time()
                        # "align": every ray traced through the pixel its label was classified at (for comparison)
                        reconstruct_mod.ALIGN_SAMPLES = v == "align"
                        try:
                            res = score_images(sc.pics, sc.spec, sc.camera, prev, config=cfgs[v])
                        except Exception as exc:  # a rejected scene counts as wrong, with its reason
                            rec.update(error=f"{type(exc).__name__}: {exc}", cpu=time.process_time() - c0)
                        else:
                            cpu = time.process_time() - c0
                            cmp = compare_reading(res.state, sc.truth, res.uncertain_sides)
                            rec.update(state_exact=cmp.state_exact, sides_exact=cmp.sides_exact,
                                       winner=cmp.winner_right, trusted=bool(res.trusted),
                                       wrong_sides=len(cmp.wrong_sides), silent_sides=len(cmp.silent_sides),
                                       wrong_cells=len(cmp.wrong_cells), flags_wrong=len(cmp.flags_wrong),
                                       cells=[",".join(map(str, c)) for c in cmp.wrong_cells], cpu=round(cpu, 4))
                        reconstruct_mod.ALIGN_SAMPLES = False
                        fh.write(json.dumps(rec) + "\n")
                        fh.flush()


def summary(path: Path) -> dict[str, Any]:
    recs = [json.loads(line) for line in path.read_text().splitlines()]
    by: dict[tuple[str, str], dict[tuple[str, str], dict[str, Any]]] = defaultdict(dict)
    for r in recs:
        by[(r["mode"], r["variant"])][(r["set"], r["scene"])] = r
    table: dict[str, Any] = {}
    for (mode, variant), rs in sorted(by.items()):
        base = by.get((mode, "off"), {})
        keys = sorted(k for k in rs if k in base) if variant != "off" else sorted(rs)  # the same readings
        got = [rs[k] for k in keys]
        ok = [r for r in got if "error" not in r]
        n = len(got)
        row = {"n": n, "rejected": n - len(ok),
               "state_exact": sum(r["state_exact"] for r in ok), "sides_exact": sum(r["sides_exact"] for r in ok),
               "winner": sum(r["winner"] for r in ok), "trusted": sum(r["trusted"] for r in ok),
               "trusted_wrong": sum(1 for r in ok if r["trusted"] and not r["sides_exact"]),
               "silent_sides": sum(r["silent_sides"] for r in ok), "wrong_sides": sum(r["wrong_sides"] for r in ok),
               "wrong_cells": sum(r["wrong_cells"] for r in ok),
               "cpu_median": round(statistics.median(r["cpu"] for r in got), 3) if got else None,
               "cpu_p90": round(sorted(r["cpu"] for r in got)[int(0.9 * (n - 1))], 3) if got else None}
        table[f"{mode}/{variant}"] = row
        print(f"{mode:6} {variant:6} " + " ".join(f"{k}={v}" for k, v in row.items()))
        if variant != "off":
            for k in keys:
                a, b = base[k], rs[k]
                diff = [f"{f} {a.get(f)}->{b.get(f)}" for f in ("state_exact", "sides_exact", "trusted",
                                                              "wrong_sides", "wrong_cells", "silent_sides")
                        if a.get(f) != b.get(f)]
                if diff:
                    print(f"    {Path(k[0]).parent.name}/{k[1]}: " + ", ".join(diff))
    return table


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", nargs="*", default=[], help="CTRL scene folders (each holding scene_NNN)")
    ap.add_argument("--modes", default="free5,free9,prev5", help=f"comma-separated, of {sorted(MODES)}")
    ap.add_argument("--variants", default="off,1free,1any", help="comma-separated: off, or e.g. 1free, 2any")
    ap.add_argument("--scenes", default="", help="only these scene names (comma-separated)")
    ap.add_argument("--out", help="append one JSON line per reading here (resumes a partial run)")
    ap.add_argument("--summary", help="print the table of a finished run")
    args = ap.parse_args()
    if args.summary:
        print(json.dumps(summary(Path(args.summary))))
        return
    modes = [m for m in args.modes.split(",") if m]
    bad = [m for m in modes if m not in MODES]
    if bad or not args.out:
        sys.exit(f"unknown mode(s) {bad!r}" if bad else "--out is needed")
    try:
        variants = [v for v in args.variants.split(",") if v]
        for v in variants:
            variant_config(v)
    except ValueError as exc:
        sys.exit(str(exc))
    run(args.sets, modes, variants, Path(args.out), args.scenes)


if __name__ == "__main__":
    main()
