"""Which face of a cell does a flag's pole show?  A probe on the truth (issue 5; docs/vision.md, "Session 17: flags
on the wrong face").

    python benchmarks/ctrl_flag_faces.py --fixtures DIR [DIR ...] [--views all] [--list]

A flag in a cell may be plugged into any neighbouring block of its colour (docs/rules/ctrl.md, "Flags"): the
banners of two such spots hang in nearly the same place (the banner rays cannot tell them apart), their poles do
not.  For every flag of the TRUTH that the renderer shows (at least ``HIDDEN_FLAG_PIXELS`` pixels, all the pictures
read together) and that has a legal rival spot in the same cell (with the truth's blocks and other flags), each
spot's pole is judged in every picture (the truth's cameras, the truth's blocks hiding what they hide) with
several tests, and the true spot's count of pictures showing a pole is compared with its best same-cell rival's:

* ``current``: the pipeline's test (``vision.flag_margin.POLE_TEST``: a lighter line, the ring left out in the low
  pictures);
* ``clear``: the same, leaving out in each picture the points of the axis that lie on a rival's projected pole
  (``vision.poles.pole_line_shares(clear_of=...)``: a pole seen end-on projects onto its neighbour's axis);
* ``clear_ring``: ``clear`` with the ring's points kept in the low pictures too;
* ``clear_endon``: the points on a rival's pole are left out only in the pictures that cannot judge the rival
  itself (its axis too short there -- seen end-on -- or hidden): where the rival can be judged, its own test speaks.

Per test: true spot strictly ahead / tied / behind, and how many of the ties are 0-0.  Truth cameras, so the
figures are a little better than the pipeline's own (located cameras, about 0.5 px off on these renders).  Last
line: one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.ctrl_history_failures import HIDDEN_FLAG_PIXELS, rendered_pixels
from benchmarks.ctrl_scenes import load_scene, parse_views, scene_dirs
from calibration.camera import read_image
from engine.ctrl.moves import FlagSpot
from vision.camera import ViewCamera
from vision.flag_margin import POLE_TEST
from vision.history import spots_for_flag
from vision.poles import PoleConfig, pole_evidence, pole_line_shares

TESTS: dict[str, tuple[PoleConfig, bool]] = {
    "current": (POLE_TEST, False),
    "clear": (POLE_TEST, True),
    "clear_ring": (replace(POLE_TEST, ring=None), True),
}


def truth_cameras(scene_dir: Path, views: tuple[str, ...], block_mm: float,
                  ring: tuple[tuple[float, float, float, float], tuple[float, float, float, float]],
                  ) -> tuple[list[str], list[ViewCamera]]:
    """The rendered pictures' own cameras (each view's JSON ``camera``)."""
    names: list[str] = []
    cams: list[ViewCamera] = []
    for v in views:
        path = scene_dir / f"{v}.json"
        if not path.exists() or not (scene_dir / f"{v}.jpg").exists():
            continue
        c = json.loads(path.read_text())["camera"]
        if isinstance(c, str):
            import ast
            c = ast.literal_eval(c)
        cams.append(ViewCamera(np.array(c["K"], float), np.array(c["dist"], float), np.array(c["rvec"], float),
                               np.array(c["t"], float), (int(c["image_size"][0]), int(c["image_size"][1])),
                               block_mm, mat_ring=ring))
        names.append(v)
    return names, cams


def probe_scene(scene_dir: Path, views: tuple[str, ...]) -> list[dict[str, Any]]:
    """One record per visible true flag with a same-cell rival: each spot's pictures showing a pole, per test."""
    sc = load_scene(scene_dir, with_camera=False, views=())
    truth, spec = sc.truth, sc.spec
    flag_px, _ = rendered_pixels(scene_dir, views)
    todo: list[tuple[str, FlagSpot, list[FlagSpot]]] = []
    for colour, spot in sorted(truth.flags.items()):
        if flag_px.get(colour, 0) < HIDDEN_FLAG_PIXELS:
            continue
        rivals = [sp for sp in spots_for_flag(truth, colour) if sp.cell == spot.cell and sp != spot]
        if rivals:
            todo.append((colour, spot, rivals))
    if not todo:
        return []
    names, cams = truth_cameras(scene_dir, views, spec.block_mm, (spec.paper_world_rect(), spec.clear_world_rect()))
    greys = [cv2.cvtColor(read_image(scene_dir / f"{v}.jpg"), cv2.COLOR_BGR2GRAY).astype(np.float32) for v in names]
    occ = set(truth.blocks)
    out: list[dict[str, Any]] = []
    for colour, spot, rivals in todo:
        rec: dict[str, Any] = {"scene": f"{scene_dir.parent.parent.name}/{scene_dir.name}", "colour": colour,
                               "truth": str(spot), "rivals": [str(r) for r in rivals], "flag_px": flag_px[colour]}
        group = [spot, *rivals]
        for name, (cfg, clear) in TESTS.items():
            seen = []
            for sp in group:
                others = [o for o in group if o != sp] if clear else []
                ev = pole_evidence(greys, cams, sp, cfg=cfg, occupied=occ, clear_of=others)
                seen.append([names[k] for k in ev.views_seen])
            rec[name] = seen
        rec["clear_endon"] = [[names[k] for k in views_seen_clear_of_unjudged(greys, cams, sp, group, occ)]
                              for sp in group]
        out.append(rec)
    return out


