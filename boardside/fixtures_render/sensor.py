"""What a cheap camera does to the light: auto-exposure (with error), imperfect white balance,
shot and read noise, a little motion blur on some shots, a tone curve, and JPEG compression."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class SensorEffects:
    exposure_ev_error: float  # deviation from the auto-exposure target, in stops
    wb_correction: float  # 0 = no white balance at all, 1 = perfect grey-world correction
    wb_error: tuple[float, float]  # extra red / blue gain errors (multiplicative, around 1)
    iso_gain: float  # analogue gain: scales the noise
    read_noise: float  # in units of full scale at gain 1
    motion_blur_px: float  # length of a linear motion-blur kernel (0 = none)
    motion_blur_deg: float
    jpeg_quality: int
    vignetting: float  # darkening at the corners (0..0.4)

    @staticmethod
    def sample(rng: np.random.Generator, dim: bool) -> SensorEffects:
        blur = float(rng.uniform(2.0, 7.0)) if rng.random() < 0.2 else 0.0
        return SensorEffects(
            exposure_ev_error=float(rng.normal(0, 0.3)),
            wb_correction=float(rng.uniform(0.45, 0.95)),
            wb_error=(float(rng.normal(1, 0.04)), float(rng.normal(1, 0.04))),
            iso_gain=float(rng.uniform(2.0, 5.0) if dim else rng.uniform(0.7, 2.0)),
            read_noise=float(rng.uniform(0.0015, 0.004)),
            motion_blur_px=blur,
            motion_blur_deg=float(rng.uniform(0, 180)),
            jpeg_quality=int(rng.integers(70, 90)),
            vignetting=float(rng.uniform(0.05, 0.35)),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "exposure_ev_error": round(self.exposure_ev_error, 3),
            "wb_correction": round(self.wb_correction, 3),
            "wb_error": [round(v, 4) for v in self.wb_error],
            "iso_gain": round(self.iso_gain, 2),
            "read_noise": round(self.read_noise, 5),
            "motion_blur_px": round(self.motion_blur_px, 2),
            "motion_blur_deg": round(self.motion_blur_deg, 1),
            "jpeg_quality": self.jpeg_quality,
            "vignetting": round(self.vignetting, 3),
        }


def _srgb_encode(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    x = np.clip(x, 0.0, 1.0)
    return np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(x, 1 / 2.4) - 0.055).astype(np.float32)


def develop(linear: npt.NDArray[np.float32], fx: SensorEffects, rng: np.random.Generator) -> npt.NDArray[np.uint8]:
    """Linear scene radiance (h, w, 3 RGB) -> an 8-bit BGR image as the camera would save it."""
    img = linear.astype(np.float32).copy()
    h, w = img.shape[:2]
    # lens vignetting
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    img *= (1.0 - fx.vignetting * r2**1.5)[..., None]
    # auto white balance (grey world over the bright half, partially applied)
    lum = img.mean(axis=2)
    sel = lum > np.percentile(lum, 40)
    means = img[sel].mean(axis=0) + 1e-8
    gains = means.mean() / means
    gains = 1.0 + fx.wb_correction * (gains - 1.0)
    gains[0] *= fx.wb_error[0]
    gains[2] *= fx.wb_error[1]
    img *= gains[None, None, :].astype(np.float32)
    # auto exposure: mid-grey target on the mean luminance, with error
    y = 0.2126 * img[..., 0] + 0.7152 * img[..., 1] + 0.0722 * img[..., 2]
    key = float(np.exp(np.mean(np.log(np.maximum(y, 1e-6)))))
    scale = 0.2 / max(key, 1e-9) * (2.0**fx.exposure_ev_error)
    # keep highlights on the paper from burning out completely (cameras meter the bright mat)
    p99 = float(np.percentile(y, 99.5)) * scale
    if p99 > 1.6:
        scale *= 1.6 / p99
    img *= scale
    # motion blur (camera shake during exposure)
    if fx.motion_blur_px >= 1.0:
        n = math.ceil(fx.motion_blur_px) | 1
        k = np.zeros((n, n), np.float32)
        c = n // 2
        a = math.radians(fx.motion_blur_deg)
        for s in np.linspace(-fx.motion_blur_px / 2, fx.motion_blur_px / 2, 4 * n):
            k[round(float(c + s * math.sin(a))), round(float(c + s * math.cos(a)))] += 1
        img = np.asarray(cv2.filter2D(img, -1, k / k.sum()), dtype=np.float32)
    # sensor noise: shot noise ~ sqrt(signal * gain), read noise ~ gain
    full_well = 900.0 / fx.iso_gain
    shot = rng.poisson(np.clip(img, 0, 4) * full_well).astype(np.float32) / full_well
    read = rng.normal(0, fx.read_noise * fx.iso_gain, img.shape).astype(np.float32)
    img = shot + read
    # camera tone curve: soft shoulder then sRGB
    img = np.asarray(np.clip(img, 0, None), dtype=np.float32)
    # Reinhard-ish shoulder, ~linear in the mids
    img = np.asarray(img * (1 + img / 4.0) / (1 + img), dtype=np.float32)
    img = np.asarray(img / (1.6 * (1 + 1.6 / 4.0) / (1 + 1.6)), dtype=np.float32)
    out = _srgb_encode(img.astype(np.float32))
    # in-camera noise reduction (chroma strongly, luma lightly) then sharpening, as phones and webcams do
    ycc = cv2.cvtColor(out, cv2.COLOR_RGB2YCrCb)
    ycc[..., 1:] = cv2.GaussianBlur(ycc[..., 1:], (0, 0), 1.6)
    ycc[..., 0] = cv2.bilateralFilter(ycc[..., 0], 5, 0.04, 2.0)
    out = np.asarray(cv2.cvtColor(ycc, cv2.COLOR_YCrCb2RGB), dtype=np.float32)
    blur = cv2.GaussianBlur(out, (0, 0), 1.2)
    out = np.asarray(np.clip(out + 0.3 * (out - blur), 0, 1), dtype=np.float32)
    bgr = (out[..., ::-1] * 255.0 + rng.uniform(0, 1, out.shape)).astype(np.uint8)
    return np.ascontiguousarray(bgr)


def encode_jpeg(bgr: npt.NDArray[np.uint8], quality: int) -> bytes:
    ok, buf = cv2.imencode(".jpg", bgr, [int(cv2.IMWRITE_JPEG_QUALITY), int(quality)])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return bytes(buf.tobytes())
