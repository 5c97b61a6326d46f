"""The colour model: white balance from the mat's patches, then classes in CIELAB with CIEDE2000.

Pipeline for every image:

1. **Linearise** the 8-bit sRGB-encoded camera values (the sRGB transfer curve; webcams encode
   close to it).
2. **White balance** from the mat's patches seen in *this* image (:func:`sample_patches` with the
   mat's pose): per channel an affine map ``v' = gain * v + offset`` fitted by least squares so the
   white, grey and black patches become neutral with their reference reflectances (0.85, 0.18,
   0.03).  This is a von Kries (diagonal) correction in the camera's own RGB; the offset absorbs
   flare and black level.  It is re-estimated per image, so warm 2700 K lamps, daylight and a
   camera's automatic white balance all end up in the same normalised space.
3. **CIELAB** (D65 white) of the balanced colour and **CIEDE2000** distance to each class's
   prototypes; the nearest class wins when within its threshold, otherwise ``unknown``.

Classes: ``blue``, ``pink``, ``yellow``, ``green`` (players' blocks), ``black`` (the Central Cube),
``white`` (the mat's paper), ``print`` (the mat's black ink), and ``unknown``.  Prototypes start from
the printed patches (a prior) and are *learned per session from known places*
(:meth:`ColourModel.learn`): the mat's patches and paper, and the start blocks of a set-up position
(:func:`sample_cell_face`).  A model is saved and loaded as readable JSON.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.errors import CalibrationError, CalibrationFileError
from calibration.files import read_json_file, write_json_file
from calibration.mat import MatSpec

if TYPE_CHECKING:
    from calibration.pose import MatPose

__all__ = [
    "CLASSES",
    "ColourModel",
    "ColourSample",
    "WhiteBalance",
    "ciede2000",
    "lab_to_srgb8",
    "linear_to_lab",
    "sample_cell_face",
    "sample_patches",
    "sample_world_polygon",
    "srgb8_to_linear",
]

F64 = npt.NDArray[np.float64]

CLASSES = ("blue", "pink", "yellow", "green", "black", "white", "print")
UNKNOWN = "unknown"

#: Reference linear reflectance the white balance maps each neutral patch to.
PATCH_REFERENCE = {"white": 0.85, "grey": 0.18, "black": 0.03}

# sRGB (D65) linear RGB -> XYZ
_M_RGB2XYZ = np.array(
    [[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750], [0.0193339, 0.1191920, 0.9503041]]
)
_M_XYZ2RGB = np.linalg.inv(_M_RGB2XYZ)
_WHITE_D65 = _M_RGB2XYZ @ np.ones(3)


class ColourModelError(CalibrationError):
    """The colour model cannot be built from what was seen (patches hidden, no samples)."""


# ----------------------------------------------------------------------------- colour maths
def srgb8_to_linear(rgb8: npt.ArrayLike) -> F64:
    """8-bit sRGB-encoded values (any shape, last axis RGB or not) -> linear 0..1."""
    c = np.asarray(rgb8, dtype=np.float64) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


_SRGB8_LINEAR = srgb8_to_linear(np.arange(256))  # the linear value of every 8-bit code (same formula)


def srgb8_codes_to_linear(codes: npt.NDArray[np.uint8]) -> F64:
    """:func:`srgb8_to_linear` of 8-bit codes (any shape), looked up in a table of the 256 codes'
    values: the same numbers, some ten times quicker."""
    return np.asarray(_SRGB8_LINEAR[codes], np.float64)


def _median_linear(bgr: npt.NDArray[np.uint8]) -> F64:
    """``np.median(srgb8_to_linear(bgr[:, ::-1]), axis=0)`` of 8-bit BGR pixels (N >= 1, 3), from the
    codes' counts: the decoding is increasing, so the middle codes decode to the middle values (and
    an even count averages the two middle values, as ``np.median`` does)."""
    n = len(bgr)
    k = n // 2
    out = np.empty(3)
    for o, ch in enumerate((2, 1, 0)):
        upto = np.cumsum(np.bincount(bgr[:, ch], minlength=256))
        hi = int(np.searchsorted(upto, k, side="right"))  # the code of the k-th smallest (from 0)
        if n % 2:
            out[o] = _SRGB8_LINEAR[hi]
        else:
            lo = int(np.searchsorted(upto, k - 1, side="right"))
            out[o] = np.mean(np.array([_SRGB8_LINEAR[lo], _SRGB8_LINEAR[hi]]))
    return out


def linear_to_srgb8(lin: npt.ArrayLike) -> F64:
    c = np.clip(np.asarray(lin, dtype=np.float64), 0.0, 1.0)
    return 255.0 * np.where(c <= 0.0031308, 12.92 * c, 1.055 * c ** (1 / 2.4) - 0.055)


def linear_to_lab(rgb: npt.ArrayLike) -> F64:
    """Linear sRGB (..., 3) (R, G, B order) -> CIELAB (..., 3), D65 white."""
    a = np.asarray(rgb, dtype=np.float64)
    xyz = a @ _M_RGB2XYZ.T / _WHITE_D65
    eps, kappa = 216 / 24389, 24389 / 27
    # (the linear segment only where it applies: the same numbers as np.where over both branches)
    f = np.cbrt(np.maximum(xyz, 0.0))
    low = xyz <= eps
    if low.any():
        f[low] = (kappa * xyz[low] + 16) / 116
    lab = np.empty(f.shape, np.float64)
    lab[..., 0] = 116 * f[..., 1] - 16
    lab[..., 1] = 500 * (f[..., 0] - f[..., 1])
    lab[..., 2] = 200 * (f[..., 1] - f[..., 2])
    return lab


def lab_to_linear(lab: npt.ArrayLike) -> F64:
    a = np.asarray(lab, dtype=np.float64)
    fy = (a[..., 0] + 16) / 116
    fx = fy + a[..., 1] / 500
    fz = fy - a[..., 2] / 200
    eps, kappa = 216 / 24389, 24389 / 27

    def finv(f: F64) -> F64:
        return np.where(f**3 > eps, f**3, (116 * f - 16) / kappa)

    xyz = np.stack([finv(fx), finv(fy), finv(fz)], axis=-1) * _WHITE_D65
    return np.asarray(xyz @ _M_XYZ2RGB.T, np.float64)


def lab_to_srgb8(lab: npt.ArrayLike) -> F64:
    return linear_to_srgb8(lab_to_linear(lab))


def ciede2000(lab1: npt.ArrayLike, lab2: npt.ArrayLike) -> F64:
    """CIEDE2000 colour difference (kL = kC = kH = 1), broadcasting over leading axes.

    Sharma, Wu, Dalal (2005), "The CIEDE2000 color-difference formula: implementation notes"."""
    a1 = np.asarray(lab1, dtype=np.float64)
    a2 = np.asarray(lab2, dtype=np.float64)
    l1, x1, y1 = a1[..., 0], a1[..., 1], a1[..., 2]
    l2, x2, y2 = a2[..., 0], a2[..., 1], a2[..., 2]
    c1, c2 = np.hypot(x1, y1), np.hypot(x2, y2)
    cbar7 = ((c1 + c2) / 2) ** 7
    g = 0.5 * (1 - np.sqrt(cbar7 / (cbar7 + 25.0**7)))
    x1p, x2p = (1 + g) * x1, (1 + g) * x2
    c1p, c2p = np.hypot(x1p, y1), np.hypot(x2p, y2)
    h1p = np.degrees(np.arctan2(y1, x1p)) % 360
    h2p = np.degrees(np.arctan2(y2, x2p)) % 360
    h1p = np.where((x1p == 0) & (y1 == 0), 0.0, h1p)
    h2p = np.where((x2p == 0) & (y2 == 0), 0.0, h2p)
    dlp = l2 - l1
    dcp = c2p - c1p
    dh = h2p - h1p
    dh = np.where(dh > 180, dh - 360, np.where(dh < -180, dh + 360, dh))
    dh = np.where(c1p * c2p == 0, 0.0, dh)
    dhp = 2 * np.sqrt(c1p * c2p) * np.sin(np.radians(dh) / 2)
    lbp = (l1 + l2) / 2
    cbp = (c1p + c2p) / 2
    hsum = h1p + h2p
    hbp = np.where(
        c1p * c2p == 0,
        hsum,
        np.where(
            np.abs(h1p - h2p) <= 180, hsum / 2, np.where(hsum < 360, (hsum + 360) / 2, (hsum - 360) / 2)
        ),
    )
    t = (
        1
        - 0.17 * np.cos(np.radians(hbp - 30))
        + 0.24 * np.cos(np.radians(2 * hbp))
        + 0.32 * np.cos(np.radians(3 * hbp + 6))
        - 0.20 * np.cos(np.radians(4 * hbp - 63))
    )
    dtheta = 30 * np.exp(-(((hbp - 275) / 25) ** 2))
    cbp7 = cbp**7
    rc = 2 * np.sqrt(cbp7 / (cbp7 + 25.0**7))
    sl = 1 + 0.015 * (lbp - 50) ** 2 / np.sqrt(20 + (lbp - 50) ** 2)
    sc = 1 + 0.045 * cbp
    sh = 1 + 0.015 * cbp * t
    rt = -np.sin(np.radians(2 * dtheta)) * rc
    de = np.sqrt((dlp / sl) ** 2 + (dcp / sc) ** 2 + (dhp / sh) ** 2 + rt * (dcp / sc) * (dhp / sh))
    return np.asarray(de, np.float64)


# ----------------------------------------------------------------------------- white balance
@dataclass(frozen=True)
class WhiteBalance:
    """Per-channel affine correction in linear camera RGB (R, G, B): ``v' = gain * v + offset``."""

    gain: tuple[float, float, float] = (1.0, 1.0, 1.0)
    offset: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def apply(self, rgb_linear: npt.ArrayLike) -> F64:
        a = np.asarray(rgb_linear, dtype=np.float64)
        return np.asarray(a * np.array(self.gain) + np.array(self.offset), np.float64)

    @classmethod
    def from_patches(cls, measured: Mapping[str, npt.ArrayLike], fit_offset: bool = True) -> WhiteBalance:
        """Fit from measured linear RGB of neutral patches (``white``, ``grey``, ``black``, also
        ``white2``...).  Needs a white or grey patch; with two or more levels (and ``fit_offset``) the
        offset is fitted too.  A negative offset fitted from a black patch with glare on it turns
        every shadow black, so colour classification of shadowed faces asks for gains only."""
        xs: list[F64] = []
        ys: list[float] = []
        for name, rgb in measured.items():
            kind = name.rstrip("0123456789")
            if kind in PATCH_REFERENCE:
                xs.append(np.asarray(rgb, np.float64).reshape(3))
                ys.append(PATCH_REFERENCE[kind])
        if not xs or all(y == PATCH_REFERENCE["black"] for y in ys):
            raise ColourModelError("white balance needs the mat's white or grey patch in view")
        x = np.stack(xs)
        y = np.array(ys)
        gain, offset = np.ones(3), np.zeros(3)
        levels = len(set(ys)) if fit_offset else 1
        for ch in range(3):
            if levels >= 2:
                a = np.column_stack([x[:, ch], np.ones(len(x))])
                sol, *_ = np.linalg.lstsq(a, y, rcond=None)
                g, o = float(sol[0]), float(sol[1])
                if g <= 0:  # degenerate (patches mixed up): fall back to a pure gain
                    g, o = float(np.dot(x[:, ch], y) / max(np.dot(x[:, ch], x[:, ch]), 1e-12)), 0.0
            else:
                g, o = float(np.dot(x[:, ch], y) / max(np.dot(x[:, ch], x[:, ch]), 1e-12)), 0.0
            gain[ch], offset[ch] = g, o
        if not _plausible_affine(gain, offset):
            # two patch levels that disagree in brightness (a patch half in shadow, or glare on it)
            # make the per-channel line absurd (gains of 0.04 and 68 were seen): use a pure gain
            # from the patches instead, which a neutral patch's chromaticity keeps sane
            gain = np.array([float(np.dot(x[:, ch], y) / max(np.dot(x[:, ch], x[:, ch]), 1e-12)) for ch in range(3)])
            offset = np.zeros(3)
        return cls(tuple(float(v) for v in gain), tuple(float(v) for v in offset))  # type: ignore[arg-type]

    def to_json(self) -> dict[str, Any]:
        return {"gain": list(self.gain), "offset": list(self.offset)}

    @classmethod
    def from_json(cls, doc: Any) -> WhiteBalance:
        try:
            g = tuple(float(v) for v in doc["gain"])
            o = tuple(float(v) for v in doc["offset"])
        except (KeyError, TypeError, ValueError) as exc:
            raise CalibrationFileError(f"bad white balance in colour model: {exc}") from None
        if len(g) != 3 or len(o) != 3:
            raise CalibrationFileError("white balance gain/offset must have 3 values")
        return cls(g, o)  # type: ignore[arg-type]


