"""Speed shortcuts of the reconstruct stage's ray scorer pinned to the slow computations (issue 5).

SYNTHETIC label maps (``vision.synthetic.render_labels``) of fixture states: exact integer prices,
so every shortcut must give the very same numbers as the computation it replaces."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np

from engine.ctrl import State
from engine.ctrl.geometry import CENTRAL_CUBE, Cell
from engine.ctrl.moves import Placement
from engine.ctrl.record import turns_back
from vision.camera import ViewCamera
from vision.reconstruct import RayScorer, ViewEvidence, reconstruct
from vision.synthetic import render_labels, standard_cameras

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"


def _truth(scene: str) -> State:
    return State.from_json(json.loads((FIXTURES / scene / "scene.json").read_text())["state"])


def _scorer(state: State) -> RayScorer:
    size = (640, 360)
    k = np.array([[480.0, 0, 320], [0, 480.0, 180], [0, 0, 1]])
    cams: dict[str, ViewCamera] = standard_cameras(k, size, elevation_deg=35.0)
    views = [ViewEvidence(cam, render_labels(state.blocks, state.flags, cam), side) for side, cam in cams.items()]
    scorer = reconstruct(views).scorer
    assert scorer is not None
    return scorer


def test_deltas_price_every_legal_placement_as_delta_does() -> None:
    """``RayScorer.deltas`` (all placements of one base at once) equals ``delta`` one by one, on the
    legal placements of states a few turns before the pictured one (the history search's case)."""
    truth = _truth("scene_026")
    scorer = _scorer(truth)
    checked = 0
    nonzero = 0
    for back in (1, 2, 4, 7):
        st = turns_back(truth, back)
        assert st.to_move is not None
        scorer.set_base(st.blocks)
        placements = [mv.cells for mv in st.legal_moves() if isinstance(mv, Placement)]
        got = scorer.deltas(placements, st.to_move)
        want = [scorer.delta({c: st.to_move for c in cells}) for cells in placements]
        assert got == want
        checked += len(want)
        nonzero += sum(1 for w in want if w != 0)
    assert checked > 100 and nonzero > 20  # a real workload, with prices that differ


def test_deltas_equal_delta_on_any_cells() -> None:
    """Random sets of 1-4 cells (empty, full in the base, the Central Cube, outside the volume, a
    cell listed twice), every colour, on random bases: ``deltas`` equals ``delta`` and ``cost``."""
    truth = _truth("scene_004")
    scorer = _scorer(truth)
    rng = random.Random(7)
    cells = sorted(truth.blocks)
    near = sorted({(x + dx, y + dy, z + dz) for x, y, z in cells for dx, dy, dz in
                   ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1)) if z + dz >= 0} - set(CENTRAL_CUBE))
    others: list[Cell] = [*sorted(CENTRAL_CUBE)[:2], (20, 0, 0), (-9, 3, 1)]
    for _ in range(6):
        base = {c: truth.blocks[c] for c in rng.sample(cells, rng.randint(0, len(cells)))}
        scorer.set_base(base)
        for colour in ("blue", "pink", "yellow", "green"):
            sets: list[list[Cell]] = []
            for _ in range(40):
                pool = near if rng.random() < 0.8 else [*near, *cells, *others]
                pick = rng.sample(pool, rng.randint(1, 3))
                if rng.random() < 0.05:
                    pick.append(pick[0])
                sets.append(pick)
            sets.append([])
            got = scorer.deltas(sets, colour)
            want = [scorer.delta({c: colour for c in s}) for s in sets]
            assert got == want, (len(base), colour)
            for s, d in list(zip(sets, got, strict=True))[:5]:
                added = {c: colour for c in s}
                assert d == scorer.cost({**base, **added}) - scorer.cost(base)


def _active_rays_the_slow_way(model: object, hyp: np.ndarray, candidates: np.ndarray) -> dict[str, np.ndarray]:
    """``_ActiveRays``'s tables as the first version built them: the local cell of every entry of the
    whole ray table, ``np.nonzero`` of the active ones, and a stable sort by cell for each cell's rows."""
    m = model
    n = len(m.rays_of)  # type: ignore[attr-defined]
    active = hyp != 0
    active[candidates] = True
    cells = np.flatnonzero(active)
    k = len(cells)
    loc = np.full(n + 1, k, np.int32)
    loc[cells] = np.arange(k, dtype=np.int32)
    full = loc[m.idx]  # type: ignore[attr-defined]
    keep = full != k
    rows = np.flatnonzero(keep.any(axis=1))
    full, keep = full[rows], keep[rows]
    pos = np.cumsum(keep, axis=1, dtype=np.int32) - 1
    width = max(1, int(pos[:, -1].max()) + 1) if len(rows) else 1
    rr, cc = np.nonzero(keep)
    flat_cols, flat_cells = pos[rr, cc], full[rr, cc]
    idx = np.full((len(rows), width), k, np.int32)
    idx[rr, flat_cols] = flat_cells
    order = np.argsort(flat_cells, kind="stable")
    bounds = np.zeros(k + 1, np.int64)
    np.cumsum(np.bincount(flat_cells, minlength=k), out=bounds[1:])
    return {"cells": cells, "model_rows": rows, "idx": idx, "_model_col_flat": cc, "_rows": rr[order],
            "_cols": flat_cols[order].astype(np.int32), "_bounds": bounds}


