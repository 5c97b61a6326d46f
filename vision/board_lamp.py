"""A lamp for Gridopolis pictures (session 17): one direction of direct light plus a fill ("ambient") light per
channel, fitted per picture to the pad tops it shows, so that the shade the pads above cast on a pad top can be
predicted at any point of the grid set.

Only the picture and the geometry the reader already has go in: the pads it found (boxes: kind, centre x, centre y,
half-size, z0, z1, as :func:`vision.board_rays.hits`), points on their tops and the linear RGB seen there (white
balanced).  Nothing of a renderer's light is used.  The model: a pad-top point ``p`` on a pad of (unknown) albedo
``a`` shows ``a * (k + lit(p))`` per channel, ``lit`` 1 where the ray from ``p`` towards the lamp meets no pad and 0
where it does, ``k`` the fill light's share against the direct light's (per channel: a cool sky fill makes the
shade bluish).  Pad tops are horizontal, so the direct term's cosine is the same for every point and folds into
``k``.  The direction is the one whose shadows best split each pad top's points into a brighter lit and a darker
shaded group (between-group spread of log luminance, summed over pads, only pads with points in both groups count);
``k`` from the median lit / shaded ratio over those pads.  Real tables have several lamps, soft ones and a room
around: the fit takes the one whose shadows the pad tops show most plainly; the rest is fill."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]
B = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class GridLamp:
    """A fitted lamp: ``direction`` (3,) unit vector towards the lamp (z up), ``fill`` (3,) the fill light's share
    against the direct light per linear RGB channel, ``split`` the share of the pad tops' within-pad spread of log
    luminance the lit / shaded split explains (0-1), ``pads`` how many pad tops showed both."""

    direction: F64
    fill: F64
    split: float
    pads: int

    def factor(self, lit: F64) -> F64:
        """Predicted light (N, 3) at points with lit shares ``lit`` (N,) relative to a fully lit point."""
        return np.asarray((self.fill[None, :] + np.asarray(lit, np.float64)[:, None]) / (self.fill[None, :] + 1.0),
                          np.float64)


def shadowed(points: F64, direction: F64, boxes: F64, above: float = 0.5) -> B:
    """Whether the ray from each point (N, 3) towards ``direction`` (3,), z > 0, meets one of ``boxes`` (M, 6) whose
    bottom lies more than ``above`` mm over the point (N,).  Boxes only (square footprints)."""
    n = len(points)
    if n == 0 or len(boxes) == 0:
        return np.zeros(n, bool)
    d = np.asarray(direction, np.float64)
    p = np.asarray(points, np.float64)
    bx = np.asarray(boxes, np.float64)
    dz = max(float(d[2]), 1e-6)
    rel_z0 = bx[None, :, 4] - p[:, None, 2]  # (N, M)
    rel_z1 = bx[None, :, 5] - p[:, None, 2]
    t0 = rel_z0 / dz
    t1 = rel_z1 / dz
    lo, hi = t0, t1
    for ax in (0, 1):
        c = bx[None, :, 1 + ax] - p[:, None, ax]
        h = bx[None, :, 3]
        if abs(float(d[ax])) < 1e-9:
            inside = np.abs(c) <= h
            lo = np.where(inside, lo, np.inf)
            continue
        a = (c - h) / d[ax]
        b = (c + h) / d[ax]
        lo = np.maximum(lo, np.minimum(a, b))
        hi = np.minimum(hi, np.maximum(a, b))
    met = (lo <= hi) & (hi > 0) & (rel_z0 > above)
    return np.asarray(met.any(axis=1), bool)


def lit_share(points: F64, lamp: GridLamp, boxes: F64, spread_deg: float = 0.0) -> F64:
    """The lamp's share (N,) reaching each point: 1 unshadowed, 0 shadowed; with ``spread_deg`` the mean over the
    direction and four directions that far round it (a lamp of some size: soft edges)."""
    d = lamp.direction
    if spread_deg <= 0:
        return np.asarray(~shadowed(points, d, boxes), np.float64)
    u = np.cross(d, [0.0, 0.0, 1.0]) if abs(d[2]) < 0.999 else np.array([1.0, 0.0, 0.0])
    u = u / np.linalg.norm(u)
    v = np.cross(d, u)
    s = math.tan(math.radians(spread_deg))
    dirs = [d] + [d + s * w for w in (u, -u, v, -v)]
    acc = np.zeros(len(points))
    for dd in dirs:
        dd = dd / np.linalg.norm(dd)
        if dd[2] <= 0.05:
            continue
        acc += ~shadowed(points, dd, boxes)
    return np.asarray(acc / len(dirs), np.float64)


def _slope_boxes(points: F64, boxes: F64, above: float, reach: float) -> tuple[npt.NDArray[np.int64], F64]:
    """Each box's shadow on each point in slope space (``u = (dx / dz, dy / dz)`` of the directions it shades the
    point from): the point (P,) and the rectangle (P, 4: ux0, ux1, uy0, uy1) round the slopes through its footprint
    at its bottom and its top, for the boxes whose bottom lies more than ``above`` mm over the point and whose
    rectangle reaches within ``reach`` of straight up."""
    p = np.asarray(points, np.float64)
    bx = np.asarray(boxes, np.float64)
    bx = bx[bx[:, 4] > p[:, 2].min() + above] if len(p) else bx  # (only boxes above some point)
    s0 = bx[None, :, 4] - p[:, None, 2]
    near = s0 > above
    for ax in (0, 1):  # (a box farther sideways than ``reach`` times its rise shades from lower than that)
        near &= np.abs(bx[None, :, 1 + ax] - p[:, None, ax]) <= reach * (bx[None, :, 5] - p[:, None, 2]) \
            + bx[None, :, 3]
    pi, bj = np.nonzero(near)
    lo_s, hi_s = s0[pi, bj], bx[bj, 5] - p[pi, 2]
    rect = np.empty((len(pi), 4))
    for ax in (0, 1):
        a = bx[bj, 1 + ax] - bx[bj, 3] - p[pi, ax]
        b = bx[bj, 1 + ax] + bx[bj, 3] - p[pi, ax]
        rect[:, 2 * ax] = np.minimum(np.minimum(a / lo_s, a / hi_s), np.minimum(b / lo_s, b / hi_s))
        rect[:, 2 * ax + 1] = np.maximum(np.maximum(a / lo_s, a / hi_s), np.maximum(b / lo_s, b / hi_s))
    return pi.astype(np.int64), rect


def _paint(n: int, pi: npt.NDArray[np.int64], rect: F64, reach: float, step: float,
           centre: tuple[float, float]) -> tuple[B, F64]:
    """The raster of :func:`shadow_raster` from :func:`_slope_boxes`' rectangles."""
    base = np.arange(-reach, reach + 1e-9, step)
    n_t = len(base)
    ux, uy = np.meshgrid(base + centre[0], base + centre[1], indexing="ij")
    dirs = np.column_stack([ux.ravel(), uy.ravel(), np.ones(ux.size)])
    dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    out = np.zeros((n, len(dirs)), bool)
    lims = []
    for ax in (0, 1):
        i0 = np.ceil((rect[:, 2 * ax] - centre[ax] + reach) / step - 1e-9).astype(np.int64)
        i1 = np.floor((rect[:, 2 * ax + 1] - centre[ax] + reach) / step + 1e-9).astype(np.int64)
        lims.append((np.clip(i0, 0, n_t), np.clip(i1 + 1, 0, n_t)))
    (x0, x1), (y0, y1) = lims
    ok = (x1 > x0) & (y1 > y0)
    if not ok.any():
        return out, dirs
    pi, x0, x1, y0, y1 = pi[ok], x0[ok], x1[ok], y0[ok], y1[ok]
    rows, pr = np.unique(pi, return_inverse=True)  # (only the points some box may shade)
    m = n_t + 1
    flat = np.concatenate([(pr * m + x0) * m + y0, (pr * m + x1) * m + y0, (pr * m + x0) * m + y1,
                           (pr * m + x1) * m + y1])
    sign = np.repeat(np.array([1.0, -1.0, -1.0, 1.0]), len(pr))
    acc = np.bincount(flat, sign, len(rows) * m * m).astype(np.int16).reshape(len(rows), m, m)
    cov = acc.cumsum(axis=1, dtype=np.int16).cumsum(axis=2, dtype=np.int16)[:, :n_t, :n_t]
    out[rows] = cov.reshape(len(rows), -1) > 0
    return out, dirs


