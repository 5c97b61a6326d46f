"""Frames for the closed loop: a live camera, a video file, or the *simulated* camera; and the watcher
that turns a frame into the robot's pose (with an annotated picture when asked).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np
import numpy.typing as npt

from boardside.closedloop import LoopSettings, RobotNotSeenError, expected_mm
from calibration.boards import BoardSpec, RobotTag
from calibration.camera import CameraCalibration
from engine.errors import BoardsideInputError
from engine.motion import Pose
from vision.robot_tag import BoardPose, ImageRejectedError, RobotNotFoundError, RobotReading, RobotTracker

__all__ = [
    "CameraFrames",
    "FrameSource",
    "FramesEndedError",
    "SimulatedFrames",
    "VideoFrames",
    "Watcher",
    "annotate_reading",
]

U8 = npt.NDArray[np.uint8]


class FramesEndedError(RobotNotSeenError):
    """The video file has no more frames."""


class FrameSource(Protocol):
    name: str

    def read(self) -> U8: ...

    def close(self) -> None: ...


class CameraFrames:
    """A live camera (``--camera N``); each read drops what the driver buffered and takes a fresh frame."""

    def __init__(self, index: int, size: tuple[int, int] = (1280, 720), flush: int = 4) -> None:
        from calibration.live import open_camera

        self.name = f"camera {index}"
        self.cap = open_camera(index, size)
        self.flush = flush

    def read(self) -> U8:
        for _ in range(self.flush):
            self.cap.grab()
        ok, frame = self.cap.read()
        if not ok or frame is None:
            raise RobotNotSeenError(f"{self.name} delivered no frame")
        return np.asarray(frame, np.uint8)

    def close(self) -> None:
        self.cap.release()


class VideoFrames:
    """Frames of a video file (``--video FILE``), one per look, in order (a recording made with one
    frame per check, or any stream OpenCV opens); its end stops the loop."""

    def __init__(self, path: str | Path) -> None:
        self.name = f"video {str(path)!r}"
        is_stream = "://" in str(path)  # rtsp://, http://: a network camera's stream
        if not is_stream and not Path(path).exists():
            raise BoardsideInputError(f"video file not found: {str(path)!r}")
        self.cap = cv2.VideoCapture(str(path))
        if not self.cap.isOpened():
            raise BoardsideInputError(f"cannot read video {str(path)!r} (not a video OpenCV can open)")
        self.count = 0

    def read(self) -> U8:
        ok, frame = self.cap.read()
        if not ok or frame is None:
            raise FramesEndedError(f"{self.name} ended after {self.count} frame(s)")
        self.count += 1
        return np.asarray(frame, np.uint8)

    def close(self) -> None:
        self.cap.release()


class SimulatedFrames:
    """The *simulated* camera (``--camera sim``) drawing the simulated robot at its true pose."""

    def __init__(self, camera: Any, truth: Callable[[], tuple[float, float, float] | None]) -> None:
        self.name = "simulated camera"
        self.camera = camera
        self.truth = truth
        self.count = 0

    def read(self) -> U8:
        self.count += 1
        return np.asarray(self.camera.frame(self.truth()), np.uint8)

    def close(self) -> None:
        return None


# ---------------------------------------------------------------------------- the watcher
@dataclass
class Watcher:
    """Reads the robot in frames from ``source``: up to ``tries`` frames per look (a hand in the way,
    a blurred frame); a reading below ``min_confidence`` counts as not seen.  ``frames_dir``: save
    each looked-at frame annotated with the expected and the seen pose.  ``calibration`` None: the
    camera's intrinsics are estimated from the board in every frame (less accurate)."""

    source: FrameSource
    spec: BoardSpec
    calibration: CameraCalibration | None
    tag: RobotTag | None
    settings: LoopSettings
    min_confidence: float = 0.3
    tries: int = 3
    frames_dir: Path | None = None
    looks: int = 0
    last_ms: float = 0.0

    def __post_init__(self) -> None:
        self._tracker = RobotTracker(self.spec, self.calibration, self.tag)

    def __call__(self, label: str, expected: Pose) -> RobotReading:
        self.looks += 1
        problem = ""
        for _ in range(max(1, self.tries)):
            frame = self.source.read()
            t = time.perf_counter()
            board = None
            try:
                reading, board = self._tracker.read(frame, label)
            except RobotNotFoundError as exc:
                self.last_ms = (time.perf_counter() - t) * 1000
                problem = str(exc)
                self._save(frame, label, expected, None, self._tracker.board)
                continue
            except ImageRejectedError as exc:
                self.last_ms = (time.perf_counter() - t) * 1000
                problem = str(exc)
                self._save(frame, label, expected, None, board)
                continue
            self.last_ms = (time.perf_counter() - t) * 1000
            self._save(frame, label, expected, reading, board)
            if reading.confidence >= self.min_confidence:
                return reading
            problem = f"tag seen with low confidence {reading.confidence:.2f} ({reading})"
        raise RobotNotSeenError(problem)

    def _save(self, frame: U8, label: str, expected: Pose, reading: RobotReading | None,
              board: BoardPose | None) -> None:
        if self.frames_dir is None:
            return
        self.frames_dir.mkdir(parents=True, exist_ok=True)
        pic = annotate_reading(frame, board, expected, reading, self.tag or RobotTag(), label, self.settings.cell_mm)
        safe = "".join(c if c.isalnum() else "-" for c in label).strip("-")
        cv2.imwrite(str(self.frames_dir / f"{self.looks:03d}-{safe}.jpg"), pic)


