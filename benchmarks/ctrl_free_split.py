"""Why is a free CTRL reading's side wrong: could the pictures tell?  (issue 5; docs/vision.md, "Session 12: the
free reading with nine pictures").

For every rendered scene under each ``--fixtures`` root, the pipeline reads the pictures of ``--views`` without
history (truth intrinsics, as ``benchmarks/ctrl_vision.py``) and every wrong side is split into its wrong lines
of sight (a side counts, per line parallel to its normal, the front-most block's colour unless the Central Cube
or a sideways flag comes first: ``engine.ctrl.scoring.face_views``).  Each wrong line whose blocks differ is
judged twice:

* **renderer**: is each block of the truth that the reading lacks or colours otherwise on that line shown by a
  pixel of any picture read (the renderer's ``visibility.block_faces``)?  ``hidden`` when none is;
* **rays**: the reading's own sampled, labelled pixel rays (``Reconstruction.scorer``): put the line's cells
  right in the reading -- do at least ``--min-rays`` weighted rays predict another label (``decidable``), and
  if so, do the labels prefer the truth (``labels-prefer-truth``: the search or a free rule left it wrong) or
  the reading (``labels-prefer-reading``: colour misread, shadow) by more than ``--tie-rays``, or neither
  (``near-tie``: a depth tie, a silhouette edge)?

A wrong side is ``undecidable`` when one of its block lines is not decidable by the rays, ``flag`` when only
flags differ on its lines, else ``decidable`` (split by the labels as above, the worst line).  Wrong cells are
split the same way (``hidden``: a truth block no picture shows a pixel of; ``shown``; ``extra``: the truth cell
is empty).  The usual figures (state exact, sides exact, winner, trusted, wrong and silent sides) are printed
too, per root.  ``--save FILE`` keeps every scene's reading for ``--compare FILE``.

SIMULATED data only (the renderer's truth).  Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.ctrl_scenes import compare_reading, load_scene, parse_views, scene_dirs
from engine.ctrl.geometry import SIDE_VECTORS, Cell
from engine.ctrl.scoring import face_views
from engine.ctrl.state import State
from vision import free_rules
from vision.pipeline import score_images
from vision.reconstruct import RayScorer

Line = tuple[str, tuple[int, int]]


def _line_of(side: str, cell: Cell) -> Line:
    axis = next(i for i in range(3) if SIDE_VECTORS[side][i] != 0)
    rest = tuple(cell[i] for i in range(3) if i != axis)
    return side, (rest[0], rest[1])


def counted_lines(state: State) -> dict[Line, tuple[str, Cell]]:
    """Each side's lines of sight with a counted face: the colour and cell of that face."""
    out: dict[Line, tuple[str, Cell]] = {}
    for fv in face_views(state.blocks, state.flags):
        if fv.status == "counted":
            out[_line_of(fv.side, fv.cell)] = (fv.color, fv.cell)
    return out


def shown_blocks(scene_dir: Path, views: tuple[str, ...]) -> dict[Cell, int]:
    """Per truth block, the renderer's visible pixels over every picture read."""
    seen: Counter[Cell] = Counter()
    for view in views:
        p = scene_dir / f"{view}.json"
        if p.exists():
            for x, y, z, _face, n in json.loads(p.read_text())["visibility"]["block_faces"]:
                seen[(x, y, z)] += int(n)
    return dict(seen)


def put_right(got: Mapping[Cell, str], truth: Mapping[Cell, str], cells: Iterable[Cell]) -> dict[Cell, str]:
    """The reading ``got`` with ``cells`` as in ``truth`` (a block there, or none)."""
    fixed = dict(got)
    for c in cells:
        if c in truth:
            fixed[c] = truth[c]
        else:
            fixed.pop(c, None)
    return fixed


