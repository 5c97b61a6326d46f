"""Finer rays where the sampled ones cannot decide (issue 5; docs/vision.md, "Session 14: finer rays where the
sampled ones cannot decide").

The reconstruct stage samples every ``pixel_stride``-th pixel (4): a block that a picture shows by a sliver a few
pixels wide -- a fourth-level block grazed by perspective rays, a block just above another's edge -- changes the
prediction of fewer than 3 sampled rays, too few for the free reading to add it or to tell it from a block behind.
Here every ``stride``-th pixel (1 or 2) inside the projection of a few chosen cells only is classified with the
view's own colour model and traced through the same volume (:func:`vision.reconstruct.trace_pixels`), giving a
second :class:`~vision.reconstruct.RayScorer` that prices those cells at the finer resolution.  Its rays are
counted apart from the sampled ones (one fine ray is 1 / (4 / stride)^2 of a sampled ray's area): the search
itself is not given them, so they cannot swamp the rest.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import cv2
import numpy as np
import numpy.typing as npt

from calibration.colour import ColourModel
from engine.ctrl import BLOCKS_PER_COLOR, State
from engine.ctrl.geometry import CENTRAL_CUBE, Cell
from vision.classify import classify
from vision.free_rules import depth_tie_candidates
from vision.reconstruct import RayScorer, ReconstructConfig, ViewEvidence, trace_pixels

I64 = npt.NDArray[np.int64]
U8 = npt.NDArray[np.uint8]


class DepthAlternativeLike(Protocol):
    """A block at ``cell`` and the cell ``target`` it might stand on instead (``free_rules.DepthAlternative``)."""

    @property
    def cell(self) -> Cell: ...

    @property
    def target(self) -> Cell: ...


def cell_pixels(view: ViewEvidence, cells: Sequence[Cell], stride: int) -> I64:
    """Every ``stride``-th pixel (x, y; from ``stride // 2``) inside the projection of any of ``cells`` in ``view``'s
    picture (the convex hull of each cell's corners, a pixel's margin), each once (cells behind the camera are
    skipped)."""
    cam = view.camera
    h, w = view.labels.shape
    s = cam.block_mm
    off = np.array([[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)], np.float64)
    hulls = []
    for cell in cells:
        corners = (np.asarray(cell, np.float64)[None, :] + off) * s
        if not np.all(cam.depth(corners) > 0):
            continue
        pc = cam.project(corners)
        if not np.all(np.isfinite(pc)) or np.abs(pc).max() > 4 * (w + h):
            continue
        # grid coordinates: the grid's pixel k is stride // 2 + k * stride
        hulls.append(cv2.convexHull(np.round((pc - stride // 2) / stride).astype(np.int32)))
    if not hulls:
        return np.zeros((0, 2), np.int64)
    # a mask over the hulls' box only
    pts = np.concatenate(hulls).reshape(-1, 2)
    x0, y0 = np.maximum(pts.min(axis=0), 0)
    x1 = min(int(pts[:, 0].max()) + 1, -(-w // stride))
    y1 = min(int(pts[:, 1].max()) + 1, -(-h // stride))
    if x1 <= x0 or y1 <= y0:
        return np.zeros((0, 2), np.int64)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    for hull in hulls:
        cv2.fillConvexPoly(mask, hull - np.array([x0, y0], np.int32), 1)
    gy, gx = np.nonzero(mask)
    pix = np.stack([(gx + x0) * stride + stride // 2, (gy + y0) * stride + stride // 2], axis=1).astype(np.int64)
    return pix[(pix[:, 0] < w) & (pix[:, 1] < h)]  # type: ignore[no-any-return]


def fine_scorer(pictures: Sequence[U8], models: Sequence[ColourModel], views: Sequence[ViewEvidence],
                pixels: Sequence[I64], cfg: ReconstructConfig | None = None,
                box: tuple[Cell, Cell] | None = None, kept: Collection[Cell] = ()) -> RayScorer:
    """A scorer of the rays of ``pixels`` (per picture, x, y) classified with each picture's colour model
    (``pictures``, ``models``, ``views`` and ``pixels`` in the same order); ``box``: the rays' cells inside this box
    only (:func:`pricing_box`), ``kept``: blocks in every set priced (``reconstruct.trace_pixels``)."""
    labels = [classify(img[pix[:, 1], pix[:, 0]][:, None, :], model)[:, 0].astype(np.int64) if len(pix)
              else np.zeros(0, np.int64) for img, model, pix in zip(pictures, models, pixels, strict=True)]
    return trace_pixels(views, pixels, labels, cfg, box=box, kept=kept)


def pricing_box(cells: Collection[Cell]) -> tuple[Cell, Cell]:
    """The box of cells around ``cells`` and the Central Cube, one cell wider on every side.  A scorer asked only
    about sets of blocks made of these cells (blocks kept in every set, the cells priced) sees the same first full
    cell on every ray if its rays list only their cells in this box (``reconstruct.trace_pixels``'s ``box``): every
    cell that can be full is inside, the cells outside are empty in every set; the extra cell each side keeps the
    cut planes a whole cell away from any cell that can be full."""
    arr = np.array(sorted({*cells, *CENTRAL_CUBE}), np.int64)
    lo, hi = arr.min(axis=0) - 1, arr.max(axis=0) + 1
    return ((int(lo[0]), int(lo[1]), int(lo[2])), (int(hi[0]), int(hi[1]), int(hi[2])))


#: :func:`add_by_fine_rays`: on/off, and the finer sampling (every ``FINE_STRIDE``-th pixel where a candidate projects)
FINE_BLOCKS = True
FINE_STRIDE = 1
#: the candidates: empty cells where a block would be held and change a side's count that the sampled rays price
#: within this many rays either way (``free_rules.DEPTH_TIE_RAYS``: "about as well explained")
FINE_MAX_SAMPLED = 6
#: a block is added when the fine rays it changes, net, favour it by at least this many (at stride 1 a sampled ray
#: stands for 16 fine ones) ...
FINE_MIN_GAIN = 20
#: ... and by at least this share of the fine rays whose label it changes (those it explains less those it no longer
#: explains): a block a few pixels show, not one whole faces argue over (a depth tie)
FINE_MIN_SHARE = 0.3
#: more fine pixels than this (over every picture) for the candidates: every ``2 * FINE_STRIDE``-th instead (CPU time)
FINE_MAX_PIXELS = 100_000
#: at most this many blocks added so
FINE_MAX_ADDED = 3


@dataclass(frozen=True)
class FineBlock:
    """A block added where the sampled rays could not tell: ``gain`` fine rays net, that as a ``share`` of those it
    changes, the sampled rays' price ``sampled`` (positive: fewer explained), the sides whose count it changes."""

    cell: Cell
    colour: str
    gain: int
    share: float
    sampled: int
    sides: tuple[str, ...]

    def __str__(self) -> str:
        return f"a {self.colour} block at {self.cell[0]},{self.cell[1]},{self.cell[2]}"


def _agreeing(fine: RayScorer, blocks: Mapping[Cell, str], cell: Cell, colour: str) -> tuple[int, int, int]:
    """Fine rays whose label a ``colour`` block at ``cell`` changes: how many then agree with the picture, how many
    agreed before, of how many."""
    _view, _pix, obs = fine.rays()
    before = fine.predictions(blocks)
    after = fine.predictions({**blocks, cell: colour})
    changed = (before != after) & fine.counted()
    return (int(np.count_nonzero((after == obs) & changed)), int(np.count_nonzero((before == obs) & changed)),
            int(np.count_nonzero(changed)))


def add_by_fine_rays(state: State, scorer: RayScorer, skip: Collection[Cell], pictures: Sequence[U8],
                     models: Sequence[ColourModel], views: Sequence[ViewEvidence],
                     cfg: ReconstructConfig | None = None) -> tuple[dict[Cell, str], list[FineBlock], int]:
    """Blocks the sampled rays cannot decide (``free_rules.depth_tie_candidates`` within
    :data:`FINE_MAX_SAMPLED`; not in ``skip``) that the finer rays where they project show: the blocks with them
    added, the blocks added (best first, one at a time, each priced again on the blocks before it; a colour's
    22 blocks not exceeded, rulebook "Components"), and the pixels classified."""
    blocks = dict(state.blocks)
    if not FINE_BLOCKS:
        return blocks, [], 0
    full = {c for c in state.colors if sum(1 for v in blocks.values() if v == c) >= BLOCKS_PER_COLOR}
    ties = [t for t in depth_tie_candidates(state, scorer, skip, FINE_MAX_SAMPLED) if t.colour not in full]
    if not ties:
        return blocks, [], 0
    sampled = {(t.cell, t.colour): t for t in ties}
    cells = sorted({t.cell for t in ties})
    stride = FINE_STRIDE
    pixels = [cell_pixels(v, cells, stride) for v in views]
    if sum(len(p) for p in pixels) > FINE_MAX_PIXELS:
        # many candidates: every other pixel each way (the gain asked scales with the pixels' area)
        pixels = [p[(p[:, 0] % 2 == stride % 2) & (p[:, 1] % 2 == stride % 2)] for p in pixels]
        stride *= 2
    n_pixels = sum(len(p) for p in pixels)
    # only sets of the blocks read and of candidate cells are priced below: every ray's cells outside the box
    # around them are empty in each, and those after its first block read never come first (session 19: the same
    # prices, from shorter rows)
    fine = fine_scorer(pictures, models, views, pixels, cfg, box=pricing_box([*blocks, *cells]), kept=list(blocks))
    min_gain = max(1, round(FINE_MIN_GAIN * (FINE_STRIDE / stride) ** 2))
    added: list[FineBlock] = []
    while len(added) < FINE_MAX_ADDED:
        fine.set_base(blocks)
        todo = [c for c in cells if c not in blocks]
        best: tuple[int, Cell, str] | None = None
        for colour in sorted({col for _, col in sampled}):
            if sum(1 for v in blocks.values() if v == colour) >= BLOCKS_PER_COLOR:
                continue
            here = [c for c in todo if (c, colour) in sampled]
            for c, d in zip(here, fine.deltas([[c] for c in here], colour), strict=True):
                if d <= -min_gain and (best is None or d < best[0]):
                    best = (d, c, colour)
        if best is None:
            break
        d, c, colour = best
        agree, disagree, changed = _agreeing(fine, blocks, c, colour)
        if changed == 0 or (agree - disagree) / changed < FINE_MIN_SHARE:
            sampled.pop((c, colour))
            continue
        t = sampled[(c, colour)]
        added.append(FineBlock(c, colour, -d, (agree - disagree) / changed, t.rays, t.sides))
        blocks[c] = colour
    return blocks, added, n_pixels


@dataclass(frozen=True)
class AlternativeJudgement:
    """A block and its one-cell-off alternative (``free_rules.DepthAlternative``) priced finer: ``fine_gain`` fine
    rays the move explains net (stride-1 units; positive: the moved block fits better), ``fine_share`` that as a
    share of the fine rays it changes, ``fine_changed`` how many; ``fine_add`` the fine rays a second block at the
    target (the read one kept) explains net; ``edge`` the outline fit (:func:`outline_score`; positive: the
    picture's edges follow the moved block's outline; None: no picture shows either outline), over ``edge_views``
    pictures and ``edge_pixels`` outline pixels."""

    fine_gain: int
    fine_share: float
    fine_changed: int
    fine_add: int
    edge: float | None
    edge_views: int
    edge_pixels: int


_CORNERS = np.array([[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)], np.float64)
_DIRS: tuple[Cell, ...] = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))


