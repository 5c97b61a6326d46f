"""Rays against simple solids: which probe rays a piece hides (vectorised, numpy).

A probe is a 3D point above the board; its ray runs from the camera centre through the point and on
to the board plane ``z = 0`` (the picture shows the first surface along it).  Solids are vertical
boxes (axis-aligned, ``[x0, x1] x [y0, y1] x [z0, z1]``) and vertical cylinders; both are given as
rows of one array so that many rays are tested against many solids at once.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]
B = npt.NDArray[np.bool_]


def _nonzero2(mask: B) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """``np.nonzero`` of a 2-D mask (the same indices, in the same order), from the flat indices: numpy's 2-D
    ``nonzero`` builds each element's index pair one at a time (session 18: several times slower)."""
    flat = np.flatnonzero(mask)
    return np.divmod(flat, mask.shape[1]) if mask.shape[1] else (flat, flat)

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
    radius (cylinder), z0, z1.  Returns ``(..., M)``; ``t_min``/``t_max`` broadcast like ``(..., 1)``.

    (Computed with the solids' axis first, ``(M, ...)``: numpy's loops then run along the rays rather than along a
    few solids, which it buffers in small pieces -- the same operations on the same numbers, session 18.)"""
    ends = np.asarray(ends, np.float64)
    solids = np.asarray(solids, np.float64)
    shape = np.broadcast_shapes((*ends.shape[:-1], 1), solids.shape[:-1])
    if ends.shape[-2:-1] == (0,) or solids.shape[-2] == 0:
        return np.zeros(shape, bool)
    nd = len(shape)
    perm = (nd - 1, *range(nd - 1))  # (the last axis first: ndarray.transpose, much quicker than np.moveaxis)

    def first(a: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """``a`` (broadcastable to ``shape``) with its last axis moved first."""
        return a.reshape((1,) * (nd - a.ndim) + a.shape).transpose(perm)

    o = camera.reshape(3)
    dv = ends - o  # (..., 3)
    d0, d1, d2 = (first(dv[..., k][..., None]) for k in range(3))  # (1, ...)
    cx, cy, r, z0, z1 = (first(solids[..., k]) for k in range(1, 6))  # (M, ...)
    kind = first(solids[..., 0])
    moved = (shape[-1], *shape[:-1])
    lo = np.broadcast_to(np.asarray(t_min, np.float64), moved) if np.ndim(t_min) == 0 else \
        np.broadcast_to(first(np.asarray(t_min, np.float64)[..., None]), moved)
    hi = np.broadcast_to(np.asarray(t_max, np.float64), moved) if np.ndim(t_max) == 0 else \
        np.broadcast_to(first(np.asarray(t_max, np.float64)[..., None]), moved)
    with np.errstate(divide="ignore", invalid="ignore"):
        lo, hi = _clip_to_solids(lo, hi, o[0], o[1], o[2], d0, d1, d2, kind, cx, cy, r, z0, z1)
    met = np.broadcast_to(lo <= hi, moved)
    return np.array(met.transpose((*range(1, nd), 0)), bool, order="C")  # (a new, writable array, as before)


def _clip_to_solids(lo: Any, hi: Any, o0: Any, o1: Any, o2: Any, d0: Any, d1: Any, d2: Any, kind: Any, cx: Any,
                    cy: Any, r: Any, z0: Any, z1: Any) -> tuple[Any, Any]:
    """The interval ``[lo, hi]`` of ``t`` on segments ``o + t d`` narrowed to where each meets its solid (kind 0: a
    box ``cx +- r, cy +- r``; 1: a vertical cylinder of radius ``r``; both between heights ``z0`` and ``z1``): the
    arithmetic of :func:`hits` and :func:`hits_pairs`, elementwise on operands that broadcast together (call it
    inside ``np.errstate(divide="ignore", invalid="ignore")``).  The segment meets the solid where ``lo <= hi``."""
    ta = (z0 - o2) / d2
    tb = (z1 - o2) / d2
    lo = np.maximum(lo, np.minimum(ta, tb))
    hi = np.minimum(hi, np.maximum(ta, tb))
    # the slab and cylinder tests only where such solids are (most calls have one kind only)
    box, cyl = kind == 0, kind == 1
    boxes, cyls = bool(box.any()), bool(cyl.any())
    for c, da, oa in ((cx, d0, o0), (cy, d1, o1)) if boxes else ():
        t1 = (c - r - oa) / da
        t2 = (c + r - oa) / da
        if cyls:
            lo = np.where(box, np.maximum(lo, np.minimum(t1, t2)), lo)
            hi = np.where(box, np.minimum(hi, np.maximum(t1, t2)), hi)
        else:
            lo = np.maximum(lo, np.minimum(t1, t2))
            hi = np.minimum(hi, np.maximum(t1, t2))
    if cyls:
        px, py = o0 - cx, o1 - cy
        a = d0 ** 2 + d1 ** 2
        b = 2 * (px * d0 + py * d1)
        cc = px**2 + py**2 - r**2
        disc = b * b - 4 * a * cc
        ok = disc >= 0
        sq = np.sqrt(np.where(ok, disc, 0.0))
        a2 = np.maximum(2 * a, 1e-12)
        clo = np.where(ok, (-b - sq) / a2, np.inf)
        chi = np.where(ok, (-b + sq) / a2, -np.inf)
        if boxes:
            lo = np.where(cyl, np.maximum(lo, clo), lo)
            hi = np.where(cyl, np.minimum(hi, chi), hi)
        else:
            lo = np.maximum(lo, clo)
            hi = np.minimum(hi, chi)
    return lo, hi


class GroundShade:
    """Which points on the board plane (``z = 0``) solids shade from point lights above them: for each light
    :meth:`shaded` gives ``hits(light, ground, solids[None]).any(axis=1)`` -- the same answers, computed on fewer
    (point, solid) pairs (session 18).

    A segment from a light at height ``L_z`` down to a ground point ``q`` is, at height ``z``, ``z / L_z`` of the
    way from ``q`` towards the light, so over a solid's heights (up to its top ``z1 < L_z``) it stays within
    ``z1 / L_z * D`` (``D``: the light's horizontal distance from ``q``) of ``q``; a solid's footprint lies within
    ``half-size x sqrt 2`` of its centre.  A pair farther apart than the two together (less a 1 mm margin)
    cannot meet; the pairs left are tested by :func:`hits` itself, each value computed from the same operands by
    the same operations as in the full ``(N, M)`` test (every step is elementwise).  The distances are
    measured once for all the lights tried.  Lights not higher than twice the solids' top, points not on
    the plane, or numbers not finite take the full test."""

    def __init__(self, ground: F64, solids: F64, margin_mm: float = 1.0) -> None:
        self.ground = np.asarray(ground, np.float64)
        self.solids = np.asarray(solids, np.float64)
        g, s = self.ground, self.solids
        # (points on the plane, every number finite: else each light takes the full test)
        self._flat = bool(len(g)) and bool(np.all(g[:, 2] == 0.0)) and bool(np.isfinite(g).all()) \
            and bool(np.isfinite(self.solids).all())
        self._top = float(s[:, 5].max()) if len(s) else 0.0
        d = np.hypot(g[:, None, 0] - s[None, :, 1], g[:, None, 1] - s[None, :, 2])  # (N, M)
        reach = s[:, 3] * math.sqrt(2.0) + margin_mm
        # a pair may meet only if ``(d - reach) / z1 <= D / L_z`` (a solid with no height: only if ``d <= reach``)
        self._key = (d - reach[None, :]) / np.maximum(s[:, 5], 1e-9)[None, :]

    def shaded(self, light: F64) -> B:
        """``hits(light, ground, solids[None]).any(axis=1)``: is each ground point in a solid's shadow?"""
        light = np.asarray(light, np.float64).reshape(3)
        g, s = self.ground, self.solids
        if not len(g) or not len(s) or not self._flat or not light[2] > 2.0 * max(self._top, 0.0) \
                or not bool(np.isfinite(light).all()):
            return np.asarray(np.asarray(hits(light, g, s[None, :, :]), bool).any(axis=1), bool)
        reach = np.hypot(light[0] - g[:, 0], light[1] - g[:, 1]) / light[2]  # (N,) D / L_z
        i, j = _nonzero2(self._key <= (reach + 1e-9)[:, None])
        out = np.zeros(len(g), bool)
        if len(i):
            met = np.asarray(hits(light, g[i], s[j][:, None, :]), bool)[:, 0]
            out[i[met]] = True
        return out

    def shaded_many(self, lights: F64) -> B:
        """(L, N): :meth:`shaded` for each of the lights (L, 3), the pairs of all of them tested in one call
        (:func:`hits_pairs`: the same answers as :func:`hits` pair by pair)."""
        lights = np.asarray(lights, np.float64).reshape(-1, 3)
        g, s = self.ground, self.solids
        if not len(lights) or not len(g) or not len(s) or not self._flat \
                or not bool(np.all(lights[:, 2] > 2.0 * max(self._top, 0.0))) or not bool(np.isfinite(lights).all()):
            return np.array([self.shaded(x) for x in lights], bool).reshape(len(lights), len(g))
        reach = np.hypot(lights[:, None, 0] - g[None, :, 0], lights[:, None, 1] - g[None, :, 1]) \
            / lights[:, 2, None]  # (L, N)
        li, i, j = np.nonzero(self._key[None, :, :] <= (reach + 1e-9)[:, :, None])
        out = np.zeros((len(lights), len(g)), bool)
        if len(li):
            met = hits_pairs(lights[li], g[i], s[j])
            out[li[met], i[met]] = True
        return out


def hits_pairs(origins: F64, ends: F64, solids: F64) -> B:
    """For K (segment, solid) pairs -- segment ``k`` from ``origins[k]`` to ``ends[k]`` (K, 3), solid row
    ``solids[k]`` (K, 6) --: does the whole segment (``t`` from 0 to 1) meet its solid?  The answers of
    ``hits(origins[k], ends[k], solids[k][None])``, pair by pair: every value is computed from the same operands by
    the same operations, in the same order, as :func:`hits` does (each step elementwise; an origin per pair instead of
    one camera), so a batch of segments from many origins (a lamp search's lights) is one call (session 18)."""
    o = np.asarray(origins, np.float64).reshape(-1, 3)
    e = np.asarray(ends, np.float64).reshape(-1, 3)
    s = np.asarray(solids, np.float64).reshape(-1, 6)
    if not len(s):
        return np.zeros(0, bool)
    dv = e - o
    with np.errstate(divide="ignore", invalid="ignore"):
        lo, hi = _clip_to_solids(0.0, 1.0, o[:, 0], o[:, 1], o[:, 2], dv[:, 0], dv[:, 1], dv[:, 2],
                                 *(s[:, k] for k in range(6)))
    return np.asarray(lo <= hi, bool)


def box_corners(boxes: F64) -> F64:
    """The 8 corners (M, 8, 3) of box rows (M, 6) (kind ignored: all boxes)."""
    sx = np.array([-1, 1, 1, -1, -1, 1, 1, -1], np.float64)
    sy = np.array([-1, -1, 1, 1, -1, -1, 1, 1], np.float64)
    out = np.empty((len(boxes), 8, 3))
    out[..., 0] = boxes[:, 1, None] + sx[None, :] * boxes[:, 3, None]
    out[..., 1] = boxes[:, 2, None] + sy[None, :] * boxes[:, 3, None]
    out[..., 2] = np.where(np.arange(8) < 4, boxes[:, 4, None], boxes[:, 5, None])
    return out


def box_ray_hits(camera: F64, ends: F64, boxes: F64, t_split: F64, px: F64 | None = None,
                 box_px: F64 | None = None, exclude: npt.NDArray[np.int64] | None = None, chunk: int = 12,
                 behind: bool = True) -> tuple[B, npt.NDArray[np.int64]]:
    """For rays ``camera -> ends`` (N, 3) and *box* rows ``boxes`` (M, 6): whether a box is met in front
    of ``t_split`` (N,) (``t <= t_split - 1e-3``: it hides what lies at ``t_split``), and the index of the
    highest box met beyond it (``t >= t_split - 1e-6``: rays come from above, the highest is met first;
    -1 for none).  ``exclude`` (N,) names one box per ray to leave out (or -1).

    With the rays' pixels ``px`` (N, 2) and each box's pixel bounding box ``box_px`` (M, 4: x0, y0, x1, y1)
    only the boxes whose bounding box holds a ray's pixel are tested (a ray meets a box only where the
    box is seen): rays are taken in chunks of ``chunk`` (callers pass neighbouring rays together).
    ``behind=False`` (callers that use the first answer only): with the pixels, the box behind is not
    looked for and the second answer is all -1."""
    n, m = len(ends), len(boxes)
    if n and m and px is not None and box_px is not None:
        return _box_ray_hits_culled(camera, ends, boxes, t_split, px, box_px, exclude, chunk, behind)
    before = np.zeros(n, bool)
    first = np.full(n, -1, np.int64)
    if n == 0 or m == 0:
        return before, first
    n_c = -(-n // chunk)
    pad = n_c * chunk - n
    e = np.concatenate([ends, np.repeat(ends[-1:], pad, axis=0)]).reshape(n_c, chunk, 3)
    ts = np.concatenate([t_split, np.repeat(t_split[-1:], pad)]).reshape(n_c, chunk)
    ex = np.full((n_c, chunk), -1, np.int64)
    if exclude is not None:
        ex.reshape(-1)[:n] = exclude
    if px is None or box_px is None:
        near = np.ones((n_c, m), bool)
    else:
        # each chunk's pixel bounds (x and y apart: a contiguous reduction each)
        p = np.concatenate([px, np.repeat(px[-1:], pad, axis=0)]).T.reshape(2, n_c, chunk)
        lo_x, hi_x, lo_y, hi_y = p[0].min(axis=1), p[0].max(axis=1), p[1].min(axis=1), p[1].max(axis=1)
        near = ((box_px[None, :, 0] <= hi_x[:, None]) & (box_px[None, :, 2] >= lo_x[:, None])
                & (box_px[None, :, 1] <= hi_y[:, None]) & (box_px[None, :, 3] >= lo_y[:, None]))  # (C, M)
    c_idx, m_idx = np.nonzero(near)  # (chunk, box) pairs, grouped by chunk
    if not len(c_idx):
        return before, first
    rows = boxes[m_idx]  # (L, 6)
    o = camera.reshape(3)
    with np.errstate(divide="ignore", invalid="ignore"):
        # (3, C, P): per ray once, then gathered per (chunk, box) pair, one axis at a time
        inv_c = np.ascontiguousarray((1.0 / (e - o)).transpose(2, 0, 1))
        lo = hi = np.empty(0)
        for axis, a, b in ((2, rows[:, 4], rows[:, 5]), (0, rows[:, 1] - rows[:, 3], rows[:, 1] + rows[:, 3]),
                           (1, rows[:, 2] - rows[:, 3], rows[:, 2] + rows[:, 3])):
            inv = inv_c[axis][c_idx]  # (L, P)
            t1 = (a[:, None] - o[axis]) * inv
            t2 = (b[:, None] - o[axis]) * inv
            if axis == 2:  # (the first slab: the interval starts as this one)
                lo, hi = np.minimum(t1, t2), np.maximum(t1, t2)
            else:
                np.maximum(lo, np.minimum(t1, t2), out=lo)
                np.minimum(hi, np.maximum(t1, t2), out=hi)
    ok = m_idx[:, None] != ex[c_idx]
    bef = ok & (np.maximum(lo, 0.0) <= np.minimum(hi, (ts - 1e-3)[c_idx]))
    beh = ok & (np.maximum(lo, (ts - 1e-6)[c_idx]) <= np.minimum(hi, 1.0))
    new_group = np.empty(len(c_idx), bool)  # (pairs are grouped by chunk: where a chunk's pairs start)
    new_group[0] = True
    np.not_equal(c_idx[1:], c_idx[:-1], out=new_group[1:])
    starts = np.flatnonzero(new_group)
    chunks = c_idx[starts]
    top = np.where(beh, rows[:, 5, None], -np.inf)
    best = np.maximum.reduceat(top, starts, axis=0)  # (G, P): the highest box met behind
    group = np.cumsum(new_group) - 1  # each pair's chunk group
    which = np.where(beh & (top == best[group]), m_idx[:, None], -1)
    b_all = np.zeros((n_c, chunk), bool)
    f_all = np.full((n_c, chunk), -1, np.int64)
    b_all[chunks] = np.logical_or.reduceat(bef, starts, axis=0)
    f_all[chunks] = np.maximum.reduceat(which, starts, axis=0)
    before[:] = b_all.reshape(-1)[:n]
    first[:] = f_all.reshape(-1)[:n]
    return before, first


#: :func:`box_ray_hits` with the rays' pixels: calls with at most this many (ray, box) pairs find the pairs to test by
#: testing every pair's pixel at once, larger ones chunk by chunk (session 19: the same pairs either way)
DENSE_PAIRS = 8000


def _pairs_seen(px: F64, box_px: F64, exclude: npt.NDArray[np.int64] | None
                ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The (ray, box) pairs whose box's bounding box ``box_px`` (M, 4) holds the ray's pixel ``px`` (N, 2), less each
    ray's box left out (``exclude``), every pair tested at once: (rays, boxes) of the pairs, by ray, then box."""
    bt = np.ascontiguousarray(box_px.T)  # (4, M)
    x, y = px[:, 0], px[:, 1]
    inside = np.greater_equal.outer(x, bt[0])  # (N, M)
    inside &= np.less_equal.outer(x, bt[2])
    inside &= np.greater_equal.outer(y, bt[1])
    inside &= np.less_equal.outer(y, bt[3])
    if exclude is not None:
        r = np.nonzero((exclude >= 0) & (exclude < len(box_px)))[0]
        inside[r, exclude[r]] = False
    return _nonzero2(inside)


def _pairs_seen_by_chunk(px: F64, box_px: F64, exclude: npt.NDArray[np.int64] | None, chunk: int
                         ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """:func:`_pairs_seen` (the same pairs, in another order), chunk by chunk: the (chunk of ``chunk`` neighbouring
    rays, box) pairs whose bounds meet, then the rays of those chunks whose pixel the box's bounding box holds (a
    ray inside a box's bounds lies in its chunk's bounds, so no pair is lost by the first test; a NaN pixel makes its
    chunk's bounds NaN: none of that chunk's rays has a pair)."""
    n = len(px)
    n_c = -(-n // chunk)
    pad = n_c * chunk - n
    n_p = n_c * chunk
    xy_flat = np.empty((2, n_p))
    xy_flat[:, :n] = px.T
    if pad:
        xy_flat[:, n:] = px[-1][:, None]
    xy = xy_flat.reshape(2, n_c, chunk)
    lo_c, hi_c = np.minimum.reduce(xy, axis=2), np.maximum.reduce(xy, axis=2)  # (2, C) each chunk's pixel bounds
    bt = np.ascontiguousarray(box_px.T)  # (4, M)
    near_t = np.less_equal.outer(bt[0], hi_c[0])  # (M, C)
    near_t &= np.greater_equal.outer(bt[2], lo_c[0])
    near_t &= np.less_equal.outer(bt[1], hi_c[1])
    near_t &= np.greater_equal.outer(bt[3], lo_c[1])
    near = near_t.T
    ex_pair: npt.NDArray[np.int64] | None = None
    if exclude is not None:
        ex = np.full(n_p, -1, np.int64)
        ex[:n] = exclude
        ex_pair = ex.reshape(n_c, chunk)
        if (ex_pair == ex_pair[:, :1]).all():  # one box left out per chunk: gone with the chunk's pairs
            drop = np.nonzero(ex_pair[:, 0] >= 0)[0]
            near[drop, ex_pair[drop, 0]] = False
            ex_pair = None
    c_idx, m_idx = _nonzero2(near)
    if not len(c_idx):
        return c_idx, m_idx
    x, y = xy[0][c_idx], xy[1][c_idx]  # (L, P)
    bp = bt[:, m_idx, None]  # (4, L, 1)
    inside = bp[0] <= x
    inside &= bp[2] >= x
    inside &= bp[1] <= y
    inside &= bp[3] >= y
    if ex_pair is not None:
        inside &= m_idx[:, None] != ex_pair[c_idx]
    if pad:  # (the last chunk's padding: no ray)
        inside[c_idx == n_c - 1, chunk - pad:] = False
    l_k, p_k = _nonzero2(inside)
    return c_idx[l_k] * chunk + p_k, m_idx[l_k]


def _box_ray_hits_culled(camera: F64, ends: F64, boxes: F64, t_split: F64, px: F64, box_px: F64,
                         exclude: npt.NDArray[np.int64] | None, chunk: int, behind: bool = True
                         ) -> tuple[B, npt.NDArray[np.int64]]:
    """:func:`box_ray_hits` with the rays' pixels: the (chunk, box) pairs whose bounds meet, then only
    the (ray, box) pairs whose box's bounding box holds the ray's pixel are tested, each once (flat
    arrays).  The same numbers as the dense test of every ray of a chunk (each pair's slab values are
    computed from the same operands by the same operations; a box whose bounds miss a ray's pixel is
    not seen there, so that ray cannot meet it).  When every ray of a chunk leaves out the same box
    (``exclude``: a solid's own ring of points) that box is dropped with the chunk's pairs, before the
    pixel test: the same pairs go.  Calls with few pairs (:data:`DENSE_PAIRS`; no NaN pixel) test every pair's pixel
    at once instead (:func:`_pairs_seen`): the same pairs, and each pair's answer does not depend on the others'."""
    n, m = len(ends), len(boxes)
    if n * m <= DENSE_PAIRS and not np.isnan(px).any():
        ray, mk = _pairs_seen(px, box_px, exclude)
    else:
        ray, mk = _pairs_seen_by_chunk(px, box_px, exclude, chunk)
    before = np.zeros(n, bool)
    first = np.full(n, -1, np.int64)
    if not len(ray):
        return before, first
    o = camera.reshape(3)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = np.ascontiguousarray((1.0 / (ends - o)).T)  # (3, N): per ray once, gathered per pair
        lo = hi = np.empty(0)
        # each box's slab bounds less the camera's coordinate, per box once, gathered per pair
        for axis, a, b in ((2, boxes[:, 4], boxes[:, 5]), (0, boxes[:, 1] - boxes[:, 3], boxes[:, 1] + boxes[:, 3]),
                           (1, boxes[:, 2] - boxes[:, 3], boxes[:, 2] + boxes[:, 3])):
            inv_k = inv[axis][ray]
            t1 = (a - o[axis])[mk] * inv_k
            t2 = (b - o[axis])[mk] * inv_k
            if axis == 2:  # (the first slab: the interval starts as this one)
                lo, hi = np.minimum(t1, t2), np.maximum(t1, t2)
            else:
                np.maximum(lo, np.minimum(t1, t2), out=lo)
                np.minimum(hi, np.maximum(t1, t2), out=hi)
    t = t_split[ray]
    bef = np.maximum(lo, 0.0) <= np.minimum(hi, t - 1e-3)
    before[ray[bef]] = True
    if not behind:
        return before, first
    beh = np.maximum(lo, t - 1e-6) <= np.minimum(hi, 1.0)
    # the highest box met behind (ties: the last such box), by the boxes' rank in (top, index) order
    order = np.argsort(boxes[:, 5], kind="stable")
    rank = np.empty(m, np.int64)
    rank[order] = np.arange(m)
    best = np.full(n, -1, np.int64)
    np.maximum.at(best, ray[beh], rank[mk[beh]])
    first[:] = np.where(best >= 0, order[np.maximum(best, 0)], -1)
    return before, first
