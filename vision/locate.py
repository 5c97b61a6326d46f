"""Locate stage: reject unusable pictures with the reason, and find each view's pose on the mat."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from calibration.camera import CameraCalibration
from calibration.errors import CalibrationError, NoBoardFoundError
from calibration.mat import MatSpec
from calibration.pose import MatPose, detect_mat, estimate_pose, self_calibrate
from engine.errors import BoardsideInputError

U8 = npt.NDArray[np.uint8]


class ImageRejectedError(BoardsideInputError):
    """A picture that cannot be used (blurred, over- or under-exposed, no mat in sight)."""


@dataclass(frozen=True)
class LocateConfig:
    min_sharpness: float = 25.0  # variance of the Laplacian on the half-size grey image
    max_clipped: float = 0.25  # share of pixels clipped to white
    min_mean: float = 25.0  # mean grey level


def check_image(image: U8, name: str, cfg: LocateConfig | None = None, grey: U8 | None = None) -> dict[str, float]:
    """Raise :class:`ImageRejectedError` for a blurred, over- or under-exposed picture (``grey``: the
    picture in grey when the caller has it already, to save converting it again)."""
    cfg = cfg or LocateConfig()
    if grey is None:
        grey = np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8) if image.ndim == 3 else image
    small = cv2.resize(grey, (grey.shape[1] // 2, grey.shape[0] // 2), interpolation=cv2.INTER_AREA)
    sharp = float(cv2.Laplacian(small, cv2.CV_64F).var())
    # as ``(grey >= 250).mean()`` and ``grey.mean()``: the sums are exact integers, divided once
    # (the same correctly rounded quotients), without the float conversions of every pixel
    clipped = np.count_nonzero(grey >= 250) / grey.size
    mean = int(grey.sum(dtype=np.int64)) / grey.size
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
    except NoBoardFoundError as exc:
        # the mat may be in the picture but its markers unreadable: say what usually causes that
        raise ImageRejectedError(f"{name!r}: {exc}; if the mat is in the picture, its markers could not be read: "
                                 "hold the camera still (motion blur), come closer or light the mat evenly") from None
    except CalibrationError as exc:
        raise ImageRejectedError(f"{name!r}: {exc}") from None


def self_calibrate_views(images: Sequence[tuple[str, U8]], spec: MatSpec) -> CameraCalibration:
    """Estimate the camera from all pictures of the mat together (same camera, no calibration file)."""
    views = [detect_mat(img, spec) for _, img in images]
    for (name, _), v in zip(images, views, strict=True):
        if len(v.corner_ids) == 0 and len(v.marker_ids) == 0:
            raise ImageRejectedError(f"{name!r}: the mat is not in the picture (no printed corner or marker found)")
    try:
        return self_calibrate(views, spec, names=[n for n, _ in images])
    except CalibrationError as exc:
        raise ImageRejectedError(f"cannot estimate the camera from these pictures: {exc}; "
                                 "give a calibration with --calibration") from None
