"""Reconstruct stage: fit the voxel state that explains every view together.

Used by ``boardside ctrl score-images`` (:func:`vision.pipeline.score_images`), which adds the rules,
the history search and the flag checks on top; :class:`RayScorer` is also the history search's cost.
Accuracy is below issue 5's targets (docs/vision.md, "Current state"): near ties between two depths
that show the same colour, and cells no ray reaches, are the limit.

Input: for each view, a calibrated camera (pose in battlefield coordinates) and a per-pixel label
map from the classify stage.  Output: every block's cell and colour, every flag's cell and
direction, a confidence per cell, and the cells no view could see.

Method (visibility-aware space carving, then colouring, then model-based flag fitting):

1. Sample pixels on a grid; for each, the camera ray is traced through the lattice volume above
   the table (the table stops it).
2. Start with every candidate cell full.  Repeatedly find, per view, the first full cell along each
   ray; a cell whose first-hit pixels in some view show mostly "free" labels (mat, table, Central
   Cube black: a block is never black) is carved.  Occupied cells block every ray through them, so
   only empty cells collect free-space evidence; carving peels the volume layer by layer until the
   hypothesis explains what every view sees through.
3. Each remaining cell takes the majority colour of the pixels where it is the first hit (all
   views); its confidence is that majority's share.  Cells that remain full but are never the first
   hit of any ray are *unobserved*: reported, never guessed silently.
4. Flags: the rays that show a piece colour no block explains pass near that colour's banner; every
   legal flag spot of the reconstructed blocks (engine rules) is scored by them and the best spot
   with enough rays wins (:func:`_fit_flags_residual`).
"""

from __future__ import annotations

import copy
import time
from collections import deque
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from engine.ctrl.geometry import ALL_DIRS, CENTRAL_CUBE, NOT_DOWN, Cell
from engine.ctrl.moves import FlagSpot
from vision.camera import ViewCamera
from vision.labels import COLOR_LABELS, LABEL_COLORS, N_LABELS, Label
from vision.pieces import FLAG, FlagGeometry

I64 = npt.NDArray[np.int64]
U8 = npt.NDArray[np.uint8]


# the scorer without the weakly coloured pixels (``RayScorer.without_weak``) keeps the banner rays beyond the
# mat (their weak ones left out too); before session 9 it dropped them, so a banner seen against the table lost
# all its evidence there whatever its colour (docs/vision.md, "Session 9: flag questions")
WEAK_FREE_KEEPS_FAR = True

# flags: the piece-coloured rays that reach the table beyond the mat are banner evidence (they are no
# evidence of a block; :func:`_trace_both`; docs/vision.md, "Session 8: flags")
BANNER_RAYS_BEYOND_MAT = True
# ... where the picture shows that colour beyond the mat on at most this many rays no block explains
# (a banner: tens of rays; a table or cloth of the colour: thousands)
FAR_COLOUR_MAX_RAYS = 150
# ... and rays of a colour the picture shows beyond the mat on more than this many are not even traced
FAR_TRACE_MAX_RAYS = 1500
# the search runs again once the colour no block connected to the pile can explain (``Reconstruction.ignored``)
# is left out: a block read in the air in front of one camera, where no other picture carves it, hides the
# cells behind it from the search (docs/vision.md, "Session 14: blocks the free reading leaves out"); False:
# not (as before session 14)
REFINE_AFTER_FLOATING = True


@dataclass(frozen=True)
class ReconstructConfig:
    """Thresholds of the reconstruct stage (one place, as chesscog keeps them)."""

    bounds_min: tuple[int, int, int] = (-5, -5, 0)
    bounds_max: tuple[int, int, int] = (8, 8, 8)  # exclusive
    pixel_stride: int = 4  # sample every 4th pixel (flags need it: every 6th lost 4 of 40 flags)...
    near_cells: int = 3  # ... within this many samples of a piece colour,
    far_step: int = 2  # and every 2nd sample in each direction farther out (the bare mat)
    carve_fraction: float = 0.6  # share of free labels among a cell's first-hit pixels in one view
    consistency: float = 0.7  # a cell whose main colour has less than this share of its coloured pixels is carved
    min_pixels: int = 6  # first-hit pixels a view needs to judge a cell
    max_iterations: int = 40
    max_per_colour: int = 22  # rulebook "Components"
    max_grow: int = 4  # rounds of local search; each next one adds the cells where a block would explain more rays
    block_penalty: int = 0  # rays a block must explain to be kept (Occam prior; 2 made results worse)
    flag_min_rays: int = 4  # unexplained rays of a flag's colour needed to place a flag
    colors: tuple[str, ...] = ("blue", "pink", "yellow", "green")
    # rays at a face's rim: a sampled ray showing a piece colour whose sampled neighbour within this many
    # samples (in the label grid, 4-connected steps) shows another label (``rim_next_to``) is left out of the
    # blocks' cost (weight 0; banners keep it): the colour label bleeds over a face's rim, and such rays paid
    # for extra blocks read on top of true ones (docs/vision.md, "Session 16: extra blocks in front",
    # "Session 17: rim rays").  0: every ray counts (as before session 17)
    rim_samples: int = 0
    # ... which neighbouring labels make a colour ray a rim ray: "free" (the mat / table or the Central Cube's
    # black), "any" (any other label, another piece colour too); "both": as "any", and the free rays next to a
    # colour too (both sides of the boundary: where it lies is uncertain, not which side is right)
    rim_next_to: str = "free"
    # ... only every other rim sample (a checkerboard of the label grid) is left out: about half the rim's
    # weight in the cost, as far as the search's 0 / 1 weights allow
    rim_every_other: bool = False

    def __post_init__(self) -> None:
        if self.rim_samples < 0:
            raise ValueError(f"rim_samples must be >= 0, got {self.rim_samples!r}")
        if self.rim_next_to not in ("free", "any", "both"):
            raise ValueError(f"rim_next_to must be 'free', 'any' or 'both', got {self.rim_next_to!r}")


@dataclass
class ViewEvidence:
    """One view: its camera and its label map; ``name`` is the side it shows (for reports).

    ``mat_rect_mm`` (x0, y0, x1, y1 in world mm) is the printed sheet: a ray that reaches the table
    outside it ends on the table or on clutter, so a piece colour there is no evidence of a block.
    ``colour_patches_mm`` are the mat's printed colour patches (same form): a piece colour on a ray
    that ends on one of them may be the patch itself, so it is no evidence of a block either.
    """

    camera: ViewCamera
    labels: U8
    name: str = ""
    mat_rect_mm: tuple[float, float, float, float] | None = None
    colour_patches_mm: tuple[tuple[float, float, float, float], ...] = ()
    # optional, the labels' size: True where a piece colour was read from a weakly coloured pixel
    # (``vision.classify.weak_colour``); the history search can leave those rays out (docs/vision.md,
    # "Session 8: following a game under hard shadows")
    weak: npt.NDArray[np.bool_] | None = None
    # optional, the labels' size: each piece-coloured pixel's saturation (``vision.classify.saturation``,
    # NaN elsewhere); the free reading tells the mat in a tinted shadow from a block by it
    # (``vision.free_rules.drop_pale_mat_blocks``)
    saturation: npt.NDArray[np.float32] | None = None


@dataclass
class Reconstruction:
    blocks: dict[Cell, str]
    flags: dict[str, FlagSpot]
    confidence: dict[Cell, float]
    unobserved: list[Cell]
    flag_scores: dict[str, float]
    timings: dict[str, float] = field(default_factory=dict)
    iterations: int = 0
    first_hit_pixels: dict[Cell, list[int]] = field(default_factory=dict)
    ignored: dict[Cell, str] = field(default_factory=dict)  # colour seen where no block can be (floating)
    scorer: RayScorer | None = None  # how well any other set of blocks explains the same pictures


class _Volume:
    def __init__(self, cfg: ReconstructConfig) -> None:
        self.lo = np.array(cfg.bounds_min, np.int64)
        self.hi = np.array(cfg.bounds_max, np.int64)
        self.shape = tuple(int(v) for v in self.hi - self.lo)
        self.n = int(np.prod(self.shape))
        self._lo = tuple(int(v) for v in self.lo)

    def index(self, cells: I64) -> I64:
        """Linear index of integer cells (N, 3); -1 outside the volume."""
        rel = cells - self.lo
        inside = np.all((rel >= 0) & (rel < np.array(self.shape)), axis=-1)
        _sx, sy, sz = self.shape
        idx = (rel[..., 0] * sy + rel[..., 1]) * sz + rel[..., 2]
        return np.where(inside, idx, -1)  # type: ignore[no-any-return]

    def index1(self, cell: Cell) -> int:
        """Linear index of one cell; -1 outside the volume (as :meth:`index`, without numpy)."""
        x, y, z = (int(cell[0]) - self._lo[0], int(cell[1]) - self._lo[1], int(cell[2]) - self._lo[2])
        sx, sy, sz = self.shape
        if 0 <= x < sx and 0 <= y < sy and 0 <= z < sz:
            return (x * sy + y) * sz + z
        return -1

    def cells(self, idx: I64) -> I64:
        """Integer cells (N, 3) of linear indices (N,) (as :meth:`cell`, for many)."""
        _sx, sy, sz = self.shape
        x, rem = np.divmod(idx, sy * sz)
        y, z = np.divmod(rem, sz)
        return np.stack([x, y, z], axis=1) + self.lo  # type: ignore[no-any-return]

    def cell(self, idx: int) -> Cell:
        _sx, sy, sz = self.shape
        x, rem = divmod(idx, sy * sz)
        y, z = divmod(rem, sz)
        return (int(x + self.lo[0]), int(y + self.lo[1]), int(z + self.lo[2]))


@dataclass
class _Rays:
    idx: I64  # (nrays, nsamples) cell index along each ray, -1 = none
    labels: I64  # (nrays,)
    pixels: I64  # (nrays, 2)
    origin: npt.NDArray[np.float64] = field(default_factory=lambda: np.zeros(3))  # camera centre, block units
    dirs: npt.NDArray[np.float64] = field(default_factory=lambda: np.zeros((0, 3)))  # unit directions
    weak: npt.NDArray[np.bool_] | None = None  # (nrays,) the label is a weakly coloured pixel's (ViewEvidence.weak)
    sat: npt.NDArray[np.float32] | None = None  # (nrays,) the pixel's saturation (ViewEvidence.saturation)
    rim: npt.NDArray[np.bool_] | None = None  # (nrays,) a colour ray at a face's rim (:func:`rim_samples`)


#: sample the pixels the classify stage labelled.  The pipeline classifies every ``pixel_stride``-th
#: pixel from ``stride // 2`` on and spreads each label over its stride x stride block; a grid that
#: starts at the volume's projected corner (any pixel) read each ray's label from up to ``stride // 2``
#: pixels away in each direction (docs/vision.md "Session 8: free reading, the sampled pixels").
#: Off: measured neutral on the side scores (fixtures, development and check renders) while it changes
#: many readings and fewer are trusted with history (flag-ambiguous margins were set on the old grid).
ALIGN_SAMPLES = False


def _trace(view: ViewEvidence, vol: _Volume, cfg: ReconstructConfig) -> _Rays:
    """Trace sampled pixel rays through the volume: the ordered cells each ray crosses."""
    return _trace_both(view, vol, cfg)[0]


def _trace_both(view: ViewEvidence, vol: _Volume, cfg: ReconstructConfig) -> tuple[_Rays, _Rays]:
    """:func:`_trace`'s rays, and the piece-coloured rays it leaves out because they reach the table
    beyond the mat (``view.mat_rect_mm``; none without it), traced the same way: no evidence of a block
    (the table or clutter may show the colour), but a flag's banner high on the pile, seen against the
    table beyond the mat, shows on them and nowhere else (docs/vision.md, "Session 8: flags")."""
    cam = view.camera
    s = cam.block_mm
    h, w = view.labels.shape
    lo = vol.lo.astype(np.float64)
    hi = vol.hi.astype(np.float64)
    # only pixels inside the projection of the volume can see a cell
    corners = np.array([[a, b, c] for a in (lo[0], hi[0]) for b in (lo[1], hi[1]) for c in (lo[2], hi[2])]) * s
    stride = cfg.pixel_stride
    if np.all(cam.depth(corners) > 0):
        pc = cam.project(corners)
        x0, y0 = np.maximum(np.floor(pc.min(axis=0)).astype(int), 0)
        if ALIGN_SAMPLES:  # the grid below then falls on stride // 2 + k * stride: the classified pixels
            x0, y0 = x0 - x0 % stride, y0 - y0 % stride
        x1, y1 = np.minimum(np.ceil(pc.max(axis=0)).astype(int) + 1, [w, h])
    else:
        x0, y0, x1, y1 = 0, 0, w, h
    ys, xs = np.mgrid[y0 + stride // 2:y1:stride, x0 + stride // 2:x1:stride]
    grid_lab = view.labels[ys, xs]
    # every sampled pixel near a piece colour (blocks, banners, their surroundings); farther out,
    # where only the mat shows, every ``far_step``-th in each direction is enough free-space evidence
    coloured = ((grid_lab >= int(Label.BLUE)) & (grid_lab <= int(Label.GREEN))).astype(np.uint8)
    near = cv2.dilate(coloured, np.ones((2 * cfg.near_cells + 1, 2 * cfg.near_cells + 1), np.uint8)) > 0
    gy, gx = np.mgrid[0:grid_lab.shape[0], 0:grid_lab.shape[1]]
    sampled = near | ((gy % cfg.far_step == 0) & (gx % cfg.far_step == 0))
    pix = np.stack([xs[sampled], ys[sampled]], axis=1)
    lab = grid_lab[sampled].astype(np.int64)
    rim = None
    if cfg.rim_samples > 0:
        rim_grid = rim_samples(grid_lab, cfg.rim_samples, cfg.rim_next_to)
        if cfg.rim_every_other:
            rim_grid &= (gy + gx) % 2 == 0
        rim = rim_grid[sampled]
    return _trace_pixels(view, vol, pix, lab, rim)


def rim_samples(grid_lab: npt.NDArray[np.integer], radius: int, next_to: str = "free") -> npt.NDArray[np.bool_]:
    """Marks the samples of a label grid (one label per sampled pixel) that show a piece colour and have,
    within ``radius`` 4-connected steps, a sample of another label: ``next_to`` "free" counts the mat / table
    and the Central Cube's black only, "any" every other label but UNKNOWN (a one-sample erosion of the
    colour labels for ``radius`` 1); "both" marks, besides "any", the free samples within ``radius`` of a
    piece colour (both sides of every colour boundary).  A picture's colour label bleeds over a face's rim by a
    pixel or two (or the pose is off by that much): such rays paid for extra blocks on top of true ones."""
    lab = np.asarray(grid_lab, np.int64)
    coloured = (lab >= int(Label.BLUE)) & (lab <= int(Label.GREEN))
    out = np.zeros(lab.shape, bool)
    if radius <= 0 or not coloured.any():
        return out
    kernel = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))
    if next_to == "free":
        free = ((lab == int(Label.BACKGROUND)) | (lab == int(Label.CUBE))).astype(np.uint8)
        near = cv2.dilate(free, kernel, iterations=radius) > 0
        return coloured & near  # type: ignore[no-any-return]
    for v in range(int(Label.BLUE), int(Label.GREEN) + 1):
        this = lab == v
        if not this.any():
            continue
        other = (~this & (lab != int(Label.UNKNOWN))).astype(np.uint8)
        out |= this & (cv2.dilate(other, kernel, iterations=radius) > 0)
    if next_to == "both":
        free = (lab == int(Label.BACKGROUND)) | (lab == int(Label.CUBE))
        out |= free & (cv2.dilate(coloured.astype(np.uint8), kernel, iterations=radius) > 0)
    return out


