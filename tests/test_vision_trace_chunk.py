"""The ray trace's chunk size (``vision.reconstruct.TRACE_CHUNK``, session 18: 8192 -> 4096 rays a chunk for
speed) does not change any ray's cells: the same table for every chunk size, and the same cells as tracing each
ray alone over every plane of the volume (the definition: every crossing of a cell boundary plane, sorted; each
segment's midpoint names its cell)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import vision.reconstruct as rec
from vision.camera import ViewCamera
from vision.reconstruct import ReconstructConfig, ViewEvidence, _trace_pixels, _Volume
from vision.synthetic import render_labels, standard_cameras


def _view() -> ViewEvidence:
    size = (640, 360)
    k = np.array([[480.0, 0, 320], [0, 480.0, 180], [0, 0, 1]])
    cams: dict[str, ViewCamera] = standard_cameras(k, size, elevation_deg=35.0)
    side, cam = sorted(cams.items())[0]
    blocks = {(0, -1, 0): "blue", (1, -1, 0): "pink", (0, -1, 1): "green", (3, 2, 0): "yellow"}
    return ViewEvidence(cam, render_labels(blocks, {}, cam), side)


def _pixels(view: ViewEvidence, step: int) -> tuple[np.ndarray, np.ndarray]:
    h, w = view.labels.shape
    ys, xs = np.mgrid[0:h:step, 0:w:step]
    pix = np.stack([xs.ravel(), ys.ravel()], axis=1).astype(np.int64)
    return pix, view.labels[pix[:, 1], pix[:, 0]].astype(np.int64)


def _by_definition(c: np.ndarray, d: np.ndarray, t0: float, t1: float, vol: _Volume) -> list[int]:
    """One ray's cells: every plane of the volume, no window, no chunk."""
    ts = [t0, t1]
    for a in range(3):
        for p in range(int(vol.lo[a]), int(vol.hi[a]) + 1):
            if d[a] != 0:
                t = (p - c[a]) / d[a]
                if t0 < t < t1:
                    ts.append(t)
    ts.sort()
    out: list[int] = []
    for ta, tb in itertools.pairwise(ts):
        if tb - ta <= 1e-9:
            out.append(-1)
            continue
        m = 0.5 * (ta + tb)
        cell = np.floor(c + m * d).astype(np.int64)
        out.append(int(vol.index(cell[None, :])[0]))
    return out


def _trace(view: ViewEvidence, pix: np.ndarray, lab: np.ndarray) -> np.ndarray:
    return _trace_pixels(view, _Volume(ReconstructConfig()), pix, lab)[0].idx


@pytest.mark.parametrize("chunk", [8192, 1000, 37])
def test_every_chunk_size_traces_the_same_cells(monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    view = _view()
    pix, lab = _pixels(view, 2)  # every 2nd pixel: ~57k pixels, several chunks of 4096 reach the volume
    base = _trace(view, pix, lab)
    assert len(base) > 3 * rec.TRACE_CHUNK
    monkeypatch.setattr(rec, "TRACE_CHUNK", chunk)
    other = _trace(view, pix, lab)
    assert other.shape == base.shape
    assert np.array_equal(other, base)


def test_the_trace_matches_the_definition_ray_by_ray() -> None:
    view = _view()
    vol = _Volume(ReconstructConfig())
    pix, lab = _pixels(view, 9)
    rays = _trace_pixels(view, vol, pix, lab)[0]
    assert len(rays.labels) > 500
    # the same rays' entry and exit as the trace (the box and the table)
    c = rays.origin
    lo, hi = vol.lo.astype(float), vol.hi.astype(float)
    checked = 0
    for row, d in enumerate(rays.dirs[::7]):
        with np.errstate(divide="ignore", invalid="ignore"):
            t1, t2 = (lo - c) / d, (hi - c) / d
            tmin = max(0.0, float(np.nanmax(np.minimum(t1, t2))))
            tmax = float(np.nanmin(np.maximum(t1, t2)))
        if d[2] < 0:
            tmax = min(tmax, -c[2] / d[2])
        want = _by_definition(c, d, tmin, tmax, vol)
        got = rays.idx[row * 7].tolist()
        # the table pads each row with -1; a trailing -1 of the definition is a zero-length last segment
        while want and want[-1] == -1:
            want.pop()
        assert got[:len(want)] == want
        assert all(v == -1 for v in got[len(want):])
        checked += 1
    assert checked > 70
