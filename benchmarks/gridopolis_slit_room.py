"""How much of a Gridopolis piece under the next level a picture can show (session 15, issue 9; SIMULATED).

A piece on a lower level of the core is seen only through the 10 mm slits between the pads of the level above.
This tool measures, from each rendered scene's TRUTH geometry (pads, links, posts, every piece, the camera), which
image pixels each hypothesis of a site would cover -- a pawn, a king, a blocker box -- when it stands there and
everything else in the scene stays as it is (a ray per pixel, first hit).  It gives the *room*: how many pixels
differ between "empty" and a pawn (``pe``), between a pawn and a king (``crown``: the crown's pixels), and between
a pawn and a box (``pb``: the pixels one covers and the other does not), before any reading is tried.  A site is
"under the next level" when the objects more than 20 mm above its pad top (the level above: its pads, links,
posts and pieces) hide more than half of what a pawn there would show.

With ``ROOT:SAVE`` (a ``board_vision.py --save`` file of that root) each site is also put in the class the reader
gave it (right, declined, wrong), so the room of the cells the reader misses is counted apart.

The solids are the renderer's shapes simplified (``boardside/fixtures_render``): a pad a 40 x 40 x 6 mm box, a link
a 16 x 12 x 4 mm box, a post a 7 mm cylinder, a marker a cylinder of radius 11 and a box of half-size 9.5 (12 mm
high; the renderer rounds a 22 mm box, so the pawns come out ~20 % larger than the renders' own pixel counts), a
king's crown a 6.6 mm disc 2 mm high and five 2.4 mm points to 17.5 mm, a box 26 x 26 x 19.5 mm.  Checked against
the truth's ``pixels`` of every piece on bdev's first scenes: correlation 0.99.

usage: python benchmarks/gridopolis_slit_room.py ROOT[:SAVE] [ROOT[:SAVE] ...]   (ROOT holds gridopolis/scene_NNN.*)
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration.boards import GRIDOPOLIS_PAD_MM, GRIDOPOLIS_PAD_THICK_MM, board_spec, gridopolis_pad_top_mm
from vision.board_pieces import PIECES

F64 = npt.NDArray[np.float64]
# kind (0 box, 1 cylinder), cx, cy, hx, hy, z0, z1, part
Solid = tuple[int, float, float, float, float, float, float, str]
SPEC = board_spec("gridopolis")
UPPER_MM = 20.0  # objects whose bottom is this far above a site's pad top belong to the levels above it
THRESHOLDS = (20, 40, 80, 150)


def hypothesis_solids(kind: str, cx: float, cy: float, z: float) -> list[Solid]:
    """The solids of ``kind`` standing on a pad top at height ``z`` centred on ``(cx, cy)``."""
    g = PIECES
    if kind in ("pawn", "king"):
        out: list[Solid] = [(1, cx, cy, g.marker_radius, g.marker_radius, z, z + g.pawn_height, "body"),
                            (0, cx, cy, g.marker_square, g.marker_square, z, z + g.pawn_height, "body")]
        if kind == "king":  # the renderer's crown: a disc and five points (board_pieces.py, "king")
            h = z + g.pawn_height
            out.append((1, cx, cy, 6.6, 6.6, h, h + 2.0, "crown"))
            for k in range(5):
                a = 2 * math.pi * k / 5
                out.append((0, cx + 4.95 * math.cos(a), cy + 4.95 * math.sin(a), 1.2, 1.2, h + 1.5, h + 5.5, "crown"))
        return out
    if kind == "blocker":
        return [(0, cx, cy, g.blocker_half, g.blocker_half, z, z + g.blocker_height, "body")]
    if kind == "empty":
        return []
    raise ValueError(f"no Gridopolis piece {kind!r}")


def scene_solids(doc: dict[str, Any], skip: tuple[int, int, int] | None = None) -> list[Solid]:
    """Every solid of a scene's truth state (the table, pads, links, posts, pieces), the piece at ``skip`` left out."""
    st = doc["state"]
    pads = {(int(p[0]), int(p[1]), int(p[2])) for p in st["pads"]}
    half = GRIDOPOLIS_PAD_MM / 2
    out: list[Solid] = [(0, 175.0, 175.0, 600.0, 600.0, -5.0, 0.0, "table")]
    for x, y, lv in pads:
        cx, cy = SPEC.cell_centre_mm(x, y)
        top = gridopolis_pad_top_mm(lv)
        out.append((0, cx, cy, half, half, top - GRIDOPOLIS_PAD_THICK_MM, top, "pad"))
        for dx, dy in ((1, 0), (0, 1)):
            if (x + dx, y + dy, lv) in pads:
                hx, hy = (8.0, 6.0) if dx else (6.0, 8.0)
                mx, my = cx + dx * SPEC.cell_mm / 2, cy + dy * SPEC.cell_mm / 2
                out.append((0, mx, my, hx, hy, top - 5.0, top - 1.0, "link"))
    for p in st["posts"]:
        x, y, lv = int(p[0]), int(p[1]), int(p[2])
        cx, cy = SPEC.cell_centre_mm(x, y)
        z0, z1 = gridopolis_pad_top_mm(lv - 1), gridopolis_pad_top_mm(lv) - GRIDOPOLIS_PAD_THICK_MM
        for ox, oy in ((-14.0, -14.0), (14.0, 14.0)):
            out.append((1, cx + ox, cy + oy, 3.5, 3.5, z0, z1, "post"))
    pieces = [(tuple(b["pad"]), "blocker") for b in st["blockers"]]
    pieces += [(tuple(m["pad"]), "king" if m["king"] else "pawn") for m in st["markers"]]
    for key, kind in pieces:
        if key == skip:
            continue
        cx, cy = SPEC.cell_centre_mm(int(key[0]), int(key[1]))
        out.extend((*s[:7], "piece") for s in hypothesis_solids(kind, cx, cy, gridopolis_pad_top_mm(int(key[2]))))
    return out


