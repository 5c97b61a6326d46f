"""Session 18, Gridopolis frame time: the quicker ways the board reader now computes some steps give the very numbers
the slower ways gave -- the finer probes of a site seen on few observed only where they can be usable
(``_observe(usable_only=True)``), the pad finder's local light measured only on the candidates it applies to, the
2-D ``nonzero`` of the ray-box culling taken from flat indices, the picture check's sharpness read from the
differences' counts, the hypotheses' solid rows and the pose's camera centre kept once made, the sample points cast
straight into float32.  On the committed fixtures (rendered photographs, simulated) and random data."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.board_classify as bc
from calibration.colour import lab_to_linear, linear_to_lab
from tests.boardread.test_board_round5 import scene_with_pose
from vision.board_classify import Site, _observe, _remap_raw, _solid_rows, _where_rows, classify_sites, config_for
from vision.board_pads import PadDetectConfig, _local_light, detect_pads
from vision.board_pieces import hypotheses_for
from vision.board_pipeline import sites_for, structure_groups
from vision.board_rays import F64, B, _nonzero2, hits
from vision.locate import edge_sharpness, to_grey

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "boards"


def _sharpness_by_partition(grey: np.ndarray) -> float:
    """:func:`vision.locate.edge_sharpness` as it was computed until session 18 (``np.partition`` of int16 arrays)."""
    h, w = grey.shape[:2]
    f = max(1, round(w / 427))
    small = grey if f == 1 else cv2.resize(grey, (max(1, w // f), max(1, h // f)), interpolation=cv2.INTER_AREA)
    if small.shape[0] < 3 or small.shape[1] < 3:
        return 0.0
    hist = np.cumsum(cv2.calcHist([small], [0], None, [256], [0, 256]).ravel())
    lo, hi = np.searchsorted(hist, 0.01 * hist[-1]), np.searchsorted(hist, 0.99 * hist[-1])
    contrast = max(float(hi - lo), 1.0)
    s = small.astype(np.int16)
    steepest = np.inf
    for d, scale in ((s[:, 1:] - s[:, :-1], 1.0), (s[1:, :] - s[:-1, :], 1.0),
                     (s[1:, 1:] - s[:-1, :-1], 2**-0.5), (s[1:, :-1] - s[:-1, 1:], 2**-0.5)):
        a = np.abs(d).ravel()
        k = min(a.size - 1, int(0.998 * a.size))
        steepest = min(steepest, float(np.partition(a, k)[k]) * scale)
    return steepest / contrast


def test_edge_sharpness_is_the_partition_value() -> None:
    """The sharpness from the differences' counts is the value ``np.partition`` gives: fixture pictures of the three
    games, blurred ones, random noise and tiny pictures."""
    rng = np.random.default_rng(18)
    greys = [to_grey(np.asarray(cv2.imread(str(p)), np.uint8)) for game in ("bandera", "gridopolis", "quirky")
             for p in sorted((FIXTURES / game).glob("scene_00[0-2].jpg"))]
    greys += [cv2.GaussianBlur(g, (0, 0), 2.5) for g in greys[:3]]
    greys += [rng.integers(0, 256, shape, dtype=np.uint8) for shape in ((3, 3), (4, 9), (720, 1280), (200, 3000))]
    greys += [np.zeros((720, 1280), np.uint8), np.full((30, 40), 255, np.uint8)]
    for g in greys:
        assert edge_sharpness(g) == _sharpness_by_partition(g)


def test_nonzero2_is_numpy_nonzero() -> None:
    rng = np.random.default_rng(5)
    for shape in ((0, 4), (4, 0), (1, 1), (6, 13), (300, 150), (2000, 12)):
        m = rng.random(shape) < 0.3
        want, got = np.nonzero(m), _nonzero2(m)
        for a, b in zip(want, got, strict=True):
            assert a.dtype == b.dtype and np.array_equal(a, b)


def test_remap_raw_casts_the_points_as_astype() -> None:
    rng = np.random.default_rng(7)
    img = rng.integers(0, 256, (120, 200, 3), dtype=np.uint8)
    for n in (0, 1, 1023, 1024, 1025, 3000):
        xs, ys = rng.uniform(-3, 203, n), rng.uniform(-3, 123, n)
        rows = max(1, -(-n // 1024))
        pad = rows * 1024 - n
        mx = np.concatenate([xs, np.zeros(pad)]).astype(np.float32).reshape(rows, 1024)
        my = np.concatenate([ys, np.zeros(pad)]).astype(np.float32).reshape(rows, 1024)
        want = cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).reshape(rows * 1024, -1)[:n]
        assert np.array_equal(_remap_raw(img, xs, ys), want)


def test_solid_rows_kept_read_only_and_equal() -> None:
    hyps = hypotheses_for("gridopolis", config_for("gridopolis").geometry)
    site = Site((2, 3, 1), 125.0, 175.0, 26.0)
    for h in hyps:
        rows = _solid_rows(h, site)
        assert _solid_rows(h, Site((2, 3, 1), 125.0, 175.0, 26.0)) is rows  # (an equal site: kept)
        assert not rows.flags.writeable
        want = np.array([[0.0 if s.shape == "box" else 1.0, site.x_mm, site.y_mm, s.half, site.floor_mm + s.z0,
                          site.floor_mm + s.z1] for s in h.solids]).reshape(-1, 6)
        assert np.array_equal(rows, want)
    other = _solid_rows(hyps[-1], Site((2, 4, 1), 125.0, 225.0, 26.0))
    assert other[0, 2] == 225.0


def test_camera_position_is_a_copy_of_the_computed_one() -> None:
    _, _, _, pose = scene_with_pose(FIXTURES / "gridopolis" / "scene_000", "fixture truth")
    want = np.asarray(-pose.R.T @ pose.tvec, np.float64)
    c = pose.camera_position
    assert np.array_equal(c, want)
    c[:] = 0.0  # (a caller changing its copy changes nothing for the others)
    assert np.array_equal(pose.camera_position, want)


def test_local_light_on_the_candidates_it_applies_to() -> None:
    """The pad finder's local light measured on the qualifying candidates only: the numbers of the formula over
    every candidate, with some candidates qualifying, none, and all."""
    cfg = PadDetectConfig()
    rng = np.random.default_rng(11)
    n_k, n_o = 9, 32
    lab = np.column_stack([rng.uniform(30, 90, n_k * n_o), rng.uniform(-20, 20, (n_k * n_o, 2))])
    pad = np.broadcast_to(np.array([70.0, 0.5, -2.0]), lab.shape)
    bg = np.column_stack([rng.uniform(40, 95, n_k * n_o), rng.uniform(-10, 10, (n_k * n_o, 2))])
    for share in (0.0, 0.2, 1.0):
        ref = rng.random(n_k * n_o) < share
        seen = np.maximum(lab_to_linear(lab), 1e-4)
        ratio = np.log(seen / np.maximum(lab_to_linear(0.5 * (pad + bg)), 1e-4)).reshape(n_k, n_o, 3)
        r = ref.reshape(n_k, n_o)
        want = lab.copy().reshape(n_k, n_o, 3)
        seen = seen.reshape(n_k, n_o, 3)
        for q in np.nonzero(r.sum(axis=1) >= cfg.local_light_points)[0]:
            light = np.median(ratio[q][r[q]], axis=0)
            if float(np.abs(light).max()) >= cfg.local_light_min:
                want[q] = linear_to_lab(seen[q] / np.exp(light)[None, :])
        assert np.array_equal(_local_light(lab, pad, bg, ref, n_k, n_o, cfg), want.reshape(-1, 3))


@pytest.mark.parametrize("n", [0, 3])
def test_observe_usable_only_gives_the_usable_probes_numbers(n: int) -> None:
    """The finer probe grid of ``_reprobe`` (every site, 6 x 6 lines, heights every 2 mm) observed with
    ``usable_only``: the same usable probes, and on them the same piece-ness and colour, as observing every probe;
    the ray ends of all of them."""
    img, _, _, pose = scene_with_pose(FIXTURES / "gridopolis" / f"scene_{n:03d}", "fixture truth")
    gain = detect_pads(img, pose).gain
    sites, structure = sites_for(pose.spec)
    prepared: list[bc._Scene] = []
    classify_sites(img, pose, sites, "gridopolis", structure=structure, gain=gain, prepared=prepared,
                   structure_groups=structure_groups(sites, len(structure)))
    sc, cfg = prepared[0], config_for("gridopolis")
    g = np.linspace(-15.0, 15.0, 6)
    gx, gy = np.meshgrid(g, g)
    zs = np.arange(1.0, 40.0, 2.0)
    centres = np.array([[s.x_mm, s.y_mm, s.floor_mm] for s in sites])
    pts = np.empty((len(sites), gx.size, len(zs), 3))
    pts[..., :2] = centres[:, None, None, :2] + np.column_stack([gx.ravel(), gy.ravel()])[None, :, None, :]
    pts[..., 2] = centres[:, None, None, 2] + zs[None, None, :]
    pts = pts.reshape(-1, 3)
    p_all, l_all, v_all, e_all = _observe(sc, pts, cfg, slack=True)
    p_u, l_u, v_u, e_u = _observe(sc, pts, cfg, slack=True, usable_only=True)
    assert v_all.any() and not v_all.all()
    assert np.array_equal(v_all, v_u) and np.array_equal(e_all, e_u)
    assert np.array_equal(p_all[v_all], p_u[v_u]) and np.array_equal(l_all[v_all], l_u[v_u])


def _hits_before(camera: F64, ends: F64, solids: F64, t_min: float | F64 = 0.0, t_max: float | F64 = 1.0) -> B:
    """:func:`vision.board_rays.hits` as it was until session 18 (the solids' axis last)."""
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


def _solids(rng: np.random.Generator, shape: tuple[int, ...], kinds: list[int]) -> np.ndarray:
    s = np.empty((*shape, 6))
    s[..., 0] = rng.choice(kinds, shape)
    s[..., 1:3] = rng.uniform(0, 300, (*shape, 2))
    s[..., 3] = rng.uniform(5, 40, shape)
    s[..., 4] = rng.uniform(0, 30, shape)
    s[..., 5] = s[..., 4] + rng.uniform(0, 60, shape)
    return s


def test_hits_with_the_solids_axis_first_gives_the_same_answers() -> None:
    """``hits`` computed with the solids' axis first: the answers of the former layout, for boxes, cylinders and
    both, solids shared by every ray or per ray group, scalar and per-ray limits, empty inputs; a new writable
    array."""
    rng = np.random.default_rng(2)
    cam = np.array([150.0, -400.0, 500.0])
    for kinds in ([0], [1], [0, 1]):
        for e_shape, s_shape, per_ray in [((50, 3), (7,), False), ((4, 75, 3), (4, 1, 3), False),
                                          ((4, 75, 3), (4, 1, 1), False), ((30, 3), (1, 12), True),
                                          ((6, 3), (40,), True), ((0, 3), (5,), False), ((5, 3), (0,), False),
                                          ((3, 4, 5, 3), (4, 1, 2), True), ((20, 3), (1, 20, 3), False)]:
            lead = e_shape[:-1]
            ends = np.stack([rng.uniform(-50, 350, lead), rng.uniform(-50, 350, lead),
                             rng.choice([0.0, 10.0], lead)], axis=-1)
            solids = _solids(rng, s_shape, kinds)
            kws: list[dict[str, object]] = [{}, {"t_max": 0.9}]
            if per_ray:
                kws.append({"t_min": rng.uniform(0, 0.5, lead), "t_max": rng.uniform(0.5, 1.0, lead)})
            for kw in kws:
                want = _hits_before(cam, ends, solids, **kw)  # type: ignore[arg-type]
                got = hits(cam, ends, solids, **kw)  # type: ignore[arg-type]
                assert got.shape == want.shape and got.dtype == want.dtype and np.array_equal(got, want)
                assert got.flags.writeable and got.flags.c_contiguous


def test_where_rows_is_numpy_where() -> None:
    rng = np.random.default_rng(4)
    for n in (0, 1, 9, 2000):
        m = rng.random(n) < 0.4
        a, b, row, px = rng.random((n, 3)), rng.random((n, 3)), rng.random(3), rng.random((n, 2))
        if n:
            a[0] = np.nan
        for got, want in ((_where_rows(m, a, b), np.where(m[:, None], a, b)),
                          (_where_rows(m, a, row), np.where(m[:, None], a, row[None, :])),
                          (_where_rows(m, row, b), np.where(m[:, None], row[None, :], b)),
                          (_where_rows(m, px, 0.0), np.where(m[:, None], px, 0.0))):
            assert got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want, equal_nan=True)
