"""Blocks on the mat whose pixels are as smooth as bare paper are left out (vision.free_rules.drop_smooth_mat_blocks;
docs/vision.md, "Session 16: mat tint")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

import numpy as np
import pytest

from engine.ctrl.geometry import Cell
from vision import free_rules
from vision.free_rules import drop_smooth_mat_blocks, grey_std_at
from vision.reconstruct import RayScorer

STARTS: dict[str, Cell] = {"blue": (1, -1, 0)}


class _Rays:
    """Stands in for a RayScorer: each cell's first-hit rays, all in view 0."""

    def __init__(self, pixels: Mapping[Cell, list[tuple[int, int]]]) -> None:
        self.pixels = pixels

    def rays_meeting_first(self, blocks: Mapping[Cell, str], cells: Sequence[Cell], color: str,
                           ) -> tuple[np.ndarray, np.ndarray]:
        px = np.array([p for c in cells for p in self.pixels.get(c, [])], np.int64).reshape(-1, 2)
        return np.zeros(len(px), np.int64), px


def _picture() -> np.ndarray:
    grey = np.full((60, 120), 200, np.uint8)  # left half: smooth paper
    rng = np.random.default_rng(1)
    grey[:, 60:] = rng.integers(100, 140, (60, 60)).astype(np.uint8)  # right half: a textured face
    return grey


def test_grey_std_at_flat_and_textured() -> None:
    grey = _picture()
    std = grey_std_at(grey, np.array([[20, 30], [90, 30], [0, 0]], np.int64), 7)
    assert std[0] == 0.0 and std[2] == 0.0
    assert std[1] > 5.0
    with pytest.raises(ValueError, match="0"):
        grey_std_at(grey, np.zeros((1, 2), np.int64), 0)


def test_smooth_block_on_mat_left_out_textured_and_start_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(free_rules, "DROP_SMOOTH_MAT_BLOCKS", True)  # (off by default)
    smooth_px = [(10 + 2 * i, 30) for i in range(10)]
    rough_px = [(70 + 2 * i, 30) for i in range(10)]
    # (3, 1, 0) beside the Central Cube looks like bare paper; (4, 1, 0) (textured) is held by it alone
    blocks = {(3, 1, 0): "blue", (4, 1, 0): "blue", (1, 3, 0): "blue", (1, -1, 0): "blue"}
    scorer = _Rays({(3, 1, 0): smooth_px, (4, 1, 0): rough_px, (1, 3, 0): rough_px, (1, -1, 0): smooth_px})
    out = drop_smooth_mat_blocks(blocks, cast(RayScorer, scorer), STARTS, [_picture()])
    assert out == [] and len(blocks) == 4  # leaving it out would cut (4, 1, 0) off the cube
    del blocks[(4, 1, 0)]
    out = drop_smooth_mat_blocks(blocks, cast(RayScorer, scorer), STARTS, [_picture()])
    assert [(c, col) for c, col, _ in out] == [((3, 1, 0), "blue")]
    assert set(blocks) == {(1, 3, 0), (1, -1, 0)}  # the textured block and the start block (smooth) stay


def test_few_rays_or_switch_off_keep_the_block(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(free_rules, "DROP_SMOOTH_MAT_BLOCKS", True)
    blocks = {(3, 1, 0): "blue"}
    few = _Rays({(3, 1, 0): [(10, 30)] * (free_rules.RELOCATE_MIN_GAIN - 1)})
    assert drop_smooth_mat_blocks(blocks, cast(RayScorer, few), STARTS, [_picture()]) == []
    many = _Rays({(3, 1, 0): [(10, 30)] * 10})
    monkeypatch.setattr(free_rules, "DROP_SMOOTH_MAT_BLOCKS", False)
    assert drop_smooth_mat_blocks(blocks, cast(RayScorer, many), STARTS, [_picture()]) == []
    assert blocks == {(3, 1, 0): "blue"}
