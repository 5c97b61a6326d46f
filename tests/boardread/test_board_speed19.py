"""Session 19, board frame time (third pass): the quicker ways the board reader now computes some steps give the very
numbers the former ways gave -- medians of a few rows or values by sorting (``_median_rows``), the pad finder's pad
colours all at once (``_median_rows_masked``), the white balance's constant gain kept, the ray-box culling's pairs
found by one test of every pair when there are few (``_pairs_seen``), the kings' crowns tested for all sites at once
(``_crown_hits``) and a Gridopolis board's sites kept (``sites_for``).  Each is compared with the former computation
(kept here as the oracle) on random data and on the committed fixtures (rendered photographs, simulated)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import vision.board_rays as br
from calibration.boards import BoardSpec
from vision.board_classify import (
    GainField,
    Site,
    _crown_hits,
    _median_rows,
    _median_rows_masked,
    config_for,
)
from vision.board_pipeline import _sites_for, sites_for
from vision.board_rays import _nonzero2, hits

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "boards"
F64 = npt.NDArray[np.float64]


def _old_box_ray_hits_culled(camera: F64, ends: F64, boxes: F64, t_split: F64, px: F64, box_px: F64,
                             exclude: Any, chunk: int, behind: bool = True) -> tuple[Any, Any]:
    """``vision.board_rays._box_ray_hits_culled`` as it was until session 19 (the oracle)."""
    n, m = len(ends), len(boxes)
    n_c = -(-n // chunk)
    pad = n_c * chunk - n
    n_p = n_c * chunk
    xy = np.concatenate([px, np.repeat(px[-1:], pad, axis=0)]).T.reshape(2, n_c, chunk)
    lo_x, hi_x, lo_y, hi_y = xy[0].min(axis=1), xy[0].max(axis=1), xy[1].min(axis=1), xy[1].max(axis=1)
    near = ((box_px[None, :, 0] <= hi_x[:, None]) & (box_px[None, :, 2] >= lo_x[:, None])
            & (box_px[None, :, 1] <= hi_y[:, None]) & (box_px[None, :, 3] >= lo_y[:, None]))
    ex_pair = None
    if exclude is not None:
        ex = np.full(n_p, -1, np.int64)
        ex[:n] = exclude
        ex_pair = ex.reshape(n_c, chunk)
        if (ex_pair == ex_pair[:, :1]).all():
            drop = np.nonzero(ex_pair[:, 0] >= 0)[0]
            near[drop, ex_pair[drop, 0]] = False
            ex_pair = None
    c_idx, m_idx = _nonzero2(near)
    before = np.zeros(n, bool)
    first = np.full(n, -1, np.int64)
    if not len(c_idx):
        return before, first
    bp = box_px[m_idx]
    x, y = xy[0][c_idx], xy[1][c_idx]
    inside = (bp[:, 0, None] <= x) & (bp[:, 2, None] >= x) & (bp[:, 1, None] <= y) & (bp[:, 3, None] >= y)
    if ex_pair is not None:
        inside &= m_idx[:, None] != ex_pair[c_idx]
    l_k, p_k = _nonzero2(inside)
    if not len(l_k):
        return before, first
    ray = c_idx[l_k] * chunk + p_k
    mk = m_idx[l_k]
    ray_ok = ray < n
    ray = np.where(ray_ok, ray, n - 1)
    o = camera.reshape(3)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = np.ascontiguousarray((1.0 / (ends - o)).T)
        lo = hi = np.empty(0)
        for axis, a, b in ((2, boxes[:, 4], boxes[:, 5]), (0, boxes[:, 1] - boxes[:, 3], boxes[:, 1] + boxes[:, 3]),
                           (1, boxes[:, 2] - boxes[:, 3], boxes[:, 2] + boxes[:, 3])):
            inv_k = inv[axis][ray]
            t1 = (a - o[axis])[mk] * inv_k
            t2 = (b - o[axis])[mk] * inv_k
            if axis == 2:
                lo, hi = np.minimum(t1, t2), np.maximum(t1, t2)
            else:
                np.maximum(lo, np.minimum(t1, t2), out=lo)
                np.minimum(hi, np.maximum(t1, t2), out=hi)
    t = t_split[ray]
    bef = ray_ok & (np.maximum(lo, 0.0) <= np.minimum(hi, t - 1e-3))
    before[ray[bef]] = True
    if not behind:
        return before, first
    beh = ray_ok & (np.maximum(lo, t - 1e-6) <= np.minimum(hi, 1.0))
    order = np.argsort(boxes[:, 5], kind="stable")
    rank = np.empty(m, np.int64)
    rank[order] = np.arange(m)
    best = np.full(n, -1, np.int64)
    np.maximum.at(best, ray[beh], rank[mk[beh]])
    first[:] = np.where(best >= 0, order[np.maximum(best, 0)], -1)
    return before, first


def _random_boxes_and_rays(rng: np.random.Generator, n: int, m: int) -> tuple[F64, F64, F64, F64, F64, F64]:
    """A camera above, ``m`` boxes on a plane with pixel bounds from a simple pinhole, ``n`` rays to the plane with
    their pixels (neighbouring rays close in the picture) and split points."""
    cam = np.array([0.0, -400.0, 500.0])
    boxes = np.column_stack([np.zeros(m), rng.uniform(-150, 150, m), rng.uniform(-150, 150, m), rng.uniform(5, 30, m),
                             np.zeros(m), rng.uniform(5, 60, m)])

    def pix(p: F64) -> F64:
        d = p - cam
        return np.column_stack([640 + 800 * d[:, 0] / d[:, 1], 360 - 800 * d[:, 2] / d[:, 1]])

    corners = br.box_corners(boxes)
    cpx = pix(corners.reshape(-1, 3)).reshape(m, 8, 2)
    box_px = np.concatenate([cpx.min(axis=1) - 4.0, cpx.max(axis=1) + 4.0], axis=1)
    walk = np.cumsum(rng.normal(0, 8, (n, 2)), axis=0) + rng.uniform(-120, 120, 2)
    pts = np.column_stack([walk, rng.uniform(0, 70, n)])
    ends = br.segments_to_board(cam, pts)
    t0 = np.linalg.norm(pts - cam, axis=1) / np.linalg.norm(ends - cam, axis=1)
    return cam, boxes, box_px, ends, t0, pix(pts)


@pytest.mark.parametrize("dense", [0, 10**9])
def test_box_ray_hits_pairs_both_ways_give_the_former_answers(dense: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every pair's pixel tested at once (``DENSE_PAIRS`` large) or chunk by chunk (0): the answers of the former
    culling, with boxes left out per ray or per chunk, chunks not lining up with the rays (padding), ``behind`` off,
    a NaN pixel (its chunk: no pairs), and boxes of equal height (ties)."""
    monkeypatch.setattr(br, "DENSE_PAIRS", dense)
    rng = np.random.default_rng(19)
    seen = 0
    for case in range(60):
        n, m = int(rng.integers(1, 90)), int(rng.integers(1, 40))
        cam, boxes, box_px, ends, t0, px = _random_boxes_and_rays(rng, n, m)
        if case % 5 == 0:
            boxes[: m // 2, 5] = 30.0  # (ties)
        if case % 7 == 3:
            px[int(rng.integers(0, n))] = np.nan
        chunk = int(rng.choice([1, 4, 6, 12, 16]))
        per_chunk = np.repeat(rng.integers(-1, m, -(-n // chunk)), chunk)[:n]
        for ex in (None, np.where(rng.random(n) < 0.3, rng.integers(0, m, n), -1), per_chunk):
            for behind in (True, False):
                want = _old_box_ray_hits_culled(cam, ends, boxes, t0, px, box_px, ex, chunk, behind)
                got = br._box_ray_hits_culled(cam, ends, boxes, t0, px, box_px, ex, chunk, behind)
                assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
                seen += int(want[0].any())
    assert seen > 50


def test_pairs_seen_are_the_chunked_pairs() -> None:
    """The two pair finders give the same (ray, box) pairs (in another order)."""
    rng = np.random.default_rng(1919)
    for _ in range(40):
        n, m = int(rng.integers(1, 120)), int(rng.integers(1, 60))
        _, _, box_px, _, _, px = _random_boxes_and_rays(rng, n, m)
        ex = np.where(rng.random(n) < 0.4, rng.integers(-1, m, n), -1)
        for chunk in (1, 5, 12):
            a = set(zip(*(x.tolist() for x in br._pairs_seen(px, box_px, ex)), strict=True))
            b = set(zip(*(x.tolist() for x in br._pairs_seen_by_chunk(px, box_px, ex, chunk)), strict=True))
            assert a == b


def test_median_rows_of_rows_and_values_is_numpy_median() -> None:
    """``_median_rows`` of (N, C) rows or of (N,) values: ``np.median``'s numbers, odd and even counts, NaN."""
    rng = np.random.default_rng(7)
    for n in range(1, 40):
        for shape in ((n, 3), (n,)):
            v = rng.normal(0, 30, shape).round(int(rng.integers(0, 3)))  # (rounded: ties among the middle values)
            if n % 9 == 4:
                v.reshape(-1)[int(rng.integers(0, v.size))] = np.nan
            with np.errstate(invalid="ignore"):
                assert np.array_equal(np.asarray(_median_rows(v)), np.asarray(np.median(v, axis=0)), equal_nan=True)


def test_median_rows_masked_is_numpy_median_per_row() -> None:
    """``_median_rows_masked``: per row ``np.median`` of its ``ok`` entries (the pad finder's pad colours), all finite
    (at once) or not (row by row)."""
    rng = np.random.default_rng(8)
    for case in range(30):
        r, a = int(rng.integers(1, 12)), int(rng.integers(1, 30))
        vals = rng.normal(50, 20, (r, a, 3)).round(1)
        ok = rng.random((r, a)) < rng.uniform(0.2, 1.0)
        ok[np.arange(r), rng.integers(0, a, r)] = True
        if case % 4 == 1:
            vals[0, int(rng.integers(0, a)), 1] = np.inf
        if case % 4 == 2:
            vals[-1, int(rng.integers(0, a)), 2] = np.nan
        want = np.array([np.median(v[o], axis=0) for v, o in zip(vals, ok, strict=True)])
        assert np.array_equal(_median_rows_masked(vals, ok), want, equal_nan=True)
    assert _median_rows_masked(np.zeros((0, 16, 3)), np.zeros((0, 16), bool)).shape == (0, 3)


def test_gain_field_kept_constant_and_gain() -> None:
    """The constant flag and gain kept per field: the former ``not np.any(coef[:, 1:])`` and
    ``broadcast_to(exp(coef[:, 0]))``; a varying field unchanged."""
    extent = (0.0, 0.0, 320.0, 320.0)
    xy = np.array([[10.0, 20.0], [300.0, 5.0], [160.0, 160.0]])
    const = np.zeros((3, 6))
    const[:, 0] = [0.1, -0.2, 0.3]
    vary = const.copy()
    vary[1, 3] = 0.05
    for coef in (const, vary, np.zeros((3, 6))):
        f = GainField(coef, extent)
        assert f.constant == (not np.any(coef[:, 1:]))
        want = np.broadcast_to(np.exp(coef[:, 0]), (len(xy), 3)) if f.constant \
            else np.exp(f._basis(xy) @ coef.T)
        assert np.array_equal(f.at(xy), want) and np.array_equal(f.at(xy), f.at(xy))
        assert f.at(xy[:0]).shape == (0, 3)


def test_crown_hits_are_the_per_site_tests() -> None:
    """``_crown_hits`` for many sites at once: each site's answer is ``hits`` of its own crown, as the per-site call
    made it."""
    rng = np.random.default_rng(3)
    cfg = config_for("gridopolis")
    geo = cfg.geometry
    cam = np.array([20.0, -500.0, 600.0])
    sites = [Site((int(x), int(y), 0), float(x) * 50, float(y) * 50, float(rng.choice([0.0, 12.0, 24.0])))
             for x, y in rng.integers(0, 8, (25, 2))]
    n_p = 45
    ends_s = np.empty((len(sites), n_p, 3))
    for i, st in enumerate(sites):  # (rays through the site's crown height, around it)
        pts = np.column_stack([st.x_mm + rng.normal(0, 6, n_p), st.y_mm + rng.normal(0, 6, n_p),
                               st.floor_mm + rng.uniform(0, 50, n_p)])
        ends_s[i] = br.segments_to_board(cam, pts)
    idx = [3, 0, 7, 8, 20, 24]
    got = _crown_hits(cam, sites, ends_s, cfg, idx)
    met = 0
    for i in idx:
        s = sites[i]
        crown = np.array([[1.0, s.x_mm, s.y_mm, geo.crown_radius, s.floor_mm + geo.pawn_height,
                           s.floor_mm + geo.king_height]])
        want = np.asarray(hits(cam, ends_s[i], crown), bool)[:, 0]
        assert np.array_equal(got[i], want)
        met += int(want.sum())
    assert met > 0 and set(got) == set(idx)


def test_sites_for_kept_is_computed_anew() -> None:
    """A Gridopolis board's sites and structure, kept: equal to those computed anew, a fresh writable array and list
    each time (changing one changes no later answer), keys of another type than int computed anew."""
    doc = json.loads((FIXTURES / "gridopolis" / "scene_000.json").read_text())
    spec = BoardSpec.from_json(doc["board"])
    for added, absent in (((), ()), (((2, 2, 1), (6, 3, 1)), ((0, 3, 0),))):
        want_s, want_r = _sites_for(spec, added, absent)
        for _ in range(2):
            s, r = sites_for(spec, list(added), list(absent))
            assert s == want_s and r is not None and np.array_equal(r, want_r)
            assert r.flags.writeable
            r[:] = 0.0
            s.clear()
    odd: Any = [(np.int64(2), np.int64(2), np.int64(1))]
    s, r = sites_for(spec, odd)
    want_s, want_r = _sites_for(spec, odd, ())
    assert s == want_s and r is not None and np.array_equal(r, want_r)
    assert [type(v) for v in s[-1].key] == [type(v) for v in want_s[-1].key]


def _old_not_blocked(cam: F64, ends: F64, rows: F64, owner: Any, sites_idx: Any, centres: Any = None, k: int = 10,
                     mask: Any = None) -> Any:
    """``vision.board_classify._not_blocked`` as it was until session 19 (the oracle: padded to ``k`` solids)."""
    from vision.board_classify import _nearest_solids

    if not len(rows):
        return np.ones(ends.shape[:2], bool)
    ctr = centres if centres is not None else ends[..., :2].mean(axis=1)
    near, own = _nearest_solids(rows, owner, ctr, k)
    if mask is not None:
        t_i, p_i = np.nonzero(mask)
        out = np.ones(ends.shape[:2], bool)
        hit_m = np.asarray(hits(cam, ends[t_i, p_i], near[t_i]), bool)
        out[t_i, p_i] = ~(hit_m & (own[t_i] != sites_idx[t_i, None])).any(axis=1)
        return out
    hit = np.asarray(hits(cam, ends, near[:, None, :, :]), bool)
    return np.asarray(~(hit & (own[:, None, :] != sites_idx[:, None, None])).any(axis=2), bool)


def test_not_blocked_without_the_padding_solids_gives_the_former_answers() -> None:
    """Fewer solids than ``k``: only the solids themselves are tried (not the empty ones padding them out), with and
    without a mask, boxes and cylinders; rays with a NaN or far end take the former way."""
    from vision.board_classify import _not_blocked

    rng = np.random.default_rng(33)
    cam = np.array([10.0, -350.0, 420.0])
    blocked = 0
    for case in range(40):
        g = int(rng.integers(1, 14))
        t, p = int(rng.integers(1, 8)), int(rng.integers(1, 30))
        xy = rng.uniform(0, 320, (g, 2))
        rows = np.column_stack([rng.integers(0, 2, g).astype(float), xy, rng.uniform(6, 16, g), np.zeros(g),
                                rng.uniform(10, 60, g)])
        owner = rng.integers(0, t + 3, g)
        sites_idx = rng.permutation(t + 3)[:t]
        ends = np.column_stack([rng.uniform(0, 320, (t * p, 2)), np.zeros(t * p)]).reshape(t, p, 3)
        if case % 10 == 9:
            ends[0, 0, 0] = np.nan if case % 20 == 9 else 3e8
        mask = rng.random((t, p)) < 0.6
        for m in (None, mask):
            want = _old_not_blocked(cam, ends, rows, owner, sites_idx, None, 10, m)
            got = _not_blocked(cam, ends, rows, owner, sites_idx, None, 10, mask=m)
            assert np.array_equal(got, want)
            blocked += int((~want).sum())
    assert blocked > 0


@pytest.mark.parametrize("game", ["bandera", "gridopolis"])
def test_solid_table_gives_the_chosen_solids(game: str) -> None:
    """``_SolidTable.chosen``: the rows and owners ``_chosen_solids`` builds site by site from ``_solid_rows`` (the
    same values, in the same order), sites left out or not, every site empty too."""
    from vision.board_classify import _chosen_solids, _SolidTable
    from vision.board_pieces import hypotheses_for

    rng = np.random.default_rng(5)
    hyps = hypotheses_for(game, config_for(game).geometry)
    sites = [Site((int(i % 9), int(i // 9)), float(rng.uniform(0, 400)), float(rng.uniform(0, 400)),
                  float(rng.choice([0.0, 12.5, 25.0]))) for i in range(40)]
    table = _SolidTable(hyps, sites)
    for case in range(30):
        choice = rng.integers(0, len(hyps), len(sites)) if case else np.zeros(len(sites), np.int64)
        out = [int(i) for i in rng.choice(len(sites), int(rng.integers(0, 6)), replace=False)]
        want = _chosen_solids(hyps, choice, sites, out)
        got = table.chosen(choice, out)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
        assert got[0].dtype == want[0].dtype and got[1].dtype == want[1].dtype


def _old_edge_sharpness(sc: Any, st: Any, zs: Any, cfg: Any, sides: Any = None) -> list[Any]:
    """``vision.board_classify._edge_sharpness`` as it was until session 19 (one height at a time; the oracle)."""
    from calibration.colour import linear_to_lab
    from vision.board_classify import _sample

    g = cfg.geometry
    half, d = g.cube_mm / 2, cfg.count_outline_mm
    cam = sc.pose.camera_position
    w, h = sc.pose.image_size
    t = np.linspace(-0.7, 0.7, 9) * half
    rows: list[Any] = []
    for nx, ny in ((1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)) if sides is None else sides:
        if sides is None and (st.x_mm - cam[0]) * nx + (st.y_mm - cam[1]) * ny <= 0:
            continue
        edge = np.column_stack([st.x_mm + nx * half + ny * t, st.y_mm + ny * half + nx * t])
        sharp: list[float] = []
        for z in zs:
            pts = np.concatenate([np.column_stack([edge[:, 0] - s * nx * d, edge[:, 1] - s * ny * d,
                                                   np.full(len(t), st.floor_mm + z)]) for s in (1.0, -1.0)])
            px = sc.pose.project(pts)
            in_img = (px[:, 0] > 2) & (px[:, 0] < w - 3) & (px[:, 1] > 2) & (px[:, 1] < h - 3)
            ok = np.asarray(in_img.reshape(2, -1).all(axis=0), bool)
            if ok.sum() < 5:
                break
            lab = linear_to_lab(_sample(sc.image, px)).reshape(2, len(t), 3)
            sharp.append(float(np.median(np.linalg.norm(lab[0, ok] - lab[1, ok], axis=1))))
        if len(sharp) == len(zs):
            rows.append(np.array(sharp))
    return rows


def test_edge_sharpness_all_heights_at_once_is_the_former() -> None:
    """Bandera's outline sharpness with every height's points projected and sampled at once: the former numbers, on
    every site of two fixture pictures, far edges and the four sides, heights that leave the picture included (a
    site near the picture's edge: the heights stop where the former loop broke off)."""
    import cv2

    import vision.board_classify as bc
    from tests.boardread.test_board_round5 import scene_with_pose
    from vision.board_pipeline import sites_for

    cfg = config_for("bandera")
    compared = stopped = 0
    for n in (0, 5):
        img, _, _, pose = scene_with_pose(FIXTURES / "bandera" / f"scene_{n:03d}", "fixture truth")
        app = bc._appearance(pose.spec, cfg.board_px_per_mm)
        blurred = np.asarray(cv2.blur(img, (cfg.blur_px, cfg.blur_px)), np.uint8)
        sc = bc._Scene(blurred, pose, app, bc._gain_field(blurred, pose, app), None, None)
        sites, _ = sites_for(pose.spec)
        c = cfg.geometry.cube_mm
        for st in sites:
            for zs, sides in (((c, 2 * c), None), ([k * c for k in (0.5, 1.0, 1.5, 2.0, 2.5)], None),
                              ((c, 2 * c), ((1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0))),
                              ((0.0, 40 * c), None)):  # (the last: a height far out of the picture)
                want = _old_edge_sharpness(sc, st, zs, cfg, sides)
                got = bc._edge_sharpness(sc, st, zs, cfg, sides)
                assert len(got) == len(want) and all(np.array_equal(a, b) for a, b in zip(got, want, strict=True))
                compared += len(want)
                stopped += int(zs[-1] > 30 * c and not want)
    assert compared > 500 and stopped > 0


def test_project_each_is_project_per_group() -> None:
    """``BoardPose.project_each``: the pixels of ``project`` called group by group, groups under and over 256 points,
    the fixture's lens and no lens distortion."""
    from dataclasses import replace

    from tests.boardread.test_board_round5 import scene_with_pose

    _, _, _, pose = scene_with_pose(FIXTURES / "bandera" / "scene_000", "fixture truth")
    rng = np.random.default_rng(12)
    for p in (pose, replace(pose, dist=np.zeros(5))):
        for group in (1, 18, 255, 256, 300):
            pts = np.column_stack([rng.uniform(-50, 400, (group * 3, 2)), rng.uniform(0, 80, group * 3)])
            want = np.concatenate([p.project(pts[i:i + group]) for i in range(0, len(pts), group)])
            assert np.array_equal(p.project_each(pts, group), want)