def test_active_rays_from_the_inverted_index_equal_the_whole_table_scan() -> None:
    """The search's compact table (``_ActiveRays``), built from the ray table's inverted index, holds
    the same rows, cells, columns and per-cell row lists as scanning the whole table (the first
    version), for growing candidate sets (SYNTHETIC label maps)."""
    from vision.reconstruct import _ActiveRays

    truth = _truth("scene_013")
    scorer = _scorer(truth)
    m = scorer._model
    assert not m.repeats
    rng = np.random.default_rng(5)
    seen = np.flatnonzero(m.n_rays_of > 0)
    hyp = np.zeros(len(m.rays_of), np.int64)
    hyp[rng.choice(seen, 30, replace=False)] = 3
    for n_cand in (0, 10, 80, 300, len(seen)):
        cand = np.sort(rng.choice(seen, n_cand, replace=False)).astype(np.int64)
        act = _ActiveRays(m, hyp.copy(), cand)
        want = _active_rays_the_slow_way(m, hyp.copy(), cand)
        for name, arr in want.items():
            got = getattr(act, name)
            assert got.shape == arr.shape and np.array_equal(got, arr), (n_cand, name)
        assert np.array_equal(act.hyp[:-1], hyp[act.cells].astype(np.int8))


def test_trace_keeps_the_columns_its_rays_need_and_no_more() -> None:
    """``_trace`` cuts its tables to the widest row from column-wise ``any`` (crossings, then cells):
    the width is the slow per-row count's maximum (last cell of each row, as the first version
    worked it out), and every row is its cells, then padding (SYNTHETIC label maps)."""
    from vision.reconstruct import ReconstructConfig, _trace, _Volume

    truth = _truth("scene_026")
    size = (640, 360)
    k = np.array([[480.0, 0, 320], [0, 480.0, 180], [0, 0, 1]])
    cfg = ReconstructConfig()
    vol = _Volume(cfg)
    for elevation in (20.0, 35.0, 60.0):
        for _side, cam in standard_cameras(k, size, elevation_deg=elevation).items():
            rays = _trace(ViewEvidence(cam, render_labels(truth.blocks, truth.flags, cam)), vol, cfg)
            valid = rays.idx >= 0
            last = np.where(valid.any(axis=1), valid.shape[1] - np.argmax(valid[:, ::-1], axis=1), 0)
            assert rays.idx.shape[1] == max(1, int(last.max()))
            assert len(rays.idx) > 100


def test_local_search_ends_where_no_single_change_pays() -> None:
    """``_refine`` prices each cell on the rays that meet it first (an empty cell: only the weighted
    ones are read): where it stops, no candidate's value change lowers the whole cost counted on
    every ray (``_RayModel.predict``), and its cost is no higher than where it started (SYNTHETIC
    label maps, a hypothesis with random errors)."""
    from vision.labels import COLOR_LABELS
    from vision.reconstruct import _refine

    truth = _truth("scene_026")
    scorer = _scorer(truth)
    m = scorer._model
    assert scorer._seed is not None
    rng = np.random.default_rng(11)
    colours = [int(COLOR_LABELS[c]) for c in ("blue", "pink", "yellow", "green")]
    full = np.flatnonzero(scorer._seed[0] != 0)
    vol = scorer._vol
    steps = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]
    cand_set: set[int] = set()
    for i in full.tolist():
        x, y, z = vol.cell(i)
        cand_set.update(j for j in (vol.index1((x + a, y + b, z + c)) for a, b, c in steps) if j >= 0)
    cube = {vol.index1(c) for c in CENTRAL_CUBE}
    cand = np.array(sorted(cand_set - cube), np.int64)
    def near_of(i: int) -> list[int]:
        x, y, z = vol.cell(i)
        return [j for j in (vol.index1((x + a, y + b, z + c)) for a, b, c in steps) if j >= 0]

    neighbours = {i: near_of(i) for i in cand.tolist()}

    def cost(h: np.ndarray) -> int:
        return int(((m.predict(h) != m.obs) * m.weight).sum())

    for trial in range(2):
        hyp = scorer._seed[0].copy()
        flip = rng.choice(cand, 25, replace=False)
        hyp[flip] = rng.choice([0, *colours], 25)
        start = cost(hyp)
        out, _sweeps, _act, _pred = _refine(m, hyp.copy(), cand, [0, *colours], neighbours, block_penalty=0)
        end = cost(out)
        assert end <= start
        for c in cand.tolist():
            for v in [0, *colours]:
                if v != out[c]:
                    h = out.copy()
                    h[c] = v
                    assert cost(h) >= end, (trial, c, v)


def test_cost_from_the_nearer_of_seed_and_base_is_the_whole_cost() -> None:
    """``RayScorer.cost`` re-predicts only the rays through the cells where the blocks differ from the
    seed or from the last base (whichever is fewer rays): equal to predicting every ray, for blocks
    near the base and far from the seed, near the seed, and after ``delta`` calls (SYNTHETIC)."""
    truth = _truth("scene_004")
    scorer = _scorer(truth)
    m = scorer._model

    def whole(blocks: dict[Cell, str]) -> int:
        return int(((m.predict(scorer._hyp_of(blocks)) != m.obs) * m.weight).sum())

    rng = random.Random(9)
    cells = sorted(truth.blocks)
    colours = ("blue", "pink", "yellow", "green")
    assert scorer.cost({}) == whole({})  # before any base
    for _ in range(8):
        base = {c: truth.blocks[c] for c in rng.sample(cells, rng.randint(0, len(cells) // 3))}
        scorer.set_base(base)
        scorer.delta({rng.choice(cells): "pink", rng.choice(cells): "blue"})  # mixed: borrows the base
        for _ in range(6):
            near = dict(base)
            for c in rng.sample(cells, 3):
                if c in near:
                    del near[c]
                else:
                    near[c] = rng.choice(colours)
            assert scorer.cost(near) == whole(near)
        seedish = dict(truth.blocks)
        del seedish[rng.choice(cells)]
        assert scorer.cost(seedish) == whole(seedish)
