"""Live capture for CTRL scoring (issue 5, item 4): a frame-by-frame state machine with no GUI.

:class:`Watcher` is fed one video frame at a time (``feed``).  For each frame it finds the mat's
pose (``calibration.pose.estimate_pose``, tracked from the previous frame's pose so that a frame
costs a few milliseconds), decides which printed side of the battlefield faces the camera
(``MatPose.facing_side``), measures how still the mat is (the largest movement, in pixels, of
lattice points on the table around the Central Cube's footprint between consecutive frames) and
captures the frame by itself when

* the mat has been steady for ``steady_frames`` frames in a row (every movement below
  ``steady_px``, given for 1280 pixels across), on the same side, with the azimuth at least
  ``side_margin_deg`` away from a corner of the battlefield (a corner view shows two sides half-way);
* the picture passes the pipeline's own checks (``vision.locate.check_image``: sharp, not too dark,
  not over-exposed), so a captured frame is never rejected later by the scorer, and is at least
  ``relative_sharpness`` as sharp as the sharpest frame of the steady run (no blurred frame among
  sharp ones);
* and the side facing the camera has no capture yet.

Sides needed: ``+x``, ``-x``, ``+y``, ``-y`` and ``top``.  An oblique view (camera elevation at
least ``top_oblique_deg``, the same 40 degrees ``vision.pipeline`` uses) counts for its side *and*
the top, so a player who shows four oblique sides is done; a direct top view shown before that is
still captured (it sees more of the top).

With ``WatchConfig(low_views=True)`` (``ctrl watch --low-views``) four more pictures are asked for,
interleaved with the sides (``top``, ``+x``, ``+x low``, ``+y``, ``+y low`` ...): each side again from
low down, straight at it, as ``vision.pipeline.where_to_take`` describes and the renderer's
``LOW_VIEWS`` picture it (docs/vision.md, "Session 11 (lead)": they halve the free reading's wrong
sides).  A side view is *low* when the camera looks down at most ``low_pitch_deg[1]`` degrees
(the optical axis's angle below the horizontal, from the pose: the renderer's 12-20 degrees are
this angle, :func:`look_down_deg`), otherwise it is the usual side
picture; a low view must also face its side within ``low_azimuth_deg`` and look down at least
``low_pitch_deg[0]`` degrees.  A side already captured, seen too steep for its low picture, says
"lower the camera".  :func:`draw_overlay` draws the annotated live picture
(lattice, side, "show ... next", the checklist).  The command ``boardside ctrl watch`` only reads
frames, feeds them here, shows the overlay and scores the captures with ``vision.pipeline``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np
import numpy.typing as npt

from calibration.camera import CameraCalibration
from calibration.errors import CalibrationError
from calibration.mat import MatSpec
from calibration.pose import MatPose, MatView, detect_mat, estimate_pose, pose_from_view, self_calibrate
from engine.ctrl import SIDES
from engine.errors import BoardsideInputError
from vision.locate import ImageRejectedError, LocateConfig, check_image

__all__ = [
    "Capture",
    "FrameStatus",
    "IncompleteCaptureError",
    "NoMatInVideoError",
    "WatchConfig",
    "Watcher",
    "draw_overlay",
    "look_down_deg",
    "side_file_stem",
]

U8 = npt.NDArray[np.uint8]
F64 = npt.NDArray[np.float64]

#: the order a player is told to show the sides: the top first (looking down), then around the mat
SIDE_ORDER: tuple[str, ...] = ("top", "+x", "+y", "-x", "-y")
assert set(SIDE_ORDER) == set(SIDES)
#: with ``low_views``: each side again from low down, asked for right after the side itself
LOW_ORDER: tuple[str, ...] = ("top", "+x", "+x low", "+y", "+y low", "-x", "-x low", "-y", "-y low")


class NoMatInVideoError(BoardsideInputError):
    """The video (or camera feed) ended without the mat ever being found."""


class IncompleteCaptureError(BoardsideInputError):
    """The video (or camera feed) ended before every side of the battlefield was captured."""


def side_file_stem(side: str) -> str:
    """File name stem for a captured side, as the fixtures name them: ``+x`` -> ``px``, ``-y`` -> ``my``,
    ``+x low`` -> ``px_low``."""
    return side.replace("+", "p").replace("-", "m").replace(" ", "_")


def look_down_deg(pose: MatPose) -> float:
    """How far the camera looks down: the angle of its optical axis below the table's plane, in degrees
    (90 straight down, 0 level).  The renderer's low views (``LOW_VIEWS``) are 12-20 degrees of this."""
    r, _ = cv2.Rodrigues(pose.rvec)
    axis = np.asarray(r, np.float64).T @ np.array([0.0, 0.0, 1.0])
    return -math.degrees(math.asin(max(-1.0, min(1.0, float(axis[2])))))