def _roi(view: ViewEvidence, cells: Sequence[Cell], margin: int) -> tuple[int, int, int, int] | None:
    """The pixel box (x0, y0, x1, y1) around the projections of ``cells`` in ``view``, ``margin`` pixels wider."""
    cam = view.camera
    h, w = view.labels.shape
    pts = np.concatenate([(np.asarray(c, np.float64)[None, :] + _CORNERS) * cam.block_mm for c in cells])
    if not np.all(cam.depth(pts) > 0):
        return None
    pc = cam.project(pts)
    if not np.all(np.isfinite(pc)):
        return None
    x0, y0 = np.floor(pc.min(axis=0)).astype(int) - margin
    x1, y1 = np.ceil(pc.max(axis=0)).astype(int) + margin + 1
    x0, y0, x1, y1 = max(int(x0), 0), max(int(y0), 0), min(int(x1), w), min(int(y1), h)
    return (x0, y0, x1, y1) if x1 - x0 > 2 and y1 - y0 > 2 else None


def _face_quads() -> npt.NDArray[np.float64]:
    """Per direction of :data:`_DIRS`, the 4 corners (around the face) of a unit cell's face, from the cell's corner."""
    out = np.zeros((6, 4, 3))
    for k, n in enumerate(_DIRS):
        ax = [i for i in range(3) if n[i] == 0]
        base = np.array([0.5 + 0.5 * n[0], 0.5 + 0.5 * n[1], 0.5 + 0.5 * n[2]])
        for q, (a, b) in enumerate(((-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5))):
            c = base.copy()
            c[ax[0]] += a
            c[ax[1]] += b
            out[k, q] = c
    return out