def _camera(doc: dict[str, Any]) -> tuple[F64, F64, F64, F64]:
    cam = doc["camera"]
    return (np.array(cam["K"], np.float64), np.array(cam["dist"], np.float64), np.array(cam["R"], np.float64),
            np.array(cam["t"], np.float64))


def first_hits(origin: F64, dirs: F64, solids: list[Solid]) -> F64:
    """Distance along each ray (rows of ``dirs``) to each solid, ``inf`` where it misses: (rays, solids)."""
    if not solids:
        return np.full((len(dirs), 0), np.inf)
    a = np.array([s[:7] for s in solids], np.float64)
    kind, cx, cy, hx, hy, z0, z1 = (a[:, j][None] for j in range(7))
    dx, dy, dz = dirs[:, 0:1], dirs[:, 1:2], dirs[:, 2:3]
    with np.errstate(divide="ignore", invalid="ignore"):
        tz0, tz1 = (z0 - origin[2]) / dz, (z1 - origin[2]) / dz
        tx0, tx1 = (cx - hx - origin[0]) / dx, (cx + hx - origin[0]) / dx
        ty0, ty1 = (cy - hy - origin[1]) / dy, (cy + hy - origin[1]) / dy
        box_in = np.maximum(np.minimum(tx0, tx1), np.minimum(ty0, ty1))
        box_out = np.minimum(np.maximum(tx0, tx1), np.maximum(ty0, ty1))
        ox, oy = origin[0] - cx, origin[1] - cy
        qa = dx ** 2 + dy ** 2
        qb = 2 * (ox * dx + oy * dy)
        disc = qb ** 2 - 4 * qa * (ox ** 2 + oy ** 2 - hx ** 2)
        root = np.sqrt(np.maximum(disc, 0.0))
        cyl_in = np.where(disc >= 0, (-qb - root) / (2 * qa), np.inf)
        cyl_out = np.where(disc >= 0, (-qb + root) / (2 * qa), -np.inf)
        t_in = np.maximum(np.where(kind == 1, cyl_in, box_in), np.minimum(tz0, tz1))
        t_out = np.minimum(np.where(kind == 1, cyl_out, box_out), np.maximum(tz0, tz1))
    hit = (t_in <= t_out) & (t_out > 0)
    return np.where(hit, np.maximum(t_in, 0.0), np.inf)


