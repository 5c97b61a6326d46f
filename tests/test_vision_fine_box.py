"""The fine rays listed inside a box only and up to their first block read (session 19:
``reconstruct.trace_pixels``'s ``box`` and ``kept``, ``fine_rays.pricing_box``): each ray keeps the cells of its
whole row that lie in the box, in order, and a scorer asked about blocks inside the box prices them as the whole
rows do."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from benchmarks.ctrl_scenes import load_scene
from engine.ctrl.geometry import CENTRAL_CUBE
from vision import fine_rays
from vision.camera import ViewCamera
from vision.reconstruct import ReconstructConfig, ViewEvidence, _trace_pixels, _Volume
from vision.synthetic import render_labels, standard_cameras

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"
Cell = tuple[int, int, int]


def _views(elevation: float) -> list[ViewEvidence]:
    size = (640, 360)
    k = np.array([[480.0, 0, 320], [0, 480.0, 180], [0, 0, 1]])
    cams: dict[str, ViewCamera] = standard_cameras(k, size, elevation_deg=elevation)
    blocks = {(0, -1, 0): "blue", (1, -1, 0): "pink", (0, -1, 1): "green", (3, 2, 0): "yellow"}
    return [ViewEvidence(cam, render_labels(blocks, {}, cam), side) for side, cam in sorted(cams.items())]


@pytest.mark.parametrize("elevation", [35.0, 62.0, 90.0])
def test_a_ray_in_a_box_lists_its_rows_cells_in_the_box(elevation: float) -> None:
    vol = _Volume(ReconstructConfig())
    rng = np.random.default_rng(2026131104)
    boxes: list[tuple[Cell, Cell]] = [((-1, -2, 0), (3, 3, 2)), ((2, 2, 1), (2, 2, 1)), ((-5, -5, 0), (7, 7, 7)),
                                      ((-9, 0, -3), (0, 12, 3))]
    for _ in range(4):
        a, b = rng.integers(-6, 9, 3), rng.integers(-6, 9, 3)
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        boxes.append(((int(lo[0]), int(lo[1]), int(lo[2])), (int(hi[0]), int(hi[1]), int(hi[2]))))
    checked = 0
    views = _views(elevation)
    for view in views:
        h, w = view.labels.shape
        ys, xs = np.mgrid[0:h:3, 0:w:3]
        pix = np.stack([xs.ravel(), ys.ravel()], axis=1).astype(np.int64)
        lab = view.labels[pix[:, 1], pix[:, 0]].astype(np.int64)
        whole = _trace_pixels(view, vol, pix, lab)[0]
        for box in boxes:
            cut = _trace_pixels(view, vol, pix, lab, box=box)[0]
            assert np.array_equal(cut.pixels, whole.pixels)  # the same rays
            cells = vol.cells(np.arange(vol.n))
            inside = np.zeros(vol.n + 1, bool)
            inside[:-1] = np.all((cells >= np.array(box[0])) & (cells <= np.array(box[1])), axis=1)
            for row in range(len(whole.labels)):
                full = whole.idx[row]
                want = full[inside[full]]  # (-1 reads the appended "outside" slot)
                got = cut.idx[row]
                assert np.array_equal(got[got >= 0], want), (box, row)
            checked += 1
    assert checked == len(views) * len(boxes) and len(views) >= 4


def test_fine_prices_in_the_box_are_the_whole_rows_prices() -> None:
    # a fixture reading's fine step, its candidates priced with and without the box: the same integers
    scene = load_scene(FIXTURES / "scene_013", with_camera=True)
    from vision.pipeline import score_images

    captured: dict[str, object] = {}
    real = fine_rays.fine_scorer

    def grab(*args: object, **kw: object) -> object:
        captured["args"], captured["kw"] = args, kw
        return real(*args, **kw)  # type: ignore[arg-type]

    mp = pytest.MonkeyPatch()
    mp.setattr(fine_rays, "fine_scorer", grab)
    try:
        res = score_images(scene.pics, scene.spec, scene.camera, None)
    finally:
        mp.undo()
    assert "args" in captured and captured["kw"]["box"] is not None  # type: ignore[index]
    assert captured["kw"]["kept"]  # type: ignore[index]  (the blocks read: rows end at the first of them)
    args = captured["args"]
    boxed = real(*args, **captured["kw"])  # type: ignore[arg-type]
    whole = real(*args)  # type: ignore[arg-type]
    assert boxed._model.idx.shape[1] < whole._model.idx.shape[1]  # shorter rows
    blocks = dict(res.state.blocks)
    lo, hi = captured["kw"]["box"]  # type: ignore[index]
    cells = [(x, y, z) for x in range(lo[0] + 1, hi[0]) for y in range(lo[1] + 1, hi[1]) for z in range(0, hi[2])
             if (x, y, z) not in blocks and (x, y, z) not in CENTRAL_CUBE]
    assert len(cells) > 50
    for colour in ("blue", "pink", "green", "yellow"):
        for sc in (boxed, whole):
            sc.set_base(blocks)
        assert boxed.deltas([[c] for c in cells], colour) == whole.deltas([[c] for c in cells], colour)
        two = [[cells[i], cells[j]] for i, j in zip(range(0, len(cells), 3), range(1, len(cells), 3), strict=False)]
        assert boxed.deltas(two, colour) == whole.deltas(two, colour)
        for c in cells[::9]:
            more = {**blocks, c: colour}
            assert np.array_equal(boxed.predictions(more), whole.predictions(more))
    assert boxed.set_base(blocks) == whole.set_base(blocks)


def test_cut_after_ends_each_row_at_its_first_kept_cell() -> None:
    vol = _Volume(ReconstructConfig())
    rng = np.random.default_rng(2026131105)
    idx = rng.integers(-1, vol.n, (400, 17))
    idx[::5, 9:] = -1  # short rows
    full_cells = [vol.cell(int(i)) for i in rng.choice(vol.n, 60, replace=False)]
    full = {vol.index1(c) for c in full_cells}
    got = rec_cut(idx, vol, full_cells)
    for row, g in zip(idx, got, strict=True):
        want = []
        for v in row.tolist():
            want.append(v)
            if v in full:
                break
        want += [-1] * (len(row) - len(want))
        assert g.tolist() == want[:len(g)] and all(v == -1 for v in want[len(g):])


def rec_cut(idx: np.ndarray, vol: _Volume, full: list[Cell]) -> np.ndarray:
    from vision.reconstruct import _cut_after

    return _cut_after(idx, vol, full)