@dataclass(frozen=True)
class WatchConfig:
    """Thresholds of the capture rule (see the module docstring)."""

    steady_frames: int = 5
    steady_px: float = 3.0  # at 1280 pixels across; scaled with the frame's width
    side_margin_deg: float = 10.0
    top_oblique_deg: float = 40.0  # vision.pipeline counts a view this steep as showing the top
    relative_sharpness: float = 0.8  # a capture is at least this sharp relative to the steady run's sharpest
    locate: LocateConfig = field(default_factory=LocateConfig)
    # --low-views: each side again from low down.  The band is the renderer's 12-20 degrees (looking
    # down) widened for the pose: measured on 80 rendered low views (/tmp/low10), the look-down angle
    # is within 0.9 deg (95 %, max 2.6) with a calibration and 4.9 deg (95 %, max 6.8) with the generic
    # webcam guess; the usual side views look down 25 degrees or more.
    low_views: bool = False
    low_pitch_deg: tuple[float, float] = (8.0, 22.5)
    low_azimuth_deg: float = 20.0  # a low view faces its side straight: azimuth within this of the side's

    def __post_init__(self) -> None:
        if self.steady_frames < 2:
            raise BoardsideInputError(f"steady_frames must be at least 2, got {self.steady_frames!r}")
        if not self.steady_px > 0:
            raise BoardsideInputError(f"steady_px must be positive, got {self.steady_px!r}")
        lo, hi = self.low_pitch_deg
        if not 0 <= lo < hi < self.top_oblique_deg:
            raise BoardsideInputError(f"low_pitch_deg must be 0 <= low < high < {self.top_oblique_deg}, "
                                      f"got {self.low_pitch_deg!r}")

    @property
    def order(self) -> tuple[str, ...]:
        """The pictures needed, in the order they are asked for."""
        return LOW_ORDER if self.low_views else SIDE_ORDER

    @classmethod
    def for_fps(cls, fps: float, steady_s: float = 0.5, low_views: bool = False) -> WatchConfig:
        """The mat must be still for ``steady_s`` seconds (at least 3 frames) at ``fps``."""
        if not (fps > 0 and math.isfinite(fps)):
            fps = 10.0
        return cls(steady_frames=max(3, round(steady_s * fps)), low_views=low_views)


@dataclass(frozen=True, eq=False)
class Capture:
    """One captured frame: the side it was captured for, the sides it counts for (its side, and
    the top when it is oblique), its pose and its sharpness (``vision.locate.edge_sharpness``)."""

    side: str
    covers: tuple[str, ...]
    frame_index: int
    image: U8
    pose: MatPose
    sharpness: float

    @property
    def name(self) -> str:
        return f"{side_file_stem(self.side)}.png"


