"""Classify stage: per-pixel labels for the reconstruct stage, by chromaticity.

After white balance from the mat's own patches (``calibration.ColourModel.balanced_for``), each
pixel is converted to CIELAB.  Shading changes lightness far more than hue, so:

* pixels darker than ``dark_lightness`` (deep shadow, sockets, print, the cube) -> ``UNKNOWN``, unless
  they are still strongly coloured (chroma >= ``dark_chroma``, close to a piece hue within
  ``dark_max_hue_deg``): a block's side in its own shadow, under an overhang, is dark but keeps its
  hue, and those faces are often the only view of a block;
* saturation (chroma / lightness, which shading leaves nearly unchanged) below ``free_saturation``
  -> ``BACKGROUND`` (the mat's paper: evidence of free space along the ray);
* otherwise, with chroma at least ``piece_min_chroma`` (the Central Cube's dark grey under warm light
  has a high chroma / lightness ratio but little chroma), the nearest piece hue (blue, pink, yellow,
  green prototypes of the colour model) within
  ``max_hue_deg`` -> that colour, else ``UNKNOWN``.

STATUS: work in progress (issue "Auto-score a physical CTRL game from camera images").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from calibration.colour import ColourModel, linear_to_lab, srgb8_to_linear
from vision.labels import COLOR_LABELS, Label

U8 = npt.NDArray[np.uint8]

_SRGB8_LINEAR = srgb8_to_linear(np.arange(256))  # linear value of every 8-bit sRGB code


@dataclass(frozen=True)
class ClassifyConfig:
    dark_lightness: float = 18.0  # darker pixels (shadows, sockets, print, the cube) are not judged
    free_saturation: float = 0.25  # chroma / lightness below this: paper (free space)
    piece_saturation: float = 0.35  # above this: a piece colour, by hue
    max_hue_deg: float = 40.0
    piece_min_chroma: float = 16.0  # and this much absolute chroma (a dark grey with a tint is not a piece)
    dark_min_lightness: float = 2.0  # below this nothing is judged (sensor noise)
    dark_chroma: float = 30.0  # a dark pixel needs this much absolute chroma to count as a piece colour
    dark_max_hue_deg: float = 25.0


def classify(image: U8, model: ColourModel, cfg: ClassifyConfig | None = None) -> U8:
    """Label every pixel of a BGR image (``vision.labels.Label`` values)."""
    cfg = cfg or ClassifyConfig()
    img = np.ascontiguousarray(image, np.uint8)
    # a label depends on the pixel's colour alone: label each distinct colour once
    flat = img.reshape(-1, 3).astype(np.int32)
    key = (flat[:, 0] << 16) | (flat[:, 1] << 8) | flat[:, 2]
    uniq, inverse = np.unique(key, return_inverse=True)
    colours = np.stack([uniq >> 16, (uniq >> 8) & 255, uniq & 255], axis=-1).astype(np.uint8)
    out: U8 = _classify_colours(colours, model, cfg)[inverse.ravel()].reshape(img.shape[:2])
    return out


def _classify_colours(image: U8, model: ColourModel, cfg: ClassifyConfig) -> U8:
    """Labels of BGR colours (..., 3)."""
    # as ``model.lab_of_bgr(image)``, with the sRGB decoding of the 256 byte values looked up
    lin = _SRGB8_LINEAR[image[..., ::-1]]
    lab = linear_to_lab(np.clip(model.white_balance.apply(lin), 0.0, None))
    a, b = lab[..., 1], lab[..., 2]
    chroma = np.hypot(a, b)
    light = lab[..., 0]
    sat = chroma / np.maximum(light, 1.0)  # shading scales L and C together
    bright = light >= cfg.dark_lightness
    out = np.full(image.shape[:-1], int(Label.UNKNOWN), np.uint8)
    out[bright & (sat < cfg.free_saturation)] = int(Label.BACKGROUND)
    names = list(COLOR_LABELS)
    hues = []
    for n in names:
        p = model.classes[n].prototypes[0]
        hues.append(math.degrees(math.atan2(p[2], p[1])))
    # the hue decides only for saturated colours (bright) and strongly coloured dark ones: it is
    # worked out for those alone (the same formulas, element by element)
    piece = bright & (sat >= cfg.piece_saturation) & (chroma >= cfg.piece_min_chroma)
    dark = (light >= cfg.dark_min_lightness) & ~bright & (chroma >= cfg.dark_chroma)
    sel = piece | dark
    hue = np.degrees(np.arctan2(b[sel], a[sel]))
    d = np.stack([np.abs((hue - h + 180.0) % 360.0 - 180.0) for h in hues], axis=-1)
    best = np.argmin(d, axis=-1)
    hue_err = np.take_along_axis(d, best[..., None], axis=-1)[..., 0]
    ok = (piece[sel] & (hue_err <= cfg.max_hue_deg)) | (dark[sel] & (hue_err <= cfg.dark_max_hue_deg))
    labels = np.array([int(COLOR_LABELS[n]) for n in names], np.uint8)
    target = out[sel]
    target[ok] = labels[best[ok]]
    out[sel] = target
    return out


def weak_colour(image: U8, labels: U8, model: ColourModel, min_chroma: float,
                colours: tuple[str, ...] = tuple(COLOR_LABELS)) -> npt.NDArray[np.bool_]:
    """Where ``labels`` (``classify`` of ``image``) has one of the piece colours ``colours`` read from a
    pixel with less than ``min_chroma`` CIELAB chroma after white balance: a weakly coloured pixel,
    which may be the mat in a shadow lit by a fill light of another colour than the key (a warm lamp
    and a bluish room: the shadow reads blue; docs/vision.md, "Session 8: following a game under hard
    shadows")."""
    coloured = np.isin(labels, np.array([int(COLOR_LABELS[c]) for c in colours], np.uint8))
    out = np.zeros(labels.shape, bool)
    if not coloured.any():
        return out
    px = np.ascontiguousarray(image, np.uint8)[coloured]
    lab = linear_to_lab(np.clip(model.white_balance.apply(_SRGB8_LINEAR[px[..., ::-1]]), 0.0, None))
    out[coloured] = np.hypot(lab[..., 1], lab[..., 2]) < min_chroma
    return out


def saturation(image: U8, labels: U8, model: ColourModel) -> npt.NDArray[np.float32]:
    """CIELAB chroma / lightness (after white balance) of the pixels ``labels`` (``classify`` of ``image``)
    reads as a piece colour; NaN elsewhere.  Shading scales a surface's lightness and chroma together, so a
    block's faces keep their saturation in its own shadow, while the white mat in a shadow lit by a fill of
    another colour is tinted but pale (docs/vision.md, "Session 10: the free reading's score sheet")."""
    coloured = np.isin(labels, np.array([int(v) for v in COLOR_LABELS.values()], np.uint8))
    out = np.full(labels.shape, np.nan, np.float32)
    if not coloured.any():
        return out
    px = np.ascontiguousarray(image, np.uint8)[coloured]
    lab = linear_to_lab(np.clip(model.white_balance.apply(_SRGB8_LINEAR[px[..., ::-1]]), 0.0, None))
    out[coloured] = np.hypot(lab[..., 1], lab[..., 2]) / np.maximum(lab[..., 0], 1.0)
    return out