def _plausible_affine(gain: F64, offset: F64, max_gain_ratio: float = 12.0, max_offset: float = 0.15) -> bool:
    """A white balance a camera and a black-body light can produce: positive gains within a factor
    ``max_gain_ratio`` of each other (an uncorrected camera at 2700 K needs about 6) and a small black-level offset."""
    g = np.asarray(gain, np.float64)
    return bool(np.all(g > 0) and g.max() <= max_gain_ratio * g.min() and np.abs(offset).max() <= max_offset)


def consistent_neutrals(measured: Mapping[str, npt.ArrayLike], tolerance: float = 0.05) -> dict[str, F64]:
    """The largest group of neutral patches (white, grey, black...) whose chromaticities agree.

    A neutral patch under any light has the same chromaticity (r, g, b) / (r + g + b) as the other
    neutral patches; a patch covered by a block does not.  Groups are formed around each patch
    (members within ``tolerance`` of it on every chromaticity axis); the largest group wins, ties
    going to the brighter.  Non-neutral patches pass through untouched."""
    neutral: dict[str, F64] = {}
    others: dict[str, F64] = {}
    for name, rgb in measured.items():
        v = np.asarray(rgb, np.float64).reshape(3)
        if name.rstrip("0123456789") in PATCH_REFERENCE:
            neutral[name] = v
        else:
            others[name] = v
    chroma = {k: v / max(float(v.sum()), 1e-9) for k, v in neutral.items()}
    # a neutral patch under black-body light (2000-10000 K) keeps every channel's share within these
    # bounds; the pieces' saturated plastics do not (pink has almost no green, yellow no blue, ...)
    neutral = {k: v for k, v in neutral.items() if _plausibly_neutral(chroma[k])}
    if len(neutral) <= 1:
        return {**others, **neutral}
    best: list[str] = []
    best_key = (-1, -1.0)
    for centre in neutral:
        group = [k for k in neutral if float(np.abs(chroma[k] - chroma[centre]).max()) <= tolerance]
        key = (len(group), float(sum(neutral[k].sum() for k in group)))
        if key > best_key:
            best, best_key = group, key
    return {**others, **{k: neutral[k] for k in best}}