@dataclass(frozen=True, eq=False)
class FrameStatus:
    """What the watcher made of one frame (drawn by :func:`draw_overlay`)."""

    index: int
    pose: MatPose | None
    side: str | None  # the side facing the camera (None: no mat, or a corner view)
    elevation_deg: float | None
    motion_px: float | None  # movement since the previous frame (None: no previous pose)
    steady_count: int  # frames in a row the mat has been still on this side
    captured: Capture | None  # the capture made on this frame, if any
    covered: dict[str, str]  # side -> "direct" (a capture faces it) or "oblique"
    next_side: str | None  # the side to show next (None when done)
    message: str
    view: str | None = None  # with low_views: the picture this frame would be ("+x" or "+x low")
    look_down_deg: float | None = None  # with low_views: how far the camera looks down
    needed: tuple[str, ...] = SIDE_ORDER  # the pictures needed (the checklist)


def _azimuth_side(azimuth_deg: float) -> str:
    """The side a camera at this azimuth looks from, ignoring its elevation (``MatPose.facing_side``'s rule)."""
    az = azimuth_deg
    return "+x" if -45 <= az < 45 else "+y" if 45 <= az < 135 else "-y" if -135 <= az < -45 else "-x"


def sharpness(image: U8) -> float:
    """Variance of the Laplacian of the half-size grey picture, to compare the frames of one steady
    run (``relative_sharpness``).  Not the absolute check: sensor noise adds to it, so
    ``vision.locate.check_image`` measures :func:`vision.locate.edge_sharpness` instead (session 7);
    between frames of one run the light and the sensor's gain are the same, the noise's share about
    equal, and the Laplacian tells a 2 px blur from a sharp frame where the edge measure barely does."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    small = cv2.resize(grey, (grey.shape[1] // 2, grey.shape[0] // 2), interpolation=cv2.INTER_AREA)
    return float(cv2.Laplacian(small, cv2.CV_64F).var())


def _steadiness_points(block_mm: float) -> F64:
    """Table points (z = 0) whose movement between frames measures how still the mat is: the
    footprint's corners and a ring of lattice points three cells around it.  Points on the mat's
    plane are fixed by the printed corners whatever the camera's intrinsics (a homography), so the
    measure stays quiet with a rough camera guess; points above the table would not."""
    s = block_mm
    pts = [[x * s, y * s, 0.0] for x, y in ((0, 0), (3, 0), (3, 3), (0, 3), (-3, -3), (6, -3), (6, 6), (-3, 6))]
    return np.asarray(pts, np.float64)


class Watcher:
    """Feed frames with :meth:`feed`; :attr:`captures` fills up; :attr:`done` when every side is covered.

    ``camera=None``: the intrinsics are estimated from the first well-posed frame of the mat
    (``calibration.pose.self_calibrate`` on one oblique view: focal length only) and kept for the
    session; until then a generic webcam guess (65 degrees across) is used.
    """

    def __init__(self, spec: MatSpec | None = None, camera: CameraCalibration | None = None,
                 config: WatchConfig | None = None) -> None:
        self.spec = spec or MatSpec()
        self.config = config or WatchConfig()
        self.camera = camera
        self.camera_estimated = False  # True once self-calibrated from a frame of this feed
        self.captures: list[Capture] = []
        self.frames = 0
        self.frames_with_mat = 0
        self._pose: MatPose | None = None
        self._guess: CameraCalibration | None = None
        self._sharp: list[float] = []  # sharpness of the frames of the current steady run
        self._steady = 0
        self._steady_side: str | None = None
        self._view: str | None = None  # the picture the last frame would be (its side, or a low view)
        self._down: float | None = None  # how far the camera looked down in the last frame (low_views)
        self._small: npt.NDArray[np.float32] | None = None  # the last frame, small and grey (low_views)
        self._window: npt.NDArray[np.float32] | None = None  # phase correlation's Hanning window
        self._points = _steadiness_points(self.spec.block_mm)

    # ------------------------------------------------------------------------------------ coverage
    @property
    def covered(self) -> dict[str, str]:
        cov: dict[str, str] = {}
        for c in self.captures:
            cov[c.side] = "direct"
        for c in self.captures:
            for s in c.covers:
                cov.setdefault(s, "oblique")
        return cov

    @property
    def missing(self) -> list[str]:
        cov = self.covered
        return [s for s in self.config.order if s not in cov]

    @property
    def done(self) -> bool:
        return not self.missing

    def next_side(self) -> str | None:
        m = self.missing
        return m[0] if m else None

    # ------------------------------------------------------------------------------------- camera
    def _camera_for(self, frame: U8) -> CameraCalibration | None:
        h, w = frame.shape[:2]
        if self.camera is not None:
            if tuple(self.camera.image_size) != (w, h):
                self.camera = self.camera.scaled_to((w, h))
            return self.camera
        # no calibration: one oblique, well-spread view of the mat fixes the focal length
        view = detect_mat(frame, self.spec)
        if len(view.corner_ids) >= 10:
            cam = self._self_calibrate([view], (w, h), max_elevation=70.0)
            if cam is not None:
                self.camera = cam
                self.camera_estimated = True
                return cam
        if self._guess is None or tuple(self._guess.image_size) != (w, h):
            f = w / (2 * math.tan(math.radians(65) / 2))
            k = np.array([[f, 0.0, (w - 1) / 2], [0.0, f, (h - 1) / 2], [0.0, 0.0, 1.0]])
            self._guess = CameraCalibration(k, np.zeros(5), (w, h), 0.0, source="generic guess (65 deg across)")
        return self._guess

    def _self_calibrate(self, views: list[MatView], size: tuple[int, int],
                        max_elevation: float = 90.0) -> CameraCalibration | None:
        """Intrinsics from mat views of this feed (``calibration.pose.self_calibrate``: the focal length
        from one view, plus ``k1`` from several), or ``None`` when the result is implausible: a
        field of view outside 30..110 degrees, a reprojection error above 2.5 px, or a single view
        too steep (a view straight down cannot tell the focal length from the distance)."""
        try:
            cam = self_calibrate(views, self.spec)
            poses = [pose_from_view(v, self.spec, cam) for v in views]
        except CalibrationError:
            return None
        hfov = math.degrees(2 * math.atan(size[0] / (2 * float(cam.camera_matrix[0, 0]))))
        if not 30 <= hfov <= 110 or max(p.rms_px for p in poses) > 2.5:
            return None
        if len(views) == 1 and not 25 <= poses[0].angles_deg()["elevation"] <= max_elevation:
            return None
        return cam

    # -------------------------------------------------------------------------------------- feed
    def _side_of(self, pose: MatPose) -> tuple[str | None, float]:
        a = pose.angles_deg()
        side = pose.facing_side()
        if side != "top":
            off = abs(((a["azimuth"] % 90.0) + 90.0) % 90.0 - 45.0)  # distance from the nearest diagonal
            if off < self.config.side_margin_deg:
                return None, a["elevation"]
        return side, a["elevation"]

    def _small_grey(self, frame: U8) -> npt.NDArray[np.float32]:
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        small = cv2.resize(grey, (320, max(8, round(320 * grey.shape[0] / grey.shape[1]))),
                           interpolation=cv2.INTER_AREA)
        return np.asarray(small, np.float32)

    def _image_shift(self, a: npt.NDArray[np.float32], b: npt.NDArray[np.float32], width: int) -> float:
        """How far the picture moved between two frames (phase correlation of 320-pixel-wide grey
        frames), in pixels of the full frame."""
        if a.shape != b.shape:
            return math.inf
        if self._window is None or self._window.shape != a.shape:
            self._window = np.asarray(cv2.createHanningWindow((a.shape[1], a.shape[0]), cv2.CV_32F), np.float32)
        (dx, dy), _ = cv2.phaseCorrelate(a, b, self._window)
        return float(math.hypot(dx, dy) * width / a.shape[1])

    def _low_view(self, pose: MatPose, side: str) -> tuple[str, float, str | None]:
        """With ``low_views``, for a side view: the picture it would be (``side`` or ``side + " low"``),
        how far the camera looks down, and why it cannot be taken (``None`` when it can)."""
        cfg = self.config
        down = look_down_deg(pose)
        lo, hi = cfg.low_pitch_deg
        if down > hi:
            return side, down, None
        view = f"{side} low"
        if down < lo:
            return view, down, f"too low for {view} (looking down {down:.0f} deg): raise the camera a little"
        az = pose.angles_deg()["azimuth"]
        target = {"+x": 0.0, "+y": 90.0, "-x": 180.0, "-y": -90.0}[side]
        off = (az - target + 180.0) % 360.0 - 180.0
        if abs(off) > cfg.low_azimuth_deg:
            return view, down, f"{view}: face side {side} straight (turn the mat {abs(off):.0f} deg)"
        return view, down, None

    def feed(self, frame: U8) -> FrameStatus:
        """Process one BGR frame; returns what was seen and whether it was captured."""
        index = self.frames
        self.frames += 1
        cfg = self.config
        pose: MatPose | None
        try:
            camera = self._camera_for(frame)
            previous = self._pose if self._pose is not None and self._pose.camera is camera else None
            pose = estimate_pose(frame, self.spec, camera, previous=previous)
        except CalibrationError:
            pose = None
        small = self._small_grey(frame) if cfg.low_views else None
        previous_small, self._small = self._small, small
        if pose is None:
            self._pose = None
            self._steady, self._steady_side = 0, None
            return self._status(index, None, None, None, None, None, "mat not in view: show the whole mat")
        self.frames_with_mat += 1
        motion = None
        if self._pose is not None:
            d = pose.project(self._points) - self._pose.project(self._points)
            motion = float(np.max(np.linalg.norm(d, axis=1)))
        self._pose = pose
        side, elev = self._side_of(pose)
        # the picture this frame would be: its side, or (low_views) the side's low picture
        view, down, refusal = side, None, None
        if cfg.low_views and side is not None and side != "top":
            view, down, refusal = self._low_view(pose, side)
            if view != side and motion is not None and small is not None and previous_small is not None:
                # a low view: the pose re-estimated each frame jitters (5-20 px at the lattice points
                # on rendered low views held still), so stillness is the picture's own shift
                motion = self._image_shift(previous_small, small, frame.shape[1])
        self._view, self._down = view, down
        limit = cfg.steady_px * frame.shape[1] / 1280.0
        if motion is not None and motion < limit and view is not None and view == self._steady_side:
            self._steady += 1
        else:
            self._steady, self._steady_side = (1 if view is not None else 0), view
        if side is None:
            return self._status(index, pose, None, elev, motion, None,
                                "a corner faces the camera: turn the mat to face one side")
        if self.done:
            return self._status(index, pose, side, elev, motion, None, "all sides captured")
        assert view is not None
        if view in self.covered and self.covered[view] == "direct":
            below = _azimuth_side(pose.angles_deg()["azimuth"])
            if side == "top" and below not in self.covered:  # a steep view of a side still needed
                return self._status(index, pose, side, elev, motion, None,
                                    f"too steep for side {below} ({elev:.0f} deg): lower the camera")
            if cfg.low_views and side == "top" and f"{below} low" not in self.covered:
                return self._status(index, pose, side, elev, motion, None,
                                    f"too steep for {below} low ({elev:.0f} deg): lower the camera")
            if cfg.low_views and view == side and f"{side} low" not in self.covered:
                lo, hi = cfg.low_pitch_deg
                return self._status(index, pose, side, elev, motion, None,
                                    f"{side} captured; for {side} low: lower the camera (looking down "
                                    f"{down:.0f} deg, wanted {lo:.0f}-{hi:.0f})")
            if cfg.low_views and view != side and side not in self.covered:
                return self._status(index, pose, side, elev, motion, None,
                                    f"{view} captured; for {side}: raise the camera")
            return self._status(index, pose, side, elev, motion, None, f"{view} already captured")
        if refusal is not None:
            return self._status(index, pose, side, elev, motion, None, refusal)
        sharp = sharpness(frame)
        self._sharp = [*self._sharp[-(cfg.steady_frames - 1):], sharp] if self._steady > 1 else [sharp]
        if self._steady < cfg.steady_frames:
            return self._status(index, pose, side, elev, motion, None, f"side {view}: hold still")
        if sharp < cfg.relative_sharpness * max(self._sharp):
            return self._status(index, pose, side, elev, motion, None, f"side {view}: hold still (blurred frame)")
        try:
            quality = check_image(frame, f"frame {index}", cfg.locate)
        except ImageRejectedError as exc:
            return self._status(index, pose, side, elev, motion, None, str(exc))
        if view != side:  # a low picture counts for itself only
            covers: tuple[str, ...] = (view,)
        else:
            covers = (side, "top") if side != "top" and elev >= cfg.top_oblique_deg else (side,)
        cap = Capture(view, covers, index, frame.copy(), pose, quality["sharpness"])
        self.captures.append(cap)
        self._steady = 0
        return self._status(index, pose, side, elev, motion, cap, f"captured side {view}")

    def _status(self, index: int, pose: MatPose | None, side: str | None, elev: float | None,
                motion: float | None, cap: Capture | None, message: str) -> FrameStatus:
        if not self.config.low_views:
            return FrameStatus(index, pose, side, elev, motion, self._steady, cap, self.covered, self.next_side(),
                               message)
        view = self._view if pose is not None and side is not None else None
        return FrameStatus(index, pose, side, elev, motion, self._steady, cap, self.covered, self.next_side(),
                           message, view, self._down if view is not None else None, self.config.order)

    def finish(self, source: str) -> list[Capture]:
        """At the end of the feed: the captures, or a typed error saying what is missing."""
        if self.frames_with_mat == 0:
            raise NoMatInVideoError(f"the mat was not found in any of the {self.frames} frame(s) of {source!r}: "
                                    "the whole printed mat must be in view")
        if not self.done:
            got = ", ".join(f"{c.side} (frame {c.frame_index})" for c in self.captures) or "nothing"
            raise IncompleteCaptureError(
                f"{source!r} ended before side(s) {', '.join(self.missing)} could be captured "
                f"(captured: {got}); show {self.missing[0]} to the camera and hold it still")
        return list(self.captures)


# ------------------------------------------------------------------------------------------ overlay
def _lattice_segments(block_mm: float) -> F64:
    """World segments (N, 2, 3): the Central Cube's 3 x 3 x 3 cells (every lattice line of the cube)."""
    s = block_mm
    segs = []
    for a in range(4):
        for b in range(4):
            segs.append([[0, a * s, b * s], [3 * s, a * s, b * s]])
            segs.append([[a * s, 0, b * s], [a * s, 3 * s, b * s]])
            segs.append([[a * s, b * s, 0], [a * s, b * s, 3 * s]])
    return np.asarray(segs, np.float64)


