"""Locate stage: reject unusable pictures with the reason, and find each view's pose on the mat."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from calibration.camera import CameraCalibration
from calibration.errors import CalibrationError
from calibration.mat import MatSpec
from calibration.pose import MatPose, estimate_pose
from engine.errors import BoardsideInputError

U8 = npt.NDArray[np.uint8]


class ImageRejectedError(BoardsideInputError):
    """A picture that cannot be used (blurred, over- or under-exposed, no mat in sight)."""


@dataclass(frozen=True)
class LocateConfig:
    min_sharpness: float = 25.0  # variance of the Laplacian on the half-size grey image
    max_clipped: float = 0.25  # share of pixels clipped to white
    min_mean: float = 25.0  # mean grey level


def check_image(image: U8, name: str, cfg: LocateConfig | None = None) -> dict[str, float]:
    """Raise :class:`ImageRejectedError` for a blurred, over- or under-exposed picture."""
    cfg = cfg or LocateConfig()
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    small = cv2.resize(grey, (grey.shape[1] // 2, grey.shape[0] // 2), interpolation=cv2.INTER_AREA)
    sharp = float(cv2.Laplacian(small, cv2.CV_64F).var())
    clipped = float((grey >= 250).mean())
    mean = float(grey.mean())
    if mean < cfg.min_mean:
        raise ImageRejectedError(f"{name!r} is too dark (mean grey {mean:.0f} < {cfg.min_mean:.0f}): add light")
    if clipped > cfg.max_clipped:
        raise ImageRejectedError(f"{name!r} is over-exposed ({clipped:.0%} of pixels clipped to white)")
    if sharp < cfg.min_sharpness:
        raise ImageRejectedError(f"{name!r} is blurred (sharpness {sharp:.1f} < {cfg.min_sharpness:.0f}): hold still")
    return {"sharpness": sharp, "clipped": clipped, "mean": mean}


def locate(image: U8, name: str, spec: MatSpec, camera: CameraCalibration | None) -> MatPose:
    """The camera pose of one picture in battlefield coordinates (the mat must be in view)."""
    try:
        return estimate_pose(image, spec, camera)
    except CalibrationError as exc:
        raise ImageRejectedError(f"{name!r}: {exc}") from None
