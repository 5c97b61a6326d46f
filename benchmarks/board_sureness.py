"""How honest the board reader's sureness is (issue 9, session 13; :mod:`vision.board_sureness`).

Reads every table of the given sets (``--set NAME=DIR`` or ``NAME=DIR:SECOND_DIR`` for a second picture of each
table, as ``benchmarks/board_two_pictures.py`` takes them; SIMULATED renders, camera from the scene truth), one picture
each and, where a second exists, both, and measures, **leaving each set out in turn** (the calibration table counted on
the other sets, the left-out set judged with it):

* per game and picture mode: the wrong cells the reader reports as sure ("silent wrong cells") and the right cells
  it marks unsure, before (the reader's own limit: confidence under 0.3 is ``cell-unsure``) and after (the
  judgement of :func:`vision.board_sureness.judge_cells`);
* reliability: the cells binned by their share right as judged (``p_right``) against the share actually right;
* whole tables (``validate --images``): legal tables with a rule error ("RULE BROKEN"), with only ``check:`` lines,
  and breaking tables with an error / only a check, before (session 12's check) and after.

``--fit`` prints the calibration table counted on every set (one picture each; the ``disagree`` sign on the
two-picture tables) in the form of :data:`vision.board_sureness.CALIBRATION`.  ``--cache FILE`` keeps the readings
(pickle) so that a second run does not read the pictures again.  ``--p-sure`` the limit to judge with.  ``--games``
reads only these games (comma-separated).  Last line: one JSON object.

    python benchmarks/board_sureness.py --set bdev=/tmp/data/bdev --set fix=fixtures/boards:/tmp/fix_view2
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

import vision.board_pipeline as pipeline
from benchmarks.board_two_pictures import _options
from benchmarks.board_vision import reading_label, truth_camera, truth_labels
from calibration.boards import BoardSpec
from calibration.camera import read_image
from vision.board_classify import DECLINED_KINDS
from vision.board_reconstruct import BoardReconstruction, cells_of_problem
from vision.board_setupcheck import CHECK_CODE, check_unsure_readings
from vision.board_sureness import count_table, doubt_signs, judge_cells, unsure_problems
from vision.locate import ImageRejectedError

GAMES = ("bandera", "gridopolis", "quirky")
DECLINED = DECLINED_KINDS  # occluded, unseen, and (Quirky) the robot's own cell (session 15)


def read_set(name: str, first: Path, second: Path | None, games: tuple[str, ...] = GAMES) -> list[dict[str, Any]]:
    """Every table of a set read (one picture, and both where a second exists), with the reconstruction as it was
    before the set-up check (and the check's other arguments) and the truth."""
    captured: dict[str, Any] = {}
    original = check_unsure_readings

    def capture(recon: BoardReconstruction, *a: Any, **k: Any) -> BoardReconstruction:
        captured.update(recon=recon, a=a, k={key: v for key, v in k.items() if key not in ("doubts", "judged")})
        return original(recon, *a, **k)

    setattr(pipeline, "check_unsure_readings", capture)  # noqa: B010 (the pipeline's own name, replaced while reading)
    out: list[dict[str, Any]] = []
    try:
        for game in games:
            for sj in sorted((first / game).glob("scene_*.json")):
                doc = json.loads(sj.read_text())
                img = read_image(sj.with_suffix(".jpg"))
                if float(img.mean()) < 8:  # (a black render of an old renderer bug: left out)
                    continue
                spec = BoardSpec.from_json(doc["board"])
                labels, _ = truth_labels(doc)
                modes = [("one", [(sj.stem, img)])]
                if second is not None and (second / game / sj.name).exists():
                    modes.append(("both", [("first", img), ("second", read_image((second / game / sj.name)
                                                                                  .with_suffix(".jpg")))]))
                for mode, imgs in modes:
                    captured.clear()
                    try:
                        res = pipeline.read_board(imgs, game, spec=spec, camera=truth_camera(doc),
                                                  options=_options(game, doc, spec, first))
                    except ImageRejectedError:
                        continue
                    out.append({"set": name, "mode": mode, "game": game, "scene": sj.stem, "labels": labels,
                                "breaks": bool(doc.get("breaks_rules")), "recon": captured["recon"],
                                "a": captured["a"], "k": captured["k"], "cell_mm": spec.cell_mm,
                                "cams": [r.pose.camera_position for r in res.images],
                                "images": [r.cells for r in res.images]})
    finally:
        setattr(pipeline, "check_unsure_readings", original)  # noqa: B010
    return out


def _per_picture(t: dict[str, Any]) -> list[Any]:
    return t["images"] if len(t["images"]) > 1 else []


def samples(t: dict[str, Any]) -> list[tuple[str, Any, tuple[str, ...], bool]]:
    """(game, cell, its doubt signs, read right) of every read cell of a table."""
    game, cells = t["game"], t["recon"].cells
    signs = doubt_signs(game, cells, t["cams"], t["cell_mm"], _per_picture(t))
    out = []
    for c, s in zip(cells, signs, strict=True):
        got = reading_label(game, c)
        if got not in DECLINED:
            out.append((game, c, s, got == t["labels"].get(tuple(c.key) if game == "gridopolis" else
                                                           tuple(c.key[:2]), "empty")))
    return out


def table_of(tables: list[dict[str, Any]]) -> dict[str, dict[str, tuple[int, int]]]:
    """The calibration table: every sign and class on one-picture reads, ``disagree`` on two-picture reads."""
    one = count_table(x for t in tables if t["mode"] == "one" for x in samples(t))
    two = count_table((g, c, tuple(s for s in signs if s == "disagree"), ok)
                      for t in tables if t["mode"] == "both" for g, c, signs, ok in samples(t))
    for g, entries in two.items():
        one.setdefault(g, {}).update({k: v for k, v in entries.items() if k.endswith(":disagree")})
    return one


def _cost(tables: list[dict[str, Any]], table: dict[str, dict[str, tuple[int, int]]], p_sure: float,
          check_cost: float) -> float:
    """Silent wrong cells + right cells marked unsure x ``check_cost`` of ``tables`` judged with ``table``."""
    cost = 0.0
    for t in tables:
        doubts = judge_cells(t["game"], t["recon"].cells, t["cams"], t["cell_mm"], _per_picture(t), table=table,
                             p_sure=p_sure)
        for c, d in zip(t["recon"].cells, doubts, strict=True):
            if d is None:
                continue
            ok = reading_label(t["game"], c) == t["labels"].get(tuple(c.key) if t["game"] == "gridopolis" else
                                                                tuple(c.key[:2]), "empty")
            cost += (not ok and d.sure) + check_cost * (ok and not d.sure)
    return cost


def _verdict(recon: BoardReconstruction) -> str:
    if any(p.severity == "error" for p in recon.problems):
        return "error"
    return "check" if any(p.code == CHECK_CODE for p in recon.problems) else "none"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", action="append", default=[], help="NAME=DIR or NAME=DIR:SECOND_DIR (repeat)")
    ap.add_argument("--games", default=",".join(GAMES), help="the games to read (comma-separated)")
    ap.add_argument("--cache", help="keep the readings here (pickle), and use them when the file exists")
    ap.add_argument("--fit", action="store_true", help="print the calibration table counted on every set")
    ap.add_argument("--p-sure", type=float, default=None, help="one limit for every game (default: P_SURE)")
    ap.add_argument("--choose-p", default="", help="limits to choose among, per game and left-out set, by the "
                    "fewest silent wrong cells + right cells marked unsure x --check-cost on the other sets")
    ap.add_argument("--check-cost", type=float, default=0.1)
    ap.add_argument("--combine", default="min", help="how a cell's signs combine: min (the weakest) or odds")
    ap.add_argument("--judged", default="count", help="the set-up check's claims the judgement applies to")
    args = ap.parse_args()
    if args.cache and Path(args.cache).exists():
        tables: list[dict[str, Any]] = pickle.loads(Path(args.cache).read_bytes())
    else:
        tables = []
        for spec_arg in args.set:
            name, _, dirs = spec_arg.partition("=")
            first, _, second = dirs.partition(":")
            tables += read_set(name, Path(first), Path(second) if second else None,
                               tuple(g for g in args.games.split(",") if g))
            print(f"read {name}: {sum(t['set'] == name for t in tables)} reads", file=sys.stderr, flush=True)
        if args.cache:
            Path(args.cache).write_bytes(pickle.dumps(tables))
    if args.fit:
        print(json.dumps(table_of(tables), sort_keys=True))
        return
    sets = list(dict.fromkeys(t["set"] for t in tables))
    judged = tuple(x for x in args.judged.split(",") if x)
    cells: dict[str, dict[str, int]] = {}
    bins: dict[str, dict[str, list[int]]] = {}
    whole: dict[str, dict[str, int]] = {}
    choices = [float(v) for v in args.choose_p.split(",") if v]
    chosen: dict[str, dict[str, float]] = {}
    for left in sets + (["(none)"] if choices else []):
        table = table_of([t for t in tables if t["set"] != left])
        p_of: dict[str, float | None] = {g: args.p_sure for g in GAMES}
        if choices:
            others = [t for t in tables if t["set"] != left and t["mode"] == "one"]
            for g in GAMES:
                costs = {p: _cost([t for t in others if t["game"] == g], table, p, args.check_cost) for p in choices}
                p_of[g] = min(choices, key=lambda p: (costs[p], p))
            chosen[left] = {g: float(v) for g, v in p_of.items() if v is not None}
        if left == "(none)":
            break
        for t in (t for t in tables if t["set"] == left):
            game, recon = t["game"], t["recon"]
            doubts = judge_cells(game, recon.cells, t["cams"], t["cell_mm"], _per_picture(t), table=table,
                                 p_sure=p_of[game], combine=args.combine)
            for c, d in zip(recon.cells, doubts, strict=True):
                if d is None:
                    continue
                ok = reading_label(game, c) == t["labels"].get(tuple(c.key) if game == "gridopolis" else
                                                               tuple(c.key[:2]), "empty")
                for key in (f"{left}/{t['mode']}/{game}", f"all/{t['mode']}/{game}"):
                    e = cells.setdefault(key, {"cells": 0, "wrong": 0, "silent_wrong_before": 0,
                                               "silent_wrong_after": 0, "right_unsure_before": 0,
                                               "right_unsure_after": 0})
                    e["cells"] += 1
                    e["wrong"] += not ok
                    e["silent_wrong_before"] += (not ok) and c.confidence >= 0.3
                    e["silent_wrong_after"] += (not ok) and d.sure
                    e["right_unsure_before"] += ok and c.confidence < 0.3
                    e["right_unsure_after"] += ok and not d.sure
                per_bin = bins.setdefault(f"{t['mode']}/{game}", {})
                b = per_bin.setdefault(f"{min(int(d.p_right * 20) / 20, 0.95):.2f}", [0, 0])
                b[0] += ok
                b[1] += 1
            before = check_unsure_readings(recon, *t["a"], **t["k"])
            kept = [(p, at) for p, at in zip(recon.problems, recon.problem_cells, strict=True)
                    if p.code != "cell-unsure"]
            now = replace(recon, problems=[p for p, _ in kept], problem_cells=[list(at) for _, at in kept])
            for p in unsure_problems(game, now.cells, doubts):
                now.problems.append(p)
                now.problem_cells.append(cells_of_problem(p))
            kw: dict[str, Any] = dict(t["k"]) | {"doubts": doubts, "judged": judged}
            after = check_unsure_readings(now, *t["a"], **kw)
            kind = "breaking" if t["breaks"] else "legal"
            for key in (f"{left}/{t['mode']}/{kind}", f"all/{t['mode']}/{kind}"):
                w = whole.setdefault(key, {"tables": 0, "error_before": 0, "error_after": 0, "check_only_before": 0,
                                           "check_only_after": 0})
                w["tables"] += 1
                vb, va = _verdict(before), _verdict(after)
                w["error_before"] += vb == "error"
                w["error_after"] += va == "error"
                w["check_only_before"] += vb == "check"
                w["check_only_after"] += va == "check"
    for key, e in sorted(cells.items()):
        print(f"{key:28s} cells {e['cells']:5d} wrong {e['wrong']:3d}  silent wrong {e['silent_wrong_before']:3d} -> "
              f"{e['silent_wrong_after']:3d}  right marked unsure {e['right_unsure_before']:4d} -> "
              f"{e['right_unsure_after']:4d}")
    for key, w in sorted(whole.items()):
        print(f"{key:28s} tables {w['tables']:3d}  error {w['error_before']:2d} -> {w['error_after']:2d}  "
              f"check only {w['check_only_before']:2d} -> {w['check_only_after']:2d}")
    for key, per in sorted(bins.items()):
        print(key, " ".join(f"{lo}: {r}/{n} = {r / n:.3f}" for lo, (r, n) in sorted(per.items())))
    for left, ps in chosen.items():
        print(f"limits chosen without {left}: {ps}")
    print(json.dumps({"simulated": "rendered photographs", "p_sure": args.p_sure, "chosen": chosen,
                      "judged": list(judged),
                      "cells": cells, "whole_tables": whole, "reliability": bins,
                      "left_out": "the calibration table counted without each set, that set judged"},
                     default=lambda v: int(v) if isinstance(v, np.integer) else str(v)))


if __name__ == "__main__":
    main()
