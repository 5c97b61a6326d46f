"""``boardside ctrl watch``: read a camera or a video file, feed the frames to
:class:`vision.watch.Watcher`, show the annotated feed when a display exists, save each capture as
it is made, and hand the captures to the scoring pipeline.

All decisions (pose, steadiness, which side, when to capture) are in :mod:`vision.watch`; this
module only moves frames and pictures around, so it is the thin part a camera test exercises.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from calibration.errors import CameraUnavailableError
from engine.errors import BoardsideInputError
from vision.watch import Capture, WatchConfig, Watcher, draw_overlay

WINDOW = "boardside ctrl watch"


class VideoUnreadableError(BoardsideInputError):
    """A ``--video`` file is missing or cannot be decoded."""


def display_available() -> bool:
    """Is there a screen to show a window on? (Linux/BSD: an X11 or Wayland display.)"""
    if sys.platform.startswith(("linux", "freebsd", "openbsd")):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def open_video(path: Path) -> tuple[cv2.VideoCapture, float, int]:
    """Open a video file; returns the capture, its frame rate and its frame count (0 if unknown)."""
    if not path.exists():
        raise VideoUnreadableError(f"no such video file: {str(path)!r}")
    if path.is_dir():
        raise VideoUnreadableError(f"expected a video file, got a directory: {str(path)!r}")
    old = cv2.utils.logging.getLogLevel()
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
    try:
        cap = cv2.VideoCapture(str(path))
        ok = cap.isOpened()
        frame = cap.read()[1] if ok else None
    finally:
        cv2.utils.logging.setLogLevel(old)
    if not ok or frame is None:
        cap.release()
        raise VideoUnreadableError(f"cannot read video {str(path)!r} (not a video file, or damaged)")
    cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
    fps = float(cap.get(cv2.CAP_PROP_FPS) or 0.0)
    count = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
    return cap, fps, max(0, count)


@dataclass
class WatchRun:
    """What a watch session produced: the captures (also saved to ``out_dir`` as they were made),
    the frames read, and whether it stopped early (Ctrl-C, ``q`` in the window)."""

    watcher: Watcher
    frames: int
    stopped: bool
    seconds: float
    saved: list[Path]

    @property
    def captures(self) -> list[Capture]:
        return self.watcher.captures


def save_capture(cap: Capture, out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / cap.name
    if not cv2.imwrite(str(path), cap.image):
        raise BoardsideInputError(f"cannot write captured picture {str(path)!r}")
    return path


def run(
    source: cv2.VideoCapture,
    watcher: Watcher,
    console: Console,
    *,
    live: bool,
    out_dir: Path | None = None,
    show: bool = False,
    fps: float = 0.0,
    total_frames: int = 0,
) -> WatchRun:
    """Feed every frame of ``source`` to ``watcher`` until every side is captured, the source ends,
    the user presses ``q``/Esc in the window or Ctrl-C.  Each capture is written to ``out_dir`` at
    once, so an interrupted session keeps what it captured."""
    saved: list[Path] = []
    frames = 0
    stopped = False
    t0 = time.perf_counter()
    period = 1.0 / fps if (show and not live and fps > 0) else 0.0  # play a file at its own pace when shown
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), console=console,
                        transient=True, disable=show or live or not total_frames)
    task = progress.add_task("reading frames", total=total_frames or None)
    try:
        progress.start()
        while not watcher.done:
            t_frame = time.perf_counter()
            ok, raw = source.read()
            if not ok or raw is None:
                if live:
                    raise CameraUnavailableError("the camera stopped delivering frames")
                break
            frame = np.ascontiguousarray(raw, dtype=np.uint8)
            frames += 1
            status = watcher.feed(frame)
            if status.captured is not None:
                where = ""
                if out_dir is not None:
                    saved.append(save_capture(status.captured, out_dir))
                    where = f" -> {saved[-1]}"
                nxt = watcher.next_side()
                console.print(f"captured side {status.captured.side} (frame {status.index}){where}"
                              + (f"; show {nxt} next" if nxt else "; all sides captured"))
            if show:
                try:
                    cv2.imshow(WINDOW, draw_overlay(frame, status, watcher.config.steady_frames))
                    wait = max(1, int(1000 * (period - (time.perf_counter() - t_frame)))) if period else 1
                    key = cv2.waitKey(wait) & 0xFF
                except cv2.error:  # no usable display after all: carry on headless
                    show = False
                    continue
                if key in (ord("q"), 27):
                    stopped = True
                    break
            progress.update(task, advance=1, description=status.message)
    except KeyboardInterrupt:
        stopped = True
        kept = f"; the captured pictures are in {out_dir}" if out_dir is not None and saved else ""
        console.print(f"interrupted after {frames} frame(s): captured "
                      f"{', '.join(c.side for c in watcher.captures) or 'nothing'}{kept}")
        raise
    finally:
        progress.stop()
        if show:
            with contextlib.suppress(cv2.error):
                cv2.destroyWindow(WINDOW)
    return WatchRun(watcher, frames, stopped, time.perf_counter() - t0, saved)


def config_for(fps: float, low_views: bool = False) -> WatchConfig:
    return WatchConfig.for_fps(fps if fps > 0 else 10.0, low_views=low_views)
