"""Helpers the board reader uses for speed must give the very numbers of what they replace
(docs/boards_vision.md, "Speed (Gridopolis), session 3"): the 8-bit sRGB decoding table, the
per-row median of the entries a mask keeps (``np.nanmedian`` without its masked-array path), the
median of a few rows (``np.median`` without its general machinery), and
CIELAB computing the linear segment only where it applies."""

from __future__ import annotations

import warnings

import numpy as np

from calibration.colour import _M_RGB2XYZ, _WHITE_D65, linear_to_lab, srgb8_codes_to_linear, srgb8_to_linear
from vision.board_classify import _masked_median, _median_rows


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


def _lab_reference(rgb: np.ndarray) -> np.ndarray:
    """CIELAB as written before (both branches everywhere, then np.where)."""
    xyz = np.asarray(rgb, np.float64) @ _M_RGB2XYZ.T / _WHITE_D65
    eps, kappa = 216 / 24389, 24389 / 27
    f = np.where(xyz > eps, np.cbrt(np.maximum(xyz, 0.0)), (kappa * xyz + 16) / 116)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], axis=-1)


def test_linear_to_lab_gives_the_where_formulas_bits() -> None:
    rng = np.random.default_rng(5)
    for shape in [(4000, 3), (9, 3), (20, 16, 3), (3,), (0, 3)]:
        rgb = rng.random(shape) ** 3 * 1.2 - 0.05  # dark values (the linear segment), negatives, > 1
        got, want = linear_to_lab(rgb), _lab_reference(rgb)
        assert got.shape == want.shape and got.dtype == np.float64
        assert np.array_equal(got.view(np.int64), want.view(np.int64))


def test_median_rows_is_np_median() -> None:
    rng = np.random.default_rng(13)
    for n in [1, 2, 3, 4, 5, 8, 17, 40]:
        for _ in range(30):
            vals = rng.normal(40.0, 25.0, (n, 3))
            vals[: n // 3] = np.round(vals[: n // 3])  # ties
            want = np.median(vals, axis=0)
            assert np.array_equal(_median_rows(vals).view(np.int64), want.view(np.int64))
    with_nan = np.array([[1.0, 2.0, 3.0], [np.nan, 1.0, 0.0], [2.0, 2.0, 2.0]])
    assert np.array_equal(_median_rows(with_nan), np.median(with_nan, axis=0), equal_nan=True)


def test_picture_checks_mean_and_clipped_share_are_numpys() -> None:
    """``vision.locate.check_image`` counts the clipped pixels and sums the grey values exactly
    (docs/boards_vision.md, "Speed round 5"): the very numbers of ``(grey >= 250).mean()`` and
    ``grey.mean()``, on pictures of every size, dark, white, and views with strides."""
    from vision.locate import _grey_sum

    rng = np.random.default_rng(3)
    for i in range(120):
        h, w = (int(v) for v in rng.integers(1, 900, 2))
        grey = rng.integers(0, 256, (h, w)).astype(np.uint8)
        if i % 4 == 1:
            grey[:] = 255
        if i % 4 == 2:
            grey[:] = rng.integers(245, 256, (h, w)).astype(np.uint8)
        if i % 5 == 0:
            grey = grey[::2, 1::3]
        assert _grey_sum(grey) / grey.size == float(grey.mean())
        assert np.count_nonzero(grey >= 250) / grey.size == float((grey >= 250).mean())
