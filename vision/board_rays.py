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


def hits(camera: F64, ends: F64, solids: F64, t_min: float | F64 = 0.0, t_max: float | F64 = 1.0) -> B:
    """Does the segment ``camera + t (end - camera)``, ``t_min <= t <= t_max``, meet each solid?

    ``ends`` is ``(..., 3)``, ``solids`` ``(..., M, 6)`` (broadcast against ``ends``' leading axes):
    kind (0 box, 1 vertical cylinder), centre x, centre y, half-size (box, square footprint) or
    radius (cylinder), z0, z1.  Returns ``(..., M)``; ``t_min``/``t_max`` broadcast like ``(..., 1)``."""
    ends = np.asarray(ends, np.float64)
    solids = np.asarray(solids, np.float64)
    if ends.shape[-2:-1] == (0,) or solids.shape[-2] == 0:
        shape = np.broadcast_shapes((*ends.shape[:-1], 1), solids.shape[:-1])
        return np.zeros(shape, bool)
    o = camera.reshape(3)
    d = (ends - o)[..., None, :]  # (..., 1, 3)
    cx, cy, r, z0, z1 = (solids[..., k] for k in range(1, 6))
    kind = solids[..., 0]
    shape = np.broadcast_shapes(d.shape[:-1], cx.shape)
    lo = np.broadcast_to(np.asarray(t_min, np.float64), shape) if np.ndim(t_min) == 0 else \
        np.broadcast_to(np.asarray(t_min, np.float64)[..., None], shape)
    hi = np.broadcast_to(np.asarray(t_max, np.float64), shape) if np.ndim(t_max) == 0 else \
        np.broadcast_to(np.asarray(t_max, np.float64)[..., None], shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        dz = d[..., 2]
        ta = (z0 - o[2]) / dz
        tb = (z1 - o[2]) / dz
        lo = np.maximum(lo, np.minimum(ta, tb))
        hi = np.minimum(hi, np.maximum(ta, tb))
        # the slab and cylinder tests only where such solids are (most calls have one kind only)
        boxes, cyls = bool((kind == 0).any()), bool((kind == 1).any())
        for axis, c in ((0, cx), (1, cy)) if boxes else ():
            da = d[..., axis]
            t1 = (c - r - o[axis]) / da
            t2 = (c + r - o[axis]) / da
            if cyls:
                lo = np.where(kind == 0, np.maximum(lo, np.minimum(t1, t2)), lo)
                hi = np.where(kind == 0, np.minimum(hi, np.maximum(t1, t2)), hi)
            else:
                lo = np.maximum(lo, np.minimum(t1, t2))
                hi = np.minimum(hi, np.maximum(t1, t2))
        if not cyls:
            return np.asarray(lo <= hi, bool)
        px, py = o[0] - cx, o[1] - cy
        a = d[..., 0] ** 2 + d[..., 1] ** 2
        b = 2 * (px * d[..., 0] + py * d[..., 1])
        cc = px**2 + py**2 - r**2
        disc = b * b - 4 * a * cc
        ok = disc >= 0
        sq = np.sqrt(np.where(ok, disc, 0.0))
        a2 = np.maximum(2 * a, 1e-12)
        clo = np.where(ok, (-b - sq) / a2, np.inf)
        chi = np.where(ok, (-b + sq) / a2, -np.inf)
        if boxes:
            lo = np.where(kind == 1, np.maximum(lo, clo), lo)
            hi = np.where(kind == 1, np.minimum(hi, chi), hi)
        else:
            lo = np.maximum(lo, clo)
            hi = np.minimum(hi, chi)
    return np.asarray(lo <= hi, bool)