@lru_cache(maxsize=1)
def _planckian_shares() -> F64:
    """Chromaticity shares of a neutral surface under black bodies from 1800 K to 12000 K, for a
    camera white-balanced to daylight (calibration.spectral)."""
    from calibration.spectral import WAVELENGTHS, camera_rgb

    temps = np.geomspace(1800.0, 12000.0, 80)
    rgb = np.stack([camera_rgb(np.full(len(WAVELENGTHS), 0.85), float(t)) for t in temps])
    return np.asarray(rgb / rgb.sum(axis=1, keepdims=True), np.float64)


def _plausibly_neutral(share: F64, tolerance: float = 0.06) -> bool:
    """True when the chromaticity lies near the Planckian locus: a neutral surface under some
    black-body light.  The pieces' saturated plastics lie far from it."""
    return float(np.abs(_planckian_shares() - np.asarray(share)[None, :]).max(axis=1).min()) <= tolerance


# ----------------------------------------------------------------------------- sampling
def _bgr_pixels_in_polygon(
    image: npt.NDArray[np.uint8], poly: F64, shrink: float = 0.0
) -> npt.NDArray[np.uint8]:
    h, w = image.shape[:2]
    p = np.asarray(poly, np.float64).reshape(-1, 2)
    if shrink > 0:
        c = p.mean(axis=0)
        p = c + (p - c) * (1 - shrink)
    if (p[:, 0].max() < 0) or (p[:, 1].max() < 0) or (p[:, 0].min() >= w) or (p[:, 1].min() >= h):
        return np.zeros((0, 3), np.uint8)
    x0, y0 = max(0, int(np.floor(p[:, 0].min()))), max(0, int(np.floor(p[:, 1].min())))
    x1, y1 = min(w, int(np.ceil(p[:, 0].max())) + 1), min(h, int(np.ceil(p[:, 1].max())) + 1)
    if x1 <= x0 or y1 <= y0:
        return np.zeros((0, 3), np.uint8)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(mask, np.round((p - [x0, y0]) * 16).astype(np.int32), 255, cv2.LINE_8, 4)
    sub = image[y0:y1, x0:x1]
    return np.asarray(sub[mask > 0].reshape(-1, 3), np.uint8)


