"""SIMULATED hand-held video of a player turning the mat, built from still pictures (e.g. the rendered
fixture views in ``fixtures/ctrl/scene_NNN/``), so that ``boardside ctrl watch --video`` can be
tested and benchmarked on a machine without a camera.

This is not a camera recording.  Each still is *held* for ``hold_s`` seconds with simulated
hand-held shake (a small random affine warp per frame: sub-pixel to one-pixel translation and a
few hundredths of a degree of rotation about the picture's centre); between two stills the camera
*moves*: a few frames in which the old picture slides and turns away and the new one slides in,
cross-faded and smeared with motion blur along the movement, so that the mat's pose is unstable
and the picture is blurred, as when a player turns the mat.  Every frame is labelled with the
still it shows (``None`` in a transition), which is the ground truth the tests check against.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

__all__ = ["SimulatedVideo", "simulated_handheld_video", "write_video"]

U8 = npt.NDArray[np.uint8]


@dataclass(frozen=True, eq=False)
class SimulatedVideo:
    """Frames (BGR) and, per frame, the label of the still it holds (``None`` during a transition)."""

    frames: list[U8]
    labels: list[str | None]
    fps: float

    def segments(self) -> dict[str, range]:
        """Frame ranges of each held still."""
        out: dict[str, range] = {}
        start = None
        for i, lab in enumerate([*self.labels, None]):
            if start is not None and lab != self.labels[start]:
                out[str(self.labels[start])] = range(start, i)
                start = None
            if lab is not None and start is None:
                start = i
        return out


def _affine(size: tuple[int, int], dx: float, dy: float, angle_deg: float,
            scale: float = 1.0) -> npt.NDArray[np.float64]:
    w, h = size
    m = cv2.getRotationMatrix2D(((w - 1) / 2.0, (h - 1) / 2.0), angle_deg, scale)
    m[0, 2] += dx
    m[1, 2] += dy
    return np.asarray(m, np.float64)


def _warp(img: U8, m: npt.NDArray[np.float64]) -> U8:
    h, w = img.shape[:2]
    return np.asarray(cv2.warpAffine(img, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT), np.uint8)


def _motion_blur(img: U8, dx: float, dy: float) -> U8:
    length = round(float(np.hypot(dx, dy)))
    if length < 2:
        return img
    k = np.zeros((length | 1, length | 1), np.float32)
    c = (length | 1) // 2
    cv2.line(k, (round(c - dx / 2), round(c - dy / 2)), (round(c + dx / 2), round(c + dy / 2)), 1.0, 1)
    k /= max(1e-6, float(k.sum()))
    return np.asarray(cv2.filter2D(img, -1, k), np.uint8)


def simulated_handheld_video(
    stills: Sequence[tuple[str, U8]],
    *,
    fps: float = 10.0,
    hold_s: float = 1.0,
    transition_frames: int = 5,
    shake_px: float = 0.6,
    shake_deg: float = 0.03,
    lead_in_frames: int = 0,
    seed: int = 0,
) -> SimulatedVideo:
    """A SIMULATED video: each ``(label, picture)`` held ``hold_s`` s with hand-held shake, joined by
    ``transition_frames`` frames of movement (slide, turn, cross-fade, motion blur).
    ``lead_in_frames`` frames of movement come first (the player bringing the mat into view)."""
    if not stills:
        raise ValueError("no stills to build a simulated video from")
    rng = np.random.default_rng(seed)
    h, w = stills[0][1].shape[:2]
    frames: list[U8] = []
    labels: list[str | None] = []
    hold = max(1, round(hold_s * fps))

    def shaken(img: U8) -> U8:
        dx, dy = rng.normal(0.0, shake_px, 2)
        return _warp(img, _affine((w, h), float(dx), float(dy), float(rng.normal(0.0, shake_deg))))

    def moving(img: U8, t: float, sign: float, direction: npt.NDArray[np.float64]) -> U8:
        # t in [0, 1]: how far the picture has moved away (0 = in place), eased so that the movement
        # starts and ends slowly; the blur follows the speed at t
        ease = t * t * (3.0 - 2.0 * t)
        speed = 6.0 * t * (1.0 - t) / max(1, transition_frames)
        off = sign * ease * 0.3 * w * direction
        m = _affine((w, h), float(off[0]), float(off[1]), sign * ease * 10.0, 1.0 + 0.04 * ease)
        smear = speed * 0.3 * w * direction * 0.25
        return _motion_blur(_warp(img, m), float(smear[0]), float(smear[1]))

    def transition(a: U8 | None, b: U8, n: int) -> None:
        ang = rng.uniform(0, 2 * np.pi)
        direction = np.array([np.cos(ang), np.sin(ang) * 0.4])
        for k in range(n):
            t = (k + 1) / (n + 1)
            nb = moving(b, 1.0 - t, -1.0, direction)
            if a is None:
                frames.append(nb)
            else:
                na = moving(a, t, 1.0, direction)
                frames.append(np.asarray(cv2.addWeighted(na, 1.0 - t, nb, t, 0.0), np.uint8))
            labels.append(None)

    if lead_in_frames:
        transition(None, stills[0][1], lead_in_frames)
    for n, (label, img) in enumerate(stills):
        if img.shape[:2] != (h, w):
            raise ValueError(f"still {label!r} is {img.shape[1]}x{img.shape[0]}, the first is {w}x{h}")
        if n:
            transition(stills[n - 1][1], img, transition_frames)
        for _ in range(hold):
            frames.append(shaken(img))
            labels.append(label)
    return SimulatedVideo(frames, labels, fps)


def write_video(path: str | Path, frames: Sequence[U8], fps: float) -> Path:
    """Write frames as a Motion-JPEG ``.avi`` (readable by ``cv2.VideoCapture`` everywhere)."""
    p = Path(path)
    h, w = frames[0].shape[:2]
    vw = cv2.VideoWriter(str(p), cv2.VideoWriter.fourcc(*"MJPG"), float(fps), (w, h))
    if not vw.isOpened():
        raise OSError(f"cannot write video {str(p)!r}")
    try:
        vw.set(cv2.VIDEOWRITER_PROP_QUALITY, 95)
        for f in frames:
            vw.write(f)
    finally:
        vw.release()
    return p