def annotate_reading(frame: U8, board: BoardPose | None, expected: Pose, reading: RobotReading | None,
                     tag: RobotTag, label: str, cell_mm: float) -> U8:
    """The frame with the expected pose (green: the cell's outline on the board, and the tag's outline
    and heading arrow at the tag's height as a robot standing right would show them) and the seen
    pose (orange: the tag's outline and heading arrow) drawn on it (text only without a board)."""
    pic = frame.copy()
    if board is None:
        _caption(pic, f"{label}: board not found; expected {expected}")
        return pic
    ex, ey, eh = expected_mm(expected, cell_mm)
    c = cell_mm
    cell = [(expected.x * c, expected.y * c, 0.0), ((expected.x + 1) * c, expected.y * c, 0.0),
            ((expected.x + 1) * c, (expected.y + 1) * c, 0.0), (expected.x * c, (expected.y + 1) * c, 0.0)]
    green, orange = (60, 200, 60), (0, 140, 255)

    def arrow(x: float, y: float, hdg: float, colour: tuple[int, int, int]) -> None:
        r = math.radians(hdg)
        a = board.project([(x, y, tag.height_mm)])[0]
        b = board.project([(x + 0.45 * c * math.cos(r), y + 0.45 * c * math.sin(r), tag.height_mm)])[0]
        cv2.arrowedLine(pic, tuple(int(v) for v in a), tuple(int(v) for v in b), colour, 2, cv2.LINE_AA,
                        tipLength=0.3)

    cv2.polylines(pic, [np.round(board.project(cell)).astype(np.int32)], True, green, 1, cv2.LINE_AA)
    # where the tag would be, at its height, on a robot standing right: compare with the orange outline
    r = math.radians(eh)
    fx, fy, lx, ly = math.cos(r), math.sin(r), -math.sin(r), math.cos(r)
    h = tag.tag_mm / 2
    square = [(ex + fx * u * h + lx * v * h, ey + fy * u * h + ly * v * h, tag.height_mm)
              for u, v in ((1, 1), (1, -1), (-1, -1), (-1, 1))]
    cv2.polylines(pic, [np.round(board.project(square)).astype(np.int32)], True, green, 2, cv2.LINE_AA)
    arrow(ex, ey, eh, green)
    if reading is not None:
        cv2.polylines(pic, [np.round(np.array(reading.corners_px)).astype(np.int32)], True, orange, 2, cv2.LINE_AA)
        arrow(reading.x_mm, reading.y_mm, reading.heading_deg, orange)
        text = (f"{label}: seen ({reading.x_mm:.0f},{reading.y_mm:.0f}) mm {reading.heading_deg:.0f} deg, "
                f"expected {expected} ({ex:.0f},{ey:.0f}) {eh:.0f} deg")
    else:
        text = f"{label}: robot not seen; expected {expected}"
    _caption(pic, text)
    return pic


def _caption(pic: U8, text: str) -> None:
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 0.55, 1)
    cv2.rectangle(pic, (6, 8), (18 + tw, 20 + th), (30, 30, 30), -1)
    cv2.putText(pic, text, (12, 14 + th), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (255, 255, 255), 1, cv2.LINE_AA)
    legend = "green: expected cell (on the board), tag and heading (at the tag's height)   orange: tag seen"
    (lw, lh), _ = cv2.getTextSize(legend, cv2.FONT_HERSHEY_SIMPLEX, 0.5, 1)
    y = pic.shape[0] - 12
    cv2.rectangle(pic, (6, y - lh - 6), (18 + lw, y + 6), (30, 30, 30), -1)
    cv2.putText(pic, legend, (12, y), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1, cv2.LINE_AA)
