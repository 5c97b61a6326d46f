"""Extra blocks read in front of a true block of their colour (issue 5; docs/vision.md, "Session 16: extra blocks
in front").

For every rendered scene under each ``--fixtures`` root, the pipeline reads the pictures of ``--views`` without
history (truth intrinsics).  Each block of the reading on a cell the truth leaves empty ("extra") is judged on the
weighted sampled rays whose first full cell, with the reading's blocks, is that cell (``RayScorer``'s model):

* the same rays traced through the truth's blocks: where they end -- on a true block of the extra block's colour
  (``same``: colour cannot tell the two apart), on the mat (``mat``) or on a block of another colour (``other``);
* the extra block is ``front`` (a block in front of a same-colour true block) when most of its rays showing its
  colour end on such a block; the true block most of them end on is ``behind`` (is it in the reading?);
* ``see_through``: its rays that show the mat or another colour AND end there with the truth -- pictures that see
  through the extra cell (carving evidence); ``gain``: what each picture says for the block
  (``RayScorer.gains_by_view``: rays explained with it minus without it);
* edges (``--edges``): per picture that shows the block, the label images of the reading and of the truth are
  drawn with block ids (``vision.synthetic.render_labels``) on the reading's cameras.  ``phantom`` pixels: the
  outline of the extra block's face in the reading where the truth has no outline (the same true face on both
  sides); ``real``: the outline pixels of the truth's block behind.  The picture's grey gradient (Sobel, after a
  3 x 3 blur) is compared there: ``edge_ratio`` = median gradient on phantom pixels / median on real ones (an edge
  the reading predicts that the picture does not have: well under 1).

SIMULATED data only (the renderer's truth).  Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.ctrl_scenes import parse_views, read_with_evidence, scene_dirs
from engine.ctrl.geometry import ALL_DIRS, CENTRAL_CUBE
from vision.camera import ViewCamera
from vision.labels import COLOR_LABELS, Label
from vision.pieces import face_corners
from vision.reconstruct import ViewEvidence

Cell = tuple[int, int, int]


def _name(scene_dir: Path) -> str:
    return f"{scene_dir.parent.parent.name}/{scene_dir.name}"


def face_ids(blocks: dict[Cell, str], camera: ViewCamera, id_of: dict[Cell, int]) -> np.ndarray:
    """Per pixel, which block face is seen: ``id_of[cell] * 6 + direction index`` (-1: the mat), with an exact
    per-pixel depth test (as ``vision.synthetic.render_labels``, whose ids are per block: a block's own crease
    between two of its faces is an edge too)."""
    w, h = camera.size
    s = camera.block_mm
    ids = np.full((h, w), -1, np.int32)
    zbuf = np.full((h, w), np.inf)
    cam_c = camera.center / s
    things = set(blocks) | set(CENTRAL_CUBE)
    for cell in things:
        for k, n in enumerate(ALL_DIRS):
            nb = (cell[0] + n[0], cell[1] + n[1], cell[2] + n[2])
            if nb in things or (n[2] == -1 and cell[2] == 0):
                continue
            quad = face_corners(cell, n)
            if float(np.dot(cam_c - quad.mean(axis=0), np.array(n, float))) <= 0:
                continue
            pts = quad * s
            if np.any(camera.depth(pts) <= 0):
                continue
            px = np.round(camera.project(pts)).astype(np.int32)
            x0, y0 = np.maximum(px.min(axis=0) - 1, 0)
            x1, y1 = np.minimum(px.max(axis=0) + 2, [w, h])
            if x1 <= x0 or y1 <= y0:
                continue
            mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
            cv2.fillConvexPoly(mask, px - np.array([x0, y0]), 1, cv2.LINE_8)
            ys, xs = np.mgrid[y0:y1, x0:x1]
            d = camera.rays(np.stack([xs.ravel(), ys.ravel()], axis=1).astype(np.float64)).reshape(y1 - y0, x1 - x0, 3)
            normal = np.cross(pts[1] - pts[0], pts[2] - pts[0])
            with np.errstate(divide="ignore", invalid="ignore"):
                t = ((pts[0] - camera.center) @ normal) / (d @ normal)
            t = np.where(np.isfinite(t) & (t > 0), t, np.inf)
            sub = zbuf[y0:y1, x0:x1]
            sel = (mask > 0) & (t < sub)
            sub[sel] = t[sel]
            ids[y0:y1, x0:x1][sel] = id_of[cell] * 6 + k
    return ids


def _outline(ids: np.ndarray, ident: int) -> np.ndarray:
    """Pixels of ``ident``'s region with a 4-neighbour of another id."""
    m = ids == ident
    edge = np.zeros_like(m)
    edge[1:] |= m[1:] & (ids[:-1] != ident)
    edge[:-1] |= m[:-1] & (ids[1:] != ident)
    edge[:, 1:] |= m[:, 1:] & (ids[:, :-1] != ident)
    edge[:, :-1] |= m[:, :-1] & (ids[:, 1:] != ident)
    return edge


