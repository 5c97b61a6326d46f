"""SYNTHETIC label maps: rasterize a known CTRL state into per-pixel labels for a camera.

Used to unit-test the reconstruct stage in isolation (the photorealistic fixtures test the whole
pipeline), and by the reconstruct stage itself is NOT used: it never sees ground truth.
"""

from __future__ import annotations

from collections.abc import Mapping

import cv2
import numpy as np
import numpy.typing as npt

from engine.ctrl.geometry import ALL_DIRS, CENTRAL_CUBE, Cell
from engine.ctrl.moves import FlagSpot
from vision.camera import ViewCamera
from vision.labels import COLOR_LABELS, Label
from vision.pieces import FLAG, FlagGeometry, face_corners

U8 = npt.NDArray[np.uint8]


def flag_banner_points(flag: FlagSpot, geom: FlagGeometry = FLAG, side: int = 0) -> list[tuple[float, float, float]]:
    """Corners of the banner (in block units) of a flag; ``side`` picks the sideways direction."""
    b = flag.block
    n = flag.normal
    base = (b[0] + 0.5 + 0.5 * n[0], b[1] + 0.5 + 0.5 * n[1], b[2] + 0.5 + 0.5 * n[2])
    perp = [d for d in ALL_DIRS if d[0] * n[0] + d[1] * n[1] + d[2] * n[2] == 0 and d[2] >= 0]
    s = perp[side % len(perp)]
    pts = []
    for along, out in ((geom.banner_from, 0.0), (geom.banner_to, 0.0), (geom.banner_to, geom.banner_width),
                       (geom.banner_from, geom.banner_width)):
        pts.append((base[0] + along * n[0] + out * s[0], base[1] + along * n[1] + out * s[1],
                    base[2] + along * n[2] + out * s[2]))
    return pts


def render_labels(
    blocks: Mapping[Cell, str],
    flags: Mapping[str, FlagSpot],
    camera: ViewCamera,
    geom: FlagGeometry = FLAG,
    ids: npt.NDArray[np.int32] | None = None,
    id_of: dict[Cell, int] | None = None,
) -> U8:
    """Per-pixel labels of the scene seen by ``camera`` (exact per-pixel depth test over cube faces).

    With ``ids`` (an int32 image filled with -1) and ``id_of`` (cell -> id), also writes which
    block's face is seen at each pixel (flags write -2).
    """
    w, h = camera.size
    img = np.full((h, w), int(Label.BACKGROUND), np.uint8)
    s = camera.block_mm
    things: dict[Cell, int] = {c: int(Label.CUBE) for c in CENTRAL_CUBE}
    for c, col in blocks.items():
        things[c] = int(COLOR_LABELS[col])
    cam_c = camera.center / s
    polys: list[tuple[float, npt.NDArray[np.float64], int, int]] = []
    for cell, lab in things.items():
        for n in ALL_DIRS:
            nb = (cell[0] + n[0], cell[1] + n[1], cell[2] + n[2])
            if nb in things or (n[2] == -1 and cell[2] == 0):
                continue
            quad = face_corners(cell, n)
            centre = quad.mean(axis=0)
            if float(np.dot(cam_c - centre, np.array(n, float))) <= 0:
                continue  # back face
            ident = id_of.get(cell, -1) if id_of is not None else -1
            polys.append((float(np.linalg.norm(cam_c - centre)), quad * s, lab, ident))
    for color, f in flags.items():
        b = f.block
        n = f.normal
        base = np.array([b[0] + 0.5 + 0.5 * n[0], b[1] + 0.5 + 0.5 * n[1], b[2] + 0.5 + 0.5 * n[2]])
        tip = base + geom.pole_length * np.array(n, float)
        mid = (base + tip) / 2
        polys.append((float(np.linalg.norm(cam_c - mid)) - 0.01, np.stack([base, tip]) * s, int(Label.POLE), -2))
        banner = np.array(flag_banner_points(f, geom))
        polys.append((float(np.linalg.norm(cam_c - banner.mean(axis=0))) - 0.02, banner * s,
                      int(COLOR_LABELS[color]), -2))
    # exact visibility: a per-pixel depth buffer (distance along each pixel's ray)
    zbuf = np.full((h, w), np.inf)
    ray_cache: dict[tuple[int, int, int, int], npt.NDArray[np.float64]] = {}
    center_mm = camera.center
    for _, pts, lab, ident in polys:
        if np.any(camera.depth(pts) <= 0):
            continue
        if len(pts) < 3:  # a pole: draw it as a thick line at its mean depth
            a, b2 = camera.project(pts)
            dist_mm = float(np.linalg.norm(pts.mean(axis=0) - center_mm))
            thick = max(1, round(2 * geom.pole_radius * s * camera.K[0, 0] / float(camera.depth(pts).mean())))
            mask = np.zeros((h, w), np.uint8)
            cv2.line(mask, (round(a[0]), round(a[1])), (round(b2[0]), round(b2[1])), 1, thick, cv2.LINE_8)
            sel = (mask > 0) & (zbuf > dist_mm)
            img[sel] = lab
            zbuf[sel] = dist_mm
            if ids is not None:
                ids[sel] = ident
            continue
        px = np.round(camera.project(pts)).astype(np.int32)
        x0, y0 = np.maximum(px.min(axis=0) - 1, 0)
        x1, y1 = np.minimum(px.max(axis=0) + 2, [w, h])
        if x1 <= x0 or y1 <= y0:
            continue
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(mask, px - np.array([x0, y0]), 1, cv2.LINE_8)
        key = (int(x0), int(y0), int(x1), int(y1))
        if key not in ray_cache:
            ys, xs = np.mgrid[y0:y1, x0:x1]
            ray_cache[key] = camera.rays(np.stack([xs.ravel(), ys.ravel()], axis=1).astype(np.float64)).reshape(
                y1 - y0, x1 - x0, 3)
        d = ray_cache[key]
        normal = np.cross(pts[1] - pts[0], pts[2] - pts[0])
        denom = d @ normal
        with np.errstate(divide="ignore", invalid="ignore"):
            t = ((pts[0] - center_mm) @ normal) / denom
        t = np.where(np.isfinite(t) & (t > 0), t, np.inf)
        sub = zbuf[y0:y1, x0:x1]
        sel = (mask > 0) & (t < sub)
        sub[sel] = t[sel]
        img[y0:y1, x0:x1][sel] = lab
        if ids is not None:
            ids[y0:y1, x0:x1][sel] = ident
    return img


