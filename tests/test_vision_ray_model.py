"""The reconstruct stage's ray table (``vision.reconstruct._RayModel``): its inverted index (the rays
through each cell, in order), each cell's column on them and each ray's first gap agree with reading the table row by
row, also for a ray that lists a cell twice (the trace never produced one on the fixtures, but a
midpoint rounded into the wrong cell could) and for rays with gaps (-1, zero-length segments)."""

from __future__ import annotations

import numpy as np

from vision.reconstruct import _RayModel, _Rays


def _rays(idx: list[list[int]], label: int = 2) -> _Rays:
    a = np.array(idx, np.int64)
    n = len(a)
    return _Rays(a, np.full(n, label, np.int64), np.zeros((n, 2), np.int64), np.array([1.0, 2.0, 3.0]),
                 np.tile(np.array([0.0, 0.6, -0.8]), (n, 1)))


def test_inverted_index_and_columns_match_the_table() -> None:
    rng = np.random.default_rng(5)
    n_cells = 40
    views = []
    for _ in range(3):
        rows = []
        for _ in range(50):
            k = int(rng.integers(0, 10))  # up to the whole width
            row = list(rng.choice(n_cells, size=k, replace=False)) + [-1] * (9 - k)
            if k >= 3 and rng.random() < 0.3:
                row[k - 1] = row[0]  # a cell listed twice on one ray
            if k >= 2 and rng.random() < 0.3:
                row[1] = -1  # a gap
            rows.append([int(v) for v in row])
        views.append(_rays(rows))
    model = _RayModel(views, n_cells)
    assert (model.dirs[:, 0] == [0.0, 0.6, -0.8]).all() and (model.origins[:, -1] == [1.0, 2.0, 3.0]).all()
    for r, row in enumerate(model.idx.tolist()):  # the first column without a cell (the width when none)
        assert model.first_gap[r] == next((k for k, v in enumerate(row) if v < 0), len(row))
    repeated = 0
    for c in range(n_cells):
        want_rows = [r for r in range(len(model.idx)) for v in model.idx[r] if v == c]  # once per entry, in order
        assert model.rays_of[c].tolist() == want_rows
        want_cols = [int(np.argmax(model.idx[r] == c)) for r in want_rows]  # the first column of ``c``
        assert model.cols_of(c).tolist() == want_cols
        repeated += len(want_rows) - len(set(want_rows))
    assert repeated > 0


def test_label_counts_are_a_bincount_per_label() -> None:
    """``_label_counts`` (one count over all labels, used by the search's fill costs) gives, column by
    column, the per-label weighted ``np.bincount`` it replaced: other labels, repeated labels, empty
    input (random data)."""
    from vision.reconstruct import _label_counts

    rng = np.random.default_rng(5)
    for trial in range(40):
        n = int(rng.integers(1, 60))
        m = int(rng.integers(0, 300)) if trial else 0
        cells = rng.integers(0, n, m).astype(np.int64)
        obs = rng.integers(0, 12, m).astype(np.int64)
        labels = [int(v) for v in rng.integers(0, 14, int(rng.integers(0, 5)))]
        got = _label_counts(cells, obs, labels, n)
        assert got.shape == (n, len(labels)) and got.dtype == np.float64
        for k, v in enumerate(labels):
            assert np.array_equal(got[:, k], np.bincount(cells, weights=(obs == v), minlength=n))


def test_rays_ending_on_the_central_cube_and_the_cost_on_some_rays() -> None:
    """``RayScorer.ends_on_cube`` (the opening reading prices candidates without the rays that end on
    the Central Cube's glossy faces) and ``cost_where`` (the cost on marked rays only)."""
    from vision.reconstruct import RayScorer, ReconstructConfig, _Volume

    vol = _Volume(ReconstructConfig())
    front, cube, side, mat = (vol.index1(c) for c in [(1, -1, 1), (1, 0, 1), (4, 4, 0), (5, 4, 0)])
    # ray 0 crosses 1,-1,1 then the Central Cube; ray 1 crosses 4,4,0 then 5,4,0 (the mat beyond)
    model = _RayModel([_rays([[front, cube], [side, mat]], label=2)], vol.n)
    scorer = RayScorer(model, vol)
    assert scorer.ends_on_cube({}).tolist() == [True, False]
    assert scorer.ends_on_cube({(1, -1, 1): "blue"}).tolist() == [False, False]
    everything = np.ones(2, bool)
    for blocks in ({}, {(1, -1, 1): "blue"}, {(4, 4, 0): "pink"}):
        assert scorer.cost_where(blocks, everything) == scorer.cost(blocks)
    # both rays show blue: a blue block in front of the cube explains ray 0, nothing explains ray 1
    assert scorer.cost({(1, -1, 1): "blue"}) == 1
    assert scorer.cost_where({(1, -1, 1): "blue"}, ~scorer.ends_on_cube({})) == 1
    assert scorer.cost_where({}, ~scorer.ends_on_cube({})) == 1  # ray 0 no longer counts either way