def _flat(ids: np.ndarray) -> np.ndarray:
    """Pixels whose 3 x 3 neighbourhood has one id only (no outline of the drawn scene there)."""
    h, w = ids.shape
    pad = np.pad(ids, 1, mode="edge")
    same = np.ones((h, w), bool)
    for dy in range(3):
        for dx in range(3):
            same &= pad[dy:dy + h, dx:dx + w] == ids
    return same


def analyse(scene_dir: Path, views: tuple[str, ...], edges: bool) -> list[dict[str, Any]]:
    sc, res, evidence = read_with_evidence(scene_dir, views)
    scorer = res.reconstruction.scorer
    if scorer is None:
        return []
    ev: list[ViewEvidence] = evidence
    read: dict[Cell, str] = dict(res.state.blocks)
    truth: dict[Cell, str] = dict(sc.truth.blocks)
    m = scorer._model  # a benchmark looks inside
    width = m.idx.shape[1]
    truth_hyp = scorer._hyp_of(truth)
    vol = scorer._vol
    bg = int(Label.BACKGROUND)
    out: list[dict[str, Any]] = []
    greys: list[np.ndarray] | None = None
    grads: list[np.ndarray] | None = None
    drawn: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    cells_all = sorted(set(read) | set(truth) | set(CENTRAL_CUBE))
    id_of = {c: i for i, c in enumerate(cells_all)}
    n_views = len(ev)
    for cell, colour in sorted(read.items()):
        if cell in truth:
            continue
        lab = int(COLOR_LABELS[colour])
        rows, _, _ = scorer._meeting_first(read, [cell])
        if not len(rows):
            out.append({"scene": _name(scene_dir), "cell": list(cell), "colour": colour,
                        "kind": "unseen", "rays": 0})
            continue
        tpred, tfirst = m.predict_first(truth_hyp, rows)
        tcell = np.where(tfirst < width, m.idx[rows, np.minimum(tfirst, width - 1)], -1)
        ends = np.where(tpred == lab, "same", np.where(tpred == bg, "mat", "other"))
        shows = m.obs[rows] == lab
        behind_cells = Counter(int(t) for t, e, s in zip(tcell, ends, shows, strict=True) if e == "same" and s)
        n_show = int(shows.sum())
        n_same = int(((ends == "same") & shows).sum())
        kind = "front" if n_show and n_same * 2 > n_show else (
            "mat" if n_show and int(((ends == "mat") & shows).sum()) * 2 > n_show else "other")
        behind: Cell | None = vol.cell(behind_cells.most_common(1)[0][0]) if behind_cells else None
        gains = scorer.gains_by_view(read, [cell])
        row: dict[str, Any] = {
            "scene": _name(scene_dir), "cell": list(cell), "colour": colour, "kind": kind,
            "rays": len(rows), "rays_colour": n_show, "rays_same_behind": n_same,
            "behind": list(behind) if behind else None,
            "behind_read": (read.get(behind) if behind else None),
            "behind_offset": [behind[i] - cell[i] for i in range(3)] if behind else None,
            "gain": int(gains.sum()), "gain_by_view": gains.tolist(),
            "views_showing": int(np.count_nonzero(np.bincount(m.view[rows[shows]], minlength=n_views))),
            # the reading's notes on the cell (e.g. ``inferred-pocket``: ``free_rules.fill_pockets`` put it there)
            "notes": sorted({p.code for p in res.problems if p.where == f"cell {cell[0]},{cell[1]},{cell[2]}"}),
        }
        per_view: list[dict[str, Any]] = []
        for v in range(n_views):
            sel = m.view[rows] == v
            if not sel.any():
                continue
            obs = m.obs[rows[sel]]
            e = ends[sel]
            per_view.append({
                "view": v, "rays": int(sel.sum()), "colour": int((obs == lab).sum()),
                "same": int(((e == "same") & (obs == lab)).sum()),
                # the picture sees through the extra cell: a label other than its colour, and the truth agrees
                "see_through": int(((obs != lab) & (tpred[sel] == obs)).sum()),
                "against": int((obs != lab).sum()),
            })
        if behind is not None and behind not in read:
            # the block moved back onto the true cell behind it: what that costs the reading (sampled rays left
            # unexplained; positive: the pictures prefer the reading's cell)
            moved = {c: k for c, k in read.items() if c != cell}
            moved[behind] = colour
            row["move_back_cost"] = scorer.cost(moved) - scorer.cost(read)
        row["views"] = per_view
        row["see_through"] = sum(p["see_through"] for p in per_view)
        row["against"] = sum(p["against"] for p in per_view)
        if edges and kind == "front" and behind is not None:
            if greys is None:
                greys = [cv2.GaussianBlur(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), (3, 3), 0).astype(np.float32)
                         for _, img in res.pictures]
                grads = [np.hypot(cv2.Sobel(g, cv2.CV_32F, 1, 0), cv2.Sobel(g, cv2.CV_32F, 0, 1)) for g in greys]
            assert grads is not None
            ratios: list[float] = []
            areas: list[list[int]] = []
            rim: list[float] = []
            colour_ids = np.array([id_of[c] for c in cells_all if truth.get(c) == colour], np.int64)
            for pv in per_view:
                v = pv["view"]
                if pv["colour"] < 3:
                    continue
                if v not in drawn:
                    cam = ev[v].camera
                    drawn[v] = (face_ids(read, cam, id_of), face_ids(truth, cam, id_of))
                r_ids, t_ids = drawn[v]
                # the rays showing the colour that end elsewhere with the truth: how far (pixels) from the truth's
                # faces of that colour (1-2: the colour label bleeds over the true silhouette's rim)
                off = (m.view[rows] == v) & shows & (ends != "same")
                if off.any():
                    t_col = np.isin(np.where(t_ids >= 0, t_ids // 6, -1), colour_ids)
                    dist = cv2.distanceTransform((~t_col).astype(np.uint8), cv2.DIST_L2, 3)
                    px = m.pixels[rows[off]]
                    rim += dist[px[:, 1], px[:, 0]].tolist()
                e_id, b_id = id_of[cell], id_of[behind]
                r_blk = np.where(r_ids >= 0, r_ids // 6, -1)
                t_blk = np.where(t_ids >= 0, t_ids // 6, -1)
                # the extra block's outline (against other blocks or the mat) where the truth shows one face
                phantom = _outline(r_blk, e_id) & _flat(t_ids)
                # the true block behind: the outlines of its faces (creases included) in the truth
                real = (t_blk == b_id) & ~_flat(t_ids)
                if phantom.sum() < 10 or real.sum() < 10:
                    continue
                g = grads[v]
                ratio = float(np.median(g[phantom]) / max(float(np.median(g[real])), 1e-6))
                ratios.append(round(ratio, 3))
                areas.append([int((r_blk == e_id).sum()), int((t_blk == b_id).sum()), int(phantom.sum())])
            row["edge_ratio_by_view"] = ratios
            row["edge_ratio"] = float(np.median(ratios)) if ratios else None
            row["areas_extra_behind_phantom"] = areas
            row["off_rays_px_from_true_colour"] = [round(x, 1) for x in rim]
        out.append(row)
    return out


def front_like(scene_dir: Path, views: tuple[str, ...], max_blocks: int) -> list[dict[str, Any]]:
    """The read-time version (``--read-time``): every block B of the reading (not only the extra ones) whose rays
    showing its colour mostly end, with the reading WITHOUT B, on a block of B's colour (a block "in front" of a
    same-colour block, known without the truth).  Its edge ratio uses the reading without B instead of the truth
    (``phantom``: B's outline where the reading without B shows one face; ``real``: the creases of the blocks
    behind it).  ``extra``: the truth has no block on B's cell; ``true``: it has B."""
    sc, res, evidence = read_with_evidence(scene_dir, views)
    scorer = res.reconstruction.scorer
    if scorer is None:
        return []
    ev: list[ViewEvidence] = evidence
    read: dict[Cell, str] = dict(res.state.blocks)
    truth: dict[Cell, str] = dict(sc.truth.blocks)
    m = scorer._model
    width = m.idx.shape[1]
    cells_all = sorted(set(read) | set(CENTRAL_CUBE))
    id_of = {c: i for i, c in enumerate(cells_all)}
    greys = [cv2.GaussianBlur(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), (3, 3), 0).astype(np.float32)
             for _, img in res.pictures]
    grads = [np.hypot(cv2.Sobel(g, cv2.CV_32F, 1, 0), cv2.Sobel(g, cv2.CV_32F, 0, 1)) for g in greys]
    full: dict[int, np.ndarray] = {}
    out: list[dict[str, Any]] = []
    cands = []
    for cell, colour in sorted(read.items()):
        if cell in truth and truth[cell] != colour:
            continue
        lab = int(COLOR_LABELS[colour])
        rows, _, _ = scorer._meeting_first(read, [cell], lab)
        if len(rows) < 10:
            continue
        without = {c: k for c, k in read.items() if c != cell}
        wpred, _ = m.predict_first(scorer._hyp_of(without), rows)
        same = float((wpred == lab).mean())
        if same <= 0.5:
            continue
        cands.append((cell, colour, rows, without, same))
    for cell, colour, rows, without, same in cands[:max_blocks]:
        ratios: list[float] = []
        for v in np.unique(m.view[rows]).tolist():
            if int((m.view[rows] == v).sum()) < 3:
                continue
            cam = ev[v].camera
            if v not in full:
                full[v] = face_ids(read, cam, id_of)
            r_ids = full[v]
            w_ids = face_ids(without, cam, id_of)
            r_blk = np.where(r_ids >= 0, r_ids // 6, -1)
            w_blk = np.where(w_ids >= 0, w_ids // 6, -1)
            e_id = id_of[cell]
            phantom = _outline(r_blk, e_id) & _flat(w_ids)
            behind_ids = np.unique(w_blk[(r_blk == e_id) & (w_blk >= 0)])
            real = np.isin(w_blk, behind_ids) & ~_flat(w_ids) & (w_blk >= 0)
            if phantom.sum() < 10 or real.sum() < 10:
                continue
            g = grads[v]
            ratios.append(round(float(np.median(g[phantom]) / max(float(np.median(g[real])), 1e-6)), 3))
        out.append({"scene": _name(scene_dir), "cell": list(cell), "colour": colour,
                    "group": "true" if truth.get(cell) == colour else "extra", "same_share": round(same, 3),
                    "rays_colour": len(rows), "gain": int(scorer.gains_by_view(read, [cell]).sum()),
                    "edge_ratio_by_view": ratios,
                    "edge_ratio": float(np.median(ratios)) if ratios else None,
                    "edge_ratio_min": float(min(ratios)) if ratios else None})
    del width
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fixtures", nargs="+", required=True)
    ap.add_argument("--views", default="five")
    ap.add_argument("--scenes", help="comma-separated scene names to read (default all)")
    ap.add_argument("--edges", action="store_true", help="measure the picture's edges on the phantom outlines")
    ap.add_argument("--save", help="write every extra block's row here (JSON)")
    ap.add_argument("--read-time", action="store_true", help="the read-time probe (``front_like``) instead")
    ap.add_argument("--max-blocks", type=int, default=40, help="read-time probe: blocks per scene at most")
    args = ap.parse_args()
    views = parse_views(args.views)
    wanted = set(args.scenes.split(",")) if args.scenes else None
    rows: list[dict[str, Any]] = []
    for root in args.fixtures:
        for sc in scene_dirs(root):
            if wanted is not None and sc.name not in wanted:
                continue
            try:
                got = (front_like(sc, views, args.max_blocks) if args.read_time else analyse(sc, views, args.edges))
            except Exception as exc:  # a rejected picture set: reported, not counted
                print(json.dumps({"scene": str(sc), "error": repr(exc)}), flush=True)
                continue
            rows += got
            print(json.dumps({"scene": str(sc), "rows": len(got)}), flush=True)
    if args.save:
        Path(args.save).write_text(json.dumps(rows))
    if args.read_time:
        pos = [r["edge_ratio"] for r in rows if r["group"] == "extra" and r["edge_ratio"] is not None]
        neg = [r["edge_ratio"] for r in rows if r["group"] == "true" and r["edge_ratio"] is not None]
        q = [0.1, 0.25, 0.5, 0.75, 0.9]
        print(json.dumps({"views": list(views), "extra": len(pos), "true": len(neg),
                          "extra_q": [round(float(x), 3) for x in np.quantile(pos, q)] if pos else None,
                          "true_q": [round(float(x), 3) for x in np.quantile(neg, q)] if neg else None,
                          "below": {t: [sum(x < t for x in pos), sum(x < t for x in neg)]
                                    for t in (0.2, 0.3, 0.4, 0.5)}}))
        return
    front = [r for r in rows if r["kind"] == "front"]
    ratios = [r["edge_ratio"] for r in front if r.get("edge_ratio") is not None]
    summary: dict[str, Any] = {
        "views": list(views), "extra": len(rows), "kinds": dict(Counter(r["kind"] for r in rows)),
        "front_above_mat": sum(r["cell"][2] > 0 for r in front),
        "front_behind_in_reading": sum(r["behind_read"] is not None for r in front),
        "front_behind_offsets": dict(Counter(str(r["behind_offset"]) for r in front).most_common(8)),
        "front_with_see_through": sum(r["see_through"] > 0 for r in front),
        "front_see_through_rays_median": float(np.median([r["see_through"] for r in front])) if front else None,
        "front_gain_median": float(np.median([r["gain"] for r in front])) if front else None,
        "front_views_showing": dict(Counter(r["views_showing"] for r in front)),
        "edge_ratio_q": [round(float(q), 3) for q in np.quantile(ratios, [0.1, 0.25, 0.5, 0.75, 0.9])]
        if ratios else None,
        "edge_ratio_n": len(ratios),
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
