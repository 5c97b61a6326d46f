"""Locate stage: reject unusable pictures with the reason, and find each view's pose on the mat."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from calibration.boards import DICTIONARY as BOARD_DICTIONARY
from calibration.boards import game_of_marker_id
from calibration.camera import CameraCalibration
from calibration.errors import CalibrationError, NoBoardFoundError
from calibration.mat import MatSpec
from calibration.pose import MatPose, MatView, detect_mat, estimate_pose, self_calibrate
from engine.errors import BoardsideInputError

U8 = npt.NDArray[np.uint8]


class ImageRejectedError(BoardsideInputError):
    """A picture that cannot be used (blurred, over- or under-exposed, no mat in sight)."""


@dataclass(frozen=True)
class LocateConfig:
    """Picture checks.  Sharpness is :func:`edge_sharpness` (0..~0.7; session 7): sensor noise
    leaves it alone, where the variance of the Laplacian used before grew with the ISO gain (a
    6.5 px motion blur at gain 4.7 scored 499 against a floor of 25 and passed)."""

    # below this no picture can be read reliably: rejected before reading ("blurred: hold still");
    # rendered views read right go down to 0.31 (6.5 px motion blur), synthetic 14 px blurs are ~0.23
    min_sharpness: float = 0.25
    # below this a picture whose markers cannot be read is called blurred rather than "not in the
    # picture": rendered views without motion blur fall below it 1 % (CTRL) / 7 % (boards) of the
    # time, views with 5-7 px of it 60 % (dev and fixture renders; docs/vision.md, session 7)
    blurred_below: float = 0.45
    max_clipped: float = 0.25  # share of pixels clipped to white
    min_mean: float = 25.0  # mean grey level


SHARPNESS_WIDTH = 427  # edge_sharpness works on the picture reduced to about this width (1280 / 3)


def edge_sharpness(grey: U8) -> float:
    """How steep the picture's strongest edges are in its least sharp direction, relative to its
    contrast: 0 (no edge) .. ~0.7 (sharp print edges), whatever the sensor noise.

    The grey picture is reduced by area averaging to about :data:`SHARPNESS_WIDTH` pixels wide
    (1280 x 720: by 3), which averages the sensor's pixel noise away while a motion blur of several
    full-size pixels still spans one or more reduced ones.  In each of four directions (0, 45, 90,
    135 degrees) the 99.8th percentile of the neighbour differences measures the steepest edges (the
    mat's or board's printed markers; noise no longer reaches that high); a motion blur flattens the
    edges across its direction, so the least of the four, divided by the picture's contrast (1st to
    99th percentile of grey), is the measure.  About 1 ms for a 1280 x 720 picture."""
    if grey.dtype != np.uint8:
        grey = np.asarray(np.clip(grey, 0, 255), np.uint8)
    h, w = grey.shape[:2]
    f = max(1, round(w / SHARPNESS_WIDTH))
    small = grey if f == 1 else cv2.resize(grey, (max(1, w // f), max(1, h // f)), interpolation=cv2.INTER_AREA)
    if small.shape[0] < 3 or small.shape[1] < 3:
        return 0.0
    hist = np.cumsum(cv2.calcHist([small], [0], None, [256], [0, 256]).ravel())
    lo, hi = np.searchsorted(hist, 0.01 * hist[-1]), np.searchsorted(hist, 0.99 * hist[-1])
    contrast = max(float(hi - lo), 1.0)
    steepest = np.inf
    # (the differences' magnitudes are 8-bit codes: the k-th smallest is read from their counts, the very value
    # ``np.partition`` of the magnitudes gives -- session 18: some five times fewer instructions)
    for a_, b_, scale in ((small[:, 1:], small[:, :-1], 1.0), (small[1:, :], small[:-1, :], 1.0),
                          (small[1:, 1:], small[:-1, :-1], 2**-0.5), (small[1:, :-1], small[:-1, 1:], 2**-0.5)):
        a = np.asarray(cv2.absdiff(a_, b_), np.uint8)
        k = min(a.size - 1, int(0.998 * a.size))
        counts = cv2.calcHist([a], [0], None, [256], [0, 256]).ravel() if a.size < 2**24 else \
            np.bincount(a.ravel(), minlength=256)  # (float32 counts are exact below 2**24)
        upto = np.cumsum(counts.astype(np.int64))
        steepest = min(steepest, float(np.searchsorted(upto, k, side="right")) * scale)
    return steepest / contrast


def to_grey(image: U8) -> U8:
    """The picture in grey (a BGR picture converted; a grey one as it is)."""
    return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8) if image.ndim == 3 else image


def _grey_sum(grey: U8) -> float:
    """The sum of a one-channel 8-bit picture's values, exact (an integer below 2**53), as a float."""
    return float(cv2.sumElems(grey)[0])