_QUADS = _face_quads()
_DIR_ARR = np.array(_DIRS, np.int64)


def face_ids_in(blocks: Mapping[Cell, str], view: ViewEvidence,
                roi: tuple[int, int, int, int]) -> npt.NDArray[np.int64]:
    """Per pixel of ``roi`` (x0, y0, x1, y1), which face of which block (or of the Central Cube) the camera sees:
    an id per (cell, face) (-1: none, the mat); a block's crease between two of its faces is an edge too.  Only the
    cells whose projection reaches the box are drawn, their faces that look at the camera and touch no other cell,
    farthest first (the faces of a grid of cubes do not cross: a face nearer the camera than another by its centre
    is in front of it where the two overlap)."""
    from engine.ctrl.geometry import CENTRAL_CUBE

    cam = view.camera
    x0, y0, x1, y1 = roi
    ids = np.full((y1 - y0, x1 - x0), -1, np.int32)
    s = cam.block_mm
    cam_c = np.asarray(cam.center, np.float64) / s
    things = sorted(set(blocks) | set(CENTRAL_CUBE))
    occupied = set(things)
    arr = np.asarray(things, np.float64)
    # the cells whose 8 corners' box in the picture meets the roi (all in front of the camera)
    pts = ((arr[:, None, :] + _CORNERS[None]) * s).reshape(-1, 3)
    front = (cam.depth(pts) > 0).reshape(len(things), 8).all(axis=1)
    pc = cam.project(pts).reshape(len(things), 8, 2)
    lo, hi = pc.min(axis=1), pc.max(axis=1)
    near = np.flatnonzero(front & (hi[:, 0] >= x0 - 1) & (lo[:, 0] <= x1 + 1) & (hi[:, 1] >= y0 - 1)
                          & (lo[:, 1] <= y1 + 1))
    faces: list[tuple[int, int]] = []
    for n_cell in near.tolist():
        cell = things[n_cell]
        for k, n in enumerate(_DIRS):
            if (cell[0] + n[0], cell[1] + n[1], cell[2] + n[2]) in occupied or (n[2] == -1 and cell[2] == 0):
                continue
            ax = 0 if n[0] else 1 if n[1] else 2
            plane = cell[ax] + (1 if n[ax] > 0 else 0)
            if (cam_c[ax] - plane) * n[ax] <= 0:  # the face looks away from the camera
                continue
            faces.append((n_cell, k))
    if not faces:
        return ids.astype(np.int64)
    fc = np.array(faces, np.int64)
    corners = (arr[fc[:, 0]][:, None, :] + _QUADS[fc[:, 1]]) * s  # (F, 4, 3)
    centre = corners.mean(axis=1)
    far_first = np.argsort(-np.linalg.norm(centre - cam_c * s, axis=1), kind="stable")
    proj = cam.project(corners.reshape(-1, 3)).reshape(len(faces), 4, 2)
    off = np.array([x0, y0], np.float64)
    for f in far_first.tolist():
        q = proj[f]
        if not np.all(np.isfinite(q)):
            continue
        cv2.fillConvexPoly(ids, np.round(q - off).astype(np.int32), int(fc[f, 0] * 6 + fc[f, 1]))
    return ids.astype(np.int64)