def visible_cells(
    blocks: Mapping[Cell, str], flags: Mapping[str, FlagSpot], cameras: Mapping[str, ViewCamera], min_pixels: int = 1,
) -> dict[Cell, int]:
    """Ground truth: how many pixels of each block are seen, summed over the cameras."""
    cells = sorted(blocks)
    id_of = {c: i for i, c in enumerate(cells)}
    seen: dict[Cell, int] = {}
    for cam in cameras.values():
        ids = np.full((cam.size[1], cam.size[0]), -1, np.int32)
        render_labels(blocks, flags, cam, ids=ids, id_of=id_of)
        counts = np.bincount(ids[ids >= 0].ravel(), minlength=len(cells))
        for i, n in enumerate(counts):
            if n:
                seen[cells[i]] = seen.get(cells[i], 0) + int(n)
    return {c: n for c, n in seen.items() if n >= min_pixels}


def standard_cameras(
    K: npt.NDArray[np.float64], size: tuple[int, int], block_mm: float = 22.0, distance_mm: float = 520.0,
    elevation_deg: float = 40.0, dist: npt.NDArray[np.float64] | None = None,
) -> dict[str, ViewCamera]:
    """Five views a player would take: the four sides (oblique) and the top."""
    centre = (1.5 * block_mm, 1.5 * block_mm, 1.2 * block_mm)
    el = np.radians(elevation_deg)
    out: dict[str, ViewCamera] = {}
    for side, (dx, dy) in {"+x": (1, 0), "-x": (-1, 0), "+y": (0, 1), "-y": (0, -1)}.items():
        eye = (centre[0] + dx * distance_mm * np.cos(el), centre[1] + dy * distance_mm * np.cos(el),
               centre[2] + distance_mm * np.sin(el))
        out[side] = ViewCamera.look_at(eye, centre, K, size, dist, block_mm)
    out["top"] = ViewCamera.look_at((centre[0] + 1.0, centre[1] - 60.0, centre[2] + distance_mm), centre, K, size,
                                    dist, block_mm)
    return out