def judge_line(scorer: RayScorer, truth: Mapping[Cell, str], got: Mapping[Cell, str], cells: list[Cell],
               min_rays: int, tie_rays: int) -> str:
    """The rays' verdict on putting ``cells`` right in the reading ``got``."""
    fixed = put_right(got, truth, cells)
    m = scorer._model  # measurement tool: the rays' predictions themselves
    pa, pb = scorer._predict(scorer._hyp_of(got)), scorer._predict(scorer._hyp_of(fixed))
    differ = (pa != pb) & (m.weight > 0)
    if int(differ.sum()) < min_rays:
        return "undecidable"
    ca = int(((pa != m.obs) & differ).sum())
    cb = int(((pb != m.obs) & differ).sum())
    if abs(ca - cb) <= tie_rays:
        return "near-tie"
    return "labels-prefer-truth" if cb < ca else "labels-prefer-reading"


RANK = {"labels-prefer-reading": 0, "near-tie": 1, "labels-prefer-truth": 2}


def analyse(scene_dir: Path, views: tuple[str, ...], min_rays: int, tie_rays: int) -> dict[str, Any]:
    scene = load_scene(scene_dir, views=views)
    truth = scene.truth
    try:
        res = score_images(scene.pics, scene.spec, scene.camera, None)
    except Exception as exc:  # a rejected scene counts as wrong, with its reason
        return {"scene": str(scene_dir), "error": str(exc)[:200]}
    got = res.state
    scorer = res.reconstruction.scorer
    cmp = compare_reading(got, truth, res.uncertain_sides)
    wrong_sides, wrong_cells = cmp.wrong_sides, cmp.wrong_cells
    tl, gl = counted_lines(truth), counted_lines(got)
    shown = shown_blocks(scene_dir, views)
    cell_kind = Counter("extra" if c not in truth.blocks else "shown" if shown.get(c, 0) > 0 else "hidden"
                        for c in wrong_cells)
    sides: dict[str, dict[str, Any]] = {}
    for side in wrong_sides:
        lines = sorted({ln for ln in set(tl) | set(gl)
                        if ln[0] == side and tl.get(ln, ("",))[0] != gl.get(ln, ("",))[0]})
        verdicts, hidden_lines, kinds = [], 0, []
        for ln in lines:
            on = [c for c in wrong_cells if _line_of(side, c) == ln]
            if not on:
                verdicts.append("flag")
                continue
            kind = ("missing" if all(c in truth.blocks and c not in got.blocks for c in on) else
                    "extra" if all(c not in truth.blocks for c in on) else "colour/mixed")
            kinds.append(kind)
            if any(c in truth.blocks and shown.get(c, 0) == 0 for c in on):
                hidden_lines += 1
            verdicts.append("undecidable" if scorer is None else judge_line(scorer, truth.blocks, got.blocks, on,
                                                                                min_rays, tie_rays))
        block = [v for v in verdicts if v != "flag"]
        if not block:
            verdict = "flag"
        elif "undecidable" in block:
            verdict = "undecidable"
        else:
            verdict = min(block, key=lambda v: RANK[v])
        sides[side] = {"verdict": verdict, "lines": len(lines), "line_verdicts": verdicts, "line_kinds": kinds,
                       "renderer_hidden_lines": hidden_lines, "reported": side in res.uncertain_sides}
    return {
        "scene": str(scene_dir), "state_exact": cmp.state_exact,
        "sides_exact": cmp.sides_exact, "winner_right": cmp.winner_right, "trusted": res.trusted,
        "wrong_sides": len(wrong_sides), "silent": len(cmp.silent_sides),
        "wrong_cells": len(wrong_cells), "cell_kinds": dict(cell_kind), "sides": sides,
        "blocks": {",".join(map(str, c)): col for c, col in sorted(got.blocks.items())},
        "flags": {k: str(v) for k, v in sorted(got.flags.items())},
    }


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    ok = [r for r in rows if "error" not in r]
    n = max(1, len(rows))
    side_v: Counter[str] = Counter()
    line_v: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    cells: Counter[str] = Counter()
    hidden_sides = 0
    for r in ok:
        cells.update(r["cell_kinds"])
        for s in r["sides"].values():
            side_v[s["verdict"]] += 1
            line_v.update(s["line_verdicts"])
            hidden_sides += s["renderer_hidden_lines"] > 0
            kinds.update(f"{k}:{v}" for k, v in zip(s["line_kinds"], [v for v in s["line_verdicts"] if v != "flag"],
                                                     strict=True))
    return {
        "scenes": len(rows), "rejected": len(rows) - len(ok),
        "state_exact": round(sum(r["state_exact"] for r in ok) / n, 3),
        "sides_exact": round(sum(r["sides_exact"] for r in ok) / n, 3),
        "winner": round(sum(r["winner_right"] for r in ok) / n, 3),
        "trusted": round(sum(r["trusted"] for r in ok) / n, 3),
        "trusted_side_wrong": sum(1 for r in ok if r["trusted"] and not r["sides_exact"]),
        "wrong_sides": sum(r["wrong_sides"] for r in ok), "silent": sum(r["silent"] for r in ok),
        "wrong_cells": sum(r["wrong_cells"] for r in ok), "wrong_cell_kinds": dict(cells),
        "wrong_sides_by_rays": dict(side_v), "wrong_sides_with_a_renderer_hidden_line": hidden_sides,
        "wrong_lines_by_rays": dict(line_v), "wrong_block_lines_by_kind": dict(sorted(kinds.items())),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fixtures", nargs="+",
                    default=[str(Path(__file__).resolve().parent.parent / "fixtures" / "ctrl")])
    ap.add_argument("--views", default="all", help="as benchmarks/ctrl_vision.py (default: all nine)")
    ap.add_argument("--min-rays", type=int, default=3, help="rays that must change for a line to be decidable")
    ap.add_argument("--tie-rays", type=int, default=10, help="a line whose fix changes the mismatching rays by at "
                    "most this many is a near tie (a block face is some 60-300 sampled rays)")
    ap.add_argument("--off", action="append", default=[], help="switch a rule of vision.free_rules off for the "
                    "run (a module switch such as DROP_GROUND_MAT_BLOCKS), to measure it against the same code")
    ap.add_argument("--save", help="write every scene's row here (JSON)")
    ap.add_argument("--compare", help="list the scenes whose reading differs from this saved run")
    args = ap.parse_args()
    views = parse_views(args.views)
    for name in args.off:
        if not isinstance(getattr(free_rules, name, None), bool):
            sys.exit(f"no switch {name!r} in vision.free_rules")
        setattr(free_rules, name, False)
    per_root: dict[str, list[dict[str, Any]]] = {}
    for root in args.fixtures:
        scenes = scene_dirs(root)
        per_root[root] = rows = []
        for sc in scenes:
            row = analyse(sc, views, args.min_rays, args.tie_rays)
            rows.append(row)
            brief = {k: row.get(k) for k in ("scene", "error", "state_exact", "sides_exact", "trusted", "wrong_sides")}
            brief["sides"] = {s: v["verdict"] for s, v in row.get("sides", {}).items()}
            print(json.dumps(brief), flush=True)
    if args.save:
        Path(args.save).write_text(json.dumps(per_root))
    out: dict[str, Any] = {"views": list(views), "min_rays": args.min_rays, "tie_rays": args.tie_rays,
                           "off": args.off}
    if args.compare:
        old = json.loads(Path(args.compare).read_text())
        changed = []
        for root, rows in per_root.items():
            before = {r["scene"]: r for r in old.get(root, [])}
            for r in rows:
                b = before.get(r["scene"])
                if b is None or (b.get("blocks"), b.get("flags"), b.get("error")) != (
                        r.get("blocks"), r.get("flags"), r.get("error")):
                    changed.append({"scene": r["scene"], "wrong_sides": [b and b.get("wrong_sides"), r.get(
                        "wrong_sides")], "wrong_cells": [b and b.get("wrong_cells"), r.get("wrong_cells")],
                        "trusted": [b and b.get("trusted"), r.get("trusted")]})
        for c in changed:
            print("changed:", json.dumps(c))
        out["changed"] = len(changed)
    for root, rows in per_root.items():
        print(root, json.dumps(summary(rows)))
    out["sets"] = {root: summary(rows) for root, rows in per_root.items()}
    out["all"] = summary([r for rows in per_root.values() for r in rows])
    print(json.dumps(out))


if __name__ == "__main__":
    main()
