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