def site_room(doc: dict[str, Any], key: tuple[int, int, int]) -> dict[str, int] | None:
    """Pixels each hypothesis of site ``key`` would show (the rest of the scene as it is); None off the picture."""
    k_mat, dist, rot, tvec = _camera(doc)
    solids = scene_solids(doc, skip=key)
    cx, cy = SPEC.cell_centre_mm(key[0], key[1])
    z = gridopolis_pad_top_mm(key[2])
    corners = np.array([(cx + sx * 14, cy + sy * 14, z + h) for sx in (-1, 1) for sy in (-1, 1) for h in (0.0, 20.0)])
    rvec, _ = cv2.Rodrigues(rot)
    q, _ = cv2.projectPoints(corners.reshape(-1, 1, 3), rvec, tvec, k_mat, dist)
    q = q.reshape(-1, 2)
    w, h = doc["camera"]["image_size"]
    u0, v0 = (max(int(v), 0) for v in np.floor(q.min(0)) - 2)
    u1, v1 = (int(v) for v in np.minimum(np.ceil(q.max(0)) + 2, [w - 1, h - 1]))
    if u1 <= u0 or v1 <= v0:
        return None
    uu, vv = np.meshgrid(np.arange(u0, u1 + 1) + 0.5, np.arange(v0, v1 + 1) + 0.5)
    norm = cv2.undistortPoints(np.stack([uu.ravel(), vv.ravel()], -1).reshape(-1, 1, 2), k_mat, dist).reshape(-1, 2)
    dirs = np.concatenate([norm, np.ones((len(norm), 1))], 1) @ rot  # camera -> world: R^T d
    dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    origin = -rot.T @ tvec
    t_all = first_hits(origin, dirs, solids)
    scene_t = t_all.min(1) if t_all.shape[1] else np.full(len(dirs), np.inf)
    lower = np.array([s[5] <= z + UPPER_MM for s in solids])
    low_t = t_all[:, lower].min(1) if lower.any() else np.full(len(dirs), np.inf)
    shown: dict[str, npt.NDArray[np.bool_]] = {}
    crown = np.zeros(len(dirs), bool)
    pawn_low = np.zeros(len(dirs), bool)
    for kind in ("pawn", "king", "blocker"):
        hs = hypothesis_solids(kind, cx, cy, z)
        th = first_hits(origin, dirs, hs)
        first = th.min(1)
        shown[kind] = first < scene_t
        if kind == "king":
            part = np.array([s[7] for s in hs])[np.argmin(th, 1)]
            crown = shown[kind] & (part == "crown")
        if kind == "pawn":
            pawn_low = first < low_t
    return {"pe": int(shown["pawn"].sum()), "pe_alone": int(pawn_low.sum()), "crown": int(crown.sum()),
            "pb": int((shown["pawn"] ^ shown["blocker"]).sum()), "be": int(shown["blocker"].sum())}


def _outcome(truth: dict[str, Any] | None, read: list[Any] | None) -> str:
    if read is None:
        return "no site"
    kind, colour = read[1], read[2]
    if kind in ("occluded", "unseen"):
        return "declined"
    t_kind = truth["piece"] if truth else "empty"
    right = kind == t_kind and (t_kind == "empty" or colour == (truth or {}).get("colour"))
    return "right" if right else "wrong"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("roots", nargs="+", help="ROOT or ROOT:SAVE (a board_vision.py --save file of ROOT)")
    ap.add_argument("--list", action="store_true", help="print every site under the next level the reader misses")
    args = ap.parse_args(argv)
    table: Counter[tuple[str, str]] = Counter()
    room: Counter[tuple[str, str, str, int]] = Counter()
    scenes = 0
    for spec in args.roots:
        root, _, save = spec.partition(":")
        readings: dict[str, Any] = json.loads(Path(save).read_text()) if save else {}
        for jf in sorted(Path(root, "gridopolis").glob("scene_*.json")):
            doc = json.loads(jf.read_text())
            rec = readings.get(f"gridopolis/{jf.stem}")
            if save and (rec is None or "cells" not in rec):
                continue  # rejected by the reader (blurred / black)
            if doc.get("hand"):
                continue  # a hand is no part of the geometry here
            scenes += 1
            truth = {(c["x"], c["y"], c["level"]): c for c in doc["cells"]}
            read = {tuple(c[0]): c for c in rec["cells"]} if rec else {}
            sites = {(int(p[0]), int(p[1]), int(p[2])) for p in doc["state"]["pads"]}
            for key in sorted(sites):
                r = site_room(doc, key)
                if r is None or r["pe_alone"] == 0 or r["pe"] >= 0.5 * r["pe_alone"]:
                    continue  # not under the next level
                t = truth.get(key)
                t_kind = t["piece"] if t else "empty"
                out = _outcome(t, read.get(key)) if save else "-"
                table[(t_kind, out)] += 1
                for th in THRESHOLDS:
                    for m in ("pe", "crown", "pb"):
                        room[(t_kind, out, m, th)] += int(r[m] >= th)
                if args.list and out in ("declined", "wrong") and t_kind != "empty":
                    rd = read.get(key)
                    print(root, jf.stem, key, t_kind, t and t["colour"], "->", rd and rd[1], rd and rd[2], r)
    print(f"{scenes} scenes without a hand; sites under the next level by truth and reader's outcome")
    print("truth / outcome: sites; sites with >= 20/40/80/150 px: pawn vs empty | crown | pawn vs box")
    for (t_kind, out), n in sorted(table.items()):
        cols = " | ".join("/".join(str(room[(t_kind, out, m, th)]) for th in THRESHOLDS) for m in ("pe", "crown", "pb"))
        print(f"{t_kind:8s} {out:9s} {n:5d}; {cols}")
    print(json.dumps({"scenes": scenes, "sites": {f"{a}/{b}": n for (a, b), n in table.items()},
                      "room": {f"{a}/{b}/{m}/{th}": n for (a, b, m, th), n in room.items()}}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