def _trace_pixels(view: ViewEvidence, vol: _Volume, pix: I64, lab: I64,
                  rim: npt.NDArray[np.bool_] | None = None,
                  box: tuple[Cell, Cell] | None = None) -> tuple[_Rays, _Rays]:
    """:func:`_trace_both` for given pixels ``pix`` (N, 2: x, y) of ``view`` and their labels ``lab``: the
    rays of the labelled pixels that reach the volume (a piece colour beyond the mat or on a printed colour
    patch is no evidence: read as unknown), and the piece-coloured rays beyond the mat (banners); ``rim``
    (optional, per pixel) marks the colour rays at a face's rim (:func:`rim_samples`), kept on the rays.
    ``box`` (lowest cell, highest cell; optional): the rays' cells are listed only inside this box of cells (the
    same rays, each with the cells of its own row that lie in the box, in order; a ray that misses the box lists
    none) -- for a scorer that only ever prices blocks inside the box (:func:`_clip_to_box`)."""
    cam = view.camera
    s = cam.block_mm
    lo = vol.lo.astype(np.float64)
    hi = vol.hi.astype(np.float64)
    keep = lab != int(Label.UNKNOWN)
    pix, lab = pix[keep], lab[keep]
    rim = None if rim is None else rim[keep]
    weak = None if view.weak is None else view.weak[pix[:, 1], pix[:, 0]]
    sat = None if view.saturation is None else view.saturation[pix[:, 1], pix[:, 0]]
    d = cam.rays(pix.astype(np.float64))
    c = cam.center / s  # in block units
    with np.errstate(divide="ignore", invalid="ignore"):
        t1 = (lo - c) / d
        t2 = (hi - c) / d
        # fmax/fmin skip NaN, as nanmax/nanmin (written out over the 3 axes: a selection, so the
        # same values as the row reductions, without their per-row overhead)
        lo_t, hi_t = np.minimum(t1, t2), np.maximum(t1, t2)
        tmin = np.fmax(np.fmax(lo_t[:, 0], lo_t[:, 1]), lo_t[:, 2])
        tmax = np.fmin(np.fmin(hi_t[:, 0], hi_t[:, 1]), hi_t[:, 2])
        t_table = np.where(d[:, 2] < 0, -c[2] / d[:, 2], np.inf)  # the table (z = 0) stops the ray
    tmin = np.maximum(tmin, 0.0)
    tmax = np.minimum(tmax, t_table)
    if view.mat_rect_mm is not None:
        x0m, y0m, x1m, y1m = (v / s for v in view.mat_rect_mm)
        with np.errstate(invalid="ignore"):
            tx = c[0] + t_table * d[:, 0]
            ty = c[1] + t_table * d[:, 1]
        off_mat = ~((tx >= x0m) & (tx <= x1m) & (ty >= y0m) & (ty <= y1m))
        for px0, py0, px1, py1 in view.colour_patches_mm:
            m = 3.0 / s  # a little margin: print registration and the pose's error
            with np.errstate(invalid="ignore"):
                off_mat |= (tx >= px0 / s - m) & (tx <= px1 / s + m) & (ty >= py0 / s - m) & (ty <= py1 / s + m)
        coloured = (lab >= int(Label.BLUE)) & (lab <= int(Label.GREEN))
        beyond = coloured & (tmax > tmin) & ~((tx >= x0m) & (tx <= x1m) & (ty >= y0m) & (ty <= y1m))
        # a colour shown on very many rays beyond the mat is the table's (or a cloth's): not traced (of
        # these rays at most a few blocks explain some, so the banner test would leave the colour out)
        per_colour = np.bincount(lab[beyond], minlength=N_LABELS)
        beyond &= per_colour[lab] <= FAR_TRACE_MAX_RAYS
        far = _Rays(_traverse(c, d[beyond], tmin[beyond], tmax[beyond], vol), lab[beyond], pix[beyond], c,
                    d[beyond], None if weak is None else weak[beyond], None if sat is None else sat[beyond])
        lab = np.where(off_mat & coloured, int(Label.UNKNOWN), lab)
        hit = (lab != int(Label.UNKNOWN)) & (tmax > tmin)
    else:
        hit = tmax > tmin
        far = _Rays(np.full((0, 1), -1, np.int64), lab[:0], pix[:0], c, d[:0])
    t_lo, t_hi = tmin[hit], tmax[hit]
    if box is not None:
        t_lo, t_hi = _clip_to_box(c, d[hit], t_lo, t_hi, box)
    return (_Rays(_traverse(c, d[hit], t_lo, t_hi, vol), lab[hit], pix[hit], c, d[hit],
                  None if weak is None else weak[hit], None if sat is None else sat[hit],
                  None if rim is None else rim[hit]), far)


def _clip_to_box(c: npt.NDArray[np.float64], d: npt.NDArray[np.float64], t_lo: npt.NDArray[np.float64],
                 t_hi: npt.NDArray[np.float64], box: tuple[Cell, Cell],
                 ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Each ray's stretch (``t_lo``, ``t_hi``) cut to where it is inside the box of cells ``box`` (lowest cell,
    highest cell), as :func:`_trace_pixels` cuts it to the volume (an axis-parallel ray inside the box's slab is
    not cut by it); an empty stretch when the ray misses the box.  The box's faces are cell boundary planes and
    the cuts are those planes' crossings (the same formula as :func:`_traverse`'s), so :func:`_traverse` then gives
    each ray the segments of its whole row that lie inside the box -- the same cells, in the same order."""
    lo = np.asarray(box[0], np.float64)
    hi = np.asarray(box[1], np.float64) + 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        t1 = (lo - c) / d
        t2 = (hi - c) / d
        lo_t, hi_t = np.minimum(t1, t2), np.maximum(t1, t2)
        enter = np.fmax(np.fmax(lo_t[:, 0], lo_t[:, 1]), lo_t[:, 2])
        leave = np.fmin(np.fmin(hi_t[:, 0], hi_t[:, 1]), hi_t[:, 2])
    a = np.fmax(t_lo, enter)
    b = np.fmin(t_hi, leave)
    return a, np.maximum(b, a)  # (a stretch that is empty: no segment, no cell)


#: :func:`_traverse` works on this many rays at a time.  Every row is computed on its own (the chunk only sets
#: how many planes are divided and how wide the tables are padded), so the cells are the same for any size;
#: 4096 rays' tables stay in cache better than twice as many: ~10 % less CPU in the trace
#: (docs/vision.md, "Session 18: reconstruct time")
TRACE_CHUNK = 4096


def _traverse(c: npt.NDArray[np.float64], d: npt.NDArray[np.float64], tmin: npt.NDArray[np.float64],
              tmax: npt.NDArray[np.float64], vol: _Volume) -> I64:
    """The ordered cells (linear indices, -1 = none) each ray from ``c`` along ``d`` crosses between
    ``tmin`` and ``tmax`` (block units): a table as wide as the longest row needs, at least 1."""
    if len(d) == 0:
        return np.full((0, 1), -1, np.int64)
    lo = vol.lo.astype(np.float64)
    hi = vol.hi.astype(np.float64)
    # Exact traversal: every crossing of a cell boundary plane, sorted; the midpoint of each
    # segment between consecutive crossings lies inside exactly one cell.
    chunks: list[I64] = []
    width = 1
    planes = [np.arange(int(lo[a]), int(hi[a]) + 1, dtype=np.float64) for a in range(3)]
    sz_ = float(vol.shape[2])
    sy_sz = float(vol.shape[1] * vol.shape[2])
    for a0 in range(0, len(d), TRACE_CHUNK):
        b0 = min(len(d), a0 + TRACE_CHUNK)
        dd = d[a0:b0]
        t_lo, t_hi = tmin[a0:b0, None], tmax[a0:b0, None]
        # per axis, only the planes between where the ray enters and leaves (one plane of margin
        # each side for rounding) can be crossed: a window of consecutive planes per ray, the same
        # crossing values (same formula) and the same test as over every plane
        parts: list[npt.NDArray[np.float64]] = []
        for a in range(3):
            da = dd[:, a:a + 1]
            pa = c[a] + t_lo * da
            pb = c[a] + t_hi * da
            first = np.clip(np.floor(np.minimum(pa, pb)) - 1.0, lo[a], hi[a])
            last = np.clip(np.ceil(np.maximum(pa, pb)) + 1.0, lo[a], hi[a])
            wa = min(len(planes[a]), int((last - first).max()) + 1)
            pln = first + np.arange(wa, dtype=np.float64)[None, :]
            beyond = pln > hi[a]  # planes past the volume's last one do not exist
            pln -= c[a]
            with np.errstate(divide="ignore", invalid="ignore"):
                pln /= da
            if beyond.any():
                pln[beyond] = np.inf
            parts.append(pln)
        T = np.empty((b0 - a0, 2 + sum(p.shape[1] for p in parts)))
        T[:, :1] = t_lo
        T[:, -1:] = t_hi
        col = 1
        for part in parts:
            T[:, col:col + part.shape[1]] = part
            col += part.shape[1]
        # a crossing outside (t_lo, t_hi) is unused (inf); t_lo and t_hi are finite, so the strict
        # comparisons also reject the infinite and NaN crossings (of axis-parallel rays)
        cross = T[:, 1:-1]
        with np.errstate(invalid="ignore"):
            used_ = np.greater(cross, t_lo)
            used_ &= np.less(cross, t_hi)
        np.logical_not(used_, out=used_)
        np.copyto(cross, np.inf, where=used_)
        T.sort(axis=1)
        # the unused (infinite) crossings sort last: drop the columns no row uses
        # (the most finite crossings of a row: one past the last column where some row has one)
        fin_cols = np.flatnonzero(np.isfinite(T).any(axis=0))
        T = T[:, :max(2, int(fin_cols[-1]) + 1 if len(fin_cols) else 0)]
        t0s, t1s = T[:, :-1], T[:, 1:]
        with np.errstate(invalid="ignore"):
            ok = np.isfinite(t1s) & (t1s - t0s > 1e-9)
            mids = 0.5 * (t0s + t1s)
        # the cell of each segment's midpoint, one axis at a time (2-D arrays, float arithmetic:
        # cell coordinates are small integers, exact in float64)
        flat = np.zeros(mids.shape)
        fa = np.empty(mids.shape)
        for a, mult in ((0, sy_sz), (1, sz_), (2, 1)):
            with np.errstate(invalid="ignore"):
                np.multiply(mids, dd[:, a:a + 1], out=fa)
                fa += c[a]
                np.floor(fa, out=fa)
                ok &= fa >= lo[a]
                ok &= fa < hi[a]
                fa -= lo[a]
                if mult != 1:
                    fa *= mult
                flat += fa
        idx = np.where(ok, flat, -1.0).astype(np.int64)
        # the crossings are sorted, so the unused (infinite) ones are at the end of each row; a
        # zero-length segment (a ray through an edge) leaves a -1 gap, which every reader skips
        # the columns up to the last one where some row has a cell (the most any row needs)
        valid_cols = np.flatnonzero((idx >= 0).any(axis=0))
        used = max(1, int(valid_cols[-1]) + 1 if len(valid_cols) else 0)
        chunks.append(idx[:, :used])
        width = max(width, used)
    out = np.full((len(d), width), -1, np.int64)
    row = 0
    for ch in chunks:
        out[row:row + len(ch), :ch.shape[1]] = ch
        row += len(ch)
    return out


def trace_pixels(views: Sequence[ViewEvidence], pixels: Sequence[I64], labels: Sequence[I64],
                 cfg: ReconstructConfig | None = None, box: tuple[Cell, Cell] | None = None,
                 kept: Collection[Cell] = ()) -> RayScorer:
    """A scorer of given pixels' rays only (per view, ``pixels`` (N, 2: x, y) and their ``labels``), traced as
    :func:`reconstruct` traces its sampled ones (``vision.fine_rays``: finer rays where a few cells project).
    ``box``: each ray lists only its cells inside this box (:func:`_trace_pixels`); ``kept``: cells full in every
    set of blocks the scorer will be asked about (with the Central Cube), after the first of which a ray lists
    nothing (:func:`_cut_after`).  With either, the scorer must be asked about such sets only."""
    cfg = cfg or ReconstructConfig()
    vol = _Volume(cfg)
    rays = [_trace_pixels(v, vol, np.asarray(p, np.int64).reshape(-1, 2), np.asarray(lab, np.int64), box=box)[0]
            for v, p, lab in zip(views, pixels, labels, strict=True)]
    if kept:
        for r in rays:
            r.idx = _cut_after(r.idx, vol, [*kept, *CENTRAL_CUBE])
    return RayScorer(_RayModel(rays, vol.n), vol)


def _cut_after(idx: I64, vol: _Volume, full: Collection[Cell]) -> I64:
    """The ray table ``idx`` with each row ending at its first cell of ``full`` (kept; -1 after it), as narrow as
    the longest row then: where every set of blocks asked about fills ``full``, a ray's first full cell is that
    one or one before it, so every prediction, and every cell ahead of a first full cell, is the same."""
    mark = np.zeros(vol.n + 1, bool)  # (-1, "no cell", reads the last slot: never full)
    at = [i for i in (vol.index1(c) for c in full) if i >= 0]
    mark[at] = True
    hit = mark[idx]
    has = hit.any(axis=1)
    width = idx.shape[1]
    end = np.where(has, np.argmax(hit, axis=1) + 1, width)
    out = np.where(np.arange(width)[None, :] < end[:, None], idx, -1)
    cols = np.flatnonzero((out >= 0).any(axis=0))
    return out[:, :max(1, int(cols[-1]) + 1 if len(cols) else 1)]  # type: ignore[no-any-return]


def reconstruct(
    views: Sequence[ViewEvidence],
    cfg: ReconstructConfig | None = None,
    flag_geometry: FlagGeometry = FLAG,
) -> Reconstruction:
    """Fit blocks and flags to the views (see the module docstring)."""
    cfg = cfg or ReconstructConfig()
    t0 = time.perf_counter()
    vol = _Volume(cfg)
    both = [_trace_both(v, vol, cfg) for v in views]
    rays = [r for r, _ in both]
    # banners seen against the table beyond the mat (flags only; :func:`_trace_both`)
    far = _RayModel([f for _, f in both], vol.n) if BANNER_RAYS_BEYOND_MAT else None
    t_trace = time.perf_counter()
    cube_idx = vol.index(np.array(sorted(CENTRAL_CUBE), np.int64))
    fixed = np.zeros(vol.n, bool)
    fixed[cube_idx[cube_idx >= 0]] = True
    seen_any = np.zeros(vol.n, bool)
    for r in rays:
        v = r.idx[r.idx >= 0]
        seen_any[v] = True
    # cells no ray crosses are outside every view: not part of the hypothesis; ``occ_ext`` has an
    # always-empty cell appended, which "no cell" (-1) reads
    occ_ext = np.zeros(vol.n + 1, bool)
    occ_ext[:vol.n] = seen_any
    occ = occ_ext[:vol.n]
    occ[fixed] = True
    free_mask = np.zeros(N_LABELS, bool)
    free_mask[[int(Label.BACKGROUND), int(Label.CUBE)]] = True

    def first_hits(sub: I64) -> I64:
        if sub.shape[0] == 0:
            return np.zeros(0, np.int64)
        first = np.argmax(occ_ext[sub], axis=1)
        got = sub[np.arange(len(first)), first]
        return np.where(occ_ext[got], got, -1)  # type: ignore[no-any-return]

    iterations = 0
    counts_per_view: list[I64] = []
    color_lab_arr = np.array([int(COLOR_LABELS[c]) for c in cfg.colors], np.int64)
    # each ray's first full cell; carving only empties cells, so after each pass only the rays
    # whose first full cell was carved look further
    hits = [first_hits(r.idx) for r in rays]
    # per view, the first-hit rays of each cell per label; after a pass only the rays that looked
    # further move from one cell's counts to another's (the same integer counts as counting anew)
    n_keys = vol.n * N_LABELS
    judged = [r.labels < N_LABELS for r in rays]
    for r, fh, lab_ok in zip(rays, hits, judged, strict=True):
        ok = (fh >= 0) & lab_ok
        counts_per_view.append(np.bincount(fh[ok] * N_LABELS + r.labels[ok], minlength=n_keys).reshape(vol.n, N_LABELS))
    carve = np.zeros(vol.n, bool)
    for iterations in range(1, cfg.max_iterations + 1):
        if iterations > 1:
            for r, fh, lab_ok, cnt in zip(rays, hits, judged, counts_per_view, strict=True):
                redo = np.flatnonzero(carve[fh] & (fh >= 0))
                if len(redo):
                    was = fh[redo]
                    now = first_hits(r.idx[redo])
                    fh[redo] = now
                    redo_lab, keep = r.labels[redo], lab_ok[redo]
                    flat = cnt.reshape(-1)  # a view of ``cnt``
                    flat -= np.bincount(was[keep] * N_LABELS + redo_lab[keep], minlength=n_keys)
                    keep &= now >= 0
                    flat += np.bincount(now[keep] * N_LABELS + redo_lab[keep], minlength=n_keys)
        carve = np.zeros(vol.n, bool)
        for cnt in counts_per_view:
            total = cnt.sum(axis=1)
            free = cnt[:, free_mask].sum(axis=1)
            carve |= (total >= cfg.min_pixels) & (free >= cfg.carve_fraction * np.maximum(total, 1))
        # photo-consistency (generalized voxel colouring): a real block shows one colour in every
        # view where it is the first hit; an empty cell in front of different blocks does not
        agg = np.sum(counts_per_view, axis=0)
        col = agg[:, color_lab_arr]
        n_col = col.sum(axis=1)
        major = col.max(axis=1)
        carve |= (n_col >= 2 * cfg.min_pixels) & (major < cfg.consistency * n_col)
        carve &= occ & ~fixed
        if not carve.any():
            break
        occ[carve] = False
    t_carve = time.perf_counter()

    total_counts = np.sum(counts_per_view, axis=0) if counts_per_view else np.zeros((vol.n, N_LABELS), np.int64)
    color_labels = [int(COLOR_LABELS[c]) for c in cfg.colors]
    # initial hypothesis: carved hull, each cell coloured by the majority of its first-hit pixels
    hyp = np.zeros(vol.n, np.int64)
    hyp[fixed] = int(Label.CUBE)
    hull = np.flatnonzero(occ & ~fixed)
    col_counts = total_counts[hull][:, color_labels]
    coloured_hull = col_counts.max(axis=1) > 0
    hyp[hull[coloured_hull]] = np.array(color_labels, np.int64)[np.argmax(col_counts[coloured_hull], axis=1)]
    model = _RayModel(rays, vol.n)
    t_model = time.perf_counter()
    # candidates: the carved hull plus every seen cell next to it or to the Central Cube, so that
    # the search can put back a cell that carving removed by mistake
    # (each cell's neighbours in the order NOT_DOWN, then down; -1 outside the volume)
    steps = np.array([*NOT_DOWN, (0, 0, -1)], np.int64)
    starts = np.concatenate([hull, np.flatnonzero(fixed)])
    nb = vol.index(vol.cells(starts)[:, None, :] + steps[None, :, :]).ravel()
    nb = nb[nb >= 0]
    hull = np.union1d(hull, nb[seen_any[nb] & ~fixed[nb]]).astype(np.int64)
    sweeps = 0
    fresh: I64 | None = None  # the candidates new in this round (None: all)
    for _grow in range(cfg.max_grow):
        nb_rows = vol.index(vol.cells(hull)[:, None, :] + steps[None, :, :]).tolist()
        neighbours: dict[int, list[int]] = {int(i): [j for j in row if j >= 0]
                                            for i, row in zip(hull.tolist(), nb_rows, strict=True)}
        hyp, n_sweeps, act, act_pred = _refine(model, hyp, hull, [0, *color_labels], neighbours,
                                               block_penalty=cfg.block_penalty, first=fresh)
        sweeps += n_sweeps
        # carving may have emptied a whole part of a pile, beyond the search's reach (the cells next to
        # the carved hull): any other cell where a block would explain more rays than it breaks
        # becomes a candidate too, with its neighbours, and the search runs again
        outside = seen_any & ~fixed  # the search priced every candidate already: only the others
        outside[hull] = False
        better = _improving_cells(model, hyp, act, act_pred, color_lab_arr, outside, cfg.min_pixels)
        if not len(better):
            break
        nb = vol.index(vol.cells(better)[:, None, :] + steps[None, :, :]).ravel()
        nb = nb[nb >= 0]
        grown = np.union1d(np.union1d(hull, better), nb[seen_any[nb] & ~fixed[nb]]).astype(np.int64)
        # the old candidates next to a new one may now move a block onto it: priced again too
        nb2 = vol.index(vol.cells(np.setdiff1d(grown, hull))[:, None, :] + steps[None, :, :]).ravel()
        fresh = np.union1d(np.setdiff1d(grown, hull), np.intersect1d(nb2[nb2 >= 0], grown)).astype(np.int64)
        hull = grown
    # at most 22 blocks of a colour (rulebook "Components"): more means some of that colour's
    # evidence is something else (a cool shadow read as blue): the blocks that explain least go
    # first, then the search runs again, never taking a colour over the limit
    over = [lab for lab in color_labels if int(np.count_nonzero(hyp == lab)) > cfg.max_per_colour]
    if over:
        for lab in over:
            _prune_colour(model, hyp, lab, cfg.max_per_colour, [0, *color_labels])
        hyp, n_sweeps, act, act_pred = _refine(model, hyp, hull, [0, *color_labels], neighbours,
                                               block_penalty=cfg.block_penalty, cap=cfg.max_per_colour)
        sweeps += n_sweeps
    t_refine = time.perf_counter()
    n_views = len(views)

    def read_out(act: _ActiveRays, act_pred: npt.NDArray[np.int8], cells: I64,
                 ) -> tuple[I64, dict[Cell, str], dict[Cell, float], list[Cell], dict[Cell, list[int]]]:
        """The search's hypothesis read out on ``cells``: every ray's prediction, the blocks, their
        confidence, the cells no picture shows, and each cell's first-hit rays per view."""
        # every full cell is one of the search's active cells: a ray through none of them shows the mat
        pred = np.full(len(model.obs), int(Label.BACKGROUND), np.int64)
        pred[act.model_rows] = act_pred
        blocks: dict[Cell, str] = {}
        confidence: dict[Cell, float] = {}
        unobserved: list[Cell] = []
        first_hit_pixels: dict[Cell, list[int]] = {}
        # which rays each cell is the first hit of, in the final hypothesis
        # (on the search's compact table: the rays through no active cell meet no block)
        vals = act.hyp[act.idx]
        first = np.argmax(vals != 0, axis=1)
        has_c = vals[np.arange(len(first)), first] != 0
        first_cell = np.full(len(model.obs), -1, np.int64)
        first_cell[act.model_rows] = np.where(has_c, act.cells_ext[act.idx[np.arange(len(first)), first]], -1)
        has_first = first_cell >= 0
        # first-hit rays per cell and view, and "reach": the rays on which an empty cell comes before
        # the first hit (a block there would be the first thing they meet), all in one pass
        per_view = np.bincount(first_cell[has_first] * n_views + model.view[has_first],
                               minlength=vol.n * n_views).reshape(vol.n, n_views)
        agree_n = np.bincount(first_cell[has_first & (model.obs == hyp[np.maximum(first_cell, 0)])],
                              minlength=vol.n)
        # (counted right for the active cells, the only ones it is read for)
        first_pos = np.where(has_c, first, act.idx.shape[1])
        before = (act.idx != len(act.cells)) & (np.arange(act.idx.shape[1])[None, :] < first_pos[:, None])
        reach_n = np.bincount(act.cells[act.idx[before]], minlength=vol.n)
        for i in cells:
            cell = vol.cell(int(i))
            n_first = int(per_view[i].sum())
            first_hit_pixels[cell] = [int(v) for v in per_view[i]]
            if hyp[i] == 0:
                # would a block here be the first thing some rays meet?  If not, no picture can tell
                # whether it is here (a same-coloured block behind it does not make it unseen)
                if int(reach_n[i]) < cfg.min_pixels:
                    unobserved.append(cell)
                continue
            if n_first < cfg.min_pixels:
                unobserved.append(cell)
                continue
            blocks[cell] = LABEL_COLORS[int(hyp[i])]
            confidence[cell] = int(agree_n[i]) / n_first
        return pred, blocks, confidence, unobserved, first_hit_pixels

    pred, blocks, confidence, unobserved, first_hit_pixels = read_out(act, act_pred, hull)
    # every block is connected to the Central Cube (rulebook "The Battlefield"), possibly through
    # cells no picture sees: colour where no connected block can be (a reflection in the Central
    # Cube's glossy faces, clutter, a printed patch) is ignored, and reported
    ignored = _floating(blocks, set(unobserved))
    added: dict[Cell, str] = {}
    connectors: list[Cell] = []
    if ignored:
        # a group the pictures show strongly is kept when a path of cells that the pictures do not
        # contradict much connects it (the block between it and the pile was misread, e.g. shadowed):
        # the cheapest such path's blocks are added, each in the colour that costs least there
        added, connectors = _reconnect(model, hyp, vol, blocks, set(unobserved), ignored, color_lab_arr,
                                       seen_any & ~fixed, cfg, pred, _stops(model, act))
        for cell, col in added.items():
            blocks[cell] = col
            hyp[vol.index1(cell)] = int(COLOR_LABELS[col])
            confidence[cell] = 0.0
        unobserved.extend(c for c in connectors if c not in unobserved)
        ignored = _floating(blocks, set(unobserved))
        if added:
            pred = model.predict(hyp)
    for cell in ignored:
        del blocks[cell]
        confidence.pop(cell, None)
        hyp[vol.index1(cell)] = 0
    if ignored:
        pred = model.predict(hyp)
    if ignored and REFINE_AFTER_FLOATING:
        # the colour ignored stood in front of cells the search then could not see (a block read in the
        # air in front of one camera, where no other picture carves it): the search runs again without it,
        # those cells kept empty and the connectors kept as they are
        banned = np.array([vol.index1(c) for c in [*ignored, *added]], np.int64)
        again = np.setdiff1d(hull, banned)
        rays_behind = np.concatenate([model.rays_of[int(i)] for i in banned])
        behind = np.unique(model.idx[rays_behind])
        before_hyp = hyp.copy()
        hyp, n_sweeps, act, act_pred = _refine(model, hyp, again, [0, *color_labels], neighbours,
                                               block_penalty=cfg.block_penalty, cap=cfg.max_per_colour,
                                               first=np.intersect1d(behind[behind >= 0], again))
        sweeps += n_sweeps
        if not np.array_equal(before_hyp, hyp):
            pred, blocks, confidence, unobserved, first_hit_pixels = read_out(act, act_pred, again)
            for cell, col in added.items():
                blocks[cell] = col
                confidence[cell] = 0.0
            unobserved.extend(c for c in connectors if c not in unobserved)
            unobserved[:] = [c for c in unobserved if c not in added or c in connectors]
            more = _floating(blocks, set(unobserved))
            for cell in more:
                del blocks[cell]
                confidence.pop(cell, None)
                hyp[vol.index1(cell)] = 0
            if more:
                ignored = {**ignored, **more}
                pred = model.predict(hyp)
    t_color = time.perf_counter()
    flags, flag_scores = _fit_flags_residual(model, hyp, pred, vol, blocks, cfg, flag_geometry, far)
    t_flags = time.perf_counter()
    return Reconstruction(
        blocks=blocks, flags=flags, confidence=confidence, unobserved=sorted(unobserved), flag_scores=flag_scores,
        timings={"trace_s": t_trace - t0, "carve_s": t_carve - t_trace, "model_s": t_model - t_carve,
                 "refine_s": t_refine - t_model, "colour_s": t_color - t_refine, "flags_s": t_flags - t_color},
        iterations=iterations + sweeps, first_hit_pixels=first_hit_pixels, ignored=ignored,
        scorer=RayScorer(model, vol, flag_geometry, cfg.flag_min_rays, seed=(hyp.copy(), pred.copy()), far=far),
    )