def _edges(ids: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
    """Pixels with a 4-neighbour of another id (both sides of a drawn outline)."""
    e = np.zeros(ids.shape, bool)
    e[1:] |= ids[1:] != ids[:-1]
    e[:-1] |= ids[1:] != ids[:-1]
    e[:, 1:] |= ids[:, 1:] != ids[:, :-1]
    e[:, :-1] |= ids[:, 1:] != ids[:, :-1]
    return e


#: :func:`outline_score`: outline pixels of one placement within this many pixels of the other's are left out
OUTLINE_APART_PX = 1
#: ... and a picture with fewer pixels apart than this (either placement) does not count
OUTLINE_MIN_PIXELS = 10


def outline_score(blocks: Mapping[Cell, str], cell: Cell, target: Cell, pictures: Sequence[U8],
                  views: Sequence[ViewEvidence]) -> tuple[float | None, int, int]:
    """Which of two placements of a block (at ``cell``, as in ``blocks``, or moved to ``target``) the pictures'
    edges follow: both readings are drawn as face images (:func:`face_ids_in`) around the two cells in each
    picture; on the outline pixels only one of them predicts (more than :data:`OUTLINE_APART_PX` from the
    other's) the picture's grey gradient (Sobel after a 3 x 3 blur) is averaged, over every picture.  Returns
    log(mean gradient on the moved block's own outline / on the reading's own outline) -- positive: the edges are
    where the moved block puts them -- or None when no picture has both; the pictures and outline pixels used."""
    moved = {k: v for k, v in blocks.items() if k != cell}
    moved[target] = blocks[cell]
    sum_a = sum_b = 0.0
    n_a = n_b = 0
    n_views = 0
    kernel = np.ones((2 * OUTLINE_APART_PX + 1, 2 * OUTLINE_APART_PX + 1), np.uint8)
    for img, view in zip(pictures, views, strict=True):
        roi = _roi(view, [cell, target], 3)
        if roi is None:
            continue
        ea = _edges(face_ids_in(blocks, view, roi))
        eb = _edges(face_ids_in(moved, view, roi))
        only_a = ea & (cv2.dilate(eb.astype(np.uint8), kernel) == 0)
        only_b = eb & (cv2.dilate(ea.astype(np.uint8), kernel) == 0)
        if only_a.sum() < OUTLINE_MIN_PIXELS or only_b.sum() < OUTLINE_MIN_PIXELS:
            continue
        x0, y0, x1, y1 = roi
        # the gradient of the box (one pixel wider, so the box's own border has a true Sobel)
        gx0, gy0 = max(x0 - 2, 0), max(y0 - 2, 0)
        crop = img[gy0:y1 + 2, gx0:x1 + 2]
        grey = cv2.GaussianBlur(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), (3, 3), 0).astype(np.float32)
        grad = np.hypot(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1))
        g = grad[y0 - gy0:y1 - gy0, x0 - gx0:x1 - gx0]
        sum_a += float(g[only_a].sum())
        sum_b += float(g[only_b].sum())
        n_a += int(only_a.sum())
        n_b += int(only_b.sum())
        n_views += 1
    if n_views == 0:
        return None, 0, 0
    mean_a, mean_b = sum_a / n_a, sum_b / n_b
    return float(np.log(max(mean_b, 1e-3) / max(mean_a, 1e-3))), n_views, n_a + n_b


