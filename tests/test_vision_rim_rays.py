"""Rim rays (``ReconstructConfig.rim_samples`` / ``rim_next_to``; docs/vision.md "Session 17: rim rays"): the
colour rays at a face's rim are left out of the blocks' cost, but a banner still counts them.

Checked on SYNTHETIC label maps (exact rasterized labels, ``vision.synthetic``) whose piece colours are made
to bleed a couple of pixels over every face's rim onto the mat, as a picture's colour labels do: with the rim
rays left out the true blocks explain the pictures again and an extra block on top of a true one costs more;
the flag, whose banner is a few samples wide (nearly all rim), is still read."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.ctrl.geometry import Cell
from engine.ctrl.moves import FlagSpot
from vision.camera import ViewCamera
from vision.labels import Label
from vision.reconstruct import ReconstructConfig, ViewEvidence, reconstruct, rim_samples
from vision.synthetic import render_labels, standard_cameras

BLOCKS: dict[Cell, str] = {(3, 1, 0): "blue", (3, 2, 0): "pink", (-1, 1, 0): "yellow", (1, -1, 0): "green",
                           (1, -1, 1): "green"}


def _cameras() -> dict[str, ViewCamera]:
    k = np.array([[480.0, 0, 320], [0, 480.0, 180], [0, 0, 1]])
    return standard_cameras(k, (640, 360), elevation_deg=35.0)


def _bleed(lab: np.ndarray, px: int) -> np.ndarray:
    """Each piece colour spread ``px`` pixels onto the mat around it."""
    out = lab.copy()
    for v in range(int(Label.BLUE), int(Label.GREEN) + 1):
        grown = cv2.dilate((lab == v).astype(np.uint8), np.ones((2 * px + 1, 2 * px + 1), np.uint8)) > 0
        out[grown & (out == int(Label.BACKGROUND))] = v
    return out


def _views(blocks: dict[Cell, str], flags: dict[str, FlagSpot], bleed_px: int) -> list[ViewEvidence]:
    return [ViewEvidence(cam, _bleed(render_labels(blocks, flags, cam), bleed_px), side)
            for side, cam in _cameras().items()]


def test_rim_samples_marks_a_colour_region_s_border() -> None:
    B, Y, P = int(Label.BACKGROUND), int(Label.BLUE), int(Label.PINK)
    grid = np.full((7, 9), B, np.uint8)
    grid[1:6, 1:5] = Y  # a 5 x 4 blue face
    grid[1:6, 5:8] = P  # a pink one beside it
    free1 = rim_samples(grid, 1, "free")
    # the blue face's border on the mat side is rim, its inside and the side touching pink are not
    assert free1[1, 1] and free1[5, 3] and free1[3, 1]
    assert not free1[3, 2] and not free1[3, 3] and not free1[3, 4]
    assert not free1[0].any() and not free1[:, 0].any()  # the mat itself never is
    any1 = rim_samples(grid, 1, "any")
    assert any1[3, 4] and any1[3, 5]  # next to another colour: rim with "any"
    assert not any1[3, 2] and not any1[3, 6]
    assert (any1 >= free1).all()
    both1 = rim_samples(grid, 1, "both")
    assert (both1 >= any1).all() and both1[0, 1] and both1[3, 8] and both1[3, 0] and not both1[0, 0]
    free2 = rim_samples(grid, 2, "free")
    assert free2[3, 2] and not free2[3, 3]  # two steps in from the mat
    assert not rim_samples(grid, 0).any()
    # UNKNOWN is no other label
    unk = np.full((5, 5), int(Label.UNKNOWN), np.uint8)
    unk[1:4, 1:4] = Y
    assert not rim_samples(unk, 1, "any").any() and not rim_samples(unk, 1, "free").any()


def test_the_config_rejects_bad_values() -> None:
    with pytest.raises(ValueError, match="-1"):
        ReconstructConfig(rim_samples=-1)
    with pytest.raises(ValueError, match="'edge'"):
        ReconstructConfig(rim_next_to="edge")


def test_rim_rays_are_left_out_of_the_cost_and_pay_no_more_for_an_extra_block() -> None:
    views = _views(BLOCKS, {}, 2)
    off = reconstruct(views).scorer
    on = reconstruct(views, ReconstructConfig(rim_samples=1)).scorer
    assert off is not None and on is not None
    view, _pix, obs = on.rays()
    left_out = off.counted() & ~on.counted()
    assert left_out.sum() > 100  # a rim of rays round every face in five pictures
    assert np.isin(obs[left_out], [int(Label.BLUE), int(Label.PINK), int(Label.YELLOW), int(Label.GREEN)]).all()
    assert set(view[left_out].tolist()) == set(range(len(views)))
    # the bled colour is what the true blocks failed to explain: without the rim rays most of that is gone
    assert on.cost(BLOCKS) < 0.25 * off.cost(BLOCKS)
    # an extra block on top of a true one of its colour: the bled rays above the true face paid for part of it
    for extra in ({(3, 1, 1): "blue"}, {(1, -1, 2): "green"}):
        cost_off = off.cost({**BLOCKS, **extra}) - off.cost(BLOCKS)
        cost_on = on.cost({**BLOCKS, **extra}) - on.cost(BLOCKS)
        assert cost_on > cost_off > 0
    # every other rim ray only: about half of them
    half = reconstruct(views, ReconstructConfig(rim_samples=1, rim_every_other=True)).scorer
    assert half is not None
    half_out = off.counted() & ~half.counted()
    assert (half_out <= left_out).all() and 0.3 * left_out.sum() < half_out.sum() < 0.7 * left_out.sum()
    # the blocks read are the true ones either way
    assert reconstruct(views, ReconstructConfig(rim_samples=1)).blocks == BLOCKS


def test_banners_keep_their_rim_rays() -> None:
    flags = {"green": FlagSpot((1, -1, 2), "+z")}
    views = _views(BLOCKS, flags, 0)
    off = reconstruct(views)
    on = reconstruct(views, ReconstructConfig(rim_samples=1, rim_next_to="any"))
    assert off.flags == flags
    assert on.flags == flags
    assert on.flag_scores["green"] == pytest.approx(off.flag_scores["green"])
    assert on.blocks == BLOCKS