@dataclass(frozen=True)
class ColourSample:
    """Pixels of one known place: the median linear RGB (R, G, B), pixel count and spread."""

    name: str
    rgb_linear: tuple[float, float, float]
    pixels: int
    spread: float

    @classmethod
    def from_pixels(cls, name: str, bgr: npt.NDArray[np.uint8]) -> ColourSample | None:
        if len(bgr) < 4:
            return None
        if bgr.dtype == np.uint8:  # the same values, looked up
            lin = _SRGB8_LINEAR[bgr[:, ::-1]]
            med = _median_linear(bgr)
        else:
            lin = srgb8_to_linear(bgr[:, ::-1])
            med = np.median(lin, axis=0)
        spread = float(np.median(np.abs(lin - med).sum(axis=1)))
        return cls(name, (float(med[0]), float(med[1]), float(med[2])), len(bgr), spread)


def sample_world_polygon(
    image: npt.NDArray[np.uint8], pose: MatPose, polygon_world: npt.ArrayLike, inset: float = 0.0
) -> npt.NDArray[np.uint8]:
    """BGR pixels inside a convex polygon given in world mm (N, 3), shrunk towards its centre by ``inset``."""
    return _bgr_pixels_in_polygon(image, pose.project(np.asarray(polygon_world, np.float64)), inset)