def _table_segments(block_mm: float, reach: int = 3) -> F64:
    """World segments of the lattice's cells on the table around the footprint (``reach`` cells out)."""
    s = block_mm
    lo, hi = -reach * s, (3 + reach) * s
    segs = []
    for i in range(-reach, 4 + reach):
        segs.append([[i * s, lo, 0], [i * s, hi, 0]])
        segs.append([[lo, i * s, 0], [hi, i * s, 0]])
    return np.asarray(segs, np.float64)


_SEG_CACHE: dict[float, tuple[F64, F64]] = {}


def _text(img: U8, text: str, org: tuple[int, int], scale: float, colour: tuple[int, int, int],
          thick: int = 2) -> None:
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), thick + 3, cv2.LINE_AA)
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)


def draw_overlay(frame: U8, status: FrameStatus, steady_frames: int = 5) -> U8:
    """The annotated live picture: the lattice on the table and the Central Cube's cells (from the
    pose), the side facing the camera, what to show next, the captured-sides checklist and a
    hold-still bar.  Returns a new image."""
    img = frame.copy()
    h, w = img.shape[:2]
    unit = max(0.5, h / 720.0)
    pose = status.pose
    if pose is not None:
        s = pose.spec.block_mm
        if s not in _SEG_CACHE:
            _SEG_CACHE[s] = (_lattice_segments(s), _table_segments(s))
        cube, table = _SEG_CACHE[s]
        for segs, colour, thick in ((table, (200, 200, 200), 1), (cube, (0, 220, 255), 2)):
            p = pose.project(segs.reshape(-1, 3)).reshape(-1, 2, 2)
            ok = np.all(np.isfinite(p), axis=(1, 2)) & np.all(np.abs(p) < 4 * max(w, h), axis=(1, 2))
            cv2.polylines(img, [np.round(q).astype(np.int32) for q in p[ok]], False, colour, thick, cv2.LINE_AA)
        fp = pose.project(np.array([[0, 0, 0], [3 * s, 0, 0], [3 * s, 3 * s, 0], [0, 3 * s, 0]], float))
        if np.all(np.isfinite(fp)):
            cv2.polylines(img, [np.round(fp).astype(np.int32)], True, (0, 255, 0), 3, cv2.LINE_AA)
    # headline: the side seen, what to do
    y = int(40 * unit)
    if status.side is not None:
        elev = f" (elevation {status.elevation_deg:.0f} deg)" if status.elevation_deg is not None else ""
        if status.look_down_deg is not None:  # low_views: say how far the camera looks down
            elev = f" (elevation {status.elevation_deg:.0f} deg, looking down {status.look_down_deg:.0f})"
        _text(img, f"side {status.view or status.side}{elev}", (int(12 * unit), y), 1.0 * unit, (255, 255, 255))
    else:
        _text(img, "no side" if pose is not None else "no mat", (int(12 * unit), y), 1.0 * unit, (80, 80, 255))
    y += int(38 * unit)
    if status.next_side is not None:
        nxt = "the top (look straight down)" if status.next_side == "top" else status.next_side
        if nxt.endswith(" low"):
            nxt = f"{nxt} (camera low, straight at {nxt.split()[0]})"
        _text(img, f"show {nxt} next", (int(12 * unit), y), 1.0 * unit, (0, 255, 255))
    else:
        _text(img, "all sides captured: scoring", (int(12 * unit), y), 1.0 * unit, (0, 255, 0))
    y += int(32 * unit)
    colour = (0, 255, 0) if status.captured is not None else (230, 230, 230)
    _text(img, status.message, (int(12 * unit), y), 0.7 * unit, colour)
    # checklist
    x0 = w - int(190 * unit)
    yy = int(36 * unit)
    _text(img, "sides", (x0, yy), 0.8 * unit, (255, 255, 255))
    step = int(32 * unit) if len(status.needed) <= len(SIDE_ORDER) else int(26 * unit)
    for side in status.needed:
        yy += step
        how = status.covered.get(side)
        mark, col = ("[x]", (0, 255, 0)) if how == "direct" else ("[~]", (0, 200, 120)) if how else ("[ ]", (0, 0, 255))
        label = f"{mark} {side}" + (" (oblique)" if how == "oblique" else "")
        _text(img, label, (x0, yy), 0.7 * unit, col)
    # hold-still bar
    if status.side is not None and status.next_side is not None:
        frac = min(1.0, status.steady_count / max(1, steady_frames))
        bx, by, bw, bh = int(12 * unit), h - int(30 * unit), int(300 * unit), int(14 * unit)
        cv2.rectangle(img, (bx, by), (bx + bw, by + bh), (255, 255, 255), 1)
        cv2.rectangle(img, (bx, by), (bx + int(bw * frac), by + bh), (0, 255, 0) if frac >= 1 else (0, 200, 255), -1)
        _text(img, "hold still", (bx + bw + int(10 * unit), by + bh), 0.6 * unit, (255, 255, 255), 1)
    if status.captured is not None:
        cv2.rectangle(img, (0, 0), (w - 1, h - 1), (0, 255, 0), max(4, int(10 * unit)))
    return img