def fine_move_gains(blocks: Mapping[Cell, str], alternatives: Sequence[DepthAlternativeLike],
                    pictures: Sequence[U8], models: Sequence[ColourModel], views: Sequence[ViewEvidence],
                    cfg: ReconstructConfig | None = None) -> list[tuple[int, float, int, int]]:
    """Each block and its alternative (``.cell``, ``.target``) priced on the finer rays where either cell projects
    (one scorer for all of them): (fine rays the move explains net, in stride-1 units; that as a share of the fine
    rays it changes; how many it changes; fine rays a second block at the target explains net, the read one kept).
    """
    if not alternatives:
        return []
    cells = sorted({a.cell for a in alternatives} | {a.target for a in alternatives})
    stride = FINE_STRIDE
    pixels = [cell_pixels(v, cells, stride) for v in views]
    if sum(len(p) for p in pixels) > FINE_MAX_PIXELS:
        pixels = [p[(p[:, 0] % 2 == stride % 2) & (p[:, 1] % 2 == stride % 2)] for p in pixels]
        stride *= 2
    scale = (stride // FINE_STRIDE) ** 2
    fine = fine_scorer(pictures, models, views, pixels, cfg)
    fine.set_base(blocks)
    _view, _pix, obs = fine.rays()
    counted = fine.counted()
    before = fine.predictions(blocks)
    out: list[tuple[int, float, int, int]] = []
    for a in alternatives:
        gain = fine.move_gains(a.cell, [a.target])[0] * scale
        moved = {k: v for k, v in blocks.items() if k != a.cell}
        moved[a.target] = blocks[a.cell]
        after = fine.predictions(moved)
        changed = (before != after) & counted
        n = int(np.count_nonzero(changed))
        net = int(np.count_nonzero((after == obs) & changed)) - int(np.count_nonzero((before == obs) & changed))
        add = -fine.deltas([[a.target]], blocks[a.cell])[0] * scale
        out.append((gain, net / n if n else 0.0, n * scale, add))
    return out


def judge_alternatives(blocks: Mapping[Cell, str], alternatives: Sequence[DepthAlternativeLike],
                       pictures: Sequence[U8], models: Sequence[ColourModel], views: Sequence[ViewEvidence],
                       cfg: ReconstructConfig | None = None) -> list[AlternativeJudgement]:
    """Each block and its alternative (``.cell``, ``.target``) priced on the finer rays (:func:`fine_move_gains`)
    and by :func:`outline_score`."""
    out: list[AlternativeJudgement] = []
    for a, (gain, share, changed, add) in zip(alternatives, fine_move_gains(blocks, alternatives, pictures, models,
                                                                             views, cfg), strict=True):
        edge, n_views, n_px = outline_score(blocks, a.cell, a.target, pictures, views)
        out.append(AlternativeJudgement(gain, share, changed, add, edge, n_views, n_px))
    return out