class RayScorer:
    """The reconstruct stage's measure of fit, for any set of blocks: how many sampled pixel rays
    (all views) show something else than these blocks predict.  Used to choose, among the legal
    continuations of a previous state, the one the pictures show (``score-images --previous``).

    :meth:`set_base` fixes a set of blocks; :meth:`delta` then prices adding a few blocks to it
    by re-predicting only the rays through them."""

    def __init__(self, model: _RayModel, vol: _Volume, geom: FlagGeometry = FLAG, flag_min_rays: int = 4,
                 seed: tuple[I64, I64] | None = None, far: _RayModel | None = None) -> None:
        """``seed``: a hypothesis and its predictions (``model.predict``), from which the predictions
        of nearby sets of blocks are worked out on the rays through the cells that differ only.
        ``far``: the piece-coloured rays that reach the table beyond the mat (:func:`_trace_both`),
        used for banners only."""
        self._model = model
        self._far = far
        self._seed = seed
        self._vol = vol
        self._geom = geom
        self._flag_min_rays = flag_min_rays
        self._hyp = np.zeros(vol.n, np.int64)
        self._pred = np.full(len(model.obs), int(Label.BACKGROUND), np.int64)  # no block: every ray shows the mat
        self._fcol = np.full(len(model.obs), model.idx.shape[1], np.int32)  # each ray's first full column
        self._mark = np.zeros(len(model.obs), bool)
        self._col = np.zeros(len(model.obs), np.int64)  # scratch: a column per ray (``deltas``)
        self._miss = (self._pred != model.obs) & (model.weight > 0)
        self._miss_fresh = False  # ``_miss`` and ``base_cost`` are those of ``_pred`` (set_base has counted them)
        self._miss_if: dict[int, npt.NDArray[np.bool_]] = {}  # label -> rays a block showing it fails to explain
        # cell -> the rays on which it comes before the base's first full cell (``delta``; per base)
        self._ahead: dict[int, I64] = {}
        self.base_cost = 0
        self._banner: tuple[dict[Cell, str], _BannerRays] | None = None  # blocks of the last flag_scores
        # the last :meth:`_first_of` answer (hypothesis, predictions, first full columns), shared with the scorers
        # made from this one (same rays: only the weights differ, which predictions do not read)
        self._firsts: list[tuple[I64, I64, npt.NDArray[np.int32]]] = []
        # :meth:`colour_on_ground`'s tables of the mat places the free rays reach, for the last hypothesis
        self._ground: tuple[I64, float, dict[Any, Any]] | None = None

    def without_weak(self) -> RayScorer:
        """The same pictures with the rays of weakly coloured pixels (``ViewEvidence.weak``) left out of
        every count (weight 0, as a flag pole's); ``self`` when there are none."""
        m, far = self._model, self._far
        if not m.weak.any() and (far is None or not far.weak.any()):
            return self
        model = copy.copy(m)
        model.weight = np.where(m.weak, 0, m.weight).astype(np.int64)
        model.rim = m.rim & ~m.weak
        if not WEAK_FREE_KEEPS_FAR:
            far = None
        elif far is not None and far.weak.any():
            far = copy.copy(far)
            far.weight = np.where(far.weak, 0, far.weight).astype(np.int64)
            far.rim = far.rim & ~far.weak
        return self._derived(RayScorer(model, self._vol, self._geom, self._flag_min_rays, self._seed, far=far))

    def without_pale(self, below: Mapping[str, float]) -> RayScorer:
        """The same pictures with the rays of each colour in ``below`` whose pixel saturation
        (``ViewEvidence.saturation``) is under its value left out of every count (weight 0); banners keep
        theirs (``far``).  ``self`` when no ray is left out."""
        m = self._model
        pale = np.zeros(len(m.obs), bool)
        with np.errstate(invalid="ignore"):
            for colour, limit in below.items():
                pale |= (m.obs == int(COLOR_LABELS[colour])) & (m.sat < limit)
        if not pale.any():
            return self
        model = copy.copy(m)
        model.weight = np.where(pale, 0, m.weight).astype(np.int64)
        model.rim = m.rim & ~pale
        return self._derived(RayScorer(model, self._vol, self._geom, self._flag_min_rays, self._seed, far=self._far))

    def _derived(self, other: RayScorer) -> RayScorer:
        """``other`` (the same rays, other weights) sharing this scorer's :meth:`_first_of` memo."""
        other._firsts = self._firsts
        return other

    def _first_of(self, hyp: I64) -> tuple[I64, npt.NDArray[np.int32]]:
        """``model.predict_first(hyp)`` for every ray (the same arrays; read-only): worked out again only on the
        rays through the cells where ``hyp`` differs from the last such answer or from the base (:meth:`set_base`),
        the nearer of the two -- a ray's answer depends on the cells along it alone."""
        m = self._model
        refs = [*self._firsts, (self._hyp, self._pred, self._fcol)]
        if self._firsts and np.array_equal(self._firsts[0][0], hyp):
            return self._firsts[0][1], self._firsts[0][2]
        best: tuple[int, int, I64] | None = None
        for k, (ref_hyp, _, _) in enumerate(refs):
            changed = np.flatnonzero(hyp != ref_hyp)
            n = int(m.n_rays_of[changed].sum())
            if best is None or n < best[0]:
                best = (n, k, changed)
        assert best is not None
        n_changed, k, changed = best
        if n_changed * 2 > len(m.obs):
            pred, fcol = m.predict_first(hyp)
        else:
            pred, fcol = refs[k][1].copy(), refs[k][2].copy()
            if len(changed):
                self._mark[np.concatenate([m.rays_of[i] for i in changed.tolist()])] = True
                rows = np.flatnonzero(self._mark)  # each once
                self._mark[rows] = False
                pred[rows], fcol[rows] = m.predict_first(hyp, rows)
        keep = hyp.copy()
        for a in (keep, pred, fcol):
            a.flags.writeable = False
        self._firsts[:] = [(keep, pred, fcol)]
        return pred, fcol

    def rays(self) -> tuple[I64, I64, I64]:
        """Every sampled ray's view (index), pixel (x, y) and observed label (``vision.labels.Label``)."""
        m = self._model
        return m.view, m.pixels, m.obs

    def predictions(self, blocks: Mapping[Cell, str]) -> I64:
        """The label each sampled ray (in the order of :meth:`rays`) shows if exactly ``blocks`` stood there."""
        return self._predict(self._hyp_of(blocks))

    def counted(self) -> npt.NDArray[np.bool_]:
        """The rays counted in :meth:`cost` (a flag pole's, a weak or left-out ray are not)."""
        return self._model.weight > 0  # type: ignore[no-any-return]

    def without_rays(self, rays: npt.NDArray[np.bool_]) -> RayScorer:
        """The same pictures with the sampled rays ``rays`` marks left out of every count (weight 0, as
        :meth:`without_weak`); the banner rays beyond the mat are kept as they are."""
        model = copy.copy(self._model)
        model.weight = np.where(rays, 0, self._model.weight).astype(np.int64)
        model.rim = self._model.rim & ~rays
        return self._derived(RayScorer(model, self._vol, self._geom, self._flag_min_rays, self._seed, far=self._far))

    def _index(self, cell: Cell) -> int:
        return self._vol.index1(cell)

    def cell_index(self, cell: Cell) -> int:
        """``cell``'s index in the volume (as :meth:`sharing_rays` indexes it); -1 outside."""
        return self._vol.index1(cell)

    def in_volume(self, cell: Cell) -> bool:
        """Is ``cell`` inside the reconstruction volume (where rays are traced)?"""
        return self._vol.index1(cell) >= 0

    def _hyp_of(self, blocks: Mapping[Cell, str]) -> I64:
        hyp = np.zeros(self._vol.n, np.int64)
        for c in CENTRAL_CUBE:
            i = self._index(c)
            if i >= 0:
                hyp[i] = int(Label.CUBE)
        for c, col in blocks.items():
            i = self._index(c)
            if i >= 0 and col in COLOR_LABELS:
                hyp[i] = int(COLOR_LABELS[col])
        return hyp

    def _predict(self, hyp: I64) -> I64:
        """``model.predict(hyp)``: from the seed's predictions when few cells differ (a ray's prediction
        depends on the cells along it alone)."""
        m = self._model
        if self._seed is None:
            return m.predict(hyp)
        seed_hyp, seed_pred = self._seed
        changed = np.flatnonzero(hyp != seed_hyp)
        n_changed = int(m.n_rays_of[changed].sum())
        # the last base (``set_base``: its predictions are ``model.predict`` of its blocks too) may be
        # nearer: the history search's last states and the blocks priced after it
        near_base = np.flatnonzero(hyp != self._hyp)
        n_near_base = int(m.n_rays_of[near_base].sum())
        if n_near_base < n_changed:
            seed_pred, changed, n_changed = self._pred, near_base, n_near_base
        if n_changed * 2 > len(m.obs):
            return m.predict(hyp)
        pred = seed_pred.copy()
        if len(changed):
            self._mark[np.concatenate([m.rays_of[i] for i in changed.tolist()])] = True
            rows = np.flatnonzero(self._mark)  # each once
            self._mark[rows] = False
            pred[rows] = m.predict(hyp, rows)
        return pred

    def cost(self, blocks: Mapping[Cell, str]) -> int:
        """Mismatching rays (weighted) if exactly ``blocks`` stood on the battlefield."""
        m = self._model
        return int(((self._predict(self._hyp_of(blocks)) != m.obs) * m.weight).sum())

    def set_base(self, blocks: Mapping[Cell, str]) -> int:
        hyp = self._hyp_of(blocks)
        m = self._model
        # a ray's prediction depends on the cells along it alone: only the rays through a cell that
        # differs from the last base are predicted again (all of them when that is most rays anyway)
        changed = np.flatnonzero(hyp != self._hyp)
        if int(m.n_rays_of[changed].sum()) * 2 > len(m.obs):
            pred, fcol = self._first_of(hyp)  # (from the last such answer, when nearer)
            self._pred, self._fcol = pred.copy(), fcol.copy()
        elif len(changed):
            self._mark[np.concatenate([m.rays_of[i] for i in changed.tolist()])] = True
            rows = np.flatnonzero(self._mark)  # each once
            self._mark[rows] = False
            self._pred[rows], self._fcol[rows] = m.predict_first(hyp, rows)
            self._hyp = hyp
            self._ahead.clear()
            # only these rays' terms changed (session 18: the same integers as counting every ray again)
            was = int(((self._miss[rows]) * m.weight[rows]).sum()) if self._miss_fresh else None
            miss = (self._pred[rows] != m.obs[rows]) & (m.weight[rows] > 0)
            if was is not None:
                self._miss[rows] = miss
                self.base_cost += int((miss * m.weight[rows]).sum()) - was
                return self.base_cost
        else:
            self._hyp = hyp
            self._ahead.clear()
            if self._miss_fresh:
                return self.base_cost
        self._hyp = hyp
        self._ahead.clear()
        # the rays the base fails to explain (the weights are 0 or 1: a count of weighted rays)
        self._miss = (self._pred != m.obs) & (m.weight > 0)
        self.base_cost = int(((self._pred != m.obs) * m.weight).sum())
        self._miss_fresh = True
        return self.base_cost

    def flag_scores(self, blocks: Mapping[Cell, str], color: str, spots: Sequence[FlagSpot]) -> list[float]:
        """Evidence for ``color``'s flag at each of ``spots`` with exactly ``blocks`` on the battlefield
        (``-inf`` where too few rays are for it)."""
        rays = self._banner_rays(blocks)
        lab = int(COLOR_LABELS[color])
        return [_banner_score(rays, self._vol, sp, lab, self._geom, self._flag_min_rays) for sp in spots]

    def _banner_rays(self, blocks: Mapping[Cell, str]) -> _BannerRays:
        """The banner scoring's view of ``blocks`` (kept: the same blocks for every colour, usually)."""
        if self._banner is None or self._banner[0] != blocks:
            hyp = self._hyp_of(blocks)
            self._banner = (dict(blocks), _BannerRays(self._model, hyp, self._predict(hyp), self._far))
        return self._banner[1]

    def banner_seen_against(self, blocks: Mapping[Cell, str], color: str, spots: Sequence[FlagSpot],
                            ) -> list[list[tuple[int, int]]]:
        """What the pictures show where a banner of ``color`` would hang, for each of ``spots`` and
        each side its banner may hang on: the sampled rays through the banner that meet it before any
        of ``blocks`` and show its colour, and those that show something else (the mat, the Central
        Cube, another colour).  Empty for a spot no ray passes."""
        m = self._model
        rays = self._banner_rays(blocks)
        lab = int(COLOR_LABELS[color])
        out: list[list[tuple[int, int]]] = []
        for spot in spots:
            ci = self._vol.index1(spot.cell)
            if ci < 0 or len(m.rays_of[ci]) == 0:
                out.append([])
                continue
            rows = m.rays_of[ci]
            rows = rows[rays.first_full(rows) > m.cols_of(ci)]  # they reach the flag's cell before any block
            obs = m.obs[rows]
            same = obs == lab
            other = (obs != lab) & m.banner_weighted()[rows]
            o = [m.origins[a][rows] for a in range(3)]
            d = [m.dirs[a][rows] for a in range(3)]
            if rays.far is not None and len(f := rays.far.model.rays_of[ci]):
                # banners seen against the table beyond the mat: every such ray shows a piece colour
                fm = rays.far.model
                f = f[rays.far.first_full(f) > fm.cols_of(ci)]
                same = np.concatenate([same, (fm.obs[f] == lab) & rays.far.shown[f]])
                other = np.concatenate([other, fm.obs[f] != lab])
                o = [np.concatenate([o[a], fm.origins[a][f]]) for a in range(3)]
                d = [np.concatenate([d[a], fm.dirs[a][f]]) for a in range(3)]
            out.append([(int((inside & same).sum()), int((inside & other).sum()))
                        for inside in _banner_sides(o, d, spot, self._geom)])
        return out

    def ends_on_cube(self, blocks: Mapping[Cell, str]) -> npt.NDArray[np.bool_]:
        """Which sampled rays end on the Central Cube with exactly ``blocks`` on the battlefield."""
        m = self._model
        hyp = self._hyp_of(blocks)
        _, first = self._first_of(hyp)
        inside = first < m.idx.shape[1]
        out = np.zeros(len(m.obs), bool)
        rows = np.flatnonzero(inside)
        out[rows] = hyp[m.idx[rows, first[rows]]] == int(Label.CUBE)
        return out

    def first_hit_saturation(self, blocks: Mapping[Cell, str]) -> dict[Cell, npt.NDArray[np.float32]]:
        """Per block of ``blocks``: the saturations (``ViewEvidence.saturation``) of the weighted rays that
        meet it first with exactly ``blocks`` on the battlefield and show its colour (none where the views
        carry no saturation)."""
        m = self._model
        hyp = self._hyp_of(blocks)
        _, first = self._first_of(hyp)
        rows = np.flatnonzero(first < m.idx.shape[1])
        cell_of = m.idx[rows, first[rows]]
        keep = (hyp[cell_of] == m.obs[rows]) & (m.weight[rows] > 0) & ~np.isnan(m.sat[rows])
        rows, cell_of = rows[keep], cell_of[keep]
        order = np.argsort(cell_of, kind="stable")
        rows, cell_of = rows[order], cell_of[order]
        out: dict[Cell, npt.NDArray[np.float32]] = {}
        for c in blocks:
            i = self._index(c)
            lo, hi = np.searchsorted(cell_of, [i, i + 1]) if i >= 0 else (0, 0)
            out[c] = m.sat[rows[lo:hi]]
        return out

    def _meeting_first(self, blocks: Mapping[Cell, str], cells: Sequence[Cell], label: int | None = None,
                       ) -> tuple[I64, I64, I64]:
        """The weighted sampled rays (showing ``label``, when given) whose first full cell with exactly
        ``blocks`` on the battlefield is one of ``cells``: their rows, that cell's index on each, and the
        hypothesis of ``blocks``."""
        m = self._model
        ids = [i for i in (self._index(c) for c in cells) if i >= 0]
        hyp = self._hyp_of(blocks)
        if not ids:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), hyp
        rows = np.unique(np.concatenate([m.rays_of[i] for i in ids]))
        keep = m.weight[rows] > 0
        if label is not None:
            keep &= m.obs[rows] == label
        rows = rows[keep]
        _, first = m.predict_first(hyp, rows)
        hit = first < m.idx.shape[1]
        rows, first = rows[hit], first[hit]
        cell_of = m.idx[rows, first]
        inside = np.isin(cell_of, ids)
        return rows[inside], cell_of[inside], hyp

    def shown_by(self, blocks: Mapping[Cell, str], cells: Sequence[Cell]) -> npt.NDArray[np.bool_]:
        """Marks the weighted sampled rays whose first full cell with exactly ``blocks`` on the battlefield is
        one of ``cells`` and which show that block's colour (for :meth:`without_rays`)."""
        m = self._model
        out = np.zeros(len(m.obs), bool)
        rows, cell_of, hyp = self._meeting_first(blocks, cells)
        out[rows[hyp[cell_of] == m.obs[rows]]] = True
        return out

    def rays_meeting_first(self, blocks: Mapping[Cell, str], cells: Sequence[Cell], color: str,
                           ) -> tuple[I64, I64]:
        """The weighted sampled rays whose first full cell with exactly ``blocks`` on the battlefield is
        one of ``cells`` and which show ``color``: their views (indices) and pixels (x, y; each view's
        picture), for a look at the pixels themselves (``vision.turn_check.faint_turns``)."""
        m = self._model
        if color not in COLOR_LABELS:
            return np.zeros(0, np.int64), np.zeros((0, 2), np.int64)
        rows, _, _ = self._meeting_first(blocks, cells, int(COLOR_LABELS[color]))
        return m.view[rows], m.pixels[rows]

    def gains_by_view(self, blocks: Mapping[Cell, str], cells: Sequence[Cell]) -> I64:
        """Per view (index): how many more sampled rays (weighted) ``blocks`` explain than ``blocks`` without
        ``cells`` -- what each picture says for those blocks (negative: it shows them absent)."""
        return self.gains_by_view_each(blocks, [cells])[0]

    def gains_by_view_each(self, blocks: Mapping[Cell, str], groups: Sequence[Sequence[Cell]]) -> list[I64]:
        """:meth:`gains_by_view` for each group of cells in ``groups`` (predicting ``blocks`` once and, for
        each group, only the rays through its cells again)."""
        m = self._model
        hyp = self._hyp_of(blocks)
        miss_with = (self._predict(hyp) != m.obs) * m.weight
        n_views = int(m.view.max()) + 1 if len(m.view) else 0
        out: list[I64] = []
        for cells in groups:
            ids = [i for i in (self._index(c) for c in cells if c in blocks) if i >= 0]
            if not ids:
                out.append(np.zeros(n_views, np.int64))
                continue
            rows = np.unique(np.concatenate([m.rays_of[i] for i in ids]))
            without = hyp.copy()
            without[ids] = 0
            miss_without = (m.predict(without, rows) != m.obs[rows]) * m.weight[rows]
            out.append(np.bincount(m.view[rows], weights=(miss_without - miss_with[rows]).astype(np.float64),
                                   minlength=n_views).astype(np.int64))
        return out

    def cost_where(self, blocks: Mapping[Cell, str], rays: npt.NDArray[np.bool_]) -> int:
        """:meth:`cost` counted on the rays ``rays`` marks only."""
        m = self._model
        return int(((self._predict(self._hyp_of(blocks)) != m.obs) * m.weight)[rays].sum())

    def labels_reaching(self, cell: Cell) -> I64:
        """The observed labels of the weighted rays on which ``cell`` comes before the base's first
        full cell (a block there would be the first thing they meet); empty outside the volume."""
        i = self._index(cell)
        if i < 0:
            return np.zeros(0, np.int64)
        m = self._model
        rows = m.rays_of[i]
        rows = rows[(m.cols_of(i) < self._fcol[rows]) & (m.weight[rows] > 0)]
        return m.obs[rows]  # type: ignore[no-any-return]

    def cells_ahead_through(self, cell: Cell) -> list[Cell]:
        """The cells that, on the weighted rays through ``cell``, come before the base's first full
        cell (a block in one of them would be the first thing such a ray meets)."""
        i = self._index(cell)
        if i < 0:
            return []
        m = self._model
        rows = m.rays_of[i][m.weight[m.rays_of[i]] > 0]
        cols = np.arange(m.idx.shape[1])[None, :] < self._fcol[rows][:, None]
        ahead = np.unique(m.idx[rows][cols & (m.idx[rows] >= 0)])
        return [self._vol.cell(int(j)) for j in ahead.tolist()]

    def _ahead_of(self, i: int) -> I64:
        """The rays on which cell ``i`` comes before the base's first full cell, each once (kept until
        the base changes: the history search prices many placements sharing cells on one base)."""
        got = self._ahead.get(i)
        if got is None:
            m = self._model
            rows = m.rays_of[i]
            got = rows[m.cols_of(i) < self._fcol[rows]]
            if m.repeats:  # a ray listed twice for one cell (never seen): sorted out the slow way
                got = np.unique(got)
            self._ahead[i] = got
        return got

    def delta(self, added: Mapping[Cell, str]) -> int:
        """Change of :meth:`cost` when ``added`` blocks join the base set (cells outside the volume
        change nothing)."""
        idx = [(self._index(c), int(COLOR_LABELS[col])) for c, col in added.items()]
        idx = [(i, v) for i, v in idx if i >= 0]
        if not idx:
            return 0
        m = self._model
        v0 = idx[0][1]
        if all(v == v0 and self._hyp[i] == 0 for i, v in idx):
            # blocks of one colour on empty cells: a ray changes only when one of them comes before
            # its first full cell, and then it shows that colour (whichever of them comes first)
            ahead = [self._ahead_of(i) for i, _ in idx]
            hit = ahead[0] if len(ahead) == 1 else _each_once(self._mark, ahead)
            if len(hit) == 0:
                return 0
            miss_if = self._miss_if_for(v0)
            return int(np.count_nonzero(miss_if[hit])) - int(np.count_nonzero(self._miss[hit]))
        # the rays through any of the cells, each once
        rows = _each_once(self._mark, [m.rays_of[i] for i, _ in idx])
        if len(rows) == 0:
            return 0
        old = [int(self._hyp[i]) for i, _ in idx]
        for i, v in idx:
            self._hyp[i] = v
        p = m.predict(self._hyp, rows)
        for (i, _), v in zip(idx, old, strict=True):
            self._hyp[i] = v
        obs, wt = m.obs[rows], m.weight[rows]
        return int(((p != obs) * wt).sum()) - int(((self._pred[rows] != obs) * wt).sum())

    def colour_on_ground(self, blocks: Mapping[Cell, str], cell: Cell, bin_size: float = 0.25) -> tuple[int, int]:
        """Is the colour the pictures show for the block ``blocks[cell]`` on the mat rather than in the cell?

        The rays that show the block (its colour, the block their first full cell) would go on to the
        mat plane (z = 0) at some place.  A block's faces hide that place from this picture only: another
        picture that sees it unobstructed (no block or cube on its ray) shows the mat there.  A colour
        *on* the mat -- a tinted cast shadow, colour bled onto the paper -- shows from the other pictures
        too.  Returns (the block's rays whose mat place another picture sees unobstructed, those where
        most such rays of the other pictures show the block's colour), on ``bin_size`` squares."""
        m = self._model
        i = self._index(cell)
        lab = int(COLOR_LABELS[blocks[cell]])
        if i < 0:
            return 0, 0
        hyp = self._hyp_of(blocks)
        _, fcol = self._first_of(hyp)
        down = m.dirs[2] < 0
        rows = m.rays_of[i]
        own = rows[(m.cols_of(i) == fcol[rows]) & (m.obs[rows] == lab) & (m.weight[rows] > 0) & down[rows]]
        if len(own) == 0:
            return 0, 0
        n_views, uk, n, c, up, n_all, c_all = self._ground_tables(hyp, fcol, bin_size, lab)
        ok_place = _mat_places(m, own, bin_size)
        pos = np.minimum(np.searchsorted(up, ok_place), len(up) - 1)
        hit = up[pos] == ok_place
        n_other = np.where(hit, n_all[pos], 0)
        c_other = np.where(hit, c_all[pos], 0)
        # the block's own picture's rays to that place are left out (they are the ones it hides)
        mine = ok_place * n_views + m.view[own]
        mpos = np.minimum(np.searchsorted(uk, mine), len(uk) - 1)
        mhit = uk[mpos] == mine
        n_other = n_other - np.where(mhit, n[mpos], 0)
        c_other = c_other - np.where(mhit, c[mpos], 0)
        checked = n_other > 0
        return int(checked.sum()), int((checked & (2 * c_other > n_other)).sum())

    def _ground_tables(self, hyp: I64, fcol: npt.NDArray[np.int32], bin_size: float, lab: int,
                       ) -> tuple[int, I64, I64, I64, I64, I64, I64]:
        """:meth:`colour_on_ground`'s counts of the free rays (weighted, going down, meeting no cell with ``hyp``)
        per (mat place, picture) and per mat place, all and those showing ``lab``: the same for every block of one
        hypothesis, so kept for the last one (per label)."""
        g = self._ground
        if g is None or g[1] != bin_size or not np.array_equal(g[0], hyp):
            m = self._model
            width = m.idx.shape[1]
            down = m.dirs[2] < 0
            free = np.flatnonzero(down & (fcol == width) & (m.weight > 0))
            n_views = int(m.view.max()) + 1
            fk = _mat_places(m, free, bin_size) * n_views + m.view[free]  # (place, picture)
            uk, inv = np.unique(fk, return_inverse=True)
            n = np.bincount(inv, minlength=len(uk))
            place = uk // n_views
            up, pinv = np.unique(place, return_inverse=True)
            n_all = np.bincount(pinv, weights=n.astype(np.float64), minlength=len(up)).astype(np.int64)
            g = self._ground = (hyp.copy(), bin_size, {"base": (free, n_views, uk, inv, n, up, pinv, n_all)})
        tables = g[2]
        if lab not in tables:
            free, n_views, uk, inv, n, up, pinv, n_all = tables["base"]
            m = self._model
            c = np.bincount(inv, weights=(m.obs[free] == lab).astype(np.float64), minlength=len(uk)).astype(np.int64)
            c_all = np.bincount(pinv, weights=c.astype(np.float64), minlength=len(up)).astype(np.int64)
            tables[lab] = (n_views, uk, n, c, up, n_all, c_all)
        return tables[lab]  # type: ignore[no-any-return]

    def flat_patch_deltas(self, blocks: Mapping[Cell, str], cells: Sequence[Cell], bin_size: float = 0.25,
                          min_views: int = 2) -> list[tuple[int, int]]:
        return self._flat_patch(blocks, cells, bin_size, min_views)[0]

    def flat_patch_rays(self, blocks: Mapping[Cell, str], cells: Sequence[Cell], bin_size: float = 0.25,
                        min_views: int = 2) -> npt.NDArray[np.bool_]:
        """Marks the weighted rays a flat patch explains in place of the blocks of ``blocks`` at ``cells`` (for
        :meth:`without_rays`): those that meet such a block first and show its colour, and those that reach
        the mat where its patch takes its colour (:meth:`flat_patch_deltas`) and show that colour."""
        return self._flat_patch(blocks, cells, bin_size, min_views)[1]

    def _flat_patch(self, blocks: Mapping[Cell, str], cells: Sequence[Cell], bin_size: float,
                    min_views: int) -> tuple[list[tuple[int, int]], npt.NDArray[np.bool_]]:
        """For each block of ``blocks`` at ``cells`` (on the mat): how many more weighted rays a **flat patch of
        its colour on the mat** fails to explain than the block does -- negative when the patch explains the
        pictures better (docs/vision.md, "Session 13: colour on the mat as a flat patch").

        The ray model knows blocks and a plain mat only, so colour on the mat (a tinted cast shadow, colour
        bled onto the paper) can only be explained by a block standing there.  Here the mat plane is cut into
        ``bin_size`` squares (block units), and each square may take the block's colour instead of the mat's:
        it does where more rays ending on it show that colour than the mat, and at least ``min_views``
        pictures show it the colour (a square one picture alone shows is no evidence of colour on the mat;
        without this a patch would explain any block a picture looking straight down shows).  The block and
        the patch are priced on the same rays: the rays that meet the block first (with the block: it
        predicts its colour; without: they go on to the next full cell, or to the mat squares they reach),
        and the rays that reach those squares with the block there (both hypotheses paint the squares as
        best they can).  A block standing on the mat shows its colour on its side faces well above the mat,
        whose rays reach the mat beyond its footprint where the other pictures see the plain mat; a patch
        shows its colour at the same mat places in every picture.  Returns (patch cost - block cost, rays
        meeting the block first) per cell (0, 0 for a cell outside the volume or without a block)."""
        m = self._model
        hyp = self._hyp_of(blocks)
        _, fcol = self._first_of(hyp)
        width = m.idx.shape[1]
        down = m.dirs[2] < 0
        n_views = int(m.view.max()) + 1 if len(m.view) else 1

        free = np.flatnonzero(down & (fcol == width) & (m.weight > 0))
        fk = _mat_places(m, free, bin_size)
        order = np.argsort(fk, kind="stable")
        free, fk = free[order], fk[order]
        out: list[tuple[int, int]] = []
        explained = np.zeros(len(m.obs), bool)
        for cell in cells:
            i = self._index(cell)
            colour = blocks.get(cell)
            if i < 0 or colour not in COLOR_LABELS:
                out.append((0, 0))
                continue
            lab = int(COLOR_LABELS[colour])
            rows = m.rays_of[i]
            own = rows[(m.cols_of(i) == fcol[rows]) & (m.weight[rows] > 0)]
            if m.repeats:
                own = np.unique(own)
            if len(own) == 0:
                out.append((0, 0))
                continue
            cost_block = int(np.count_nonzero(m.obs[own] != lab))
            hyp[i] = 0
            pred2, f2 = m.predict_first(hyp, own)
            hyp[i] = lab
            to_mat = (f2 == width) & down[own]
            cost_patch = int(np.count_nonzero(m.obs[own[~to_mat]] != pred2[~to_mat]))
            mat_rays = own[to_mat]
            mk = _mat_places(m, mat_rays, bin_size)
            squares = np.unique(mk)
            lo = np.searchsorted(fk, squares)
            hi = np.searchsorted(fk, squares, side="right")
            n_free = hi - lo
            pos = np.arange(int(n_free.sum()), dtype=np.int64) + np.repeat(lo - (np.cumsum(n_free) - n_free), n_free)
            f_rows, f_keys = free[pos], fk[pos]
            # the squares' rays with the block (the free ones) and without it (those and the block's)
            f_sq = np.searchsorted(squares, f_keys)
            cost_block += _square_cost(f_sq, m.view[f_rows], m.obs[f_rows], lab, len(squares), n_views,
                                       min_views)[0]
            sq = np.concatenate([f_sq, np.searchsorted(squares, mk)])
            sq_view = np.concatenate([m.view[f_rows], m.view[mat_rays]])
            sq_obs = np.concatenate([m.obs[f_rows], m.obs[mat_rays]])
            patch_cost, painted = _square_cost(sq, sq_view, sq_obs, lab, len(squares), n_views, min_views)
            cost_patch += patch_cost
            out.append((cost_patch - cost_block, len(own)))
            explained[own[m.obs[own] == lab]] = True
            explained[f_rows[painted[f_sq] & (m.obs[f_rows] == lab)]] = True
        return out, explained

    def move_gains(self, cell: Cell, targets: Sequence[Cell]) -> list[int]:
        """For the base's block at ``cell``: for each of ``targets`` (cells empty in the base), how many
        fewer weighted rays fail with that block moved there -- ``cost(base) - cost(base without
        cell, with its block at target)``, the same integers as :meth:`set_base` on the base without it
        and :meth:`delta` for each target, without re-basing: only the rays on which ``cell`` is the
        first full cell change when it goes (predicted again from the next cell on), and a block at a
        target changes the rays it comes before the first full cell on."""
        m = self._model
        i = self._index(cell)
        v = int(self._hyp[i]) if i >= 0 else 0
        if v in (0, int(Label.CUBE)):
            raise ValueError(f"no block of the base at {cell!r} to move")
        rows = m.rays_of[i]
        gone = rows[m.cols_of(i) == self._fcol[rows]]  # rays whose first full cell it is
        if m.repeats:
            gone = np.unique(gone)
        self._hyp[i] = 0
        p_gone, f_gone = m.predict_first(self._hyp, gone)
        self._hyp[i] = v
        obs, wt = m.obs, m.weight
        before = int(((self._pred[gone] != obs[gone]) * wt[gone]).sum())
        removed = int(((p_gone != obs[gone]) * wt[gone]).sum()) - before
        keep_p, keep_f = self._pred[gone].copy(), self._fcol[gone].copy()
        self._pred[gone], self._fcol[gone] = p_gone, f_gone  # the base without the block, for a moment
        out: list[int] = []
        try:
            idx = [self._index(t) for t in targets]
            for t, j in zip(targets, idx, strict=True):
                if j >= 0 and self._hyp[j] != 0:
                    raise ValueError(f"the target {t!r} is not empty in the base")
            inside = [j for j in idx if j >= 0]
            sums = np.zeros(len(inside), np.int64)
            if inside and not m.repeats:
                # every target's rays in one gather: each ray's term is +1 (the base without the block
                # explains it, the block there does not), -1 (the reverse) or 0, summed per target
                r = np.concatenate([m.rays_of[j] for j in inside])
                c = np.concatenate([m.cols_of(j) for j in inside])
                k = np.repeat(np.arange(len(inside)), [len(m.rays_of[j]) for j in inside])
                ahead = c < self._fcol[r]
                r, k = r[ahead], k[ahead]
                term = (obs[r] != v).astype(np.int64) * wt[r] - (self._pred[r] != obs[r]) * wt[r]
                sums = np.bincount(k, weights=term, minlength=len(inside)).astype(np.int64)
            elif inside:  # a ray listed twice for one cell (never seen): each target the slow way
                for n, j in enumerate(inside):
                    r = m.rays_of[j]
                    a = np.unique(r[m.cols_of(j) < self._fcol[r]])
                    sums[n] = int(((obs[a] != v) * wt[a]).sum()) - int(((self._pred[a] != obs[a]) * wt[a]).sum())
            got = iter(sums.tolist())
            # outside the volume a block changes no ray
            out = [-(removed + (next(got) if j >= 0 else 0)) for j in idx]
        finally:
            self._pred[gone], self._fcol[gone] = keep_p, keep_f
        return out

    def sharing_rays(self, cells: Sequence[Cell]) -> npt.NDArray[np.bool_]:
        """Per cell of the volume (its index), whether some ray through any of ``cells`` (those in the volume) also
        crosses it: the cells whose :meth:`move_gains` (as a block or as a target) a change of ``cells`` alone can
        change -- a ray's prediction, and its first full column, depend on the cells along it alone."""
        m = self._model
        out = np.zeros(self._vol.n, bool)
        idx = [i for i in (self._index(c) for c in cells) if i >= 0]
        if idx:
            on = m.idx[np.concatenate([m.rays_of[i] for i in idx])]
            out[on[on >= 0]] = True
        return out

    def _miss_if_for(self, v: int) -> npt.NDArray[np.bool_]:
        """The rays a block of colour label ``v`` would fail to explain (it shows ``v``; an uncoloured cube
        shows the background), cached per label."""
        shown = v if v not in (0, int(Label.CUBE)) else int(Label.BACKGROUND)
        miss_if = self._miss_if.get(shown)
        if miss_if is None:
            m = self._model
            miss_if = self._miss_if[shown] = (m.obs != shown) & (m.weight > 0)
        return miss_if

    def _rays_ahead(self, at: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Every ray of the cells ``at`` (model indices; ``rays_of``: runs of one table) and its columns in one
        gather, and of those the rays ahead of the base's first full cell (as :meth:`_ahead_of`), each with the
        row of its cell in ``at``.  Not for a model with repeats."""
        m = self._model
        sizes = m.n_rays_of[at]
        ends = np.cumsum(sizes)
        pos = np.arange(int(ends[-1]), dtype=np.int64) + np.repeat(m.bounds[at] - (ends - sizes), sizes)
        rays = m.ray_table[pos]
        cell_row = np.repeat(np.arange(len(at), dtype=np.int64), sizes)
        ahead = m.col_table[pos] < self._fcol[rays]
        return rays[ahead], cell_row[ahead]

    def deltas_each(self, cells: Sequence[Cell], colors: Sequence[str]) -> dict[str, list[int]]:
        """``{color: self.deltas([[c] for c in cells], color) for color in colors}`` (the same integers): one
        block at a time, every colour on one gather of the cells' rays ahead of the base's first full cells (a
        cell's price is its +1 rays less its -1 rays, :meth:`deltas`), the colours differing only in which
        rays a block of theirs fails to explain.  Cells full in the base, or rays listing a cell twice: as
        :meth:`deltas`."""
        m = self._model
        ids = [self._index(c) for c in cells]
        if m.repeats or any(i >= 0 and self._hyp[i] != 0 for i in ids):
            return {color: self.deltas([[c] for c in cells], color) for color in colors}
        out = {color: [0] * len(cells) for color in colors}
        inside = [k for k, i in enumerate(ids) if i >= 0]
        if not inside:
            return out
        at = np.array([ids[k] for k in inside], np.int64)
        rays, cell_row = self._rays_ahead(at)
        base_miss = self._miss[rays].astype(np.int64)
        for color in colors:
            miss_if = self._miss_if_for(int(COLOR_LABELS[color]))
            # +1: a ray the base explains and the colour does not; -1: the reverse; else 0
            per = np.bincount(cell_row, weights=miss_if[rays].astype(np.int64) - base_miss, minlength=len(at))
            row = out[color]
            for k, d in zip(inside, np.rint(per).astype(np.int64).tolist(), strict=True):
                row[k] = d
        return out

    def deltas(self, placements: Sequence[Sequence[Cell]], color: str) -> list[int]:
        """``[delta({c: color for c in cells}) for cells in placements]``, priced together (the history
        search prices every placement of one base: they share most cells and rays).

        For blocks of one colour on empty cells a placement's change is a sum over the union of its
        cells' rays ahead of the base's first full cells (:meth:`_ahead_of`) of +1 (a ray the base
        explains and that colour does not) or -1 (the reverse); the other rays add 0.  So only the
        rays with a non-zero term are kept, each cell's as a row of bits (the +1 rays first, then the
        -1 rays, each part whole bytes), and a placement's union is the OR of its cells' rows: its
        price is the set bits of the +1 part less those of the -1 part, the same integers as
        :meth:`delta`.  Placements with a cell that is full in the base go through :meth:`delta`."""
        m = self._model
        index: dict[Cell, int] = {}
        row_of: dict[int, int] = {}  # cell -> its row (cells in order of first appearance)
        uniq: list[int] = []
        per: list[list[int]] = []
        slow: list[int] = []
        for k, cells in enumerate(placements):
            ids = []
            for c in cells:
                i = index.get(c)
                if i is None:
                    i = index[c] = self._index(c)
                if i >= 0:
                    ids.append(i)
                    if i not in row_of:
                        row_of[i] = len(uniq)
                        uniq.append(i)
            if any(self._hyp[i] != 0 for i in ids):
                slow.append(k)
            per.append(ids)
        out = [0] * len(placements)
        if uniq:
            miss_if = self._miss_if_for(int(COLOR_LABELS[color]))
            if m.repeats:  # a ray listed twice for one cell (never seen): the slow way
                aheads = [self._ahead_of(i) for i in uniq]
                rays = np.concatenate(aheads)
                sizes = np.fromiter((len(a) for a in aheads), np.int64, len(aheads))
                cell_row = np.repeat(np.arange(len(uniq), dtype=np.int64), sizes)
            else:
                rays, cell_row = self._rays_ahead(np.array(uniq, np.int64))
            gain = miss_if[rays]
            keep = gain != self._miss[rays]  # the rays whose term is not 0
            rays, cell_row = rays[keep], cell_row[keep]
            # the distinct rays (a scratch mask, as ``_each_once``), the +1 ones first
            self._mark[rays] = True
            used = np.flatnonzero(self._mark)
            self._mark[used] = False
            up = miss_if[used]
            n_up = int(np.count_nonzero(up))
            pad = -(-n_up // 8) * 8  # the -1 part starts on a whole byte
            col = self._col
            col[used[up]] = np.arange(n_up)
            col[used[~up]] = np.arange(pad, pad + len(used) - n_up)
            table = np.zeros((len(uniq) + 1, pad + len(used) - n_up), bool)  # last row: no cell
            table[cell_row, col[rays]] = True
            bits = np.packbits(table, axis=1)
            width = max(len(ids) for ids in per)
            pick = np.full((len(per), max(1, width)), len(uniq), np.int64)
            for k, ids in enumerate(per):
                pick[k, :len(ids)] = [row_of[i] for i in ids]
            union = bits[pick[:, 0]]
            for j in range(1, pick.shape[1]):
                union |= bits[pick[:, j]]
            counts = np.bitwise_count(union)
            split = pad // 8
            out = (counts[:, :split].sum(axis=1, dtype=np.int64)
                   - counts[:, split:].sum(axis=1, dtype=np.int64)).tolist()
        for k in slow:
            out[k] = self.delta({c: color for c in placements[k]})
        return out


def _mat_places(m: _RayModel, rows: I64, bin_size: float) -> I64:
    """One integer per ray of ``rows`` (going down): the ``bin_size`` square of the mat plane (block units) where it
    reaches the mat."""
    t = -m.origins[2][rows] / m.dirs[2][rows]
    kx = np.floor((m.origins[0][rows] + t * m.dirs[0][rows]) / bin_size).astype(np.int64)
    ky = np.floor((m.origins[1][rows] + t * m.dirs[1][rows]) / bin_size).astype(np.int64)
    out: I64 = (kx + 2**20) * 2**21 + (ky + 2**20)
    return out


def _square_cost(square: I64, view: I64, obs: I64, lab: int, n_squares: int, n_views: int,
                 min_views: int) -> tuple[int, npt.NDArray[np.bool_]]:
    """The rays (``square``: each one's mat square, 0 .. ``n_squares - 1``; its picture and observed label) that
    the mat squares fail to explain when each square shows the mat, or the colour ``lab`` where more of its
    rays show that than the mat and at least ``min_views`` pictures show it that colour
    (:meth:`RayScorer.flat_patch_deltas`); and per square, whether it takes the colour."""
    bg = np.bincount(square, weights=(obs == int(Label.BACKGROUND)).astype(np.float64), minlength=n_squares)
    is_lab = obs == lab
    col = np.bincount(square[is_lab], minlength=n_squares)
    pairs = np.unique(square[is_lab] * n_views + view[is_lab])
    views = np.bincount(pairs // n_views, minlength=n_squares)
    painted: npt.NDArray[np.bool_] = (views >= min_views) & (col > bg)
    if len(square) == 0:
        return 0, painted
    n = np.bincount(square, minlength=n_squares)
    return int((n - np.where(painted, col, bg)).sum()), painted


def _each_once(mark: npt.NDArray[np.bool_], parts: list[I64]) -> I64:
    """The rows of all ``parts``, each once, in order of first appearance (a scratch mask, all False
    and left so, instead of sorting)."""
    mark[parts[0]] = True
    for k in range(1, len(parts)):
        new = parts[k][~mark[parts[k]]]
        mark[new] = True
        parts[k] = new
    rows = np.concatenate(parts)
    mark[rows] = False
    return rows


def _reconnect(model: _RayModel, hyp: I64, vol: _Volume, blocks: Mapping[Cell, str], hidden: set[Cell],
               floating: Mapping[Cell, str], colours: I64, allowed: npt.NDArray[np.bool_],
               cfg: ReconstructConfig, pred: I64 | None = None, stop: npt.NDArray[np.int32] | None = None,
               ) -> tuple[dict[Cell, str], list[Cell]]:
    """For each group of ``floating`` blocks (not connected to the Central Cube), the cheapest path of
    cells joining it to the connected blocks (or the cube, or a hidden cell): a cell costs the rays a
    block of its best colour there would leave unexplained beyond those it explains (nothing for a
    cell no ray reaches first).  When a path costs less than half the rays the group explains, the
    path's blocks (and its cells no ray reaches, as hidden connectors) are returned; otherwise the
    group stays floating.  ``pred`` (``model.predict(hyp)``) and ``stop`` (:func:`_stops`) may be
    passed when known."""
    import heapq

    # the cost and best colour of filling each empty cell, on the rays it would be the first full cell of
    pred = model.predict(hyp) if pred is None else pred
    if stop is None:
        rows, cells = _ahead(model, hyp)
    else:  # the same pairs, row by row, from where ``_ahead`` stops on each ray
        before = np.arange(model.idx.shape[1], dtype=np.int32)[None, :] < stop[:, None]
        rows = np.broadcast_to(np.arange(len(model.obs), dtype=np.int64)[:, None], model.idx.shape)[before]
        cells = model.idx[before]
    keep = allowed[cells] & (model.weight[rows] > 0)
    rows, cells = rows[keep], cells[keep]
    n = vol.n
    counts = np.bincount(hyp, minlength=N_LABELS)
    # never a 23rd block of a colour (rulebook "Components")
    open_colours = [v for v in colours.tolist() if counts[v] < cfg.max_per_colour]
    total, fill, fill_col = _fill_costs(model, pred, rows, cells, open_colours, n)
    fill = np.maximum(fill, 0.0)
    unseen = total < cfg.min_pixels  # no picture can tell: a connector at no cost
    connected = {c for c in blocks if c not in floating} | set(CENTRAL_CUBE) | hidden
    added: dict[Cell, str] = {}
    connectors: list[Cell] = []
    todo = dict(floating)
    while todo:
        # one group (6-connected floating blocks)
        seed = next(iter(todo))
        group = {seed}
        queue = deque([seed])
        while queue:
            x, y, z = queue.popleft()
            for dx, dy, dz in ALL_DIRS:
                nb = (x + dx, y + dy, z + dz)
                if nb in todo and nb not in group:
                    group.add(nb)
                    queue.append(nb)
        for c in group:
            del todo[c]
        gidx = [vol.index1(c) for c in group]
        gi = np.array([i for i in gidx if i >= 0], np.int64)
        if not len(gi):
            continue
        grows = np.unique(np.concatenate([model.rays_of[i] for i in gi.tolist()]))
        without = hyp.copy()
        without[gi] = 0
        obs, wt = model.obs[grows], model.weight[grows]
        evidence = int(((model.predict(without, grows) != obs) * wt).sum()) - int(((pred[grows] != obs) * wt).sum())
        # Dijkstra from the group to anything connected
        dist: dict[Cell, float] = {c: 0.0 for c in group}
        prev: dict[Cell, Cell] = {}
        heap = [(0.0, c) for c in group]
        heapq.heapify(heap)
        goal: Cell | None = None
        while heap:
            d0, c = heapq.heappop(heap)
            if d0 > dist.get(c, np.inf) or d0 >= evidence / 2:
                continue
            if c in connected:
                goal = c
                break
            x, y, z = c
            for dx, dy, dz in ALL_DIRS:
                nb = (x + dx, y + dy, z + dz)
                if nb[2] < 0 or nb in group:
                    continue
                i = vol.index1(nb)
                if nb in connected:
                    step = 0.0
                elif i < 0 or not allowed[i]:
                    continue
                else:
                    step = 0.0 if unseen[i] else float(fill[i])
                if d0 + step < dist.get(nb, np.inf):
                    dist[nb] = d0 + step
                    prev[nb] = c
                    heapq.heappush(heap, (d0 + step, nb))
        if goal is None:
            continue
        path: list[Cell] = []
        on_path: Cell | None = prev.get(goal)
        while on_path is not None and on_path not in group:
            path.append(on_path)
            on_path = prev.get(on_path)
        new_blocks = {c: int(fill_col[vol.index1(c)]) for c in path if not unseen[vol.index1(c)]}
        extra = np.bincount(np.array(list(new_blocks.values()), np.int64), minlength=N_LABELS)
        if any(counts[v] + extra[v] > cfg.max_per_colour for v in colours.tolist()):
            continue  # the path would take a colour over 22: the group stays floating
        counts += extra
        for c in path:
            if c in new_blocks:
                added[c] = LABEL_COLORS[new_blocks[c]]
            else:
                connectors.append(c)
        connected |= group | set(added) | set(connectors)
    return added, connectors


def _floating(blocks: Mapping[Cell, str], hidden: set[Cell]) -> dict[Cell, str]:
    """Blocks that cannot be connected to the Central Cube, even through ``hidden`` cells."""
    reached: set[Cell] = set(CENTRAL_CUBE)
    queue = deque(CENTRAL_CUBE)
    while queue:
        x, y, z = queue.popleft()
        for dx, dy, dz in ALL_DIRS:
            nb = (x + dx, y + dy, z + dz)
            if nb not in reached and (nb in blocks or nb in hidden):
                reached.add(nb)
                queue.append(nb)
    return {c: col for c, col in blocks.items() if c not in reached}


class _RayModel:
    """All views' rays in one table, with an inverted index cell -> rays, to predict labels fast."""

    def __init__(self, rays: Sequence[_Rays], n_cells: int) -> None:
        width = max((r.idx.shape[1] for r in rays), default=1)
        total = sum(r.idx.shape[0] for r in rays)
        self.idx = np.full((total, width), -1, np.int64)
        self.obs = np.zeros(total, np.int64)
        self.view = np.zeros(total, np.int64)
        self.pixels = np.zeros((total, 2), np.int64)  # each ray's sampled pixel (x, y) in its view's picture
        self.weak = np.zeros(total, bool)  # ``_Rays.weak`` (False where a view has none)
        self.sat = np.full(total, np.nan, np.float32)  # ``_Rays.sat`` (NaN where a view has none)
        rim = np.zeros(total, bool)  # ``_Rays.rim`` (False where a view has none)
        # per axis (3, rays): a banner's test reads one coordinate of many rays at a time
        self.dirs = np.zeros((3, total))
        self.origins = np.zeros((3, total))
        row = 0
        for v, r in enumerate(rays):
            k = r.idx.shape[0]
            self.idx[row:row + k, :r.idx.shape[1]] = r.idx
            self.obs[row:row + k] = np.where(r.labels == int(Label.CUBE), int(Label.BACKGROUND), r.labels)
            self.view[row:row + k] = v
            self.pixels[row:row + k] = r.pixels
            if r.weak is not None:
                self.weak[row:row + k] = r.weak
            if r.sat is not None:
                self.sat[row:row + k] = r.sat
            if r.rim is not None:
                rim[row:row + k] = r.rim
            if k:
                self.dirs[:, row:row + k] = r.dirs.T
                self.origins[:, row:row + k] = np.asarray(r.origin)[:, None]
            row += k
        valid = self.idx >= 0
        per_ray = np.count_nonzero(valid, axis=1)
        # the first column of each ray without a cell (its end, or a zero-length segment's gap)
        self.first_gap = np.argmax(~valid, axis=1).astype(np.int32)
        self.first_gap[per_ray == width] = width  # none
        cc = self.idx[valid]  # row by row
        rr = np.repeat(np.arange(total, dtype=np.int64), per_ray)
        # a stable sort of small integers is a radix sort (linear time) in numpy
        order = np.argsort(cc.astype(np.int16) if n_cells < 2**15 else cc, kind="stable")
        rr = rr[order]
        # the sorted cells are runs of each cell: their bounds from the counts
        bounds = np.zeros(n_cells + 1, np.int64)
        per_cell = np.bincount(cc, minlength=n_cells)
        np.cumsum(per_cell, out=bounds[1:])
        self.rays_of = [rr[bounds[i]:bounds[i + 1]] for i in range(n_cells)]
        # the column of the cell on each of its rays (its first, should a ray list a cell twice:
        # within a cell's run the rays are in order, so a repeated ray follows its first entry)
        col_type = np.int8 if width < 127 else np.int32
        cols: npt.NDArray[np.integer] = np.tile(np.arange(width, dtype=col_type), total)[valid.ravel()][order]
        if len(rr) > 1:
            cell_sorted = np.repeat(np.arange(n_cells, dtype=np.int64), per_cell)
            again = (rr[1:] == rr[:-1]) & (cell_sorted[1:] == cell_sorted[:-1])
            if again.any():
                start = np.ones(len(rr), bool)
                start[1:] = ~again
                cols = cols[np.maximum.accumulate(np.where(start, np.arange(len(rr)), 0))]
        self._cols = cols
        self._bounds = bounds
        # the same as flat tables: cell ``c``'s rays and their columns are ``[bounds[c]:bounds[c + 1]]``
        self.ray_table, self.col_table, self.bounds = rr, cols, bounds
        self.n_rays_of = per_cell  # len(rays_of[c]) for every cell
        self.repeats = len(rr) > 1 and bool(again.any())  # does some ray list a cell twice?
        # observed POLE pixels are thin flag poles: not evidence either way for blocks (0 or 1 only:
        # weighted counts are counts of rays with weight 1)
        self.weight = np.where(self.obs == int(Label.POLE), 0, 1).astype(np.int64)
        # the rays at a face's rim (``ReconstructConfig.rim_samples``): left out of the blocks' cost (weight 0)
        # but still a banner's evidence (a banner is a few samples wide: nearly all rim)
        self.rim = rim & (self.weight > 0)
        self.weight[self.rim] = 0

    def banner_weighted(self) -> npt.NDArray[np.bool_]:
        """The rays a banner's score counts: the weighted ones and the rim rays (:attr:`rim`)."""
        return (self.weight > 0) | self.rim  # type: ignore[no-any-return]

    def cols_of(self, cell: int) -> npt.NDArray[np.integer]:
        """The column of ``cell`` on each of its rays (``rays_of[cell]``)."""
        return self._cols[self._bounds[cell]:self._bounds[cell + 1]]

    def predict(self, hyp: npt.NDArray[np.int64], rows: npt.NDArray[np.int64] | None = None) -> I64:
        return self.predict_first(hyp, rows)[0]

    def predict_first(self, hyp: npt.NDArray[np.int64], rows: npt.NDArray[np.int64] | None = None,
                      ) -> tuple[I64, npt.NDArray[np.int32]]:
        """The label each ray (of ``rows``, default all) shows with the blocks ``hyp``, and the
        column of its first full cell (the table's width when none)."""
        idx = self.idx if rows is None else self.idx[rows]
        vals = np.append(hyp, 0)[idx]  # "no cell" (-1) reads the appended empty cell
        first = np.argmax(vals != 0, axis=1)
        got = vals[np.arange(len(first)), first]
        # the Central Cube's black and the mat are both "no block here": the classifier does not
        # tell them apart, so a ray ending on the Central Cube predicts the free label too (without
        # this a false block in front of the Central Cube cost nothing)
        pred = np.where((got != 0) & (got != int(Label.CUBE)), got, int(Label.BACKGROUND))
        return pred, np.where(got != 0, first, self.idx.shape[1]).astype(np.int32)


def _refine(
    model: _RayModel, hyp: I64, candidates: npt.NDArray[np.int64], values: Sequence[int],
    neighbours: dict[int, list[int]], max_sweeps: int = 10, block_penalty: int = 2,
    cap: int | None = None, first: npt.NDArray[np.int64] | None = None,
) -> tuple[I64, int, _ActiveRays, npt.NDArray[np.int8]]:
    """Local search: change one cell, or move a block to a neighbouring cell, whenever that
    explains the rays better; repeat until nothing improves.

    The search runs on a compact copy of the ray table (:class:`_ActiveRays`): only the cells that
    can be full during the search (the candidates and the Central Cube) and only the rays through
    one of them.  Every other cell stays empty, so every prediction, and so every decision, is the
    same as on the whole table.  A change of one cell only alters the rays on which that cell is (or
    becomes) the first full cell, so each move is priced on those rays alone.

    ``first``: the only cells to price in the first sweep (the others are known to gain nothing
    from a change: a previous search over them ended, and nothing changed since); default all.
    With ``cap``, no change makes a colour have more than ``cap`` blocks (22 per colour, rulebook
    "Components").

    Returns the new hypothesis, the sweeps made, the compact table and its rays' predictions."""
    act = _ActiveRays(model, hyp, candidates)
    counts = np.bincount(hyp, minlength=N_LABELS)
    hl = act.hyp
    pred = act.predict(act.idx)
    # each compact row's first full cell, as a column (the row's width when none): a cell is the
    # first full cell of a row, or would be if it were full, when no full cell comes before it,
    # i.e. when ``fpos`` is not before the cell's own column; kept up to date with every change
    width = act.idx.shape[1]
    full0 = hl[act.idx] != 0
    fpos = np.where(full0.any(axis=1), np.argmax(full0, axis=1), width).astype(np.int32)
    del full0
    no_rows = np.zeros(0, np.int64)
    no_pos = np.zeros(0, np.int32)
    cand_set = {int(c) for c in candidates}
    penalty = block_penalty
    shown_of = {v: np.int8(v if v not in (0, int(Label.CUBE)) else int(Label.BACKGROUND)) for v in values}

    def single(c: int) -> tuple[int, int, int, I64, npt.NDArray[np.int8], npt.NDArray[np.bool_], I64,
                                npt.NDArray[np.int32]]:
        """Best new value for cell ``c`` alone and its cost change; also the cost change of emptying
        it, its rays, their predictions with ``c`` empty, which of them meet ``c`` first, and (when
        ``c`` is full) the rows it is the first full cell of and their next full cell's column."""
        j = int(act.loc[c])
        rows, q, obs, wt = act.of(j)
        hit: npt.NDArray[np.bool_] = fpos[rows] >= q  # no full cell before ``c``
        old = int(hl[j])
        prow = pred[rows]
        p_empty = prow
        h_rows, h_next = no_rows, no_pos
        # only the rays that meet ``c`` first change with ``c``'s value: every cost below is counted
        # on them (the same integers as counting every ray of ``c`` and taking the difference)
        d_empty = 0  # emptying ``c``
        if old == 0:
            # (an empty cell: only the weighted rays meeting it first are read, the same counts)
            sel = hit & wt
            obs_s = obs[sel]
            miss_h = int(np.count_nonzero(prow[sel] != obs_s))  # now
            hit_labels = np.bincount(obs_s, minlength=N_LABELS)
            best_v, best_d = _best_value(hit_labels, miss_h, 0, old, values, counts, cap, penalty)
            return best_v, best_d, 0, rows, p_empty, hit, h_rows, h_next
        h = np.flatnonzero(hit)
        obs_h, wt_h = obs[h], wt[h]
        miss_h = int(np.count_nonzero((prow[h] != obs_h) & wt_h))  # now
        if len(h):  # ``c`` is these rays' first full cell: what is behind it?
            va = hl[act.after(j)[h]]
            first = np.argmax(va != 0, axis=1)
            got = va[np.arange(len(h)), first]
            behind = np.where((got != 0) & (got != int(Label.CUBE)), got, np.int8(int(Label.BACKGROUND)))
            p_empty = prow.copy()
            p_empty[h] = behind
            h_rows = rows[h]
            h_next = np.where(got != 0, first, width).astype(np.int32)
            d_empty = int(np.count_nonzero((behind != obs_h) & wt_h)) - miss_h
        # weighted rays meeting ``c`` first, per observed label: a block of colour v explains those of v
        hit_labels = np.bincount(obs_h[wt_h], minlength=N_LABELS)
        best_v, best_d = _best_value(hit_labels, miss_h, d_empty, old, values, counts, cap, penalty)
        return best_v, best_d, d_empty, rows, p_empty, hit, h_rows, h_next

    def move(c: int, n: int, v: int, rows_c: I64, p_empty_c: npt.NDArray[np.int8], h_rows: I64,
             h_next: npt.NDArray[np.int32]) -> tuple[int, I64, npt.NDArray[np.bool_], npt.NDArray[np.int32]]:
        """Cost change, beyond emptying ``c``, of putting its block ``v`` on the empty cell ``n``; the
        rays of ``n``, which of them would meet ``n`` first, and ``n``'s column on them."""
        jn = int(act.loc[n])
        rows_n, q_n, obs_n, wt_n = act.of(jn)
        # the first full cells with ``c`` empty (``fpos`` borrowed for a moment)
        keep_f = fpos[h_rows]
        fpos[h_rows] = h_next
        hit_n: npt.NDArray[np.bool_] = fpos[rows_n] >= q_n
        fpos[h_rows] = keep_f
        # the predictions with ``c`` empty, on the rays of ``n`` (``pred`` borrowed for a moment)
        keep = pred[rows_c]
        pred[rows_c] = p_empty_c
        sel = hit_n & wt_n
        before = pred[rows_n[sel]]
        pred[rows_c] = keep
        o = obs_n[sel]
        # the block penalty cancels: one block before, one after
        return int(np.count_nonzero(o != v)) - int(np.count_nonzero(before != o)), rows_n, hit_n, q_n

    dirty = np.zeros(len(model.rays_of), bool)
    dirty[np.asarray(candidates if first is None else first, np.int64)] = True
    touched_mark = np.zeros(len(act.cells) + 1, bool)
    sweeps = 0
    for sweeps in range(1, max_sweeps + 1):  # noqa: B007
        changed = False
        for c in candidates:
            c = int(c)
            # a cell none of whose rays (or its neighbours' rays) changed would find what it found last time
            if not dirty[c] or len(model.rays_of[c]) == 0:
                continue
            dirty[c] = False
            v1, d1, d_empty, rows_c, p_empty, hit, h_rows, h_next = single(c)
            best_d = min(d1, 0)
            best_n = -1
            best_move: tuple[I64, npt.NDArray[np.bool_], npt.NDArray[np.int32]] | None = None
            v = int(hyp[c])
            if v != 0:  # move this block to an empty neighbour
                for n in neighbours.get(c, []):
                    # a neighbour no ray crosses: the move is the same as emptying ``c``, which
                    # ``single`` priced already (at least as well)
                    if n in cand_set and hyp[n] == 0 and len(model.rays_of[n]):
                        extra, rows_n, hit_n, q_n = move(c, n, v, rows_c, p_empty, h_rows, h_next)
                        if d_empty + extra < best_d:
                            best_d, best_n, best_move = d_empty + extra, n, (rows_n, hit_n, q_n)
            if best_d >= 0:
                continue
            changed = True
            jc = int(act.loc[c])
            touched_mark[act.idx[rows_c].ravel()] = True
            if best_move is None:  # change ``c`` alone
                if v == 0:  # filled: it comes first where nothing full came before it
                    q_c = act.of(jc)[1]
                    fpos[rows_c] = np.minimum(fpos[rows_c], q_c)
                elif v1 == 0:  # emptied: its rows' first full cell is the next one
                    fpos[h_rows] = h_next
                counts[v] -= 1
                counts[v1] += 1
                hyp[c] = hl[jc] = v1
                pred[rows_c] = p_empty if v1 == 0 else np.where(hit, shown_of[v1], p_empty)
            else:  # move the block from ``c`` to ``best_n``
                rows_n, hit_n, q_n = best_move
                fpos[h_rows] = h_next
                fpos[rows_n] = np.minimum(fpos[rows_n], q_n)
                hyp[c] = hl[jc] = 0
                jn = int(act.loc[best_n])
                hyp[best_n] = hl[jn] = v
                pred[rows_c] = p_empty
                pred[rows_n[hit_n]] = shown_of[v]
                touched_mark[act.idx[rows_n].ravel()] = True
            touched_mark[-1] = False
            touched = act.cells[np.flatnonzero(touched_mark)]
            touched_mark[:] = False
            dirty[touched] = True
            for t in touched:
                for n in neighbours.get(int(t), []):
                    dirty[n] = True
        if not changed:
            break
    act.fpos = fpos
    return hyp, sweeps, act, pred


def _best_value(hit_labels: I64, miss_h: int, d_empty: int, old: int, values: Sequence[int], counts: I64,
                cap: int | None, penalty: int) -> tuple[int, int]:
    """``_refine``'s best new value for one cell and its cost change, from the weighted rays meeting
    the cell first per observed label (``hit_labels``), how many of them the hypothesis misses now
    (``miss_h``) and the change of emptying the cell (``d_empty``)."""
    n_hit = int(hit_labels.sum())
    best_v, best_d = old, 0
    for v in values:
        if v == old or (cap is not None and v != 0 and counts[v] >= cap):
            continue
        change = d_empty if v == 0 else n_hit - int(hit_labels[v]) - miss_h
        delta = change + penalty * (int(v != 0) - int(old != 0))
        if delta < best_d:
            best_v, best_d = v, delta
    return best_v, best_d


def _ahead(model: _RayModel, hyp: I64, rows: I64 | None = None) -> tuple[I64, I64]:
    """(ray, cell) pairs: on each of ``rows`` (default every ray), the cells before its first full cell
    in ``hyp`` -- the rays a block there would be the first full cell of."""
    rows = np.arange(len(model.obs), dtype=np.int64) if rows is None else rows
    sub = model.idx[rows]
    ext = np.append(hyp, 1)  # the padding (-1) counts as full: nothing beyond it
    before = (np.arange(sub.shape[1])[None, :] < np.argmax(ext[sub] != 0, axis=1)[:, None]) & (sub >= 0)
    return np.broadcast_to(rows[:, None], sub.shape)[before], sub[before]


def _stops(model: _RayModel, act: _ActiveRays) -> npt.NDArray[np.int32] | None:
    """Per ray, the column where :func:`_ahead` stops with the search's final hypothesis (its first full
    cell or its first gap; 0 when neither, as ``_ahead``'s argmax), from the first full cell the search
    keeps on the compact table (every full cell is one of its cells); ``None`` when the search did not
    keep it or a ray lists a cell twice (then ``_ahead`` decides)."""
    if act.fpos is None or model.repeats:
        return None
    fpos = act.fpos
    crow = np.flatnonzero(fpos < act.idx.shape[1])
    full_col = np.full(len(model.obs), np.iinfo(np.int32).max, np.int32)
    full_col[act.model_rows[crow]] = act.model_col(crow, fpos[crow])
    stop: npt.NDArray[np.int32] = np.minimum(full_col, model.first_gap)
    stop[stop >= model.idx.shape[1]] = 0
    return stop


def _fill_costs(model: _RayModel, pred: I64, rows: I64, cells: I64, colours: Sequence[int], n: int,
                ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], I64]:
    """From (ray, cell) pairs where the cell would be the ray's first full cell (:func:`_ahead`): per
    cell, how many such rays, and the least change in mismatching rays that a block of one of
    ``colours`` there would make (``inf`` with no colour), with that colour."""
    obs = model.obs[rows]
    total = np.bincount(cells, minlength=n).astype(np.float64)
    miss_now = np.bincount(cells, weights=(pred[rows] != obs), minlength=n)
    best = np.full(n, np.inf)
    best_col = np.zeros(n, np.int64)
    # per cell, the rays showing each colour (one count for all colours: the same integers as a
    # count per colour, exact in float64)
    shows = _label_counts(cells, obs, colours, n)
    for k, v in enumerate(colours):
        d = total - shows[:, k] - miss_now
        better = d < best
        best[better], best_col[better] = d[better], v
    return total, best, best_col


def _label_counts(cells: I64, obs: I64, labels: Sequence[int], n: int) -> npt.NDArray[np.float64]:
    """``(n, len(labels))``: column ``k`` is ``np.bincount(cells, weights=(obs == labels[k]), minlength=n)``
    (one count over all labels; equal labels share a column's counts)."""
    k = len(labels)
    if k == 0 or len(obs) == 0:
        return np.zeros((n, k))
    lut = np.full(max(int(obs.max()), max(labels)) + 1, k, np.int64)  # any other label: column k
    lut[np.asarray(labels, np.int64)] = np.arange(k, dtype=np.int64)
    col = lut[obs]
    counts = np.bincount(cells * (k + 1) + col, minlength=n * (k + 1)).reshape(n, k + 1).astype(np.float64)
    out: npt.NDArray[np.float64] = counts[:, lut[np.asarray(labels, np.int64)]]
    return out


def _improving_cells(model: _RayModel, hyp: I64, act: _ActiveRays, act_pred: npt.NDArray[np.int8],
                     colours: I64, allowed: npt.NDArray[np.bool_], min_rays: int) -> I64:
    """Empty cells (among ``allowed``) where a block of some colour would explain more rays than it
    breaks, given the hypothesis ``hyp`` and its predictions (the search's compact table)."""
    pred = np.full(len(model.obs), int(Label.BACKGROUND), np.int64)
    pred[act.model_rows] = act_pred
    # a block can only explain a ray that shows a piece colour nothing explains yet: the cells in
    # front of the first full cell on those rays are the only ones worth pricing
    loose = np.flatnonzero((pred != model.obs) & np.isin(model.obs, colours) & (model.weight > 0))
    if not len(loose):
        return np.zeros(0, np.int64)
    loose_rows, cand = _ahead(model, hyp, loose)
    ok = allowed[cand]
    loose_rows, cand = loose_rows[ok], cand[ok]
    # at least ``min_pixels`` such rays of one colour (the bar for judging a cell anywhere else)
    n_cells = len(hyp)
    most = _label_counts(cand, model.obs[loose_rows], colours.tolist(), n_cells).max(axis=1, initial=0.0)
    cand = np.flatnonzero(most >= min_rays)
    if not len(cand):
        return np.zeros(0, np.int64)
    stop = _stops(model, act)
    if stop is not None:
        # the (ray, cell) pairs of :func:`_ahead` with a candidate cell, from where ``_ahead`` stops on
        # each ray and the candidates' columns
        parts_r: list[I64] = []
        parts_c: list[I64] = []
        for c in cand.tolist():
            r = model.rays_of[c]
            r = r[model.cols_of(c) < stop[r]]
            parts_r.append(r)
            parts_c.append(np.full(len(r), c, np.int64))
        rows, cells = np.concatenate(parts_r), np.concatenate(parts_c)
        keep = model.weight[rows] > 0
    else:
        through = np.zeros(len(model.obs), bool)  # the rays through any candidate, each once
        through[np.concatenate([model.rays_of[c] for c in cand.tolist()])] = True
        rows, cells = _ahead(model, hyp, np.flatnonzero(through))
        keep = np.isin(cells, cand) & (model.weight[rows] > 0)
    _, best, _ = _fill_costs(model, pred, rows[keep], cells[keep], colours.tolist(), n_cells)
    return np.flatnonzero(best < 0)


def _prune_colour(model: _RayModel, hyp: I64, v: int, cap: int, values: Sequence[int]) -> None:
    """Change colour ``v``'s blocks, one at a time, to whatever costs the fewest rays (empty or
    another colour), until ``v`` has ``cap`` blocks; ``hyp`` is changed in place."""
    others = np.array([w for w in values if w != v], np.int64)
    background = int(Label.BACKGROUND)
    while True:
        cells = np.flatnonzero(hyp == v)
        if len(cells) <= cap:
            return
        # only the rays a block of ``v`` is the first full cell of change: on them, the label shown
        # becomes the other colour, or (emptied) what the next full cell behind it shows
        through = np.zeros(len(model.obs), bool)
        through[np.concatenate([model.rays_of[c] for c in cells.tolist()])] = True
        rows = np.flatnonzero(through)
        sub = model.idx[rows]
        vals = np.append(hyp, 0)[sub]
        full = vals != 0
        ar = np.arange(len(rows))
        first = np.argmax(full, axis=1)
        mine = full[ar, first] & (vals[ar, first] == v)
        rows, sub, vals, full, first = rows[mine], sub[mine], vals[mine], full[mine], first[mine]
        ar = ar[: len(rows)]
        cell_of = sub[ar, first]
        full[ar, first] = False
        second = np.argmax(full, axis=1)
        nxt = np.where(full[ar, second], vals[ar, second], 0)
        behind = np.where((nxt != 0) & (nxt != int(Label.CUBE)), nxt, background)
        obs, wt = model.obs[rows], model.weight[rows]
        now = (obs != v) * wt
        pos = np.searchsorted(cells, cell_of)
        n = len(cells)
        best_d = np.full(n, np.inf)
        best_w = np.zeros(n, np.int64)
        for w in others.tolist():
            shown = behind if w == 0 else np.full(len(rows), w)
            d = np.bincount(pos, weights=(shown != obs) * wt - now, minlength=n)
            better = d < best_d
            best_d[better], best_w[better] = d[better], w
        k = int(np.argmin(best_d))  # the first of equals, as a scan in cell order would pick
        hyp[cells[k]] = best_w[k]


class _ActiveRays:
    """The rays of a :class:`_RayModel` restricted to ``active`` cells (the search's candidates and
    every cell already full), each row listing only those cells in the ray's order; cells are
    numbered locally (``loc``), ``len(cells)`` is an always-empty padding cell."""

    def __init__(self, model: _RayModel, hyp: I64, candidates: npt.NDArray[np.int64]) -> None:
        n = len(model.rays_of)
        active = hyp != 0
        active[np.asarray(candidates, np.int64)] = True
        self.cells = np.flatnonzero(active)
        k = len(self.cells)
        self.loc = np.full(n + 1, k, np.int32)  # index n: the model's "no cell" (-1)
        self.loc[self.cells] = np.arange(k, dtype=np.int32)
        by_index = not model.repeats  # (a ray listing a cell twice, never seen: the table's way)
        if by_index:
            # every active cell's entries from the inverted index (``_RayModel.ray_table``: the rays
            # of each cell in order, with the cell's column on them), and so the rows through one
            sizes = model.n_rays_of[self.cells]
            ends = np.cumsum(sizes)
            at = np.arange(int(ends[-1]) if k else 0, dtype=np.int64)
            at += np.repeat(model.bounds[self.cells] - (ends - sizes), sizes)
            e_rays, e_cols = model.ray_table[at], model.col_table[at]
            through = np.zeros(len(model.obs), bool)
            through[e_rays] = True
            rows = np.flatnonzero(through)
            full = self.loc[model.idx[rows]]  # -1 -> loc[-1] == k
            keep = full != k
        else:
            full = self.loc[model.idx]
            keep = full != k
            rows = np.flatnonzero(keep.any(axis=1))
            full, keep = full[rows], keep[rows]
        self.model_rows = rows  # the model's row of each compact row
        self.cells_ext = np.append(self.cells, -1)  # global cell of each local one, -1 for the padding
        # left-pack each row's active cells (in order) into as few columns as needed
        pos = np.cumsum(keep, axis=1, dtype=np.int32) - 1
        width = max(1, int(pos[:, -1].max()) + 1) if len(rows) else 1
        # the entries row by row, in each row's order (as ``np.nonzero(keep)``, from flat positions)
        flat = np.flatnonzero(keep)
        rr, cc = np.divmod(flat, keep.shape[1])
        flat_rows, flat_cols, flat_cells = rr, pos.ravel()[flat], full.ravel()[flat]
        self.idx = np.full((len(rows), width), k, np.int32)
        self.idx.ravel()[flat_rows * width + flat_cols] = flat_cells
        # each entry's column in the model's table (row by row, as ``np.nonzero`` lists them)
        self._model_col_flat = cc
        self._row_start = np.zeros(len(rows), np.int64)
        if len(rows):
            np.cumsum(pos[:-1, -1] + 1, out=self._row_start[1:])
        self.fpos: npt.NDArray[np.int32] | None = None  # each row's first full column, kept by the search
        self.obs = model.obs[rows].astype(np.int8)
        self.weight = model.weight[rows].astype(np.int8)
        self.hyp = np.zeros(k + 1, np.int8)
        self.hyp[:k] = hyp[self.cells]
        # rows of each local cell (in order), its column on them, and its sub-table (built on first use)
        self._bounds = np.zeros(k + 1, np.int64)
        if by_index:
            # the inverted index lists each cell's rays in order: the same as a stable sort by cell
            compact = np.zeros(len(model.obs), np.int64)
            compact[rows] = np.arange(len(rows))
            self._rows = compact[e_rays]
            self._cols = pos.ravel()[self._rows * pos.shape[1] + e_cols].astype(np.int32)
            self._bounds[1:] = ends
        else:
            order = np.argsort(flat_cells.astype(np.int16) if k < 2**15 else flat_cells, kind="stable")
            self._rows = flat_rows[order]
            self._cols = flat_cols[order].astype(np.int32)
            np.cumsum(np.bincount(flat_cells, minlength=k), out=self._bounds[1:])
        self._cache: dict[int, tuple[I64, npt.NDArray[np.int32], npt.NDArray[np.int8], npt.NDArray[np.bool_]]] = {}
        self._after: dict[int, npt.NDArray[np.int32]] = {}

    def of(self, j: int) -> tuple[I64, npt.NDArray[np.int32], npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
        """Rows through local cell ``j``; the column of ``j`` on each; observations; weights (as booleans)."""
        got = self._cache.get(j)
        if got is None:
            a, b = self._bounds[j], self._bounds[j + 1]
            rows = self._rows[a:b]
            got = (rows, self._cols[a:b], self.obs[rows], self.weight[rows] > 0)
            self._cache[j] = got
        return got

    def model_col(self, crow: I64, col: npt.NDArray[np.int32]) -> I64:
        """The model table's column of the entry at compact rows ``crow``, columns ``col`` (which must
        hold an active cell)."""
        return self._model_col_flat[self._row_start[crow] + col]  # type: ignore[no-any-return]

    def after(self, j: int) -> npt.NDArray[np.int32]:
        """The cells after local cell ``j`` on each of its rows (``of(j)``'s order; the other columns
        hold the empty padding cell); only asked for full cells, so built on first use."""
        sub = self._after.get(j)
        if sub is None:
            rows, q, _obs, _wt = self.of(j)
            sub = self.idx[rows]
            sub[np.arange(sub.shape[1])[None, :] <= q[:, None]] = len(self.cells)
            self._after[j] = sub
        return sub

    def predict(self, sub: npt.NDArray[np.int32]) -> npt.NDArray[np.int8]:
        """As :meth:`_RayModel.predict`, for rows given by their local cell lists."""
        vals = self.hyp[sub]
        if vals.shape[0] == 0:
            return np.zeros(0, np.int8)
        first = np.argmax(vals != 0, axis=1)
        got = vals[np.arange(len(first)), first]
        return np.where((got != 0) & (got != int(Label.CUBE)), got, np.int8(int(Label.BACKGROUND)))


class _BannerRays:
    """What scoring banners against one hypothesis needs, worked out once for all spots: ``hyp`` with
    an empty cell appended (which "no cell", -1, reads), each ray's first full column (worked out the
    first time a ray is asked for), and per colour label the rays that show it unexplained by
    ``pred`` and the rays that speak against a banner of it."""

    def __init__(self, model: _RayModel, hyp: I64, pred: I64, far: _RayModel | None = None,
                 beyond_mat: bool = False) -> None:
        """``far``: the piece-coloured rays beyond the mat (:func:`_trace_both`), their own
        :class:`_BannerRays` (``self.far``, ``beyond_mat``) with the same blocks.  Beyond the mat a
        picture's rays of a colour count for a banner only where the picture shows that colour there
        on few rays no block explains (at most ``FAR_COLOUR_MAX_RAYS``): a table or a cloth of a
        piece's colour (pine, oak, green cloth) fills thousands."""
        self.model = model
        self.hyp_ext = np.append(hyp, 0)
        self.pred = pred
        self._fcol = np.full(len(model.obs), -1, np.int32)  # -1: not worked out yet
        self._labels: dict[int, tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]] = {}
        self.shown = np.ones(len(model.obs), bool)  # rays whose colour may be a banner's
        if beyond_mat:
            loose = pred != model.obs
            key = model.view * N_LABELS + model.obs
            n = np.bincount(key[loose], minlength=int(key.max(initial=0)) + 1)
            self.shown = n[key] <= FAR_COLOUR_MAX_RAYS
        self.far = (None if far is None or not len(far.obs) else
                    _BannerRays(far, hyp, far.predict(hyp), beyond_mat=True))

    def first_full(self, rows: I64) -> npt.NDArray[np.int32]:
        """Each ray's first full column in ``hyp`` (the table's width when none)."""
        f = self._fcol[rows]
        todo = f < 0
        if todo.any():
            r = rows[todo]
            occ = self.hyp_ext[self.model.idx[r]] != 0
            got = np.where(occ.any(axis=1), np.argmax(occ, axis=1), self.model.idx.shape[1]).astype(np.int32)
            self._fcol[r] = got
            f[todo] = got
        return f

    def for_label(self, lab: int) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
        """Rays showing ``lab`` that ``pred`` does not explain (for a banner of ``lab``); rays showing
        free space or another piece colour (against it)."""
        got = self._labels.get(lab)
        if got is None:
            m = self.model
            wpos = m.banner_weighted()
            unexplained = (self.pred != m.obs) & wpos & (m.obs == lab) & self.shown
            other_colour = (m.obs != lab) & (m.obs >= int(Label.BLUE)) & (m.obs <= int(Label.GREEN))
            against = ((m.obs == int(Label.BACKGROUND)) | (m.obs == int(Label.CUBE)) | other_colour) & wpos
            got = (unexplained, against)
            self._labels[lab] = got
        return got


def _banner_score(rays: _BannerRays, vol: _Volume, spot: FlagSpot, lab: int, geom: FlagGeometry,
                  min_rays: int) -> float:
    """Evidence for a flag of label ``lab`` at ``spot``: over the sides its banner may hang on, the
    best (rays showing the colour that no block explains) - (rays showing free space or another colour
    through the banner), all counted on rays that reach the flag's cell before any block; ``-inf`` when
    fewer than ``min_rays`` rays are for it or no more are for than against (``rays``: the
    hypothesis's blocks and predictions, :class:`_BannerRays`, with the rays beyond the mat when it
    has them)."""
    ci = vol.index1(spot.cell)
    if ci < 0:
        return -np.inf
    far = None if rays.far is None else _banner_part(rays.far, ci, lab, 0)
    n_far = 0 if far is None else int(np.count_nonzero(far[2]))
    near = _banner_part(rays, ci, lab, min_rays - n_far)
    parts = [p for p in (near, far) if p is not None]
    if not parts or sum(int(np.count_nonzero(p[2])) for p in parts) < min_rays:
        return -np.inf
    o = [np.concatenate([p[0][a] for p in parts]) for a in range(3)]
    d = [np.concatenate([p[1][a] for p in parts]) for a in range(3)]
    pos_obs = np.concatenate([p[2] for p in parts])
    neg_obs = np.concatenate([p[3] for p in parts])
    best = -np.inf
    for inside in _banner_sides(o, d, spot, geom):
        npos = int(np.count_nonzero(inside & pos_obs))
        nneg = int(np.count_nonzero(inside & neg_obs))
        if npos >= min_rays and npos > nneg:
            best = max(best, float(npos - nneg))
    return best


def _banner_part(rays: _BannerRays, ci: int, lab: int, min_rays: int,
                 ) -> tuple[list[npt.NDArray[np.float64]], list[npt.NDArray[np.float64]], npt.NDArray[np.bool_],
                            npt.NDArray[np.bool_]] | None:
    """The rays of ``rays`` through cell ``ci`` for or against a banner of label ``lab`` there, among
    those that reach the cell before any block: origins and directions per axis, and which are for
    it and which against; ``None`` when fewer than ``min_rays`` are for it (then none of its sides
    can reach ``min_rays`` on these rays alone) or none is either."""
    model = rays.model
    rows = model.rays_of[ci]
    if len(rows) == 0:
        return None
    unexplained, against = rays.for_label(lab)
    pos_obs = unexplained[rows]
    if np.count_nonzero(pos_obs) < min_rays:  # every side's count is a part of these: none can reach min_rays
        return None
    reach = rays.first_full(rows) > model.cols_of(ci)  # the ray reaches the flag's cell before any block
    pos_obs &= reach
    if np.count_nonzero(pos_obs) < min_rays:  # as above, among the rays that reach it
        return None
    # only the rays for or against a banner count
    neg_obs = against[rows]
    keep = pos_obs | (neg_obs & reach)
    rows = rows[keep]
    if len(rows) == 0:
        return None
    return ([model.origins[a][rows] for a in range(3)], [model.dirs[a][rows] for a in range(3)], pos_obs[keep],
            neg_obs[keep])


def _banner_sides(o: Sequence[npt.NDArray[np.float64]], d: Sequence[npt.NDArray[np.float64]], spot: FlagSpot,
                  geom: FlagGeometry) -> list[npt.NDArray[np.bool_]]:
    """For each side a banner at ``spot`` may hang on (never below a sideways pole), which of the rays
    (origins ``o`` and directions ``d`` per axis, block units) pass through it."""
    n = spot.normal
    b = spot.block
    nv = np.array(n, float)
    base = np.array([b[0] + 0.5, b[1] + 0.5, b[2] + 0.5]) + 0.5 * nv
    mid = 0.5 * (geom.banner_from + geom.banner_to)
    half_along = 0.5 * (geom.banner_to - geom.banner_from)
    half_side = 0.5 * geom.banner_width
    na = _axis_of(n)
    out: list[npt.NDArray[np.bool_]] = []
    # the crossing with the banner's plane and its distance along the pole depend on the plane's
    # axis and the centre's coordinates on it and along the pole only: shared by opposite sides
    crossings: dict[tuple[int, float, float], tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]] = {}
    for e in ALL_DIRS:
        if e[0] * n[0] + e[1] * n[1] + e[2] * n[2] != 0 or (n[2] == 0 and e[2] < 0):
            continue
        centre = base + mid * nv + half_side * np.array(e, float)
        # the banner's plane is normal to the third axis (n and e are unit axis vectors): every dot
        # product below is one coordinate, exactly
        ea = _axis_of(e)
        ma = 3 - na - ea
        key = (ma, float(centre[ma]), float(centre[na]))
        got = crossings.get(key)
        if got is None:
            dm = d[ma]
            with np.errstate(divide="ignore", invalid="ignore"):
                t = (centre[ma] - o[ma]) / dm
                along = np.abs(o[na] + t * d[na] - centre[na])
                ok = (np.abs(dm) > 1e-6) & (t > 0) & (along <= half_along)
            got = (t, ok)
            crossings[key] = got
        t, ok = got
        with np.errstate(invalid="ignore"):
            out.append(ok & (np.abs(o[ea] + t * d[ea] - centre[ea]) <= half_side))
    return out


