"""A flag's banner seen by its outline, not its colour (with the game's history).

A banner hanging in front of blocks of its own colour shows no colour the blocks do not explain, so the banner
rays (:meth:`vision.reconstruct.RayScorer.flag_scores`) cannot place it (docs/vision.md, "Session 15: flags one
turn back", "Session 17: a flag recorded wrong without a question"; held17 game_h1 scene_014: 936 pink flag pixels
in one picture, no banner ray).  What the banner still has is its shape: a thin plastic rectangle standing off the
block faces at a place the spot fixes (``vision.pieces.FLAG``: from 0.53 to 0.93 of the pole's length, 0.46 of a
cell out to one side), lit as a face of its own orientation, its bevelled rim catching the light.  Its outline is
a straight edge where the block faces behind it have none.

For each side a banner at a spot may hang on, the three free edges of its rectangle (the tip edge, the lower edge
and the outer edge; the edge along the pole is the pole's) are sampled in each picture, points the Central Cube or
the blocks hide left out; at each point the grey level just inside the rectangle is compared with the grey level
just outside it, and with the point itself (a bevel's light or dark line).  A point counts when the inside and the
outside differ by ``min_step`` grey levels, or the point is a thin line lighter or darker than both by
``min_line``.  A picture shows the outline when ``line_share`` of its points count -- on the edge points of the
side's three edges together.  A banner seen edge-on (its plane nearly through the camera) is not judged there.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from engine.ctrl.geometry import ALL_DIRS, Cell
from engine.ctrl.moves import FlagSpot
from vision.camera import ViewCamera
from vision.pieces import FLAG, FlagGeometry
from vision.poles import _CUBE_HI, _CUBE_LO, _behind_box, _OccupancyGrid


@dataclass(frozen=True)
class OutlineConfig:
    samples: int = 6  # points per edge
    margin: float = 0.15  # of an edge's length: its ends left out (corners, the pole)
    offset_px: float = 2.5  # inside / outside samples this far from the edge (pixels, at least)
    min_step: float = 14.0  # grey levels between the inside and the outside
    min_line: float = 14.0  # or the edge point lighter / darker than both by this much (a bevel's line)
    line_share: float = 0.6  # share of a picture's points that must count
    min_px: float = 6.0  # an edge shorter than this in a picture is left out
    min_cos: float = 0.25  # a banner whose plane's normal makes a smaller cosine with the line of sight: edge-on
    min_points: int = 6  # a picture judges a side only with this many points left
    # the banner is one flat plastic face: its grey levels just inside the outline vary by at most this much
    # (standard deviation); None: not tested
    max_inside_std: float | None = 8.0
    # ... and at least this many of its edges (of those judged) each have ``line_share`` of their points counted
    min_edges: int = 2


OUTLINE = OutlineConfig()
#: pictures that must show a spot's outline for ``vision.pipeline.OUTLINE_MOVES`` to place a flag there
MIN_VIEWS = 2


def banner_sides(spot: FlagSpot) -> list[Cell]:
    """The sides a banner at ``spot`` may hang on (perpendicular to the pole, never below a level one), in
    :data:`engine.ctrl.geometry.ALL_DIRS` order (as :func:`vision.reconstruct._banner_sides`)."""
    n = spot.normal
    return [e for e in ALL_DIRS if e[0] * n[0] + e[1] * n[1] + e[2] * n[2] == 0 and not (n[2] == 0 and e[2] < 0)]


def _edges(spot: FlagSpot, e: Cell, geom: FlagGeometry) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The banner's three free edges (block units): their ends (3, 2, 3) and its centre (3,)."""
    nv, ev = np.array(spot.normal, float), np.array(e, float)
    b = spot.block
    base = np.array([b[0] + 0.5, b[1] + 0.5, b[2] + 0.5]) + 0.5 * nv
    lo, hi, w = geom.banner_from, geom.banner_to, geom.banner_width
    c00, c10 = base + lo * nv, base + hi * nv
    c01, c11 = c00 + w * ev, c10 + w * ev
    ends = np.array([[c10, c11], [c00, c01], [c01, c11]])  # tip edge, lower edge, outer edge
    return ends, 0.5 * (c00 + c11)


