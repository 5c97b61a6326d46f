"""Helpers the board reader uses for speed must give the very numbers of what they replace
(docs/boards_vision.md, "Speed (Gridopolis), session 3"): the 8-bit sRGB decoding table, and the
per-row median of the entries a mask keeps (``np.nanmedian`` without its masked-array path)."""

from __future__ import annotations

import warnings

import numpy as np

from calibration.colour import srgb8_codes_to_linear, srgb8_to_linear
from vision.board_classify import _masked_median


def test_srgb8_table_gives_the_formulas_bits() -> None:
    rng = np.random.default_rng(7)
    codes = rng.integers(0, 256, (5000, 3)).astype(np.uint8)
    codes[:256, 0] = np.arange(256)
    want = srgb8_to_linear(codes.astype(np.float64))
    got = srgb8_codes_to_linear(codes)
    assert got.dtype == np.float64 and got.shape == codes.shape
    assert np.array_equal(got.view(np.int64), want.view(np.int64))


def test_masked_median_is_nanmedian() -> None:
    rng = np.random.default_rng(11)
    for _ in range(200):
        vals = rng.normal(50.0, 20.0, (30, 16, 3))
        vals[:, :4] = np.round(vals[:, :4])  # ties
        ok = rng.random((30, 16)) < rng.random()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want = np.nanmedian(np.where(ok[..., None], vals, np.nan), axis=1)
        got = _masked_median(vals, ok)
        has = ok.any(axis=1)
        assert np.array_equal(got[has].view(np.int64), want[has].view(np.int64))
        assert np.isinf(got[~has]).all()