def check_image(image: U8, name: str, cfg: LocateConfig | None = None, grey: U8 | None = None) -> dict[str, float]:
    """Raise :class:`ImageRejectedError` for a blurred, over- or under-exposed picture (``grey``: the
    picture in grey when the caller has it already, to save converting it again)."""
    cfg = cfg or LocateConfig()
    if grey is None:
        grey = to_grey(image)
    sharp = edge_sharpness(grey)
    # (counted and summed exactly: the very numbers of ``(grey >= 250).mean()`` and ``grey.mean()``)
    clipped = np.count_nonzero(grey >= 250) / grey.size
    mean = _grey_sum(grey) / grey.size if grey.dtype == np.uint8 and grey.ndim == 2 else float(grey.mean())
    if mean < cfg.min_mean:
        raise ImageRejectedError(f"{name!r} is too dark (mean grey {mean:.0f} < {cfg.min_mean:.0f}): add light")
    if clipped > cfg.max_clipped:
        raise ImageRejectedError(f"{name!r} is over-exposed ({clipped:.0%} of pixels clipped to white)")
    if sharp < cfg.min_sharpness:
        raise ImageRejectedError(f"{name!r} is blurred (edge sharpness {sharp:.2f} < {cfg.min_sharpness:.2f}): "
                                 "hold still")
    return {"sharpness": sharp, "clipped": clipped, "mean": mean}


def blurred_message(name: str, sharpness: float, what_was_read: str, cfg: LocateConfig | None = None) -> str | None:
    """The reason to give when too few markers could be read (``what_was_read``: "no marker of the
    mat", "only marker 3 of the bandera board") in a picture of this :func:`edge_sharpness`: blur,
    when the picture is less sharp than pictures without motion blur (``LocateConfig.blurred_below``);
    None otherwise."""
    cfg = cfg or LocateConfig()
    if sharpness >= cfg.blurred_below:
        return None
    return (f"{name!r} is blurred (edge sharpness {sharpness:.2f} < {cfg.blurred_below:.2f}): {what_was_read} "
            "could be read: hold the camera still")


def board_shown(image: U8, min_markers: int = 3) -> str | None:
    """The flat board game whose printed markers (``calibration.boards``, another dictionary than the
    mat's) the picture shows, at least ``min_markers`` of them, else None.  Looked for only when the mat
    is not found, to say what the picture shows instead."""
    grey = to_grey(image)
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, BOARD_DICTIONARY)))
    _corners, ids, _rejected = det.detectMarkers(grey)
    count: dict[str, int] = {}
    for i in ([] if ids is None else ids.ravel().tolist()):
        game = game_of_marker_id(int(i))
        if game is not None and game != "robot":
            count[game] = count.get(game, 0) + 1
    best = max(count.items(), key=lambda kv: kv[1], default=None)
    return best[0] if best is not None and best[1] >= min_markers else None


def _not_the_mat(name: str, image: U8) -> ImageRejectedError | None:
    game = board_shown(image)
    if game is None:
        return None
    return ImageRejectedError(f"{name!r} shows a {game} board, not the CTRL play mat: give pictures of the "
                              "battlefield on the mat (or use `boardside validate " + game + " --images ...`)")


def locate(image: U8, name: str, spec: MatSpec, camera: CameraCalibration | None,
           cfg: LocateConfig | None = None) -> MatPose:
    """The camera pose of one picture in battlefield coordinates (the mat must be in view)."""
    try:
        return estimate_pose(image, spec, camera)
    except NoBoardFoundError as exc:
        grey = to_grey(image)
        board = _not_the_mat(name, grey)
        if board is not None:
            raise board from None
        blurred = blurred_message(name, edge_sharpness(grey), "no marker of the mat", cfg)
        if blurred is not None:
            raise ImageRejectedError(blurred) from None
        # the mat may be in the picture but its markers unreadable: say what usually causes that
        raise ImageRejectedError(f"{name!r}: {exc}; if the mat is in the picture, its markers could not be read: "
                                 "hold the camera still (motion blur), come closer or light the mat evenly") from None
    except CalibrationError as exc:
        if str(exc).startswith("too little of the mat is visible"):
            # a marker or a few corners read, too few for a pose: in a blurred picture that is the blur
            # (held-out session 9: two views with 6.7 px of motion blur read one marker each)
            blurred = blurred_message(name, edge_sharpness(to_grey(image)), f"{exc}; so little of the mat", cfg)
            if blurred is not None:
                raise ImageRejectedError(blurred) from None
        raise ImageRejectedError(f"{name!r}: {exc}") from None


def self_calibrate_views(images: Sequence[tuple[str, U8]], spec: MatSpec,
                         rejected: list[tuple[str, str]] | None = None) -> CameraCalibration:
    """Estimate the camera from all pictures of the mat together (same camera, no calibration file).
    With ``rejected``, a picture without the mat is listed there (name, reason) and left out, as long as
    another picture remains; otherwise it raises :class:`ImageRejectedError`."""
    usable: list[tuple[str, MatView]] = []
    for name, img in images:
        view = detect_mat(img, spec)
        if len(view.corner_ids) == 0 and len(view.marker_ids) == 0:
            board = _not_the_mat(name, img)
            if board is not None:
                raise board
            reason = f"{name!r}: the mat is not in the picture (no printed corner or marker found)"
            if rejected is None or len(images) == 1:
                raise ImageRejectedError(reason)
            rejected.append((name, reason))
        else:
            usable.append((name, view))
    if not usable:  # every picture without the mat: the last one's reason
        raise ImageRejectedError(rejected.pop()[1] if rejected else "no picture shows the mat")
    names = [n for n, _ in usable]
    views = [v for _, v in usable]
    try:
        return self_calibrate(views, spec, names=names)
    except CalibrationError as exc:
        raise ImageRejectedError(f"cannot estimate the camera from these pictures: {exc}; "
                                 "give a calibration with --calibration") from None