def shadow_raster(points: F64, boxes: F64, reach: float = 1.8, step: float = 0.2, above: float = 0.5,
                  centre: tuple[float, float] = (0.0, 0.0)) -> tuple[B, F64]:
    """For every point (N, 3) and every direction of a raster over the slopes ``u = (dx / dz, dy / dz)`` within
    ``reach`` of ``centre`` in steps of ``step``: whether a box of ``boxes`` (M, 6) whose bottom lies more than
    ``above`` mm over the point shades it from that direction.  Returns (N, K) and the directions (K, 3) (unit
    vectors, z > 0).  Each box's shadow in slope space is taken as the rectangle round the slopes through its
    footprint at its bottom and its top (exact for the thin pads, a little generous for tall pieces), painted with a
    summed-area table."""
    n = len(points)
    if n == 0 or len(boxes) == 0:
        return _paint(n, np.zeros(0, np.int64), np.zeros((0, 4)), reach, step, centre)
    far = reach + math.hypot(*centre)
    pi, rect = _slope_boxes(points, boxes, above, far)
    return _paint(n, pi, rect, reach, step, centre)


def _split_scores(shade: B, y: F64, g: npt.NDArray[np.int64], n_g: int, min_each: int) -> tuple[F64, B]:
    """Per direction (K,): the between-group spread of ``y`` (lit against shaded) summed over the pads (signed: a
    pad whose shaded points are the brighter counts against), and which pads show ``min_each`` of both (pads, K)."""
    cnt = np.bincount(g, minlength=n_g).astype(np.float64)
    order = np.argsort(g, kind="stable")
    starts = np.searchsorted(g[order], np.arange(n_g))
    s_o = shade[order]
    n_sh = np.add.reduceat(s_o.astype(np.int32), starts, axis=0).astype(np.float64)  # (pads, K)
    s_sh = np.add.reduceat(np.where(s_o, y[order, None], 0.0), starts, axis=0)
    n_lit = cnt[:, None] - n_sh
    s_lit = np.bincount(g, y, n_g)[:, None] - s_sh
    both = (n_sh >= min_each) & (n_lit >= min_each)
    diff = np.where(both, s_lit / np.maximum(n_lit, 1) - s_sh / np.maximum(n_sh, 1), 0.0)
    ssb = np.where(both, n_sh * n_lit / np.maximum(cnt[:, None], 1) * diff * diff, 0.0)
    return np.asarray((np.sign(diff) * ssb).sum(axis=0), np.float64), np.asarray(both, bool)


