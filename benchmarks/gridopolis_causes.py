"""What keeps Gridopolis boards from being exact: each error cell put in one class (session 16, issue 9; SIMULATED).

Reads every Gridopolis table of the given roots (one picture each, camera from the scene truth, as
``benchmarks/board_vision.py`` reads them) and puts every error cell -- a cell read wrong, a visible piece declined
(the truth calls it visible, as ``board_vision.py`` counts; hidden pieces are left out, also when they have no
site) or a truth piece with no site at all -- in one class (session 14's split, "Session 14: Gridopolis boards not
exact" in docs/boards_vision.md; session 14's helper ran it from /tmp, this is that tool committed):

* declined: a hand over it / read empty, a possible pad in front (session 13) / no usable probe / piece not clear
  of "empty" on few or slit probes / piece seen, box or marker shape not told / yellow crown unsure / other (the
  colour read is no player's, seen through a slit, a piece seen there only where another stands behind it);
* no site: a piece on a pad the reader did not find, with the stage of ``PadDetectConfig.piece_pads`` that lost it
  (``--stages``: not a candidate place / not a place the rules allow / the quick look saw no plastic / read there
  but not surely enough);
* read a piece where none is, a piece read empty, a box read a marker or back (each "under a pad" when a pad, true
  or read, stands right above the site, else "in the open"), pawn / king wrong, colour wrong.

To know which line of ``vision.board_classify.classify_sites`` declined a site and on what evidence, the module's
source is re-read and compiled with a few recording lines added (nothing else changes; a reading is the same as
without them).  ``--pads JSON`` / ``--classify JSON``: fields of ``PadDetectConfig`` / the Gridopolis
``ClassifyBoardConfig`` to replace (an experiment without editing the code).  ``--save FILE`` keeps every cell's
record (JSON) for comparing two runs.

usage: python benchmarks/gridopolis_causes.py ROOT [ROOT ...] [--stages] [--save FILE]   (ROOT/gridopolis/scene_*)
Last line: one JSON object (tables, exact, cells per class).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from collections import Counter
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import board_vision as bv

import vision.board_classify as bc
import vision.board_pads as bpads
import vision.board_pipeline as bp
from calibration.boards import BoardSpec
from calibration.camera import read_image
from vision.board_reconstruct import ReconstructOptions

REC: dict[str, Any] = {"trace": {}, "late": [], "tested": set(), "places": set(), "look": {}, "extra": {}}


def _instrument() -> None:
    """Recompile ``classify_sites`` with recording lines: which line declined each site, and its evidence."""
    src = Path(bc.__file__).read_text().split("\n")
    start = next(i for i, line in enumerate(src) if line.startswith("def classify_sites("))
    end = next(i for i in range(start + 1, len(src)) if src[i].startswith("def "))
    out = []
    for n, line in enumerate(src):
        ind = " " * (len(line) - len(line.lstrip()))
        s = line.strip()
        if start < n < end:
            if s.startswith("kind = hyp.kind"):
                out += [line, ind + "why = []"]
                continue
            if s.startswith('out[i] = CellReading(out[i].key, "unseen"'):
                out += [ind + f'_REC["late"].append((out[i].key, "L{n + 1}"))', line]
                continue
            if s.startswith("out.append(CellReading(site.key, kind, colour, cubes_read"):
                out += [ind + "_trace(pad_sites, site, i, why, used, weight, scores, kind_index, piece, lab_o, hyps)",
                        line]
                continue
            out.append(line)
            if (s.startswith(('kind, conf = "unseen"', 'kind, conf = "occluded"', 'kind, colour, conf = "unseen"'))
                    or s == 'kind = "unseen"'):
                out.append(ind + f'why.append("L{n + 1}")')
            continue
        out.append(line)
    out.append('''
def _trace(pad_sites, site, i, why, used, weight, scores, kind_index, piece, lab_o, hyps):
    if pad_sites is not None:
        return
    ke = kind_index["empty"]
    best = max((j for j, h in enumerate(hyps) if h.solids), key=lambda j: scores[j, i])
    sel = (weight[i] > 0) & (piece[i] > 0.5)
    _REC["trace"][tuple(site.key)] = dict(
        why=list(why), n_w=int(weight[i].sum()), best=hyps[best].kind,
        margin=float(scores[best, i] - scores[ke, i]),
        bp=float(scores[kind_index["blocker"], i] - scores[kind_index["pawn"], i]),
        med=np.median(lab_o[i, sel], axis=0).tolist() if sel.any() else None)
''')
    bc.__dict__["_REC"] = REC
    configured = bc.config_for  # (``--classify``'s replacement: the module's source run again would undo it)
    exec(compile("\n".join(out), bc.__file__, "exec"), bc.__dict__)
    bc.config_for = configured  # type: ignore[assignment]
    bp.classify_sites = bc.classify_sites

    pp, pc, cs = bp.piece_places, bp.piece_colour_at, bp.classify_sites

    def places(tested: Any, pads: Any, from_level: int = 1) -> Any:
        REC["tested"] = set(tested)
        got = pp(REC["tested"], pads, from_level)
        REC["places"] = set(got)
        return got

    def look(img: Any, pose: Any, gain: Any, keys: Any, cfg: Any = None) -> Any:
        got = pc(img, pose, gain, keys, cfg)
        REC["look"].update(dict(zip(keys, got, strict=True)))
        return got

    def classify(img: Any, pose: Any, sites: Any, game: str, **kw: Any) -> Any:
        got = cs(img, pose, sites, game, **kw)
        if kw.get("pad_sites") is not None:
            for st, r in zip(sites, got, strict=True):
                REC["extra"][tuple(st.key)] = (r.kind, round(r.scores.get(r.kind, 0.0) - r.scores.get("empty", 0.0), 2))
        return got

    bp.piece_places, bp.piece_colour_at, bp.classify_sites = places, look, classify


def _configure(pads: dict[str, Any], classify: dict[str, Any]) -> None:
    if pads:
        base = bpads.PadDetectConfig
        fields = {k: tuple(v) if isinstance(v, list) else v for k, v in pads.items()}

        def make(*a: Any, **k: Any) -> Any:
            return dataclasses.replace(base(*a, **k), **fields)

        bp.PadDetectConfig = make  # type: ignore[misc, assignment]
        bpads.PadDetectConfig = make  # type: ignore[misc]
    if classify:
        old = bc.config_for
        fields_c = {k: tuple(v) if isinstance(v, list) else v for k, v in classify.items()}

        def config_for(game: str) -> Any:
            c = old(game)
            return dataclasses.replace(c, **fields_c) if game == "gridopolis" else c

        bc.config_for = config_for  # type: ignore[assignment]


def read_one(sj_name: str) -> dict[str, Any]:
    sj = Path(sj_name)
    doc = json.loads(sj.read_text())
    img = read_image(sj.with_suffix(".jpg"))
    if img.shape[:2] != (720, 1280):
        img = np.asarray(cv2.resize(img, (1280, 720), interpolation=cv2.INTER_AREA), np.uint8)
    spec = BoardSpec.from_json(doc["board"])
    labels, hidden = bv.truth_labels(doc)
    pix = {(c["x"], c["y"], c.get("level", 0)): c.get("pixels", 0) for c in doc["cells"]}
    tpads = {tuple(p) for p in doc["state"]["pads"]}
    for v in REC.values():
        v.clear()
    try:
        res = bp.read_board([(sj.stem, img)], "gridopolis", spec=spec, camera=bv.truth_camera(doc),
                            options=ReconstructOptions())
    except Exception as exc:  # (a rejected picture: blurred, black)
        return {"scene": str(sj), "rejected": str(exc)}
    late = dict(REC["late"])
    sites = {tuple(c.key) for c in res.cells}
    cells = []
    for cr in res.cells:
        key = tuple(cr.key)
        cells.append(dict(key=key, want=labels.get(key, "empty"), got=bv.reading_label("gridopolis", cr),
                          pixels=pix.get(key, 0), hidden=key in hidden,
                          under=(key[0], key[1], key[2] + 1) in sites or (key[0], key[1], key[2] + 1) in tpads,
                          notes=list(cr.notes), late=late.get(key), tr=REC["trace"].get(key, {})))
    nosite = []
    for k, w in labels.items():
        if k in sites:
            continue
        stage = ("not a candidate" if k not in REC["tested"] else "not a place the rules allow"
                 if k not in REC["places"] else "quick look: no plastic" if not REC["look"].get(k)
                 else f"read there: {REC['extra'].get(k)}")
        nosite.append(dict(key=k, want=w, pixels=pix.get(k, 0), hidden=k in hidden, stage=stage))
    return {"scene": str(sj), "cells": cells, "nosite": nosite, "hand": doc.get("hand") is not None,
            "pads_missed": len(tpads - sites), "pads_not_there": len(sites - tpads)}


def cause(r: dict[str, Any], e: dict[str, Any]) -> str:
    t, w, g = e["tr"], e["want"], e["got"]
    where = "under a pad" if e["under"] else "in the open"
    if g in ("occluded", "unseen"):
        if r["hand"] and g == "occluded":
            return "declined: a hand over it"
        if e["notes"] and "pad may stand" in e["notes"][0]:
            return "declined: read empty, a possible pad in front"
        if t.get("n_w", 0) == 0:
            return "declined: no usable probe"
        m, bpm = t.get("margin", 0.0), t.get("bp", 0.0)
        if e["late"] or (m >= 0.3 and abs(bpm) < 0.05):
            return "declined: piece seen, box / marker shape not told"
        if m < 0.3:
            return "declined: piece not clear of 'empty' on few / slit probes"
        return "declined: other (colour no player's, seen through a slit or behind another piece)"
    if w == "empty":
        return f"a piece read where none is ({where})"
    if g == "empty":
        return f"a piece read empty ({where})"
    wk, wc = w.split(":")
    gk, gc = g.split(":")
    if wc != gc:
        return "colour wrong"
    if "blocker" in (wk, gk):
        return f"box read a marker or back ({where})"
    return "pawn / king wrong"


def error_cells(r: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for e in r["cells"]:
        if e["got"] in ("occluded", "unseen"):
            if e["want"] == "empty" or e["hidden"]:
                continue
        elif e["got"] == e["want"]:
            continue
        out.append((cause(r, e), e))
    for n in r["nosite"]:
        if not n["hidden"]:
            out.append(("no site (a pad added in play not found)", n))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("roots", nargs="+")
    ap.add_argument("--stages", action="store_true", help="list every piece with no site and the stage that lost it")
    ap.add_argument("--save", help="every table's cell records (JSON)")
    ap.add_argument("--pads", default="{}", help="PadDetectConfig fields to replace (JSON)")
    ap.add_argument("--classify", default="{}", help="Gridopolis ClassifyBoardConfig fields to replace (JSON)")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("NP", "2")))
    a = ap.parse_args()
    _configure(json.loads(a.pads), json.loads(a.classify))
    scenes = [str(p) for root in a.roots for p in sorted(Path(root, "gridopolis").glob("scene_*.json"))]
    with Pool(a.jobs, initializer=_instrument) as pool:
        res = pool.map(read_one, scenes, chunksize=1)
    if a.save:
        Path(a.save).write_text(json.dumps(res, default=lambda o: list(o) if isinstance(o, (tuple, set)) else str(o)))
    cells: Counter[str] = Counter()
    big: Counter[str] = Counter()
    alone: Counter[str] = Counter()
    exact = tables = rejected = 0
    for r in res:
        if "rejected" in r:
            rejected += 1
            continue
        tables += 1
        errs = error_cells(r)
        for c, e in errs:
            cells[c] += 1
            big[c] += e["pixels"] >= 150 and e.get("got") in ("occluded", "unseen", None)
            if a.stages and c.startswith("no site"):
                print(f"{r['scene']} {tuple(e['key'])} {e['want']} {e['pixels']} px: {e['stage']}")
        exact += not errs
        if errs and len({c for c, _ in errs}) == 1:
            alone[errs[0][0]] += 1
    print(f"tables {tables} (rejected {rejected}), exact {exact}")
    print(f"{'class':78s} cells  not-read>=150px  tables-only-this")
    for c, v in cells.most_common():
        print(f"{c:78s} {v:5d} {big[c]:5d} {alone[c]:5d}")
    print(json.dumps({"tables": tables, "rejected": rejected, "exact": exact, "cells": dict(cells)}))


if __name__ == "__main__":
    main()
