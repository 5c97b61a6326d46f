"""Flag poles: is a flag's pole standing at a given spot?  (Used to check a set-up's flags.)

A flag's banner is small and often seen edge-on or hidden behind the Central Cube, so a set-up
check that relies on the banner alone misses flags that stand where they should.  The pole is a thin
light cylinder: along its projected axis, a pole shows a thin line that differs from the picture on
*both* sides of it (an edge differs on one side only).  For each picture the axis of the expected
pole is sampled (clear of the socket at the base and of the banner near the tip), points the Central
Cube hides are skipped, and the share of points showing such a line is the picture's evidence.

The lighter-line test (``PoleConfig.light_only``, session 7; used by ``flag-ambiguous``) counts a
line only when it is lighter than the picture on both sides -- the pole is a light rod; shadows and
the gaps between blocks are dark lines -- or (``dark_min_grey``) darker than both sides but light
itself, a light pole in front of something lighter still.  :class:`PoleJudge` judges many spots at
once with the same verdicts.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from engine.ctrl.geometry import CENTRAL_CUBE, Cell
from engine.ctrl.moves import FlagSpot
from vision.camera import ViewCamera
from vision.pieces import FLAG, FlagGeometry

U8 = npt.NDArray[np.uint8]

_CUBE_LO = np.array([min(c[a] for c in CENTRAL_CUBE) for a in range(3)], float)
_CUBE_HI = np.array([max(c[a] for c in CENTRAL_CUBE) + 1 for a in range(3)], float)


@dataclass(frozen=True)
class PoleConfig:
    samples: int = 15  # points along the pole's visible middle part
    from_frac: float = 0.12  # of the pole's length: skip the socket ...
    to_frac: float = 0.5  # ... and the banner (which starts at 0.53)
    min_contrast: float = 12.0  # grey levels between the line and both sides
    min_px: float = 8.0  # a pole shorter than this in a picture is not judged there
    line_share: float = 0.5  # share of points showing a line for a picture to count
    min_views: int = 2  # pictures that must show the pole
    # count a line only when it is LIGHTER than the picture on both sides (the pole is a thin light
    # rod; a dark line between two lighter areas is a shadow or the gap between blocks).  Off by
    # default: the set-up check and the flag placing rules were measured with either polarity
    light_only: bool = False
    # with ``light_only``: a line DARKER than both sides still counts where it is itself this light
    # (grey level): a light pole in front of something lighter still (a banner, a lit face, the mat).
    # None: only lighter lines count
    dark_min_grey: float | None = None
    # leave out the points of the pole seen against the mat's printed ChArUco ring (the camera's
    # ``mat_ring``; its line of sight, continued past the point, meets the paper outside the clear centre
    # before any block or the Central Cube) in these pictures: "all", "low" (side pictures looking down
    # less than ``LOW_LOOK_DOWN_DEG``) or None (none left out).  The white gaps between the ring's black
    # squares are thin light lines: docs/vision.md, "Session 12: flag checks with nine pictures"
    ring: str | None = None


#: a picture looking down less than this (degrees below the horizon, optical axis) is a low picture
#: (``ctrl watch --low-views`` takes them 8-22.5 degrees down; usual side pictures 25 and more)
LOW_LOOK_DOWN_DEG = 22.5


@dataclass(frozen=True)
class PoleEvidence:
    spot: FlagSpot
    views_judged: int
    views_seen: list[int]  # indices of the pictures that show the pole
    # indices of the pictures showing a line of either polarity along the axis (lighter or darker than both sides),
    # whatever ``light_only`` says (:class:`PoleJudge` fills it; empty where not asked for)
    views_line: list[int] = field(default_factory=list)

    def absent(self, min_judged: int) -> bool:
        """At least ``min_judged`` pictures can judge the pole here and none shows a line along it, of either
        polarity (``views_line`` must have been filled: :class:`PoleJudge`)."""
        return self.views_judged >= min_judged and not self.views_seen and not self.views_line

    def standing(self, cfg: PoleConfig | None = None) -> bool:
        cfg = cfg or PoleConfig()
        return len(self.views_seen) >= cfg.min_views


def pole_evidence(images: Sequence[npt.NDArray[Any]], cameras: Sequence[ViewCamera],
                  spot: FlagSpot, geom: FlagGeometry = FLAG, cfg: PoleConfig | None = None,
                  occupied: Collection[Cell] | None = None, clear_of: Sequence[FlagSpot] = ()) -> PoleEvidence:
    """How many pictures show a flag pole standing at ``spot`` (see the module docstring).  With
    ``occupied`` (the cells of the blocks in front of which the pole may stand), the points of the pole
    those blocks hide from a picture are skipped there too, as the Central Cube's always are.  With
    ``clear_of`` (rival spots), the points of the axis that lie on a rival's projected pole in a picture are
    skipped there too (:func:`pole_line_shares`)."""
    cfg = cfg or PoleConfig()
    judged = 0
    seen: list[int] = []
    for k, (img, cam) in enumerate(zip(images, cameras, strict=True)):
        shares = pole_line_shares(img, cam, spot, geom, cfg, occupied, clear_of)
        if shares is None:
            continue
        judged += 1
        light, either = shares
        if (light if cfg.light_only else either) >= cfg.line_share:
            seen.append(k)
    return PoleEvidence(spot, judged, seen)


def pole_line_shares(img: npt.NDArray[Any], cam: ViewCamera, spot: FlagSpot, geom: FlagGeometry = FLAG,
                     cfg: PoleConfig | None = None, occupied: Collection[Cell] | None = None,
                     clear_of: Sequence[FlagSpot] = ()) -> tuple[float, float] | None:
    """One picture's look at the pole that would stand at ``spot``: the share of the sampled points
    of its axis that the lighter-line test counts (``cfg.light_only``: a line lighter than the picture
    on both sides, and with ``cfg.dark_min_grey`` a darker one that is light itself), and the share
    showing a line of either polarity (lighter, or darker, than both sides); ``None`` when the picture
    cannot judge (the pole would be behind the camera, too short, or mostly hidden or outside the
    picture).  ``clear_of``: rival spots whose poles, projected into this picture (socket to tip), would
    draw the same line -- the points of the axis within :func:`rival_clear_px` of one are left out, so
    what is counted is what this spot's pole shows and the rivals' could not (a pole seen end-on
    projects onto its neighbour's axis: docs/vision.md, "Session 17: flags on the wrong face")."""
    cfg = cfg or PoleConfig()
    masks = _line_masks(img, cam, spot, geom, cfg, occupied, clear_of)
    if masks is None:
        return None
    light, dark = masks
    return float(light.mean()), float((light | dark).mean())


def _line_masks(img: npt.NDArray[Any], cam: ViewCamera, spot: FlagSpot, geom: FlagGeometry, cfg: PoleConfig,
                occupied: Collection[Cell] | None, clear_of: Sequence[FlagSpot] = (),
                ) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]] | None:
    b, n = spot.block, spot.normal
    base = np.array([b[0] + 0.5 + 0.5 * n[0], b[1] + 0.5 + 0.5 * n[1], b[2] + 0.5 + 0.5 * n[2]])
    ts = np.linspace(cfg.from_frac, cfg.to_frac, cfg.samples) * geom.pole_length
    s = cam.block_mm
    pts = (base[None, :] + ts[:, None] * np.array(n, float)[None, :]) * s
    if np.any(cam.depth(pts) <= 0):
        return None
    px = cam.project(pts)
    if float(np.linalg.norm(px[-1] - px[0])) < cfg.min_px:
        return None
    # points the Central Cube hides (the segment from the camera to the point crosses the cube)
    visible = ~_behind_box(cam.center / s, pts / s, _CUBE_LO, _CUBE_HI)
    if occupied:
        visible &= ~_behind_cells(cam.center / s, pts / s, occupied, spot.cell)
    if _ring_applies(cam, cfg):
        visible &= ~_Backdrop(occupied or ()).against_ring(cam, pts)
    h, w = img.shape[:2]
    inside = (px[:, 0] > 6) & (px[:, 0] < w - 7) & (px[:, 1] > 6) & (px[:, 1] < h - 7)
    use = visible & inside
    if clear_of:
        use &= ~on_rival_poles(cam, px, pts[len(pts) // 2], clear_of, geom)
    if use.sum() < cfg.samples // 2:
        return None
    # a grey float picture is used as it is (callers judging many spots convert once)
    grey = (cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32) if img.ndim == 3
            else np.asarray(img, np.float32))
    axis = px[-1] - px[0]
    normal = np.array([-axis[1], axis[0]]) / max(float(np.linalg.norm(axis)), 1e-9)
    radius_px = _radius_px(cam, pts[len(pts) // 2], geom.pole_radius * s)
    off = max(2.5, 2.5 * radius_px + 1.5)
    p = px[use]
    centre = _sample(grey, p)
    left = _sample(grey, p - off * normal)
    right = _sample(grey, p + off * normal)
    light = (centre - left > cfg.min_contrast) & (centre - right > cfg.min_contrast)
    dark = (left - centre > cfg.min_contrast) & (right - centre > cfg.min_contrast)
    return _pole_like(light, dark, centre, cfg), dark


def pole_pixels(cam: ViewCamera, spot: FlagSpot, geom: FlagGeometry = FLAG, n: int = 12) -> npt.NDArray[np.float64]:
    """``n`` points of the whole pole at ``spot`` (from the face to the tip), projected into ``cam``'s picture
    (pixels, shape (n, 2))."""
    b, nv = spot.block, np.array(spot.normal, float)
    base = np.array([b[0] + 0.5, b[1] + 0.5, b[2] + 0.5]) + 0.5 * nv
    pts = (base[None, :] + np.linspace(0.0, geom.pole_length, n)[:, None] * nv[None, :]) * cam.block_mm
    return cam.project(pts)


def rival_clear_px(cam: ViewCamera, point_mm: npt.NDArray[np.float64], geom: FlagGeometry = FLAG) -> float:
    """How far (pixels) a point of an axis must be from a rival's projected pole to tell the two apart: the
    pole's radius there and 2 pixels (blur, pose error)."""
    return _radius_px(cam, point_mm, geom.pole_radius * cam.block_mm) + 2.0


def on_rival_poles(cam: ViewCamera, px: npt.NDArray[np.float64], point_mm: npt.NDArray[np.float64],
                   rivals: Sequence[FlagSpot], geom: FlagGeometry = FLAG) -> npt.NDArray[np.bool_]:
    """Which of the pixels ``px`` (N, 2) lie within :func:`rival_clear_px` (at ``point_mm``) of one of the
    ``rivals``' poles projected into the picture (rivals behind the camera are ignored)."""
    tol = rival_clear_px(cam, point_mm, geom)
    out = np.zeros(len(px), bool)
    for rival in rivals:
        b, nv = rival.block, np.array(rival.normal, float)
        base = np.array([b[0] + 0.5, b[1] + 0.5, b[2] + 0.5]) + 0.5 * nv
        ends = np.stack([base, base + geom.pole_length * nv]) * cam.block_mm
        if np.any(cam.depth(ends) <= 0):
            continue
        q = pole_pixels(cam, rival, geom)
        a, d = q[:-1], q[1:] - q[:-1]  # the polyline's segments (the lens bends the line a little)
        rel = px[:, None, :] - a[None, :, :]
        dd = np.maximum((d * d).sum(axis=1), 1e-12)
        t = np.clip((rel * d[None, :, :]).sum(axis=2) / dd[None, :], 0.0, 1.0)
        dist = np.linalg.norm(rel - t[:, :, None] * d[None, :, :], axis=2).min(axis=1)
        out |= dist <= tol
    return out


def _pole_like(light: npt.NDArray[np.bool_], dark: npt.NDArray[np.bool_], centre: npt.NDArray[np.float32],
               cfg: PoleConfig) -> npt.NDArray[np.bool_]:
    """The points the lighter-line test counts: lighter than both sides, and (``cfg.dark_min_grey``)
    darker than both sides but light themselves."""
    if cfg.dark_min_grey is None:
        return light
    return light | (dark & (centre >= cfg.dark_min_grey))


def _sample(grey: npt.NDArray[np.float32], p: npt.NDArray[np.float64]) -> npt.NDArray[np.float32]:
    m = cv2.remap(grey, p[:, 0].astype(np.float32).reshape(-1, 1), p[:, 1].astype(np.float32).reshape(-1, 1),
                  cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(m, np.float32).ravel()


def _radius_px(cam: ViewCamera, point_mm: npt.NDArray[np.float64], radius_mm: float) -> float:
    depth = float(cam.depth(point_mm[None, :])[0])
    return float(cam.K[0, 0]) * radius_mm / max(depth, 1e-6)


def _behind_box(origin: npt.NDArray[np.float64], pts: npt.NDArray[np.float64], lo: npt.NDArray[np.float64],
                hi: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
    """For each point, does the segment from ``origin`` to it pass through the box [lo, hi]?"""
    d = pts - origin[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        t1 = (lo[None, :] - origin[None, :]) / d
        t2 = (hi[None, :] - origin[None, :]) / d
    tmin = np.nanmax(np.minimum(t1, t2), axis=1)
    tmax = np.nanmin(np.maximum(t1, t2), axis=1)
    return (tmax >= np.maximum(tmin, 0.0)) & (tmin < 0.999)  # type: ignore[no-any-return]


def _behind_cells(origin: npt.NDArray[np.float64], pts: npt.NDArray[np.float64], occupied: Collection[Cell],
                  own: Cell, step: float = 0.2) -> npt.NDArray[np.bool_]:
    """For each point (block units), does the segment from ``origin`` to it pass through one of the
    ``occupied`` cells (other than ``own``, the cell the point stands in)?  Sampled every ``step``
    block units, the last half step before the point left out."""
    occ = {c for c in occupied if c != own}
    out = np.zeros(len(pts), bool)
    if not occ:
        return out
    cells = np.array(sorted(occ), np.int64)
    lo, hi = cells.min(axis=0), cells.max(axis=0) + 1
    grid = np.zeros(tuple(int(v) for v in hi - lo), bool)
    grid[tuple((cells - lo).T)] = True
    # every point's samples at once (the same numbers as sampling point by point: the k-th point's
    # samples are i * step / length for i below its own count, floored and looked up in the grid)
    d = pts - origin[None, :]
    lengths = np.array([float(np.linalg.norm(dk)) for dk in d])
    # len(np.arange(0.0, stop, step)) is ceil(stop / step) (numpy's own length rule), 0 for stop 0
    counts = np.ceil(np.maximum(lengths - step / 2, 0.0) / step).astype(np.int64)
    n_max = int(counts.max()) if len(counts) else 0
    if n_max == 0:
        return out
    ts = (np.arange(n_max) * step)[None, :] / np.maximum(lengths, 1e-9)[:, None]  # (points, samples)
    q = np.floor(origin[None, None, :] + ts[:, :, None] * d[:, None, :]).astype(np.int64) - lo
    use = (np.arange(n_max)[None, :] < counts[:, None]) & np.all((q >= 0) & (q < grid.shape), axis=2)
    hit = np.zeros(use.shape, bool)
    qq = q[use]
    hit[use] = grid[qq[:, 0], qq[:, 1], qq[:, 2]]
    out[:] = hit.any(axis=1)
    return out


def _ring_applies(cam: ViewCamera, cfg: PoleConfig) -> bool:
    """Does ``cfg.ring`` leave out points seen against the mat's ring in this picture?"""
    if cfg.ring is None or cam.mat_ring is None:
        return False
    if cfg.ring == "low":
        axis_z = float(cam.R[2, 2])  # the optical axis in world coordinates: the camera's z row
        return bool(-axis_z < np.sin(np.radians(LOW_LOOK_DOWN_DEG)))
    return cfg.ring == "all"


class _Backdrop:
    """What a picture sees behind a point: the blocks (and the Central Cube), or the paper."""

    def __init__(self, occupied: Collection[Cell]) -> None:
        cells = np.array(sorted(set(occupied) | set(CENTRAL_CUBE)), np.int64).reshape(-1, 3)
        self._lo = cells.min(axis=0) - 1
        hi = cells.max(axis=0) + 2
        self._grid = np.zeros(tuple(int(v) for v in hi - self._lo), bool)
        self._grid[tuple((cells - self._lo).T)] = True

    def against_ring(self, cam: ViewCamera, pts_mm: npt.NDArray[np.float64], step: float = 0.2,
                     ) -> npt.NDArray[np.bool_]:
        """For each point (world mm): does the picture's line of sight through it, continued past it, meet
        the mat's printed ring (``cam.mat_ring``) before any block or the Central Cube?"""
        out = np.zeros(len(pts_mm), bool)
        if cam.mat_ring is None or not len(pts_mm):
            return out
        s = cam.block_mm
        c = cam.center / s
        p = np.asarray(pts_mm, np.float64) / s
        down = c[2] > p[:, 2] + 1e-9  # the line of sight goes on down to the table
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(down, c[2] / (c[2] - p[:, 2]), np.nan)
        g = c[None, :] + t[:, None] * (p - c[None, :])  # where it meets the table (block units)
        (px0, py0, px1, py1), (cx0, cy0, cx1, cy1) = cam.mat_ring
        x, y = g[:, 0] * s, g[:, 1] * s
        on_paper = down & (x >= px0) & (x <= px1) & (y >= py0) & (y <= py1)
        ring = on_paper & ~((x >= cx0) & (x <= cx1) & (y >= cy0) & (y <= cy1))
        rows = np.flatnonzero(ring)
        if not len(rows):
            return out
        seg = g[rows] - p[rows]
        length = np.linalg.norm(seg, axis=1)
        n_max = int(np.ceil(float(length.max()) / step)) + 1
        # samples from half a step past the point to the table
        ts = (0.5 + np.arange(n_max))[None, :] * step / np.maximum(length, 1e-9)[:, None]
        inside_seg = ts <= 1.0
        q = np.floor(p[rows][:, None, :] + ts[:, :, None] * seg[:, None, :]).astype(np.int64) - self._lo
        shape = np.array(self._grid.shape)
        ok = inside_seg & np.all((q >= 0) & (q < shape), axis=2)
        hit = np.zeros(ok.shape, bool)
        qq = q[ok]
        hit[ok] = self._grid[qq[:, 0], qq[:, 1], qq[:, 2]]
        out[rows] = ~hit.any(axis=1)
        return out


class PoleJudge:
    """:func:`pole_evidence` for many spots in the same pictures, cheaply: the spots asked for together
    are judged together (one projection, one occlusion test and one sampling per picture for all of
    them), and each spot's evidence is kept, so a spot asked for again costs nothing.  The verdicts
    are those of :func:`pole_evidence` with the same ``cfg`` and ``occupied``."""

    def __init__(self, greys: Sequence[npt.NDArray[np.float32]], cameras: Sequence[ViewCamera],
                 geom: FlagGeometry = FLAG, cfg: PoleConfig | None = None,
                 occupied: Collection[Cell] | None = None) -> None:
        """``greys``: the pictures in grey, as float (what :func:`pole_evidence` samples)."""
        if len(greys) != len(cameras):
            raise ValueError(f"{len(greys)!r} pictures but {len(cameras)!r} cameras")
        self._greys = [np.asarray(g, np.float32) for g in greys]
        self._cameras = list(cameras)
        self._geom = geom
        self.cfg = cfg or PoleConfig()
        self._occ = _OccupancyGrid(occupied) if occupied else None
        self._backdrop = _Backdrop(occupied or ()) if self.cfg.ring is not None else None
        self._done: dict[FlagSpot, PoleEvidence] = {}

    def evidence(self, spots: Sequence[FlagSpot]) -> list[PoleEvidence]:
        """Each spot's :class:`PoleEvidence`, in the order given."""
        new = [sp for sp in dict.fromkeys(spots) if sp not in self._done]
        if new:
            judged = np.zeros(len(new), np.int64)
            seen: list[list[int]] = [[] for _ in new]
            line: list[list[int]] = [[] for _ in new]
            for k, (grey, cam) in enumerate(zip(self._greys, self._cameras, strict=True)):
                shares = self._shares(grey, cam, new)
                for i, sh in enumerate(shares):
                    if sh is None:
                        continue
                    judged[i] += 1
                    if (sh[0] if self.cfg.light_only else sh[1]) >= self.cfg.line_share:
                        seen[i].append(k)
                    if sh[1] >= self.cfg.line_share:
                        line[i].append(k)
            for i, sp in enumerate(new):
                self._done[sp] = PoleEvidence(sp, int(judged[i]), seen[i], line[i])
        return [self._done[sp] for sp in spots]

    def _shares(self, grey: npt.NDArray[np.float32], cam: ViewCamera, spots: Sequence[FlagSpot],
                ) -> list[tuple[float, float] | None]:
        """:func:`pole_line_shares` of every spot in one picture, computed together."""
        cfg = self.cfg
        backdrop = self._backdrop if self._backdrop is not None and _ring_applies(cam, cfg) else None
        a = axis_samples(cam, spots, grey.shape[:2], cfg, self._geom, self._occ, backdrop)
        m = len(spots)
        out: list[tuple[float, float] | None] = [None] * m
        if not a.ok.any():
            return out
        centre = _sample(grey, a.centre)
        left = _sample(grey, a.centre - a.side)
        right = _sample(grey, a.centre + a.side)
        light = (centre - left > cfg.min_contrast) & (centre - right > cfg.min_contrast)
        dark = (left - centre > cfg.min_contrast) & (right - centre > cfg.min_contrast)
        light = _pole_like(light, dark, centre, cfg)
        n_light = np.bincount(a.owner, weights=light, minlength=m)
        n_line = np.bincount(a.owner, weights=light | dark, minlength=m)
        for i in np.flatnonzero(a.ok):
            out[i] = (float(n_light[i]) / float(a.counts[i]), float(n_line[i]) / float(a.counts[i]))
        return out


@dataclass(frozen=True)
class AxisSamples:
    """The points along the poles of ``m`` spots that one picture can judge (:func:`axis_samples`)."""

    ok: npt.NDArray[np.bool_]  # (m,): the spot is judged in this picture
    counts: npt.NDArray[np.int64]  # (m,): its points used
    centre: npt.NDArray[np.float64]  # (k, 2): the points used (x, y), spot after spot
    side: npt.NDArray[np.float64]  # (k, 2): the offset from each point to either side of the pole
    owner: npt.NDArray[np.int64]  # (k,): the spot (index) of each point


def axis_samples(cam: ViewCamera, spots: Sequence[FlagSpot], shape: tuple[int, ...], cfg: PoleConfig,
                 geom: FlagGeometry, occ: _OccupancyGrid | None, backdrop: _Backdrop | None = None,
                 ) -> AxisSamples:
    """Along each spot's pole axis (``cfg.samples`` points from ``from_frac`` to ``to_frac`` of the pole,
    clear of the socket and of the banner), the points a picture of ``shape`` judges: in front of the camera,
    not hidden by the Central Cube, by the blocks (``occ``) or against the ring (``backdrop``), inside the
    picture; a spot whose axis projects shorter than ``cfg.min_px`` or keeps fewer than half its points is
    not judged.  Each point comes with the offset to the pole's sides (the pole's radius in pixels, at least
    2.5, plus 1.5), perpendicular to the projected axis.  Shared by :class:`PoleJudge` (grey-level lines)
    and :class:`vision.pole_neutral.NeutralPoleJudge` (uncoloured lines)."""
    m, n = len(spots), cfg.samples
    s = cam.block_mm
    blocks = np.array([sp.block for sp in spots], float)
    normals = np.array([sp.normal for sp in spots], float)
    base = blocks + 0.5 + 0.5 * normals
    ts = np.linspace(cfg.from_frac, cfg.to_frac, n) * geom.pole_length
    pts = ((base[:, None, :] + ts[None, :, None] * normals[:, None, :]) * s).reshape(m * n, 3)
    depth = cam.depth(pts).reshape(m, n)
    px = cam.project(pts).reshape(m, n, 2)
    axis = px[:, -1] - px[:, 0]
    length = np.linalg.norm(axis, axis=1)
    ok = ~np.any(depth <= 0, axis=1) & (length >= cfg.min_px)
    visible = ~_behind_box(cam.center / s, pts / s, _CUBE_LO, _CUBE_HI).reshape(m, n)
    if occ is not None:
        own = np.repeat(np.array([sp.cell for sp in spots], np.int64), n, axis=0)
        visible &= ~occ.behind(cam.center / s, pts / s, own).reshape(m, n)
    if backdrop is not None:
        visible &= ~backdrop.against_ring(cam, pts).reshape(m, n)
    h, w = shape[:2]
    inside = (px[..., 0] > 6) & (px[..., 0] < w - 7) & (px[..., 1] > 6) & (px[..., 1] < h - 7)
    use = visible & inside & ok[:, None]
    counts = use.sum(axis=1)
    ok &= counts >= n // 2
    use &= ok[:, None]
    normal = np.stack([-axis[:, 1], axis[:, 0]], axis=1) / np.maximum(length, 1e-9)[:, None]
    radius_px = float(cam.K[0, 0]) * (geom.pole_radius * s) / np.maximum(depth[:, n // 2], 1e-6)
    off = np.maximum(2.5, 2.5 * radius_px + 1.5)
    shift = (off[:, None] * normal)[:, None, :] * np.ones((1, n, 1))
    owner = np.repeat(np.arange(m), n)[use.ravel()]
    return AxisSamples(ok, counts.astype(np.int64), px[use], shift[use], owner.astype(np.int64))


class _OccupancyGrid:
    """:func:`_behind_cells` with the grid of occupied cells built once, and each point's own cell
    (never an occluder of its point) given per point."""

    def __init__(self, occupied: Collection[Cell]) -> None:
        cells = np.array(sorted(set(occupied)), np.int64).reshape(-1, 3)
        self._lo = cells.min(axis=0)
        hi = cells.max(axis=0) + 1
        self._grid = np.zeros(tuple(int(v) for v in hi - self._lo), bool)
        self._grid[tuple((cells - self._lo).T)] = True
        # the grid with an empty border, flat: a sample outside the box looks up the border
        self._padded = np.pad(self._grid, 1).ravel()
        self._strides = np.array([(self._grid.shape[1] + 2) * (self._grid.shape[2] + 2), self._grid.shape[2] + 2, 1])

    def behind(self, origin: npt.NDArray[np.float64], pts: npt.NDArray[np.float64], own: npt.NDArray[np.int64],
               step: float = 0.2) -> npt.NDArray[np.bool_]:
        """:func:`_behind_cells` for each point, its own cell in ``own``.  Only the samples near the
        grid's box are looked at (the others cannot fall in an occupied cell): the same samples, at
        the same positions, as :func:`_behind_cells` takes within the box."""
        out = np.zeros(len(pts), bool)
        d = pts - origin[None, :]
        lengths = np.linalg.norm(d, axis=1)  # the same numbers as norm() point by point
        counts = np.ceil(np.maximum(lengths - step / 2, 0.0) / step).astype(np.int64)
        # the part of each segment within the box (slabs), widened by two samples either way
        shape = np.array(self._grid.shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            t1 = (self._lo[None, :] - origin[None, :]) / d
            t2 = (self._lo + shape)[None, :] - origin[None, :]
            t2 = t2 / d
        enter = np.nanmax(np.where(d == 0, -np.inf, np.minimum(t1, t2)), axis=1)
        leave = np.nanmin(np.where(d == 0, np.inf, np.maximum(t1, t2)), axis=1)
        outside = np.any((d == 0) & ((origin < self._lo) | (origin >= self._lo + shape))[None, :], axis=1)
        scale = lengths / step
        first = np.maximum(np.floor(np.maximum(enter, 0.0) * scale) - 2, 0)
        last = np.minimum(np.ceil(np.minimum(leave, 1.0) * scale) + 2, counts)  # exclusive
        first = np.where(np.isfinite(first), first, 0).astype(np.int64)
        last = np.where(np.isfinite(last), last, 0).astype(np.int64)
        last = np.where(outside | (leave < enter), first, last)
        span = np.maximum(last - first, 0)
        n_max = int(span.max()) if len(span) else 0
        if n_max == 0:
            return out
        i = first[:, None] + np.arange(n_max)[None, :]
        ts = (i * step) / np.maximum(lengths, 1e-9)[:, None]
        # each sample's cell, moved into the padded grid (clipped onto its border outside the box)
        q = np.floor(origin[None, None, :] + ts[:, :, None] * d[:, None, :])
        q -= self._lo - 1
        np.clip(q, 0, shape + 1, out=q)
        flat = q.astype(np.int64) @ self._strides
        hit = self._padded[flat] & (i < last[:, None])
        # a point's own cell never hides it (it is only looked up when occupied)
        own_flat = (own - self._lo + 1) @ self._strides
        own_in = np.all((own >= self._lo) & (own < self._lo + shape), axis=1)
        if np.any(own_in & self._padded[np.where(own_in, own_flat, 0)]):
            hit &= flat != own_flat[:, None]
        out[:] = hit.any(axis=1)
        return out