def fit_grid_lamp(points: F64, rgb: F64, pad: npt.NDArray[np.int64], boxes: F64, min_each: int = 3,
                  min_pads: int = 2, min_split: float = 0.15, max_fill: float = 3.0) -> GridLamp | None:
    """The lamp (:class:`GridLamp`) that best explains the pad-top points ``points`` (N, 3) seen with linear RGB
    ``rgb`` (N, 3) (white balanced), ``pad`` (N,) the pad each lies on, ``boxes`` (M, 6) the pads (and any other
    solids) that may shade them; directions from :func:`shadow_raster`, the best two of a coarse raster (slopes
    0.3 apart) each looked at on a finer one round it (0.075).  ``None`` when fewer than ``min_pads`` pad
    tops show ``min_each`` points lit and shaded for the best direction, or the split explains under ``min_split``
    of the within-pad spread, or the fill's mean share over the channels exceeds ``max_fill`` (lit points under
    1.33 times as bright as shaded ones: no plain direct light, a dim or soft-lit table)."""
    if len(points) < 2 * min_each or len(boxes) == 0:
        return None
    y = np.log(np.clip(rgb.mean(axis=1), 1e-4, None))
    _, g = np.unique(pad, return_inverse=True)
    n_g = int(g.max()) + 1
    cnt = np.bincount(g, minlength=n_g).astype(np.float64)
    mean_g = np.bincount(g, y, n_g) / np.maximum(cnt, 1)
    if float(((y - mean_g[g]) ** 2).sum()) <= 1e-9:
        return None
    pi, rect = _slope_boxes(points, boxes, 0.5, 2.1)
    shade, dirs = _paint(len(points), pi, rect, 1.8, 0.3, (0.0, 0.0))
    score, _ = _split_scores(shade, y, g, n_g, min_each)
    best: tuple[float, F64, B, B] | None = None
    for k0 in np.argsort(score)[::-1][:2]:  # (the best two of the coarse raster, each looked at finer)
        if score[k0] <= 0:
            break
        d0 = dirs[k0]
        fine, f_dirs = _paint(len(points), pi, rect, 0.3, 0.075, (d0[0] / d0[2], d0[1] / d0[2]))
        f_score, f_both = _split_scores(fine, y, g, n_g, min_each)
        k = int(np.argmax(f_score))
        if best is None or f_score[k] > best[0]:
            best = (float(f_score[k]), f_dirs[k], fine[:, k], f_both[:, k])
    if best is None:
        return None
    top, direction, sh, both_k = best
    both_i = np.flatnonzero(both_k)
    ss_both = float(((y - mean_g[g]) ** 2)[np.isin(g, both_i)].sum())
    split = top / ss_both if ss_both > 0 else 0.0
    if len(both_i) < min_pads or split < min_split:
        return None
    logc = np.log(np.clip(rgb, 1e-4, None))
    ratios = []
    for j in both_i:
        m = g == j
        ratios.append(np.median(logc[m & ~sh], axis=0) - np.median(logc[m & sh], axis=0))
    r = np.exp(np.clip(np.median(np.asarray(ratios), axis=0), 0.05, 4.0))
    fill = 1.0 / (r - 1.0)
    if float(fill.mean()) > max_fill:
        return None
    return GridLamp(np.asarray(direction, np.float64).copy(), np.asarray(fill, np.float64), split, len(both_i))