def _axis_of(v: Cell) -> int:
    """The axis of a unit axis vector."""
    return 0 if v[0] else 1 if v[1] else 2


def _fit_flags_residual(
    model: _RayModel, hyp: I64, pred: I64, vol: _Volume, blocks: Mapping[Cell, str], cfg: ReconstructConfig,
    geom: FlagGeometry, far: _RayModel | None = None,
) -> tuple[dict[str, FlagSpot], dict[str, float]]:
    """Flags from the rays that pass through a banner (``far``: with the piece-coloured rays beyond the
    mat, :func:`_trace_both`).

    Every legal flag spot of a colour (engine rules: a free cell in front of one of its blocks'
    faces, never pointing down) and every side its banner may hang on is a thin rectangle inside the
    flag's cell, scored by :func:`_banner_score`; the best spot of each colour wins, no two flags in
    one cell."""
    occupied = set(blocks) | set(CENTRAL_CUBE)
    candidates: list[tuple[float, str, FlagSpot]] = []
    scores: dict[str, float] = {}
    rays = _BannerRays(model, hyp, pred, far)
    for color in cfg.colors:
        lab = int(COLOR_LABELS[color])
        best = 0.0
        for b, col in blocks.items():
            if col != color:
                continue
            for n in NOT_DOWN:
                cell = (b[0] + n[0], b[1] + n[1], b[2] + n[2])
                if cell in occupied:
                    continue
                spot = FlagSpot.on_block(b, n)
                score = _banner_score(rays, vol, spot, lab, geom, cfg.flag_min_rays)
                if score > 0:
                    candidates.append((score, color, spot))
                    best = max(best, score)
        scores[color] = best
    flags: dict[str, FlagSpot] = {}
    taken: set[Cell] = set()
    for _score, color, spot in sorted(candidates, key=lambda c: -c[0]):
        if color in flags or spot.cell in taken:
            continue
        flags[color] = spot
        taken.add(spot.cell)
    return flags, scores


def banner_may_hang(sides: Sequence[tuple[int, int]], contradiction: float, min_judged: int) -> bool:
    """May a banner hang at a spot, given :meth:`RayScorer.banner_seen_against`'s ``(same, other)`` ray
    counts for each side it may hang on?  Yes unless every side is judged (at least ``min_judged`` rays)
    and shows something else on more than ``contradiction`` of its rays; yes when no ray passes."""
    return not sides or any(other <= contradiction * (same + other) or same + other < min_judged
                            for same, other in sides)