def views_seen_clear_of_unjudged(greys: list[Any], cams: list[ViewCamera], spot: FlagSpot, group: list[FlagSpot],
                                 occ: set[Any], cfg: PoleConfig = POLE_TEST) -> list[int]:
    """The pictures showing a pole at ``spot`` (``cfg``), leaving out in each picture the points of its axis that
    lie on the projected pole of a rival of ``group`` that this picture cannot judge itself (too short there --
    seen end-on -- or hidden): where the rival can be judged, its own line test speaks for it."""
    seen: list[int] = []
    for k, (g, cam) in enumerate(zip(greys, cams, strict=True)):
        unjudged = [o for o in group if o != spot and pole_line_shares(g, cam, o, cfg=cfg, occupied=occ) is None]
        sh = pole_line_shares(g, cam, spot, cfg=cfg, occupied=occ, clear_of=unjudged)
        if sh is not None and (sh[0] if cfg.light_only else sh[1]) >= cfg.line_share:
            seen.append(k)
    return seen


def outcome(seen: list[list[str]]) -> str:
    """``ahead`` / ``tie0`` (no picture for any) / ``tie`` / ``behind`` for the true spot (first) against its best
    rival."""
    t, r = len(seen[0]), max(len(s) for s in seen[1:])
    return "ahead" if t > r else "behind" if t < r else "tie0" if t == 0 else "tie"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fixtures", nargs="+", required=True, help="scene folders (e.g. /tmp/held16/ctrl)")
    ap.add_argument("--views", default="five", help="'five', 'all' or stems (as benchmarks/ctrl_vision.py)")
    ap.add_argument("--list", action="store_true", help="print every flag probed")
    ap.add_argument("--save", help="write the records here (JSON)")
    args = ap.parse_args()
    views = parse_views(args.views)
    recs: list[dict[str, Any]] = []
    for root in args.fixtures:
        for sd in scene_dirs(Path(root)):
            for rec in probe_scene(sd, views):
                recs.append(rec)
                if args.list:
                    print(rec["scene"], rec["colour"], rec["truth"], "rivals", rec["rivals"],
                          {t: [len(s) for s in rec[t]] for t in [*TESTS, "clear_endon"]}, flush=True)
    summary: dict[str, Any] = {t: dict(Counter(outcome(r[t]) for r in recs)) for t in [*TESTS, "clear_endon"]}
    summary["flags"] = len(recs)
    if args.save:
        Path(args.save).write_text(json.dumps(recs, indent=1))
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
