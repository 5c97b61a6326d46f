"""Rays against simple solids: which probe rays a piece hides (vectorised, numpy).

A probe is a 3D point above the board; its ray runs from the camera centre through the point and on
to the board plane ``z = 0`` (the picture shows the first surface along it).  Solids are vertical
boxes (axis-aligned, ``[x0, x1] x [y0, y1] x [z0, z1]``) and vertical cylinders; both are given as
rows of one array so that many rays are tested against many solids at once.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]
B = npt.NDArray[np.bool_]

#: a solid row: kind (0 box, 1 cylinder), cx, cy, half-size or radius, z0, z1
SOLID_COLS = 6


def segments_to_board(camera: F64, points: F64) -> F64:
    """End points on ``z = 0`` of the rays from ``camera`` (3,) through ``points`` (N, 3)."""
    d = points - camera[None, :]
    dz = np.where(np.abs(d[:, 2]) < 1e-9, -1e-9, d[:, 2])
    s = -camera[2] / dz
    return np.asarray(camera[None, :] + s[:, None] * d, np.float64)


def hits(camera: F64, ends: F64, solids: F64, t_min: float = 0.0, t_max: float = 1.0) -> B:
    """``(N, M)``: does the segment ``camera + t (ends - camera)``, ``t_min <= t <= t_max``, meet solid m?

    ``solids`` is ``(M, 6)``: kind (0 box, 1 vertical cylinder), centre x, centre y, half-size (box,
    square footprint) or radius (cylinder), z0, z1."""
    n, m = len(ends), len(solids)
    if n == 0 or m == 0:
        return np.zeros((n, m), bool)
    o = camera[None, None, :]
    d = (ends - camera[None, :])[:, None, :]  # (N, 1, 3)
    cx, cy, r, z0, z1 = (solids[None, :, k] for k in range(1, 6))
    kind = solids[None, :, 0]
    lo = np.full((n, m), t_min)
    hi = np.full((n, m), t_max)
    # z slab
    dz = d[..., 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        ta = (z0 - o[..., 2]) / dz
        tb = (z1 - o[..., 2]) / dz
    lo = np.maximum(lo, np.minimum(ta, tb))
    hi = np.minimum(hi, np.maximum(ta, tb))
    # boxes: x and y slabs
    for axis, c in ((0, cx), (1, cy)):
        da = d[..., axis]
        small = np.abs(da) < 1e-12
        with np.errstate(divide="ignore", invalid="ignore"):
            t1 = (c - r - o[..., axis]) / da
            t2 = (c + r - o[..., axis]) / da
        inside = (o[..., axis] >= c - r) & (o[..., axis] <= c + r)
        blo = np.where(small, np.where(inside, -np.inf, np.inf), np.minimum(t1, t2))
        bhi = np.where(small, np.where(inside, np.inf, -np.inf), np.maximum(t1, t2))
        lo = np.where(kind == 0, np.maximum(lo, blo), lo)
        hi = np.where(kind == 0, np.minimum(hi, bhi), hi)
    # cylinders: |(o + t d)_xy - c| <= r
    px, py = o[..., 0] - cx, o[..., 1] - cy
    a = d[..., 0] ** 2 + d[..., 1] ** 2
    b = 2 * (px * d[..., 0] + py * d[..., 1])
    cc = px**2 + py**2 - r**2
    disc = b * b - 4 * a * cc
    ok = disc >= 0
    sq = np.sqrt(np.where(ok, disc, 0.0))
    a2 = np.where(a < 1e-12, 1e-12, 2 * a)
    clo = np.where(ok, (-b - sq) / a2, np.inf)
    chi = np.where(ok, (-b + sq) / a2, -np.inf)
    lo = np.where(kind == 1, np.maximum(lo, clo), lo)
    hi = np.where(kind == 1, np.minimum(hi, chi), hi)
    return np.asarray(lo <= hi, bool)