def sample_patches(
    image: npt.NDArray[np.uint8], pose: MatPose, inset: float = 0.3
) -> dict[str, ColourSample]:
    """Median colour of each of the mat's patches visible in ``image`` (BGR), keyed by patch name.
    ``inset`` shrinks each patch (fraction) to stay clear of its frame and of pose error."""
    out: dict[str, ColourSample] = {}
    for name, bgr in _patch_pixels(image, pose, inset):
        s = ColourSample.from_pixels(name, bgr)
        if s is not None:
            out[name] = s
    return out


def _patch_pixels(
    image: npt.NDArray[np.uint8], pose: MatPose, inset: float
) -> Iterator[tuple[str, npt.NDArray[np.uint8]]]:
    """(name, BGR pixels) of each of the mat's patches the Central Cube does not hide (see
    :func:`sample_patches`)."""
    cube = _central_cube_outline(pose)
    for p in pose.spec.patches():
        x0, y0, x1, y1 = p.rect_world
        px = pose.project([[x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0]])
        if cube is not None and _behind_cube(pose, p.rect_world, px, cube):
            continue  # the Central Cube stands in front of it: its black would pass for a grey patch
        yield p.name, _bgr_pixels_in_polygon(image, px, inset)


def _central_cube_outline(pose: MatPose) -> F64 | None:
    """The Central Cube's outline in the picture (convex hull of its 8 corners; it stands on the
    mat's footprint, 3 blocks high), or None when it is behind the camera."""
    x0, y0, x1, y1 = pose.spec.footprint_world()
    h = 3 * pose.spec.block_mm
    corners = np.array([[x, y, z] for x in (x0, x1) for y in (y0, y1) for z in (0.0, h)], np.float64)
    px = np.asarray(pose.project(corners), np.float64)
    if not np.all(np.isfinite(px)):
        return None
    return np.asarray(cv2.convexHull(px.astype(np.float32)).reshape(-1, 2), np.float64)


def _behind_cube(pose: MatPose, rect: tuple[float, float, float, float], px: F64, cube: F64) -> bool:
    """Does the Central Cube hide (part of) the patch ``rect`` whose picture corners are ``px``?"""
    hull = cube.astype(np.float32).reshape(-1, 1, 2)
    pts = [*np.asarray(px, np.float64).reshape(-1, 2), np.asarray(px, np.float64).reshape(-1, 2).mean(axis=0)]
    if not any(cv2.pointPolygonTest(hull, (float(x), float(y)), False) >= 0 for x, y in pts):
        return False
    # overlapping in the picture: hidden only if the patch is farther from the camera than the cube
    fx0, fy0, fx1, fy1 = pose.spec.footprint_world()
    cx, cy = 0.5 * (rect[0] + rect[2]), 0.5 * (rect[1] + rect[3])
    cam = np.asarray(pose.camera_position, np.float64)
    d_patch = float(np.hypot(cam[0] - cx, cam[1] - cy))
    d_cube = float(np.hypot(cam[0] - 0.5 * (fx0 + fx1), cam[1] - 0.5 * (fy0 + fy1)))
    return d_patch > d_cube


