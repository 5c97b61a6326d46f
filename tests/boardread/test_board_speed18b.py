"""Session 18, Bandera and Gridopolis frame time, second pass: the quicker ways give the very answers of the former
ones -- the Bandera lamp search's shadow test on the (point, solid) pairs that can meet (``GroundShade``).  On the
committed fixtures (rendered photographs, simulated) and random data."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import vision.board_rays as br
from tests.boardread.test_board_round5 import scene_with_pose
from vision.board_pipeline import read_board
from vision.board_rays import GroundShade, hits, hits_pairs

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "boards"


def _full(light: np.ndarray, ground: np.ndarray, solids: np.ndarray) -> np.ndarray:
    """The former test: every ground point against every solid."""
    return np.asarray(hits(light, ground, solids[None, :, :]), bool).any(axis=1)


def _lamps(rng: np.random.Generator, mid: np.ndarray, n: int, el_lo: float = 27.5) -> list[np.ndarray]:
    out = []
    for _ in range(n):
        az, el = math.radians(rng.uniform(0, 360)), math.radians(rng.uniform(el_lo, 85.0))
        out.append(mid + 1200.0 * np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)]))
    return out


@pytest.mark.parametrize("kinds", [[0], [1], [0, 1]])
def test_ground_shade_is_the_full_test_random(kinds: list[int]) -> None:
    """Random stacks (boxes, cylinders, both; some resting on others, some of no height) over a 300 mm board, ground
    points round them -- some on the footprints' edges and corners --, lamps all round from 27.5 to 85 degrees up,
    and low lights that take the full test: the answers of the full test, and some points shaded and some not."""
    rng = np.random.default_rng(1801)
    mid = np.array([150.0, 150.0, 0.0])
    for trial in range(12):
        m = int(rng.integers(1, 30))
        s = np.empty((m, 6))
        s[:, 0] = rng.choice(kinds, m)
        s[:, 1:3] = rng.uniform(0, 300, (m, 2))
        s[:, 3] = rng.uniform(3, 25, m)
        s[:, 4] = rng.choice([0.0, 20.0, 40.0], m)
        s[:, 5] = s[:, 4] + rng.choice([0.0, 20.0, 60.0, 120.0], m)
        q = rng.uniform(-20, 320, (400, 2))
        # points exactly on footprint edges and corners (the tangent cases)
        k = rng.integers(0, m, 60)
        sx, sy = rng.choice([-1.0, 0.0, 1.0], 60), rng.choice([-1.0, 1.0], 60)
        q = np.concatenate([q, np.column_stack([s[k, 1] + sx * s[k, 3], s[k, 2] + sy * s[k, 3]])])
        ground = np.column_stack([q, np.zeros(len(q))])
        shade = GroundShade(ground, s)
        n_shaded = 0
        for lamp in [*_lamps(rng, mid, 20), np.array([150.0, 150.0, 100.0]), np.array([-900.0, 150.0, 150.0])]:
            got, want = shade.shaded(lamp), _full(lamp, ground, s)
            assert got.dtype == bool and got.shape == (len(ground),)
            assert np.array_equal(got, want), (trial, lamp)
            n_shaded += int(want.sum())
        assert 0 < n_shaded < 22 * len(ground)
        lamps = np.array(_lamps(rng, mid, 30))
        many = shade.shaded_many(lamps)
        assert many.shape == (30, len(ground))
        assert np.array_equal(many, np.array([_full(x, ground, s) for x in lamps]))
        low = np.array([*lamps[:3], [150.0, 150.0, 100.0]])  # (a light too low: each light's own test)
        assert np.array_equal(shade.shaded_many(low), np.array([_full(x, ground, s) for x in low]))


def test_ground_shade_edge_cases() -> None:
    """No points, no solids, points off the board plane (the full test), one point under a solid."""
    rng = np.random.default_rng(1802)
    lamp = np.array([100.0, -800.0, 900.0])
    s = np.array([[0.0, 50.0, 50.0, 10.0, 0.0, 40.0], [1.0, 120.0, 60.0, 8.0, 0.0, 80.0]])
    odd = np.column_stack([rng.uniform(0, 200, (20, 2)), np.zeros(20)])
    odd[0, 0], odd[1, 1] = np.inf, np.nan
    odd_s = np.concatenate([s, [[0.0, np.nan, 60.0, 5.0, 0.0, 30.0]]])
    for ground in (np.zeros((0, 3)), np.array([[50.0, 50.0, 0.0]]),
                   np.column_stack([rng.uniform(0, 200, (50, 2)), rng.uniform(0, 5, 50)]), odd):
        for solids in (s, np.zeros((0, 6)), odd_s):
            got, want = GroundShade(ground, solids).shaded(lamp), _full(lamp, ground, solids)
            assert got.shape == want.shape and np.array_equal(got, want)
            many = GroundShade(ground, solids).shaded_many(np.array([lamp, lamp + 10.0]))
            assert many.shape == (2, len(ground)) and np.array_equal(many[0], want)
            assert GroundShade(ground, solids).shaded_many(np.zeros((0, 3))).shape == (0, len(ground))


def test_ground_shade_on_the_fixtures_lamp_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """On the Bandera fixtures whose reading looks for a hard lamp (rendered photographs): every light tried by the
    lamp search gets, from the quicker test, the answers of the full one (a wrapper compares each call)."""
    calls = []
    orig = br.GroundShade.shaded_many

    def checked(self: GroundShade, lights: np.ndarray) -> np.ndarray:
        got = orig(self, lights)
        for light, row in zip(lights, got, strict=True):
            assert np.array_equal(row, _full(light, self.ground, self.solids))
            calls.append(int(row.sum()))
        return got

    monkeypatch.setattr(br.GroundShade, "shaded_many", checked)
    for name in ("scene_003", "scene_006"):
        img, cam, _doc, pose = scene_with_pose(FIXTURES / "bandera" / name, "calibration")
        read_board([("s", img)], "bandera", spec=pose.spec, camera=cam)
    assert len(calls) >= 96 and sum(c > 0 for c in calls) >= 20


@pytest.mark.parametrize("kinds", [[0], [1], [0, 1]])
def test_hits_pairs_is_hits_pair_by_pair(kinds: list[int]) -> None:
    """``hits_pairs`` gives, pair by pair, what ``hits`` gives for that segment and solid: origins above and below
    the solids, segments along a box's face or through a cylinder's axis, ends inside solids, zero-length parts
    (points straight below an origin), solids of no height; boxes, cylinders and both in one batch."""
    rng = np.random.default_rng(1804)
    k = 3000
    o = np.column_stack([rng.uniform(-200, 400, (k, 2)), rng.choice([-50.0, 30.0, 500.0, 1200.0], k)])
    e = np.column_stack([rng.uniform(0, 200, (k, 2)), rng.choice([0.0, 10.0, 40.0], k)])
    s = np.empty((k, 6))
    s[:, 0] = rng.choice(kinds, k)
    s[:, 1:3] = rng.uniform(0, 200, (k, 2))
    s[:, 3] = rng.uniform(3, 30, k)
    s[:, 4] = rng.choice([0.0, 20.0], k)
    s[:, 5] = s[:, 4] + rng.choice([0.0, 20.0, 60.0], k)
    e[:300, 0] = s[:300, 1] + s[:300, 3]  # ends on a face's plane
    o[300:400, :2] = e[300:400, :2]  # vertical segments
    o[400:500, 0] = e[400:500, 0]  # segments in a plane x = const
    e[500:600, :2] = s[500:600, 1:3]  # ends on the solid's axis
    got = hits_pairs(o, e, s)
    want = np.array([bool(np.asarray(hits(o[i], e[i][None], s[i][None, None]), bool)[0, 0]) for i in range(k)])
    assert got.dtype == bool and np.array_equal(got, want)
    assert 0.05 < want.mean() < 0.95
    assert hits_pairs(np.zeros((0, 3)), np.zeros((0, 3)), np.zeros((0, 6))).shape == (0,)


def test_cast_shadow_probes_tested_once_are_the_rescorings(monkeypatch: pytest.MonkeyPatch) -> None:
    """The probes in the other stacks' lamp shadow, tested once by ``_cast_shadows`` and given to
    ``_rescore_without``, are the ones it used to test itself (a wrapper compares each call; Bandera fixtures with a
    lamp, rendered photographs), and the rescoring is the same as with its own test."""
    import vision.board_classify as bc
    orig = bc._rescore_without
    given = []

    def checked(i, source, rows, weight, pred, piece, ends, cfg, also=None, hit=None):  # type: ignore[no-untyped-def]
        got = orig(i, source, rows, weight, pred, piece, ends, cfg, also=also, hit=hit)
        if hit is not None:
            use = weight[i] > 0
            own = np.asarray(hits(source, ends[i][use], rows[None, :, :]), bool).any(axis=1) if len(rows) \
                else np.zeros(int(use.sum()), bool)
            assert hit.dtype == bool and np.array_equal(hit, own)
            again = orig(i, source, rows, weight, pred, piece, ends, cfg, also=also)
            assert (got is None and again is None) or (got is not None and again is not None
                                                       and np.array_equal(got, again))
            given.append(int(own.sum()))
        return got

    monkeypatch.setattr(bc, "_rescore_without", checked)
    for name in ("scene_003", "scene_008"):
        img, cam, _doc, pose = scene_with_pose(FIXTURES / "bandera" / name, "calibration")
        read_board([("s", img)], "bandera", spec=pose.spec, camera=cam)
    assert len(given) >= 5 and sum(given) > 0
