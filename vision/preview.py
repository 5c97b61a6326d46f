"""An isometric picture of a CTRL position (``boardside ctrl render`` and the 3D preview that
accompanies camera scoring).  Painter's algorithm over unit cubes; pure drawing, no detection.
"""

from __future__ import annotations

from collections.abc import Mapping

import cv2
import numpy as np
import numpy.typing as npt

from engine.ctrl.geometry import CENTRAL_CUBE, Cell
from engine.ctrl.moves import FlagSpot

Image = npt.NDArray[np.uint8]

#: BGR display colours of the pieces.
PALETTE: dict[str, tuple[int, int, int]] = {
    "blue": (200, 110, 30),
    "pink": (150, 90, 235),
    "yellow": (40, 210, 240),
    "green": (70, 170, 60),
    "cube": (55, 55, 55),
}

# Viewing corner -> (sign of x, sign of y) of the eye.  The eye is above the table.
CORNERS = {"+x-y": (1, -1), "+x+y": (1, 1), "-x+y": (-1, 1), "-x-y": (-1, -1)}


def _shade(bgr: tuple[int, int, int], k: float) -> tuple[int, int, int]:
    return (int(min(255, bgr[0] * k)), int(min(255, bgr[1] * k)), int(min(255, bgr[2] * k)))


def render_state(
    blocks: Mapping[Cell, str],
    flags: Mapping[str, FlagSpot] | None = None,
    size: tuple[int, int] = (900, 700),
    corner: str = "+x-y",
    title: str = "",
    highlight: Mapping[Cell, tuple[int, int, int]] | None = None,
) -> Image:
    """Draw the battlefield seen from above the given corner; returns a BGR image."""
    if corner not in CORNERS:
        raise ValueError(f"corner {corner!r} is not one of {', '.join(CORNERS)}")
    sx, sy = CORNERS[corner]
    flags = flags or {}
    cells: dict[Cell, tuple[int, int, int]] = {c: PALETTE["cube"] for c in CENTRAL_CUBE}
    for c, col in blocks.items():
        cells[c] = PALETTE.get(col, (128, 128, 128))
    if highlight:
        cells.update(highlight)
    w, h = size
    img = np.full((h, w, 3), 245, np.uint8)

    # projection: rotate so the eye corner is at (+,-), then isometric
    def rot(p: tuple[float, float, float]) -> tuple[float, float, float]:
        x, y, z = p
        x, y = x - 1.5, y - 1.5
        if (sx, sy) == (1, -1):
            rx, ry = x, y
        elif (sx, sy) == (1, 1):
            rx, ry = y, -x
        elif (sx, sy) == (-1, 1):
            rx, ry = -x, -y
        else:
            rx, ry = -y, x
        return rx, ry, z

    def proj(p: tuple[float, float, float]) -> tuple[float, float]:
        rx, ry, z = rot(p)
        u = (rx + ry) * 0.866
        v = (rx - ry) * 0.5 - z
        return u, v

    pts_all = [proj((float(a), float(b), float(c))) for (x, y, z) in cells for a in (x, x + 1) for b in (y, y + 1)
               for c in (z, z + 1)]
    pts_all += [proj((0.0, 0.0, 0.0))]
    us = [p[0] for p in pts_all]
    vs = [p[1] for p in pts_all]
    span = max(max(us) - min(us), max(vs) - min(vs), 1e-6)
    top_margin = 60 if title else 20
    scale = min((w - 40) / (max(us) - min(us) + 1e-6), (h - top_margin - 20) / (max(vs) - min(vs) + 1e-6), 80.0)
    del span
    ou = w / 2 - scale * (max(us) + min(us)) / 2
    ov = top_margin + (h - top_margin - 20) / 2 - scale * (max(vs) + min(vs)) / 2

    def px(p: tuple[float, float, float]) -> tuple[int, int]:
        u, v = proj(p)
        return (round(ou + scale * u), round(ov + scale * v))

    # table outline (the mat area around the Central Cube footprint)
    lo, hi = -4.0, 7.0
    table = np.array([px((lo, lo, 0)), px((hi, lo, 0)), px((hi, hi, 0)), px((lo, hi, 0))], np.int32)
    cv2.fillConvexPoly(img, table, (225, 228, 230), cv2.LINE_AA)

    def depth(c: Cell) -> float:
        rx, ry, z = rot((c[0] + 0.5, c[1] + 0.5, c[2] + 0.5))
        return rx - ry + z

    occupied = set(cells)
    for c in sorted(cells, key=depth):
        x, y, z = c
        fill = cells[c]
        # visible faces for the rotated eye at (+rx, -ry, +z)
        faces: list[tuple[list[tuple[float, float, float]], float, Cell]] = []
        faces.append(([(x, y, z + 1), (x + 1, y, z + 1), (x + 1, y + 1, z + 1), (x, y + 1, z + 1)], 1.15, (0, 0, 1)))
        ex = (x + 1 if sx > 0 else x)
        faces.append(([(ex, y, z), (ex, y + 1, z), (ex, y + 1, z + 1), (ex, y, z + 1)], 0.8, (sx, 0, 0)))
        ey = (y + 1 if sy > 0 else y)
        faces.append(([(x, ey, z), (x + 1, ey, z), (x + 1, ey, z + 1), (x, ey, z + 1)], 0.62, (0, sy, 0)))
        for quad, k, n in faces:
            if (x + n[0], y + n[1], z + n[2]) in occupied:
                continue
            poly = np.array([px((float(a), float(b), float(cc))) for a, b, cc in quad], np.int32)
            cv2.fillConvexPoly(img, poly, _shade(fill, k), cv2.LINE_AA)
            cv2.polylines(img, [poly], True, (30, 30, 30), 1, cv2.LINE_AA)
    # flags: pole from the face centre along the normal, banner at the tip
    for color, f in flags.items():
        b = f.block
        n = f.normal
        base = (b[0] + 0.5 + 0.5 * n[0], b[1] + 0.5 + 0.5 * n[1], b[2] + 0.5 + 0.5 * n[2])
        tip = (base[0] + 0.9 * n[0], base[1] + 0.9 * n[1], base[2] + 0.9 * n[2])
        cv2.line(img, px(base), px(tip), (20, 20, 20), 3, cv2.LINE_AA)
        t = px(tip)
        banner = np.array([t, (t[0] + 18, t[1] + 7), (t[0], t[1] + 14)], np.int32)
        cv2.fillConvexPoly(img, banner, PALETTE.get(color, (128, 128, 128)), cv2.LINE_AA)
        cv2.polylines(img, [banner], True, (20, 20, 20), 1, cv2.LINE_AA)
    # side labels on the table
    for name, p in (("+x", (hi, 1.5, 0.0)), ("-x", (lo, 1.5, 0.0)), ("+y", (1.5, hi, 0.0)), ("-y", (1.5, lo, 0.0))):
        q = px(p)
        cv2.putText(img, name, (q[0] - 12, q[1] + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (90, 90, 90), 1, cv2.LINE_AA)
    if title:
        cv2.putText(img, title, (16, 34), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (20, 20, 20), 2, cv2.LINE_AA)
    return img
