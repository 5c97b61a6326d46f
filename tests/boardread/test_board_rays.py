"""Rays against the Gridopolis grid-set's boxes (``vision.board_rays.box_ray_hits``) and the grid-set's
links and posts as solids (``vision.board_pads.link_rows``, ``post_rows``).

``box_ray_hits`` answers, for many rays at once, "is a box in front of this point" and "which box
lies behind it", testing only the boxes seen around each ray's pixel: it must agree with the generic
ray test (``hits``) on every ray, with the picture culling and without it."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from calibration.boards import board_spec, gridopolis_pads
from calibration.camera import CameraCalibration
from tests.boardread.synthetic import SIM_CAM, synthetic_view
from vision.board_locate import BoardPose, locate_board
from vision.board_pads import link_rows, pad_rows, post_rows
from vision.board_rays import box_corners, box_ray_hits, hits, segments_to_board

CAM = CameraCalibration(SIM_CAM.camera_matrix, SIM_CAM.dist_coeffs, SIM_CAM.size, 0.0, source="synthetic")


def test_links_and_posts_of_the_standard_grid_set() -> None:
    spec = board_spec("gridopolis")
    pads = gridopolis_pads(4)
    have = set(pads)
    pairs = sum((x + 1, y, lv) in have for x, y, lv in pads) + sum((x, y + 1, lv) in have for x, y, lv in pads)
    links = link_rows(spec, pads)
    assert len(links) == pairs
    assert np.allclose(links[:, 3], 6.0) and np.all(links[:, 5] < pad_rows(spec, pads)[:, 5].max())
    legs = post_rows(spec, pads)
    assert len(legs) == 2 * 8  # the core's eight posts (engine.gridopolis.layout), two legs each
    # a pad added on top of the core (no pad beside it on its level) stands on a post too
    assert len(post_rows(spec, [*pads, (3, 3, 3)])) == 2 * 9
    # ... and of two linked pads added there, one stands on a post and holds the other up by its link
    assert len(post_rows(spec, [*pads, (3, 3, 3), (3, 4, 3)])) == 2 * 9


F64 = npt.NDArray[np.float64]


def _probe_scene(added: list[tuple[int, int, int]], posts: bool, seed: int, places: int, per: int,
                 spread: float) -> tuple[BoardPose, F64, F64, np.random.Generator, F64, F64, F64]:
    """A synthetic Gridopolis view with pads ``added`` to the standard set: the pose, the pads' and
    links' boxes (and posts' with ``posts``), their picture bounds (4 px slack), the random generator
    and probe points in vertical lines of ``per`` over ``places`` random places (neighbouring points
    together, as callers pass them), with their rays' ends on the board and the points' ray fractions."""
    spec = board_spec("gridopolis")
    pose = locate_board(synthetic_view(spec, 55, -70, 800, seed=1).image, spec, CAM)
    pads = [*gridopolis_pads(4), *added]
    parts = [pad_rows(spec, pads), link_rows(spec, pads)] + ([post_rows(spec, pads)] if posts else [])
    boxes = np.concatenate(parts)
    corners = pose.project(box_corners(boxes).reshape(-1, 3)).reshape(len(boxes), 8, 2)
    bounds = np.concatenate([corners.min(axis=1) - 4.0, corners.max(axis=1) + 4.0], axis=1)
    rng = np.random.default_rng(seed)
    base = rng.uniform(0, 350, (places, 2))
    pts = np.concatenate([np.column_stack([np.repeat(b[None], per, axis=0) + rng.normal(0, spread, (per, 2)),
                                           rng.uniform(0, 240, per)]) for b in base])
    cam = pose.camera_position
    ends = segments_to_board(cam, pts)
    t0 = np.linalg.norm(pts - cam, axis=1) / np.linalg.norm(ends - cam, axis=1)
    return pose, boxes, bounds, rng, pts, ends, t0


def test_box_ray_hits_agrees_with_the_generic_ray_test() -> None:
    pose, boxes, bounds, _, pts, ends, t0 = _probe_scene([(3, 3, 3), (5, 5, 0), (5, 5, 1)], True, 7, 60, 12, 4)
    cam = pose.camera_position
    front = hits(cam, ends, boxes, t_min=0.0, t_max=t0 - 1e-3).any(axis=1)
    behind = hits(cam, ends, boxes, t_min=t0 - 1e-6, t_max=1.0)
    top = np.where(behind, boxes[None, :, 5], -np.inf).max(axis=1)
    for px, bb in ((pose.project(pts), bounds), (None, None)):
        hid, first = box_ray_hits(cam, ends, boxes, t0, px, bb, chunk=12)
        assert np.array_equal(hid, front)
        assert np.array_equal(first >= 0, behind.any(axis=1))
        got = first >= 0
        assert np.allclose(boxes[first[got], 5], top[got])  # the highest box met behind
    assert front.any() and behind.any() and (~front).any()
    # one box per ray left out
    own = np.argmax(behind, axis=1)
    _, first = box_ray_hits(cam, ends, boxes, t0, exclude=np.where(behind.any(axis=1), own, -1))
    assert not np.any((first == own) & behind.any(axis=1))



def test_box_ray_hits_picture_culling_gives_the_dense_answers() -> None:
    """With the rays' pixels only the (ray, box) pairs whose box is seen around the ray's pixel are
    tested (docs/boards_vision.md, "Speed round 5"): the very answers of testing every ray of a chunk
    against every box (no pixels), the same box behind among boxes of equal height (the last one),
    with boxes left out per ray, for every chunk size."""
    pose, boxes, bounds, rng, pts, ends, t0 = _probe_scene([(3, 3, 3), (5, 5, 0), (5, 5, 1), (0, 3, 0)], False,
                                                           5, 50, 10, 5)
    cam = pose.camera_position
    px = pose.project(pts)
    exclude = np.where(rng.random(len(pts)) < 0.3, rng.integers(0, len(boxes), len(pts)), -1)
    for chunk in (1, 4, 7, 12, 32):
        for ex in (None, exclude):
            want = box_ray_hits(cam, ends, boxes, t0, exclude=ex, chunk=chunk)
            got = box_ray_hits(cam, ends, boxes, t0, px, bounds, exclude=ex, chunk=chunk)
            assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
            assert want[0].any() and (want[1] >= 0).any()
    # (rays with several boxes of the highest height met behind them were among them: ties tried)
    behind = hits(cam, ends, boxes, t_min=t0 - 1e-6, t_max=1.0)
    top = np.where(behind, boxes[None, :, 5], -np.inf)
    assert ((top == top.max(axis=1, keepdims=True)) & behind).sum(axis=1).max() >= 2

def test_box_ray_hits_one_box_left_out_per_chunk_and_before_only() -> None:
    """Speed round 7 (docs/boards_vision.md, "Gridopolis speed round 7"): when every ray of a chunk leaves
    out the same box (a solid's own ring of points) that box is dropped with the chunk's pairs before
    the pixel test, and ``behind=False`` skips the box behind: the very first answers of the dense test
    (every ray against every box, no pixels), for chunks that do and do not line up with the rings."""
    pose, boxes, bounds, _, pts, ends, t0 = _probe_scene([(3, 3, 3), (5, 5, 0), (5, 5, 1), (0, 3, 0)], False,
                                                           5, 50, 10, 5)
    cam = pose.camera_position
    px = pose.project(pts)
    n = len(pts)
    ring = 5
    n = n - n % ring
    free = box_ray_hits(cam, ends[:n], boxes, t0[:n])
    # one box (or none) per ring of 5 rays: the box behind the ring's first ray (so that leaving it out matters)
    own = np.repeat(free[1][::ring], ring)
    some = own.copy()
    some[::7] = -1  # (and a mixture: the per-pair test)
    for ex in (own, some):
        for chunk in (1, ring, 2 * ring, 7, 16):
            want = box_ray_hits(cam, ends[:n], boxes, t0[:n], exclude=ex, chunk=chunk)
            got = box_ray_hits(cam, ends[:n], boxes, t0[:n], px[:n], bounds, exclude=ex, chunk=chunk)
            assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
            only = box_ray_hits(cam, ends[:n], boxes, t0[:n], px[:n], bounds, exclude=ex, chunk=chunk, behind=False)
            assert np.array_equal(only[0], want[0]) and (only[1] == -1).all()
            assert want[0].any() and (want[1] >= 0).any()
            # the boxes left out mattered: without them some answers differ
            assert not (np.array_equal(free[0], want[0]) and np.array_equal(free[1], want[1]))


def test_projection_is_opencvs_lens_model() -> None:
    """``BoardPose.project`` evaluates OpenCV's lens model itself (``cv2.projectPoints`` also computes
    derivatives, slowly): the same pixels for 4, 5 and 8 distortion coefficients."""
    import dataclasses

    import cv2

    spec = board_spec("gridopolis")
    pose = locate_board(synthetic_view(spec, 50, 30, 750, seed=2).image, spec, CAM)
    pts = np.random.default_rng(3).uniform([-50, -50, 0], [400, 400, 250], (3000, 3))  # (numpy for many points)
    for dist in (np.array([-0.1, 0.04, 0.001, -0.002]), np.array([-0.1, 0.04, 0.001, -0.002, 0.01]),
                 np.array([-0.1, 0.04, 0.001, -0.002, 0.01, 0.02, -0.01, 0.005])):
        p = dataclasses.replace(pose, dist=dist)
        want, _ = cv2.projectPoints(pts.reshape(-1, 1, 3), p.rvec, p.tvec, p.K, dist)
        assert np.abs(p.project(pts) - want.reshape(-1, 2)).max() < 1e-6


def test_pad_and_link_rows_looked_up_on_the_grid() -> None:
    """Pad detection looks the rows of the pads in place and their links up in per-board tables
    (``vision.board_pads._grid_rows``, ``_link_mids_on_grid``; docs/boards_vision.md, "Speed round 5"):
    the very rows ``pad_rows`` and ``link_rows`` compute, in the same order."""
    from vision.board_pads import GUIDE_CELLS, _grid_rows, _link_mids, _link_mids_on_grid, _link_rows_at

    spec = board_spec("gridopolis")
    pad_tab, link_tab = _grid_rows(spec, 5)
    rng = np.random.default_rng(4)
    sets = [sorted(gridopolis_pads(4))]
    for _ in range(60):
        sets.append(sorted({(int(x), int(y), int(lv)) for x, y, lv in zip(rng.integers(0, GUIDE_CELLS, 40),
                                                                       rng.integers(0, GUIDE_CELLS, 40),
                                                                       rng.integers(0, 5, 40), strict=True)}))
    for pads in sets:
        ik = np.array(pads, np.int64)
        mids = _link_mids_on_grid(ik, 5)
        assert np.array_equal(mids, _link_mids(pads))
        im = np.round(2.0 * mids).astype(np.int64)
        assert np.array_equal(link_tab[im[:, 2] // 2, im[:, 1], im[:, 0]], _link_rows_at(spec, mids))
        assert np.array_equal(link_tab[im[:, 2] // 2, im[:, 1], im[:, 0]], link_rows(spec, pads))
        assert np.array_equal(pad_tab[ik[:, 2], ik[:, 1], ik[:, 0]], pad_rows(spec, pads))
    assert max(len(_link_mids(p)) for p in sets) > 10
