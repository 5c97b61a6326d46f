"""Why is a block of a free CTRL reading one cell off?  (issue 5; docs/vision.md, "Session 12: blocks
read one cell off").

For every rendered scene under each ``--fixtures`` root the pipeline reads the pictures of ``--views``
without history (truth intrinsics, as ``benchmarks/ctrl_vision.py``).  Every *extra* block of the reading
(the truth cell is empty) with a truth block of the same colour in one of its six neighbours is a block
read one cell off, of one of two kinds:

* ``shift``: the reading lacks that truth block (or colours it otherwise): the block stands one cell away;
* ``thick``: the reading has that truth block right too: an extra block beside or in front of it.

For each, the reading's own labelled rays (``Reconstruction.scorer``) price the fix -- the block moved back
(``shift``) or left out (``thick``) -- in all, per picture, and (``--group``) together with the other
off-cell blocks of the same scene shifted the same way.  ``fix`` < 0: the rays prefer the truth (the search
or a free rule left it), > 0: the pixels themselves argue for the cell off.

SIMULATED data only (the renderer's truth).  Last line: one JSON object.
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

from benchmarks.ctrl_free_split import put_right as corrected
from benchmarks.ctrl_scenes import load_scene, parse_views, scene_dirs
from engine.ctrl.geometry import Cell
from vision.labels import COLOR_LABELS, Label
from vision.pipeline import score_images
from vision.reconstruct import RayScorer

NEIGHBOURS: tuple[Cell, ...] = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))


def per_view_misses(scorer: RayScorer, blocks: dict[Cell, str]) -> np.ndarray:
    m = scorer._model  # measurement tool: the rays' predictions themselves
    pred = scorer._predict(scorer._hyp_of(blocks))
    miss = (pred != m.obs) * m.weight
    return np.bincount(m.view, weights=miss, minlength=int(m.view.max()) + 1)


def analyse(scene_dir: Path, views: tuple[str, ...]) -> dict[str, Any]:
    scene = load_scene(scene_dir, views=views)
    truth = scene.truth.blocks
    try:
        res = score_images(scene.pics, scene.spec, scene.camera, None)
    except Exception as exc:
        return {"scene": str(scene_dir), "error": str(exc)[:200]}
    got = dict(res.state.blocks)
    raw = dict(res.reconstruction.blocks)
    scorer = res.reconstruction.scorer
    names = [p[0].split("/")[-1].removesuffix(".jpg") for p in scene.pics]
    cases: list[dict[str, Any]] = []
    if scorer is None:
        return {"scene": str(scene_dir), "cases": cases}
    base = per_view_misses(scorer, got)
    # each ray's first full cell in the truth, raw (the Central Cube as CUBE, none as 0)
    vals = np.append(scorer._hyp_of(truth), 0)[scorer._model.idx]
    truth_first = vals[np.arange(len(vals)), np.argmax(vals != 0, axis=1)]
    for e, col in sorted(got.items()):
        if e in truth:
            continue
        # a neighbour the reading lacks first (the block moved), else one it has too (an extra beside it)
        near = [(e[0] + d[0], e[1] + d[1], e[2] + d[2]) for d in NEIGHBOURS]
        near = [n for n in near if truth.get(n) == col]
        for n in sorted(near, key=lambda n: got.get(n) == col):
            d = (n[0] - e[0], n[1] - e[1], n[2] - e[2])
            kind = "thick" if got.get(n) == col else "shift"
            fixed = dict(got)
            fixed.pop(e)
            if kind == "shift":
                fixed[n] = col
            pv = per_view_misses(scorer, fixed) - base
            # the rays that show the colour where the off block stands and would not with it put right:
            # what does the truth put first on them (the renderer's scene: the Central Cube, the mat,
            # a block of the colour, another block)?
            m = scorer._model
            pa, pb = scorer._predict(scorer._hyp_of(got)), scorer._predict(scorer._hyp_of(fixed))
            back = (pa != pb) & (pa == m.obs) & (m.weight > 0)
            ends = Counter(("cube" if t == int(Label.CUBE) else "mat" if t == 0 else
                            "same colour" if t == int(COLOR_LABELS[col]) else "other block")
                           for t in truth_first[back].tolist())
            cases.append({"shows_colour_on": dict(ends),
                "cell": e, "colour": col, "dir": (-d[0], -d[1], -d[2]), "kind": kind,
                "fix": int(pv.sum()),
                "per_view": {names[i] if i < len(names) else str(i): int(v) for i, v in enumerate(pv) if v},
                "in_search": raw.get(e) == col,  # already in the search's blocks (else: a free rule added it)
                "n_in_search": raw.get(n) == col,
            })
            break
    # the off cells put right together (a block and its neighbours moved as one), and per case its
    # whole line along the shift (three cells each way) put right
    def put_right(cells: set[Cell]) -> int:
        return int((per_view_misses(scorer, corrected(got, truth, cells)) - base).sum())

    group: set[Cell] = set()
    for case in cases:
        e, d = case["cell"], case["dir"]
        n = (e[0] - d[0], e[1] - d[1], e[2] - d[2])
        group |= {e, n}
        case["line_fix"] = put_right({(e[0] + k * d[0], e[1] + k * d[1], e[2] + k * d[2]) for k in range(-3, 4)})
    group_fix = put_right(group) if group else 0
    # every block of the reading: the rays per picture that leaving it out would fail (> 0: they show it)
    support = []
    for c, col in sorted(got.items()):
        without = dict(got)
        without.pop(c)
        pv = per_view_misses(scorer, without) - base
        support.append({"cell": c, "colour": col, "right": truth.get(c) == col, "extra": c not in truth,
                        "per_view": [int(v) for v in pv]})
    return {"scene": str(scene_dir), "cases": cases, "views": names, "support": support, "group_fix": group_fix,
            "truth_cost_minus_reading": int(scorer.cost(truth) - scorer.cost(got))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fixtures", nargs="+",
                    default=[str(Path(__file__).resolve().parent.parent / "fixtures" / "ctrl")])
    ap.add_argument("--views", default="all")
    ap.add_argument("--save", help="write every scene's row here (JSON)")
    args = ap.parse_args()
    views = parse_views(args.views)
    rows = []
    for root in args.fixtures:
        for sc in scene_dirs(root):
            row = analyse(sc, views)
            rows.append(row)
            for c in row.get("cases", []):
                print(sc, json.dumps(c), flush=True)
    if args.save:
        Path(args.save).write_text(json.dumps(rows))
    cases = [c for r in rows for c in r.get("cases", [])]
    kinds = Counter(c["kind"] for c in cases)
    verdict = Counter(f"{c['kind']}:{'truth' if c['fix'] < -10 else 'reading' if c['fix'] > 10 else 'tie'}"
                      for c in cases)
    dirs = Counter(str(tuple(c["dir"])) for c in cases)
    origin = Counter(f"{c['kind']}:{'search' if c['in_search'] else 'free-rule'}" for c in cases)
    print(json.dumps({"cases": len(cases), "scenes": len({str(r['scene']) for r in rows if r.get('cases')}),
                      "kinds": dict(kinds), "by_rays": dict(verdict), "dirs": dict(dirs), "origin": dict(origin)}))


if __name__ == "__main__":
    main()
