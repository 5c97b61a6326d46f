"""Simulated camera views shared by the calibration tests (rendered once per session)."""

from __future__ import annotations

import numpy as np
import pytest
from calib_sim import View, board_views, mat_view

from calibration.mat import MatSpec
from calibration.targets import CharucoSpec, ChessboardSpec


@pytest.fixture(scope="session")
def chessboard_views() -> list[View]:
    return board_views(ChessboardSpec.parse("9x6:25"), np.array([100.0, 62.5, 0.0]), 12, seed=11)


@pytest.fixture(scope="session")
def charuco_views() -> list[View]:
    return board_views(
        CharucoSpec.parse("7x5:40:30:DICT_5X5_100"), np.array([140.0, 100.0, 0.0]), 12, seed=12
    )


@pytest.fixture(scope="session")
def a3_mat() -> MatSpec:
    return MatSpec.for_paper("A3", 22)


@pytest.fixture(scope="session")
def mat_views(a3_mat: MatSpec) -> list[View]:
    rng = np.random.default_rng(21)
    return [mat_view(a3_mat, rng, azimuth=(az - 25, az + 25)) for az in (-90, -40, -140, 0, 180, 90)]
