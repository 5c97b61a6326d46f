"""Simulated lighting: how surfaces look to a camera under 2700 K ... 6500 K light (for tests).

A *simulation*, named as such, physically motivated rather than a colour-space hack:

* **Light**: black-body (Planck) spectra at a correlated colour temperature, 380-730 nm, 5 nm steps
  (tungsten at 2700 K is close to a black body; 6500 K stands in for daylight).
* **Surfaces**: smooth reflectance spectra ``R(l) = sigmoid(c0 + c1 t + c2 t^2)`` (``t`` = normalised
  wavelength; the low-dimensional spectra of Jakob & Hanika 2019), fitted so that each surface has
  a chosen sRGB appearance under the 6500 K reference light.
* **Camera**: the CIE 1931 colour matching functions (the analytic multi-lobe Gaussian fit of
  Wyman, Sloan & Shirley 2013) followed by the fixed XYZ -> linear sRGB matrix, with channel gains
  set once so that a perfect white under 6500 K reads (1, 1, 1): a camera locked to a daylight
  white balance.  Under 2700 K the same camera sees everything orange, as a real one does.
* **Camera automatic white balance** (optional): per-channel gains chosen by the grey-world rule
  on the frame, and an exposure factor.

:func:`camera_rgb` gives the linear camera RGB of a surface under a light; :func:`illuminant_matrix`
gives the 3 x 3 least-squares map from reference-light linear RGB to camera RGB under another light,
fitted over many simulated surfaces, to relight whole rendered images.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import numpy.typing as npt

from calibration.colour import _M_RGB2XYZ, linear_to_srgb8, srgb8_to_linear

F64 = npt.NDArray[np.float64]

__all__ = ["blackbody", "camera_rgb", "fit_reflectance", "illuminant_matrix", "relight_image"]

WAVELENGTHS = np.arange(380.0, 731.0, 5.0)
_M_XYZ2RGB = np.linalg.inv(_M_RGB2XYZ)


def _g(lam: F64, mu: float, s1: float, s2: float) -> F64:
    s = np.where(lam < mu, s1, s2)
    return np.asarray(np.exp(-0.5 * ((lam - mu) / s) ** 2), np.float64)


def cmf(lam: F64 = WAVELENGTHS) -> F64:
    """CIE 1931 2-degree colour matching functions (N, 3), Wyman-Sloan-Shirley multi-lobe fit."""
    x = (
        1.056 * _g(lam, 599.8, 37.9, 31.0)
        + 0.362 * _g(lam, 442.0, 16.0, 26.7)
        - 0.065 * _g(lam, 501.1, 20.4, 26.2)
    )
    y = 0.821 * _g(lam, 568.8, 46.9, 40.5) + 0.286 * _g(lam, 530.9, 16.3, 31.1)
    z = 1.217 * _g(lam, 437.0, 11.8, 36.0) + 0.681 * _g(lam, 459.0, 26.0, 13.8)
    return np.stack([x, y, z], axis=1)


def blackbody(temperature_k: float, lam: F64 = WAVELENGTHS) -> F64:
    """Planck spectral radiance (relative, normalised to 1 at 560 nm)."""
    h, c, k = 6.62607015e-34, 2.99792458e8, 1.380649e-23
    m = lam * 1e-9

    def planck(mm: F64) -> F64:
        return np.asarray(1.0 / (mm**5 * (np.exp(h * c / (mm * k * temperature_k)) - 1.0)), np.float64)

    return np.asarray(planck(m) / planck(np.array([560e-9]))[0], np.float64)


def _reflectance(coeffs: F64, lam: F64 = WAVELENGTHS) -> F64:
    t = (lam - lam[0]) / (lam[-1] - lam[0])
    x = coeffs[..., 0:1] + coeffs[..., 1:2] * t + coeffs[..., 2:3] * t**2
    return np.asarray(0.5 + x / (2.0 * np.sqrt(1.0 + x * x)), np.float64)


@lru_cache(maxsize=1)
def _reference_gains() -> F64:
    raw = _M_XYZ2RGB @ (cmf().T @ blackbody(6500.0))
    return np.asarray(1.0 / raw, np.float64)


def camera_rgb(reflectance: F64, temperature_k: float) -> F64:
    """Linear camera RGB (..., 3) of reflectance spectra (..., N) under a black body of that temperature
    (the camera keeps its daylight white balance: a perfect white at 6500 K reads (1, 1, 1))."""
    light = blackbody(temperature_k)
    xyz = (np.asarray(reflectance) * light) @ cmf()
    return np.asarray((xyz @ _M_XYZ2RGB.T) * _reference_gains(), np.float64)


def fit_reflectance(srgb8: npt.ArrayLike, iterations: int = 60) -> F64:
    """A smooth reflectance spectrum (N,) whose camera RGB under 6500 K matches ``srgb8`` (R, G, B)
    as closely as such spectra allow (Gauss-Newton on the three sigmoid-polynomial coefficients)."""
    target = srgb8_to_linear(np.asarray(srgb8, np.float64))

    def resid(c: F64) -> F64:
        return np.asarray(camera_rgb(_reflectance(c), 6500.0) - target, np.float64)

    best_c, best_err = np.zeros(3), np.inf
    for start in (
        [0.0, 0.0, 0.0],
        [-3.0, 12.0, -12.0],
        [3.0, -12.0, 12.0],
        [-3.0, -6.0, 12.0],
        [0.0, 6.0, -6.0],
    ):
        c = np.array(start, np.float64)
        lam = 1e-2
        f = resid(c)
        for _ in range(iterations):  # Levenberg-Marquardt
            jac = np.zeros((3, 3))
            for i in range(3):
                dc = np.zeros(3)
                dc[i] = 1e-5
                jac[:, i] = (resid(c + dc) - f) / 1e-5
            step = np.linalg.solve(jac.T @ jac + lam * np.eye(3), -jac.T @ f)
            f_new = resid(c + step)
            if float(f_new @ f_new) < float(f @ f):
                c, f, lam = c + step, f_new, lam * 0.3
            else:
                lam *= 10.0
            if np.abs(f).max() < 1e-6 or lam > 1e8:
                break
        err = float(np.abs(f).max())
        if err < best_err:
            best_c, best_err = c, err
        if best_err < 1e-4:
            break
    return _reflectance(best_c)


@lru_cache(maxsize=16)
def illuminant_matrix(temperature_k: float, n_surfaces: int = 400, seed: int = 0) -> F64:
    """3 x 3 matrix ``M`` with ``rgb_T ~ rgb_6500 @ M.T`` fitted over random smooth surfaces."""
    rng = np.random.default_rng(seed)
    coeffs = rng.normal(0, 1, size=(n_surfaces, 3)) * np.array([3.0, 8.0, 8.0])
    refl = _reflectance(coeffs)
    a = camera_rgb(refl, 6500.0)
    b = camera_rgb(refl, temperature_k)
    m, *_ = np.linalg.lstsq(a, b, rcond=None)
    return np.asarray(m.T, np.float64)


def relight_image(
    bgr8: npt.NDArray[np.uint8],
    temperature_k: float,
    *,
    auto_white_balance: bool = False,
    exposure: float | None = None,
    rng: np.random.Generator | None = None,
    noise_sigma: float = 0.0,
) -> npt.NDArray[np.uint8]:
    """A rendered (6500 K) BGR image as the camera would record it under ``temperature_k`` light,
    optionally with grey-world automatic white balance, an exposure factor (default: auto exposure,
    the brightest channel's 99th percentile at 0.9) and sensor noise."""
    lin = srgb8_to_linear(bgr8[..., ::-1].astype(np.float64))
    out = lin @ illuminant_matrix(float(temperature_k)).T
    if auto_white_balance:
        means = out.reshape(-1, 3).mean(axis=0)
        out = out * (means.mean() / np.maximum(means, 1e-6))
    if exposure is None:  # auto exposure: the brightest channel's 99th percentile at 0.9
        exposure = 0.9 / max(float(np.percentile(out.reshape(-1, 3).max(axis=1), 99)), 1e-6)
    out = out * exposure
    enc = linear_to_srgb8(out)
    if noise_sigma > 0:
        gen = rng or np.random.default_rng(0)
        enc = enc + gen.normal(0, noise_sigma, size=enc.shape)
    return np.clip(enc[..., ::-1] + 0.5, 0, 255).astype(np.uint8)
