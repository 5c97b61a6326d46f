"""The free reading's wrong cells in scenes where every block is seen, by cause (issue 5; docs/vision.md,
"Session 19: free reading where every block is seen").

For every rendered scene under each ``--fixtures`` root whose truth blocks are ALL shown by some pixel of the
pictures read (the renderer's ``visibility.block_faces``, as ``benchmarks/ctrl_vision.py``'s
``scenes_with_a_wholly_hidden_block``), the pipeline reads the pictures of ``--views`` without history (truth
intrinsics) and every wrong cell is put in one cause:

* ``colour``: the reading has a block there in another colour;
* ``flag``: an extra block on a truth flag's cell, or touching it in the flag's colour (a banner read as a block);
* ``one-off``: an extra block with a truth block of its colour that the reading lacks among its 26 neighbours, or
  such a missing block (the pair counted on both sides);
* ``extra-on-own``: an extra block touching (6 neighbours) a truth block of its colour the reading has as well;
* ``extra-mat``: another extra block on the mat (z = 0; colour on the mat);
* ``extra-other``: any other extra block;
* ``missing-behind``: a missing block covered, in some picture, by an extra block of the reading;
* ``missing-faint``: a missing block fewer than 6 sampled rays would meet first with the truth's blocks
  (bevel strips, slivers);
* ``missing-seen``: any other missing block.

Each wrong cell also carries its ray price (``fix``: sampled rays the reading's own scorer explains more with
that cell put right alone: > 0 the pixels prefer the truth), the renderer's pixels, the free rules' notes on that
cell, for an extra block where its colour's rays end with the truth's blocks (``rays_end``: Central Cube, mat, a
block of its colour, another), and the wrong flags of the scene.  ``--save`` writes the rows (JSON).  SIMULATED
data only.  Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.ctrl_free_split import put_right, shown_blocks
from benchmarks.ctrl_missing_split import in_front
from benchmarks.ctrl_scenes import compare_reading, parse_views, read_with_evidence, scene_dirs
from engine.ctrl.geometry import Cell

N26 = [(a, b, c) for a in (-1, 0, 1) for b in (-1, 0, 1) for c in (-1, 0, 1) if (a, b, c) != (0, 0, 0)]
N6 = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]


def _add(c: Cell, d: Cell) -> Cell:
    return (c[0] + d[0], c[1] + d[1], c[2] + d[2])


def classify_cell(c: Cell, truth: dict[Cell, str], got: dict[Cell, str], truth_flags: dict[str, Any],
                  behind_extra: bool, first_rays: int) -> str:
    """The cause of one wrong cell (see the module's docstring)."""
    t, g = truth.get(c), got.get(c)
    if t is not None and g is not None:
        return "colour"
    if g is not None:  # extra
        for col, spot in truth_flags.items():
            if spot.cell == c or (col == g and any(_add(c, d) == spot.cell for d in N6)):
                return "flag"
        if any(truth.get(_add(c, d)) == g and got.get(_add(c, d)) != g for d in N26):
            return "one-off"
        if any(truth.get(_add(c, d)) == g and got.get(_add(c, d)) == g for d in N6):
            return "extra-on-own"
        return "extra-mat" if c[2] == 0 else "extra-other"
    assert t is not None
    if any(got.get(_add(c, d)) == t and truth.get(_add(c, d)) != t for d in N26):
        return "one-off"
    if behind_extra:
        return "missing-behind"
    if first_rays < 6:
        return "missing-faint"
    return "missing-seen"


def rays_end(scorer: Any, got: dict[Cell, str], truth: dict[Cell, str], cell: Cell) -> dict[str, int]:
    """For an extra block of the reading: its weighted sampled rays showing its colour that meet it first, by what
    they meet first with the truth's blocks: ``cube`` (the Central Cube), ``mat`` (nothing), ``same`` (a true block
    of its colour), ``other`` (a block of another colour)."""
    from vision.classify import Label
    from vision.labels import COLOR_LABELS
    m = scorer._model  # measurement tool
    rows, _, _ = scorer._meeting_first(got, [cell], int(COLOR_LABELS[got[cell]]))
    if not len(rows):
        return {}
    hyp = scorer._hyp_of(truth)
    _, first = m.predict_first(hyp, rows)
    out: Counter[str] = Counter()
    for r, f in zip(rows.tolist(), first.tolist(), strict=True):
        if f >= m.idx.shape[1]:
            out["mat"] += 1
            continue
        v = int(hyp[m.idx[r, f]])
        out["cube" if v == int(Label.CUBE) else "same" if v == int(COLOR_LABELS[got[cell]]) else "other"] += 1
    return dict(out)


def analyse(scene_dir: Path, views: tuple[str, ...], all_scenes: bool = False) -> dict[str, Any]:
    shown = shown_blocks(scene_dir, views)
    truth_doc = json.loads((scene_dir / "scene.json").read_text())
    from engine.ctrl import State
    truth = State.from_json(truth_doc["state"])
    hidden = [c for c in truth.blocks if shown.get(c, 0) == 0]
    row: dict[str, Any] = {"scene": str(scene_dir), "hidden_blocks": len(hidden)}
    if hidden and not all_scenes:
        return row
    try:
        _sc, res, evidence = read_with_evidence(scene_dir, views)
    except Exception as exc:  # a rejected scene: reported, not counted
        row["error"] = str(exc)[:200]
        return row
    got = dict(res.state.blocks)
    tb = dict(truth.blocks)
    cmp = compare_reading(res.state, truth, res.uncertain_sides)
    scorer = res.reconstruction.scorer
    base = scorer.cost(got) if scorer is not None else 0
    notes: dict[Cell, list[str]] = {}
    for p in res.problems:
        if p.where.startswith("cell "):
            try:
                cell = tuple(int(v) for v in p.where[5:].split(","))
            except ValueError:
                continue
            notes.setdefault(cell, []).append(p.code)  # type: ignore[arg-type]
    extras = [c for c in got if c not in tb]
    cells = []
    for c in cmp.wrong_cells:
        behind = False
        if c in tb and c not in got:
            behind = any(in_front(evidence, e, c) for e in extras
                         if max(abs(e[i] - c[i]) for i in range(3)) <= 3)
        first = int(scorer.shown_by(tb, [c]).sum()) if scorer is not None and c in tb else 0
        fix = base - scorer.cost(put_right(got, tb, [c])) if scorer is not None else 0
        cause = classify_cell(c, tb, got, dict(truth.flags), behind, first)
        ends = rays_end(scorer, got, tb, c) if scorer is not None and c in got and c not in tb else {}
        cells.append({"cell": list(c), "truth": tb.get(c), "read": got.get(c), "cause": cause, "fix": int(fix),
                      "rays_end": ends,
                      "pixels": int(shown.get(c, 0)), "first_rays": first, "notes": notes.get(c, [])})
    row.update({
        "state_exact": cmp.state_exact, "sides_exact": cmp.sides_exact, "winner": cmp.winner_right,
        "trusted": res.trusted, "wrong_sides": list(cmp.wrong_sides), "silent": list(cmp.silent_sides),
        "flags_wrong": [f"{col}: read {res.state.flags.get(col)} truth {truth.flags.get(col)}"
                        for col in cmp.flags_wrong],
        "extra_flags": sorted(set(res.state.flags) - set(truth.flags)),
        "truth_cost_minus_reading": (scorer.cost(tb) - base) if scorer is not None else None,
        "cells": cells})
    return row


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    seen = [r for r in rows if not r["hidden_blocks"] and "error" not in r]
    causes: Counter[str] = Counter()
    by_fix: Counter[str] = Counter()
    noted: Counter[str] = Counter()
    ends: Counter[str] = Counter()
    for r in seen:
        for c in r["cells"]:
            causes[c["cause"]] += 1
            f = c["fix"]
            by_fix[f"{c['cause']}:{'truth>5' if f > 5 else 'reading>5' if f < -5 else 'tie'}"] += 1
            for n in c["notes"]:
                noted[f"{c['cause']}:{n}"] += 1
            if c.get("rays_end"):
                ends[f"{c['cause']}:{max(c['rays_end'], key=c['rays_end'].get)}"] += 1
    return {
        "scenes": len(rows), "every_block_seen": len(seen) + sum(1 for r in rows if "error" in r
                                                                 and not r["hidden_blocks"]),
        "read": len(seen), "exact": sum(r["state_exact"] for r in seen),
        "inexact_with_only_flags": sum(1 for r in seen if not r["state_exact"] and not r["cells"]),
        "inexact_with_flag_wrong": sum(1 for r in seen if not r["state_exact"] and r["flags_wrong"]),
        "flags_wrong": sum(len(r["flags_wrong"]) for r in seen),
        "wrong_cells": sum(len(r["cells"]) for r in seen), "causes": dict(causes.most_common()),
        "causes_by_rays": dict(sorted(by_fix.items())), "notes": dict(noted.most_common()),
        "extra_colour_rays_mostly_end_on": dict(ends.most_common()),
        "wrong_sides": sum(len(r["wrong_sides"]) for r in seen),
        "truth_costs_more": sum(1 for r in seen if (r["truth_cost_minus_reading"] or 0) > 0),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fixtures", nargs="+", required=True)
    ap.add_argument("--views", default="five")
    ap.add_argument("--save", help="write every scene's row here (JSON)")
    ap.add_argument("--all-scenes", action="store_true", help="read scenes with a wholly hidden block too")
    args = ap.parse_args()
    views = parse_views(args.views)
    rows = []
    for root in args.fixtures:
        for sd in scene_dirs(root):
            row = analyse(sd, views, args.all_scenes)
            rows.append(row)
            if "cells" in row:
                print(json.dumps({k: v for k, v in row.items() if k != "cells"}
                                 | {"causes": dict(Counter(c["cause"] for c in row["cells"]))}), flush=True)
    if args.save:
        Path(args.save).write_text(json.dumps(rows, indent=1))
    print(json.dumps(summary(rows)))


if __name__ == "__main__":
    main()
