"""A flag's pole seen as an uncoloured line across coloured blocks (with the game's history).

A banner hanging in front of, or on top of, blocks of its own colour shows no colour the blocks do not
explain, so the banner evidence cannot place it (docs/vision.md, "Session 14: reading a round back" and
"Session 15: flags one turn back": most flags a reading one turn back gets wrong stand so).  The pole still
stands there, a thin light-grey rod; the grey-level line tests (:mod:`vision.poles`) often miss it against
blocks, because a lit yellow or green face is about as light as the pole.  What tells the rod from a block
face is its colour: it has none.  Along the pole's projected axis (the same points :mod:`vision.poles`
samples, clear of the socket and of the banner, those the Central Cube or the blocks hide left out) a point
counts when the picture there is much less saturated than on *both* sides (the sides are coloured: blocks),
and not dark (the gaps between blocks and the shadows are dark and unsaturated too).  A picture shows the
pole when half its points count.

Measured on SIMULATED development renders one turn back (fixtures/ctrl, held13, fresh13c, held12, fresh12c;
the flag of the colour that played, every legal spot on the true blocks): with five pictures the true spot
was the only legal spot whose pole some picture shows this way for 50 of 109 flags, another spot for 2;
with nine pictures 68 and 2 of 112.  It is used only where the reading has nothing better: a mover's flag
not found, or placed by a pole step, or read from a handful of banner rays (``vision.pipeline``,
``NEUTRAL_POLE_MOVES``); the flag so placed stays a guess (``flag-ambiguous`` names the sides its other
spots would change), so the reading is not trusted on it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from engine.ctrl.geometry import Cell
from engine.ctrl.moves import FlagSpot
from vision.camera import ViewCamera
from vision.pieces import FLAG, FlagGeometry
from vision.poles import PoleConfig, _OccupancyGrid, axis_samples

U8 = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class NeutralConfig:
    saturation_drop: float = 0.3  # the sides' saturation (chroma / lightness) above the line's by this much
    chroma_drop: float = 15.0  # and their chroma (max - min channel) above the line's by this many levels
    min_grey: float = 50.0  # the line itself at least this light (grey level): not a gap or a shadow
    line_share: float = 0.5  # share of a picture's points that must count for it to show the pole


NEUTRAL = NeutralConfig()


class NeutralPoleJudge:
    """Which pictures show an uncoloured line along the pole of each spot (see the module docstring).
    ``images``: the pictures (BGR); ``occupied``: the blocks' cells (their occlusion is left out)."""

    def __init__(self, images: Sequence[U8], cameras: Sequence[ViewCamera], occupied: Collection[Cell],
                 cfg: NeutralConfig = NEUTRAL, geom: FlagGeometry = FLAG, pole: PoleConfig | None = None) -> None:
        if len(images) != len(cameras):
            raise ValueError(f"{len(images)!r} pictures but {len(cameras)!r} cameras")
        for img in images:
            if img.ndim != 3:
                raise ValueError(f"a colour picture is needed, got shape {img.shape!r}")
        # the pictures are sampled at the axis points only (a whole-picture chroma costs ~35 ms a picture)
        self._images = [np.ascontiguousarray(img) for img in images]
        self._cameras = list(cameras)
        self._occ = _OccupancyGrid(occupied) if occupied else None
        self.cfg = cfg
        self._geom = geom
        self._pole = pole or PoleConfig()

    def views(self, spots: Sequence[FlagSpot]) -> dict[FlagSpot, list[int]]:
        """Per spot, the indices of the pictures showing its pole as an uncoloured line."""
        out: dict[FlagSpot, list[int]] = {sp: [] for sp in spots}
        uniq = list(out)
        if not uniq:
            return out
        for k, cam in enumerate(self._cameras):
            for sp, share in zip(uniq, self._shares(k, cam, uniq), strict=True):
                if share is not None and share >= self.cfg.line_share:
                    out[sp].append(k)
        return out

    def _shares(self, k: int, cam: ViewCamera, spots: Sequence[FlagSpot]) -> list[float | None]:
        """The share of each spot's visible axis points that count in picture ``k`` (``None``: not judged,
        by the rules of :class:`vision.poles.PoleJudge`)."""
        cfg = self.cfg
        img = self._images[k]
        a = axis_samples(cam, spots, img.shape[:2], self._pole, self._geom, self._occ)
        m = len(spots)
        out: list[float | None] = [None] * m
        if not a.ok.any():
            return out
        cc, gc = _chroma_grey(img, a.centre)
        cl, gl = _chroma_grey(img, a.centre - a.side)
        cr, gr = _chroma_grey(img, a.centre + a.side)

        def sat(c: npt.NDArray[np.float32], g: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
            # chroma over lightness (an HSL-like saturation, without the max)
            return np.asarray(c / (g + c / 2 + 1.0), np.float32)

        sc, sl, sr = sat(cc, gc), sat(cl, gl), sat(cr, gr)
        hit = ((sl - sc > cfg.saturation_drop) & (sr - sc > cfg.saturation_drop) & (gc > cfg.min_grey)
               & (cl - cc > cfg.chroma_drop) & (cr - cc > cfg.chroma_drop))
        n_hit = np.bincount(a.owner, weights=hit, minlength=m)
        for i in np.flatnonzero(a.ok):
            out[i] = float(n_hit[i]) / float(a.counts[i])
        return out


def _chroma_grey(img: U8, p: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """The chroma (max - min channel) and grey level (``cv2.COLOR_BGR2GRAY``'s weights) of the BGR picture
    at the points ``p`` (x, y; bilinear)."""
    m = cv2.remap(img, p[:, 0].astype(np.float32).reshape(-1, 1), p[:, 1].astype(np.float32).reshape(-1, 1),
                  cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    bgr = np.asarray(m, np.float32).reshape(-1, 3)
    chroma = bgr.max(axis=1) - bgr.min(axis=1)
    grey = 0.114 * bgr[:, 0] + 0.587 * bgr[:, 1] + 0.299 * bgr[:, 2]
    return chroma.astype(np.float32), grey.astype(np.float32)


def only_spot(views: dict[FlagSpot, list[int]], min_views: int = 1) -> FlagSpot | None:
    """The spot whose pole more pictures show than any other's, at least ``min_views`` (None: no such spot)."""
    ranked = sorted(views, key=lambda sp: -len(views[sp]))
    if not ranked or len(views[ranked[0]]) < min_views:
        return None
    if len(ranked) > 1 and len(views[ranked[1]]) >= len(views[ranked[0]]):
        return None
    return ranked[0]
