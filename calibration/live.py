"""Live capture from a camera (``--camera N``) with on-screen coverage guidance.

Needs a real camera, so it is exercised only by hardware tests (``pytest --camera N``); without a
device :func:`open_camera` raises :class:`CameraUnavailableError` with a one-line message.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

import cv2
import numpy as np
import numpy.typing as npt

from calibration.errors import CameraUnavailableError
from calibration.targets import Detection, Target

__all__ = ["capture_views", "coverage_cells", "open_camera"]

U8 = npt.NDArray[np.uint8]
GRID = (4, 3)  # coverage cells across, down


def open_camera(index: int, size: tuple[int, int] | None = None) -> cv2.VideoCapture:
    """Open camera ``index`` and check that it delivers a frame."""
    if index < 0:
        raise CameraUnavailableError(f"camera index must be >= 0, got {index!r}")
    old = cv2.utils.logging.getLogLevel()
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)  # our one-line error instead
    try:
        cap = cv2.VideoCapture(index)
    finally:
        cv2.utils.logging.setLogLevel(old)
    if not cap.isOpened():
        cap.release()
        raise CameraUnavailableError(f"cannot open camera {index!r} (no such device, or it is in use)")
    if size is not None:
        cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
        cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
    ok, frame = cap.read()
    if not ok or frame is None:
        cap.release()
        raise CameraUnavailableError(f"camera {index!r} opened but delivers no frames")
    return cap


def coverage_cells(points: npt.NDArray[np.float32], size: tuple[int, int]) -> set[tuple[int, int]]:
    """Coverage grid cells (col, row) that contain detected points."""
    w, h = size
    cols = np.clip((points[:, 0] / w * GRID[0]).astype(int), 0, GRID[0] - 1)
    rows = np.clip((points[:, 1] / h * GRID[1]).astype(int), 0, GRID[1] - 1)
    return {(int(c), int(r)) for c, r in zip(cols, rows, strict=True)}


def _draw(
    frame: U8, det: Detection | None, covered: dict[tuple[int, int], int], taken: int, wanted: int
) -> U8:
    out = frame.copy()
    h, w = out.shape[:2]
    cw, ch = w / GRID[0], h / GRID[1]
    overlay = out.copy()
    for c in range(GRID[0]):
        for r in range(GRID[1]):
            n = covered.get((c, r), 0)
            colour = (0, 160, 0) if n >= 3 else (0, 200, 255) if n else (0, 0, 255)
            p0 = (int(c * cw) + 2, int(r * ch) + 2)
            p1 = (int((c + 1) * cw) - 2, int((r + 1) * ch) - 2)
            cv2.rectangle(overlay, p0, p1, colour, 2)
    out = np.asarray(cv2.addWeighted(overlay, 0.5, out, 0.5, 0), dtype=np.uint8)
    if det is not None:
        for x, y in det.image_points:
            cv2.circle(out, (int(x), int(y)), 3, (0, 255, 0), -1)
    msg = f"views {taken}/{wanted}  - cover the red/orange cells, tilt the board; q = finish"
    cv2.putText(out, msg, (10, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(out, msg, (10, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 1, cv2.LINE_AA)
    return out


def capture_views(
    index: int,
    target: Target,
    wanted: int = 20,
    *,
    show: bool = True,
    min_interval_s: float = 1.0,
    on_capture: Callable[[int], None] | None = None,
) -> list[tuple[str, U8]]:
    """Capture up to ``wanted`` views in which the target is found, spaced in time and favouring
    views that cover new parts of the image.  Shows a guidance window unless ``show`` is false;
    ``q`` or Esc finishes early."""
    cap = open_camera(index)
    views: list[tuple[str, U8]] = []
    covered: dict[tuple[int, int], int] = {}
    last = 0.0
    try:
        while len(views) < wanted:
            ok, raw = cap.read()
            if not ok or raw is None:
                raise CameraUnavailableError(f"camera {index!r} stopped delivering frames")
            frame: U8 = np.asarray(raw, dtype=np.uint8)
            grey: U8 = np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), dtype=np.uint8)
            det = target.detect(grey)
            now = time.monotonic()
            if det is not None and now - last >= min_interval_s:
                cells = coverage_cells(det.image_points, (grey.shape[1], grey.shape[0]))
                new = any(covered.get(c, 0) < 3 for c in cells)
                if new or len(views) < wanted // 2:
                    for c in cells:
                        covered[c] = covered.get(c, 0) + 1
                    views.append((f"camera{index}-frame{len(views):02d}", frame.copy()))
                    last = now
                    if on_capture is not None:
                        on_capture(len(views))
            if show:
                try:
                    cv2.imshow("boardside calibrate camera", _draw(frame, det, covered, len(views), wanted))
                    key = cv2.waitKey(1) & 0xFF
                except cv2.error:  # no display (headless): keep capturing without the window
                    show = False
                    continue
                if key in (ord("q"), 27):
                    break
    finally:
        cap.release()
        if show:
            with contextlib.suppress(cv2.error):
                cv2.destroyAllWindows()
    return views