def sample_cell_face(
    image: npt.NDArray[np.uint8], pose: MatPose, cell: Sequence[int], face: str = "top", inset: float = 0.3
) -> npt.NDArray[np.uint8]:
    """BGR pixels of one face (``top``, ``+x``, ``-x``, ``+y``, ``-y``) of lattice cell ``(i, j, k)``,
    shrunk by ``inset``: how a block at a known place (a start block) is sampled."""
    s = pose.spec.block_mm
    i, j, k = cell
    x0, x1, y0, y1, z0, z1 = i * s, (i + 1) * s, j * s, (j + 1) * s, k * s, (k + 1) * s
    faces = {
        "top": [[x0, y0, z1], [x1, y0, z1], [x1, y1, z1], [x0, y1, z1]],
        "+x": [[x1, y0, z0], [x1, y1, z0], [x1, y1, z1], [x1, y0, z1]],
        "-x": [[x0, y0, z0], [x0, y1, z0], [x0, y1, z1], [x0, y0, z1]],
        "+y": [[x0, y1, z0], [x1, y1, z0], [x1, y1, z1], [x0, y1, z1]],
        "-y": [[x0, y0, z0], [x1, y0, z0], [x1, y0, z1], [x0, y0, z1]],
    }
    if face not in faces:
        raise CalibrationError(f"unknown face {face!r} (expected one of {', '.join(faces)})")
    return _bgr_pixels_in_polygon(image, pose.project(faces[face]), inset)


# ----------------------------------------------------------------------------- the model
@dataclass(frozen=True)
class ClassModel:
    """One class: prototypes in CIELAB and the CIEDE2000 radius within which a colour belongs."""

    prototypes: tuple[tuple[float, float, float], ...]
    threshold: float
    samples: int = 0
    source: str = "prior"

    def to_json(self) -> dict[str, Any]:
        return {
            "prototypes_lab": [[round(v, 3) for v in p] for p in self.prototypes],
            "threshold_de2000": round(self.threshold, 3),
            "samples": self.samples,
            "source": self.source,
        }


def _prior_classes() -> dict[str, ClassModel]:
    """Prototypes before anything is learned: the printed patch colours (as printed on white paper
    of reflectance ~0.85) and a dark neutral for the Central Cube (a new dict each time; the
    class models themselves are frozen, computed once)."""
    return dict(_prior_class_models())


@lru_cache(maxsize=1)
def _prior_class_models() -> dict[str, ClassModel]:
    from calibration.mat import PATCH_COLOURS

    out: dict[str, ClassModel] = {}
    for name in ("blue", "pink", "yellow", "green"):
        lab = linear_to_lab(srgb8_to_linear(PATCH_COLOURS[name]) * 0.85)
        out[name] = ClassModel((tuple(float(v) for v in lab),), 18.0)  # type: ignore[arg-type]
    out["white"] = ClassModel((tuple(float(v) for v in linear_to_lab([0.85] * 3)),), 12.0)  # type: ignore[arg-type]
    out["print"] = ClassModel((tuple(float(v) for v in linear_to_lab([0.03] * 3)),), 10.0)  # type: ignore[arg-type]
    out["black"] = ClassModel((tuple(float(v) for v in linear_to_lab([0.05] * 3)),), 10.0)  # type: ignore[arg-type]
    return out


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


