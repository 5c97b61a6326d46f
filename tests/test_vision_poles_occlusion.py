"""vision.poles._behind_cells samples every point's segment at once; this pins it to sampling the
segments point by point (the code it replaced), on random piles, cameras and pole points."""
from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vision.poles import _behind_cells


def _behind_cells_one_by_one(origin: npt.NDArray[np.float64], pts: npt.NDArray[np.float64],
                             occupied: set[tuple[int, int, int]], own: tuple[int, int, int],
                             step: float = 0.2) -> npt.NDArray[np.bool_]:
    occ = {c for c in occupied if c != own}
    out = np.zeros(len(pts), bool)
    if not occ:
        return out
    cells = np.array(sorted(occ), np.int64)
    lo, hi = cells.min(axis=0), cells.max(axis=0) + 1
    grid = np.zeros(tuple(int(v) for v in hi - lo), bool)
    grid[tuple((cells - lo).T)] = True
    for k, p in enumerate(pts):
        d = p - origin
        length = float(np.linalg.norm(d))
        ts = np.arange(0.0, max(length - step / 2, 0.0), step) / max(length, 1e-9)
        q = np.floor(origin[None, :] + ts[:, None] * d[None, :]).astype(np.int64) - lo
        inside = np.all((q >= 0) & (q < grid.shape), axis=1)
        q = q[inside]
        out[k] = bool(grid[q[:, 0], q[:, 1], q[:, 2]].any()) if len(q) else False
    return out


def test_all_at_once_equals_one_by_one() -> None:
    rng = np.random.default_rng(20261122)
    hits = 0
    for _ in range(300):
        occupied = {tuple(int(v) for v in rng.integers(-4, 5, 3)) for _ in range(int(rng.integers(0, 60)))}
        own = tuple(int(v) for v in rng.integers(-4, 5, 3))
        if rng.random() < 0.5:
            occupied.add(own)
        origin = rng.normal(0.0, 1.0, 3) * 12.0 + np.array([0.0, 0.0, 6.0])
        pts = np.array(own, float)[None, :] + rng.random((int(rng.integers(0, 20)), 3))
        if rng.random() < 0.1:
            pts = np.repeat(origin[None, :], 3, axis=0)  # segments of length 0
        fast = _behind_cells(origin, pts, occupied, own)  # type: ignore[arg-type]
        slow = _behind_cells_one_by_one(origin, pts, occupied, own)  # type: ignore[arg-type]
        assert fast.dtype == bool and fast.shape == slow.shape
        assert np.array_equal(fast, slow)
        hits += int(slow.sum())
    assert hits > 100  # the piles do hide points: the comparison is not only of empty answers
