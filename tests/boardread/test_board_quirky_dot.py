"""Quirky: a grey token's printed dark dot is a small patch inside the token (docs/boards_vision.md,
"Quirky: the dark dot is small and inside"), on fixture pictures (rendered, SIMULATED photographs)."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from calibration.boards import BoardSpec
from tests.boardread.test_board_reading import ROOT, _camera, _doc, _options
from vision.board_classify import _dot_probes, config_for
from vision.board_pipeline import read_board


def _kinds(n: int, dot_check: bool) -> dict[tuple[int, int], str]:
    doc = _doc("quirky", n)
    img = cv2.imread(str(ROOT / "quirky" / f"scene_{n:03d}.jpg"))
    assert img is not None
    cfg = config_for("quirky")
    if not dot_check:
        cfg = replace(cfg, token_dot_max_probes=0)
    r = read_board([(f"scene_{n:03d}", np.asarray(img, np.uint8))], "quirky", spec=BoardSpec.from_json(doc["board"]),
                   camera=_camera(doc), options=_options("quirky", doc), classify_config=cfg)
    merged = r.images[0].cells
    return {c.key[:2]: c.kind for c in merged}


@pytest.mark.parametrize(("scene", "cells"), [(1, [(5, 2)]), (10, [(5, 2), (5, 3)])])
def test_shadows_and_fingers_by_a_hand_are_not_dust_bunnies(scene: int, cells: list[tuple[int, int]]) -> None:
    """Under a hand's fingers the shadow is grey like a dust bunny and the gaps between fingers are
    dark: without the dot check these empty cells are read as dust bunnies."""
    truth = {(e["x"], e["y"]) for e in _doc("quirky", scene)["cells"] if e["piece"] == "dust_bunny"}
    with_check, without = _kinds(scene, True), _kinds(scene, False)
    for cell in cells:
        assert cell not in truth
        assert "dust" in without[cell]  # the failure this check removes
        assert "dust" not in with_check[cell]
    # the real dust bunnies in view are still read
    seen = [c for c in truth if with_check.get(c) not in (None, "occluded", "unseen")]
    assert seen and all("dust" in with_check[c] for c in seen)


def test_dot_probes_counts_small_inner_patches_only() -> None:
    grid = np.zeros((9, 9), bool)
    grid[6, 2] = grid[6, 3] = True  # the dot
    grid[8, 5:8] = True  # a shadow along the cell's edge
    grid[1:4, 3:6] = True  # a patch too large for the dot (9 probes)
    assert _dot_probes(grid.ravel(), 9, 6) == 2
    assert _dot_probes(grid.ravel(), 9, 0) == int(grid.sum())