class OutlineJudge:
    """Which pictures show a banner's outline at a spot, per side it may hang on (see the module docstring).
    ``greys``: the pictures in grey (float); ``occupied``: the blocks' cells (their occlusion is left out)."""

    def __init__(self, greys: Sequence[npt.NDArray[np.float32]], cameras: Sequence[ViewCamera],
                 occupied: Collection[Cell], cfg: OutlineConfig = OUTLINE, geom: FlagGeometry = FLAG) -> None:
        if len(greys) != len(cameras):
            raise ValueError(f"{len(greys)!r} pictures but {len(cameras)!r} cameras")
        self._greys = [np.asarray(g, np.float32) for g in greys]
        self._cameras = list(cameras)
        self._occ = _OccupancyGrid(occupied) if occupied else None
        self.cfg = cfg
        self._geom = geom
        self._done: dict[FlagSpot, list[list[int]]] = {}

    def views(self, spot: FlagSpot) -> list[list[int]]:
        """Per side of :func:`banner_sides` (in that order), the pictures showing the banner's outline."""
        got = self._done.get(spot)
        if got is None:
            got = [[k for k in range(len(self._cameras)) if self._shows(k, spot, e)] for e in banner_sides(spot)]
            self._done[spot] = got
        return got

    def best(self, spot: FlagSpot) -> list[int]:
        """The pictures showing the outline on the side most pictures show (none: ``[]``)."""
        return max(self.views(spot), key=len, default=[])

    def shares(self, k: int, spot: FlagSpot, e: Cell) -> float | None:
        """Picture ``k``'s share of counted points for the banner at ``spot`` hanging towards ``e`` (``None``:
        not judged there)."""
        got = self.samples(k, spot, e)
        if got is None:
            return None
        g_in, g_out, g_on, _ = got
        return float(np.mean(_counted(g_in, g_out, g_on, self.cfg)))

    def samples(self, k: int, spot: FlagSpot, e: Cell) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32],
                                                               npt.NDArray[np.float32], npt.NDArray[np.int64]] | None:
        """Picture ``k``'s grey levels inside, outside and on the banner's outline (at ``spot``, hanging towards
        ``e``) at the points it judges, and each point's edge (0 tip, 1 lower, 2 outer); ``None``: not judged."""
        cfg, cam, grey = self.cfg, self._cameras[k], self._greys[k]
        s = cam.block_mm
        ends, centre = _edges(spot, e, self._geom)
        # edge-on: the banner's plane nearly contains the line of sight
        normal = np.cross(np.array(spot.normal, float), np.array(e, float))
        sight = centre * s - cam.center
        cosang = abs(float(normal @ sight)) / max(float(np.linalg.norm(sight)), 1e-9)
        if cosang < cfg.min_cos:
            return None
        ts = np.linspace(cfg.margin, 1.0 - cfg.margin, cfg.samples)
        pts = (ends[:, 0][:, None, :] + ts[None, :, None] * (ends[:, 1] - ends[:, 0])[:, None, :]).reshape(-1, 3)
        mm = np.vstack([pts, centre[None, :], ends.reshape(-1, 3)]) * s
        if np.any(cam.depth(mm) <= 0):
            return None
        px_all = cam.project(mm)
        n_pts = len(pts)
        px, c_px, end_px = px_all[:n_pts], px_all[n_pts], px_all[n_pts + 1:].reshape(3, 2, 2)
        visible = ~_behind_box(cam.center / s, pts, _CUBE_LO, _CUBE_HI)
        if self._occ is not None:
            own = np.repeat(np.array([spot.cell], np.int64), n_pts, axis=0)
            visible &= ~self._occ.behind(cam.center / s, pts, own)
        h, w = grey.shape[:2]
        inside = (px[:, 0] > 8) & (px[:, 0] < w - 9) & (px[:, 1] > 8) & (px[:, 1] < h - 9)
        # per edge: its image direction, the normal pointing into the banner, long enough to judge
        into = np.zeros((3, 2))
        long_enough = np.zeros(3, bool)
        for i in range(3):
            d = end_px[i, 1] - end_px[i, 0]
            length = float(np.linalg.norm(d))
            long_enough[i] = length >= cfg.min_px
            nrm = np.array([-d[1], d[0]]) / max(length, 1e-9)
            mid = 0.5 * (end_px[i, 0] + end_px[i, 1])
            into[i] = nrm if float(nrm @ (c_px - mid)) > 0 else -nrm
        use = visible & inside & np.repeat(long_enough, cfg.samples)
        if int(use.sum()) < cfg.min_points:
            return None
        off = np.repeat(into, cfg.samples, axis=0)[use] * cfg.offset_px
        p = px[use]
        g_in = _sample(grey, p + off)
        g_out = _sample(grey, p - off)
        g_on = _sample(grey, p)
        return g_in, g_out, g_on, np.repeat(np.arange(3), cfg.samples)[use]

    def _shows(self, k: int, spot: FlagSpot, e: Cell) -> bool:
        """Does picture ``k`` show the outline of the banner at ``spot`` hanging towards ``e``?"""
        got = self.samples(k, spot, e)
        if got is None:
            return False
        g_in, g_out, g_on, edge = got
        cfg = self.cfg
        hit = _counted(g_in, g_out, g_on, cfg)
        if float(np.mean(hit)) < cfg.line_share:
            return False
        if cfg.max_inside_std is not None and float(np.std(g_in)) > cfg.max_inside_std:
            return False
        edges = [int(i) for i in np.unique(edge)]
        return sum(float(np.mean(hit[edge == i])) >= cfg.line_share for i in edges) >= min(cfg.min_edges, 3)


def _counted(g_in: npt.NDArray[np.float32], g_out: npt.NDArray[np.float32], g_on: npt.NDArray[np.float32],
             cfg: OutlineConfig) -> npt.NDArray[np.bool_]:
    """The outline points that count: a step between inside and outside, or a thin lighter / darker line."""
    step = np.abs(g_in - g_out) > cfg.min_step
    line = (((g_on - g_in) > cfg.min_line) & ((g_on - g_out) > cfg.min_line)) | (
        ((g_in - g_on) > cfg.min_line) & ((g_out - g_on) > cfg.min_line))
    return step | line  # type: ignore[no-any-return]


def _sample(grey: npt.NDArray[np.float32], p: npt.NDArray[np.float64]) -> npt.NDArray[np.float32]:
    m = cv2.remap(grey, p[:, 0].astype(np.float32).reshape(-1, 1), p[:, 1].astype(np.float32).reshape(-1, 1),
                  cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(m, np.float32).ravel()