@dataclass(frozen=True, eq=False)
class ColourModel:
    """White balance + class prototypes.  Use :meth:`balanced_for` on every new image (re-fits the
    white balance from that image's patches), then :meth:`classify_bgr`."""

    white_balance: WhiteBalance = field(default_factory=WhiteBalance)
    classes: Mapping[str, ClassModel] = field(default_factory=_prior_classes)
    date: str = field(default_factory=_now)
    mat: MatSpec | None = None  # the mat the model was learned on (saved with it)

    # -- white balance -------------------------------------------------------------
    def with_white_balance(self, wb: WhiteBalance) -> ColourModel:
        return ColourModel(wb, dict(self.classes), self.date, self.mat)

    def balanced_for(self, image: npt.NDArray[np.uint8], pose: MatPose, fit_offset: bool = True) -> ColourModel:
        """This model with the white balance fitted to ``image``'s patches (lighting may change).

        Patches hidden behind pieces (seen from the far side of the battlefield) are left out:
        only the largest group of neutral patches that agree in chromaticity is used
        (:func:`consistent_neutrals`)."""
        # the median colour of each patch, as ``sample_patches`` gives it (its spread is not needed)
        medians = {name: _median_linear(bgr) for name, bgr in _patch_pixels(image, pose, 0.3) if len(bgr) >= 4}
        measured = consistent_neutrals({k: (float(m[0]), float(m[1]), float(m[2])) for k, m in medians.items()})
        if not any(k.rstrip("0123456789") in ("white", "grey") for k in measured):
            raise ColourModelError(
                "white balance needs a white or grey patch of the mat in view, and every one is hidden "
                "(behind pieces or outside the picture); turn the mat so that a patch shows"
            )
        return self.with_white_balance(WhiteBalance.from_patches(measured, fit_offset))

    # -- conversion and classification ---------------------------------------------
    def lab_of_bgr(self, bgr: npt.ArrayLike) -> F64:
        """CIELAB of 8-bit BGR pixels (..., 3) after white balance."""
        a = np.asarray(bgr, dtype=np.float64)
        lin = srgb8_to_linear(a[..., ::-1])
        return linear_to_lab(np.clip(self.white_balance.apply(lin), 0.0, None))

    def distances(self, lab: npt.ArrayLike) -> dict[str, F64]:
        """CIEDE2000 from each colour (..., 3) to each class's nearest prototype."""
        a = np.asarray(lab, dtype=np.float64)
        out: dict[str, F64] = {}
        for name, cm in self.classes.items():
            d = np.stack([ciede2000(a, np.asarray(p)) for p in cm.prototypes], axis=0).min(axis=0)
            out[name] = d
        return out

    def classify_lab(self, lab: npt.ArrayLike) -> npt.NDArray[np.str_]:
        """Class names (...) for colours (..., 3): nearest class within its threshold, else ``unknown``."""
        a = np.asarray(lab, dtype=np.float64)
        names = list(self.classes)
        dist = np.stack([self.distances(a)[n] for n in names], axis=-1)
        thr = np.array([self.classes[n].threshold for n in names])
        best = dist.argmin(axis=-1)
        within = np.take_along_axis(dist, best[..., None], axis=-1)[..., 0] <= thr[best]
        labels = np.array([*names, UNKNOWN])
        return np.asarray(labels[np.where(within, best, len(names))])

    def classify_bgr(self, bgr: npt.ArrayLike) -> npt.NDArray[np.str_]:
        return self.classify_lab(self.lab_of_bgr(bgr))

    def classify_region(self, bgr_pixels: npt.ArrayLike) -> tuple[str, float]:
        """One class for a region (its pixels' median colour) and the CIEDE2000 to that class."""
        px = np.asarray(bgr_pixels, dtype=np.float64).reshape(-1, 3)
        if len(px) == 0:
            return UNKNOWN, math.inf
        lab = self.lab_of_bgr(np.median(px, axis=0))
        name = str(self.classify_lab(lab))
        d = self.distances(lab)
        return name, float(d[name]) if name in d else float(min(v for v in d.values()))

    # -- learning --------------------------------------------------------------------
    def learn(self, samples: Mapping[str, Iterable[npt.ArrayLike]], source: str = "learned") -> ColourModel:
        """A new model whose classes in ``samples`` (class -> BGR pixel arrays, one per known place)
        are replaced by what was seen: one prototype per place (its median, in balanced CIELAB),
        threshold = max(floor, 2.5 x the places' robust spread, 0.45 x the distance to the nearest
        other class).  Other classes keep their prototypes."""
        classes = dict(self.classes)
        for name, places in samples.items():
            if name not in CLASSES:
                raise ColourModelError(
                    f"unknown colour class {name!r} (expected one of {', '.join(CLASSES)})"
                )
            protos: list[F64] = []
            spreads: list[float] = []
            n = 0
            for px in places:
                p = np.asarray(px, dtype=np.float64).reshape(-1, 3)
                if len(p) < 4:
                    continue
                labs = self.lab_of_bgr(p)
                med = np.median(labs, axis=0)
                protos.append(med)
                spreads.append(float(np.percentile(ciede2000(labs, med), 80)))
                n += len(p)
            if not protos:
                raise ColourModelError(f"no pixels to learn class {name!r} from (place hidden or off-image?)")
            floor = 6.0 if name in ("white", "print", "black") else 10.0
            thr = max(floor, 2.5 * float(np.median(spreads)))
            if len(protos) > 1:
                thr = max(
                    thr, float(ciede2000(np.stack(protos)[:, None], np.stack(protos)[None, :]).max()) * 0.75
                )
            classes[name] = ClassModel(tuple(tuple(float(v) for v in p) for p in protos), thr, n, source)  # type: ignore[misc]
        # keep classes apart: a class's radius never reaches past half-way to another's prototype
        names = list(classes)
        final: dict[str, ClassModel] = {}
        for name in names:
            cm = classes[name]
            others = [np.asarray(p) for o in names if o != name for p in classes[o].prototypes]
            if others:
                gap = min(float(ciede2000(np.asarray(p), q)) for p in cm.prototypes for q in others)
                thr = min(cm.threshold, max(0.55 * gap, 3.0))
            else:
                thr = cm.threshold
            final[name] = ClassModel(cm.prototypes, thr, cm.samples, cm.source)
        return ColourModel(self.white_balance, final, _now(), self.mat)

    def learn_from_mat(self, image: npt.NDArray[np.uint8], pose: MatPose) -> ColourModel:
        """Fit the white balance to ``image`` and learn ``white`` (paper: white patches and the clear
        centre's corners) and ``print`` (black patch and printed black squares) from the mat."""
        model = self.balanced_for(image, pose)
        spec = pose.spec
        model = ColourModel(model.white_balance, dict(model.classes), model.date, spec)
        white: list[npt.NDArray[np.uint8]] = []
        ink: list[npt.NDArray[np.uint8]] = []
        for p in spec.patches():
            x0, y0, x1, y1 = p.rect_world
            px = _bgr_pixels_in_polygon(
                image, pose.project([[x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0]]), 0.3
            )
            if p.kind == "white":
                white.append(px)
            elif p.kind == "black":
                ink.append(px)
        # paper: small squares just inside the clear centre's four corners (rarely covered)
        cx0, cy0, cx1, cy1 = spec.clear_world_rect()
        m, d = 0.15 * spec.square_mm, 0.3 * spec.square_mm
        for x, y, sx, sy in [
            (cx0 + m, cy0 + m, 1, 1),
            (cx1 - m, cy0 + m, -1, 1),
            (cx0 + m, cy1 - m, 1, -1),
            (cx1 - m, cy1 - m, -1, -1),
        ]:
            quad = [[x, y, 0], [x + sx * d, y, 0], [x + sx * d, y + sy * d, 0], [x, y + sy * d, 0]]
            white.append(_bgr_pixels_in_polygon(image, pose.project(quad)))
        # ink: the four printed black corner squares of the pattern
        bu, bv = spec.board_origin_mm
        sq = spec.square_mm
        for col, row in [
            (0, 0),
            (spec.squares_x - 1, 0),
            (0, spec.squares_y - 1),
            (spec.squares_x - 1, spec.squares_y - 1),
        ]:
            if (col + row) % 2:
                continue
            u0, v0 = bu + col * sq, bv + row * sq
            corners = spec.mat_to_world([[u0, v0], [u0 + sq, v0], [u0 + sq, v0 + sq], [u0, v0 + sq]])
            ink.append(
                _bgr_pixels_in_polygon(image, pose.project(np.column_stack([corners, np.zeros(4)])), 0.3)
            )
        return model.learn({"white": white, "print": ink}, source="mat")

    # -- files --------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "boardside.colours",
            "version": 1,
            "date": self.date,
            "space": "CIELAB (D65) after per-image white balance from the mat patches; distance CIEDE2000",
            "white_balance": self.white_balance.to_json(),
            "classes": {name: cm.to_json() for name, cm in self.classes.items()},
            **({"mat": self.mat.to_json()} if self.mat is not None else {}),
        }

    @classmethod
    def from_json(cls, doc: Any, where: str = "colour model") -> ColourModel:
        if not isinstance(doc, dict) or doc.get("kind") != "boardside.colours":
            raise CalibrationFileError(
                f"{where!r} is not a Boardside colour model (no kind 'boardside.colours')"
            )
        try:
            classes = {}
            for name, c in doc["classes"].items():
                if name not in CLASSES:
                    raise CalibrationFileError(f"unknown colour class {name!r} in {where!r}")
                protos = tuple(tuple(float(v) for v in p) for p in c["prototypes_lab"])
                if not protos or any(len(p) != 3 for p in protos):
                    raise CalibrationFileError(f"class {name!r} in {where!r} needs [L, a, b] prototypes")
                classes[name] = ClassModel(
                    protos,  # type: ignore[arg-type]
                    float(c["threshold_de2000"]),
                    int(c.get("samples", 0)),
                    str(c.get("source", "")),
                )
            mat = MatSpec.from_json(doc["mat"]) if isinstance(doc.get("mat"), dict) else None
            return cls(WhiteBalance.from_json(doc["white_balance"]), classes, str(doc.get("date", "")), mat)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise CalibrationFileError(
                f"colour model {where!r} is missing or has a bad field: {exc}"
            ) from None

    def save(self, path: str | os.PathLike[str]) -> None:
        write_json_file(path, self.to_json())

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> ColourModel:
        return cls.from_json(read_json_file(path, "colour model"), str(path))
