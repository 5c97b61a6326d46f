"""Flag poles: is a flag's pole standing at a given spot?  (Used to check a set-up's flags.)

A flag's banner is small and often seen edge-on or hidden behind the Central Cube, so a set-up
check that relies on the banner alone misses flags that stand where they should.  The pole is a thin
light cylinder: along its projected axis, a pole shows a thin line that differs from the picture on
*both* sides of it (an edge differs on one side only).  For each picture the axis of the expected
pole is sampled (clear of the socket at the base and of the banner near the tip), points the Central
Cube hides are skipped, and the share of points showing such a line is the picture's evidence.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from engine.ctrl.geometry import CENTRAL_CUBE, Cell
from engine.ctrl.moves import FlagSpot
from vision.camera import ViewCamera
from vision.pieces import FLAG, FlagGeometry

U8 = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class PoleConfig:
    samples: int = 15  # points along the pole's visible middle part
    from_frac: float = 0.12  # of the pole's length: skip the socket ...
    to_frac: float = 0.5  # ... and the banner (which starts at 0.53)
    min_contrast: float = 12.0  # grey levels between the line and both sides
    min_px: float = 8.0  # a pole shorter than this in a picture is not judged there
    line_share: float = 0.5  # share of points showing a line for a picture to count
    min_views: int = 2  # pictures that must show the pole


@dataclass(frozen=True)
class PoleEvidence:
    spot: FlagSpot
    views_judged: int
    views_seen: list[int]  # indices of the pictures that show the pole

    def standing(self, cfg: PoleConfig | None = None) -> bool:
        cfg = cfg or PoleConfig()
        return len(self.views_seen) >= cfg.min_views


def pole_evidence(images: Sequence[npt.NDArray[Any]], cameras: Sequence[ViewCamera],
                  spot: FlagSpot, geom: FlagGeometry = FLAG, cfg: PoleConfig | None = None,
                  occupied: Collection[Cell] | None = None) -> PoleEvidence:
    """How many pictures show a flag pole standing at ``spot`` (see the module docstring).  With
    ``occupied`` (the cells of the blocks in front of which the pole may stand), the points of the pole
    those blocks hide from a picture are skipped there too, as the Central Cube's always are."""
    cfg = cfg or PoleConfig()
    b, n = spot.block, spot.normal
    base = np.array([b[0] + 0.5 + 0.5 * n[0], b[1] + 0.5 + 0.5 * n[1], b[2] + 0.5 + 0.5 * n[2]])
    ts = np.linspace(cfg.from_frac, cfg.to_frac, cfg.samples) * geom.pole_length
    judged = 0
    seen: list[int] = []
    lo = np.array([min(c[a] for c in CENTRAL_CUBE) for a in range(3)], float)
    hi = np.array([max(c[a] for c in CENTRAL_CUBE) + 1 for a in range(3)], float)
    for k, (img, cam) in enumerate(zip(images, cameras, strict=True)):
        s = cam.block_mm
        pts = (base[None, :] + ts[:, None] * np.array(n, float)[None, :]) * s
        if np.any(cam.depth(pts) <= 0):
            continue
        px = cam.project(pts)
        if float(np.linalg.norm(px[-1] - px[0])) < cfg.min_px:
            continue
        # points the Central Cube hides (the segment from the camera to the point crosses the cube)
        visible = ~_behind_box(cam.center / s, pts / s, lo, hi)
        if occupied:
            visible &= ~_behind_cells(cam.center / s, pts / s, occupied, spot.cell)
        h, w = img.shape[:2]
        inside = (px[:, 0] > 6) & (px[:, 0] < w - 7) & (px[:, 1] > 6) & (px[:, 1] < h - 7)
        use = visible & inside
        if use.sum() < cfg.samples // 2:
            continue
        judged += 1
        # a grey float picture is used as it is (callers judging many spots convert once)
        grey = (cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32) if img.ndim == 3
                else np.asarray(img, np.float32))
        axis = px[-1] - px[0]
        normal = np.array([-axis[1], axis[0]]) / max(float(np.linalg.norm(axis)), 1e-9)
        radius_px = _radius_px(cam, pts[len(pts) // 2], geom.pole_radius * s)
        off = max(2.5, 2.5 * radius_px + 1.5)
        p = px[use]
        centre = _sample(grey, p)
        left = _sample(grey, p - off * normal)
        right = _sample(grey, p + off * normal)
        line = ((centre - left > cfg.min_contrast) & (centre - right > cfg.min_contrast)) | (
            (left - centre > cfg.min_contrast) & (right - centre > cfg.min_contrast))
        if float(line.mean()) >= cfg.line_share:
            seen.append(k)
    return PoleEvidence(spot, judged, seen)


def _sample(grey: npt.NDArray[np.float32], p: npt.NDArray[np.float64]) -> npt.NDArray[np.float32]:
    m = cv2.remap(grey, p[:, 0].astype(np.float32).reshape(-1, 1), p[:, 1].astype(np.float32).reshape(-1, 1),
                  cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(m, np.float32).ravel()


def _radius_px(cam: ViewCamera, point_mm: npt.NDArray[np.float64], radius_mm: float) -> float:
    depth = float(cam.depth(point_mm[None, :])[0])
    return float(cam.K[0, 0]) * radius_mm / max(depth, 1e-6)


def _behind_box(origin: npt.NDArray[np.float64], pts: npt.NDArray[np.float64], lo: npt.NDArray[np.float64],
                hi: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
    """For each point, does the segment from ``origin`` to it pass through the box [lo, hi]?"""
    d = pts - origin[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        t1 = (lo[None, :] - origin[None, :]) / d
        t2 = (hi[None, :] - origin[None, :]) / d
    tmin = np.nanmax(np.minimum(t1, t2), axis=1)
    tmax = np.nanmin(np.maximum(t1, t2), axis=1)
    return (tmax >= np.maximum(tmin, 0.0)) & (tmin < 0.999)  # type: ignore[no-any-return]


def _behind_cells(origin: npt.NDArray[np.float64], pts: npt.NDArray[np.float64], occupied: Collection[Cell],
                  own: Cell, step: float = 0.2) -> npt.NDArray[np.bool_]:
    """For each point (block units), does the segment from ``origin`` to it pass through one of the
    ``occupied`` cells (other than ``own``, the cell the point stands in)?  Sampled every ``step``
    block units, the last half step before the point left out."""
    occ = {c for c in occupied if c != own}
    out = np.zeros(len(pts), bool)
    if not occ:
        return out
    cells = np.array(sorted(occ), np.int64)
    lo, hi = cells.min(axis=0), cells.max(axis=0) + 1
    grid = np.zeros(tuple(int(v) for v in hi - lo), bool)
    grid[tuple((cells - lo).T)] = True
    # every point's samples at once (the same numbers as sampling point by point: the k-th point's
    # samples are i * step / length for i below its own count, floored and looked up in the grid)
    d = pts - origin[None, :]
    lengths = np.array([float(np.linalg.norm(dk)) for dk in d])
    # len(np.arange(0.0, stop, step)) is ceil(stop / step) (numpy's own length rule), 0 for stop 0
    counts = np.ceil(np.maximum(lengths - step / 2, 0.0) / step).astype(np.int64)
    n_max = int(counts.max()) if len(counts) else 0
    if n_max == 0:
        return out
    ts = (np.arange(n_max) * step)[None, :] / np.maximum(lengths, 1e-9)[:, None]  # (points, samples)
    q = np.floor(origin[None, None, :] + ts[:, :, None] * d[:, None, :]).astype(np.int64) - lo
    use = (np.arange(n_max)[None, :] < counts[:, None]) & np.all((q >= 0) & (q < grid.shape), axis=2)
    hit = np.zeros(use.shape, bool)
    qq = q[use]
    hit[use] = grid[qq[:, 0], qq[:, 1], qq[:, 2]]
    out[:] = hit.any(axis=1)
    return out
