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

import cv2
import numpy as np
import numpy.typing as npt

from calibration.colour import ColourModel
from engine.ctrl import BLOCKS_PER_COLOR, State
from engine.ctrl.geometry import Cell
from vision.classify import classify
from vision.free_rules import depth_tie_candidates
from vision.reconstruct import RayScorer, ReconstructConfig, ViewEvidence, trace_pixels

I64 = npt.NDArray[np.int64]
U8 = npt.NDArray[np.uint8]


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
                pixels: Sequence[I64], cfg: ReconstructConfig | None = None) -> RayScorer:
    """A scorer of the rays of ``pixels`` (per picture, x, y) classified with each picture's colour model
    (``pictures``, ``models``, ``views`` and ``pixels`` in the same order)."""
    labels = [classify(img[pix[:, 1], pix[:, 0]][:, None, :], model)[:, 0].astype(np.int64) if len(pix)
              else np.zeros(0, np.int64) for img, model, pix in zip(pictures, models, pixels, strict=True)]
    return trace_pixels(views, pixels, labels, cfg)


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
    fine = fine_scorer(pictures, models, views, pixels, cfg)
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
