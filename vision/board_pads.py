"""Gridopolis: which pads of the grid-set are on the table (pads added or left out during play).

The level guide only prints the standard grid-set, but players add pads during a game (rulebook
"Agregar un pad": linked beside a pad of the same level, or on a post above another pad) and a game
of two or three players leaves out the unused seats' arms.  The reader therefore does not assume the
pads: every **candidate** pad position the engine could hold on the guide's footprint (7 x 7, levels
0 to ``max_level``) is tested in the picture.

A pad is a physical object at a known place and height (``calibration.boards.gridopolis_pad_centre_mm``):
its top is a 40 mm grey square ``6 + 55 L`` mm up.  Points on two square rings of that top (outside
the 22 mm marker that may stand in its middle) are projected into the picture.  Each point's ray
goes on to what the camera would see *without* that pad: another pad (its observed colour) or the
print of the guide / the table.  A point whose colour is nearer the grid-set's plain pad colour
(observed on the core's top level, which is always there and in the open) than that background
votes "pad"; nearer the background votes "no pad"; points where the two look alike say nothing.
A candidate is a pad when the votes say so (``PadDetectConfig``).  Candidates are decided level by
level from the table up, each only where the engine would allow a pad (a pad below it, or a pad
beside it on its level); optionally (``rechecks``, off: no better on the development scenes) every
pad found is checked again with all the others in place.  A pad found must be held up by links and
posts.  The core 3 x 3 x 3 is never taken away (no rule removes a pad); the outer row of an arm (its
kingerizers, tinted in the player's colour) is there when the arm's inner pads are; an arm whose
inner pads all read missing is left out (a seat not in play).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from calibration.boards import (
    GRIDOPOLIS_LEVEL_MM,
    GRIDOPOLIS_PAD_MM,
    GRIDOPOLIS_PAD_THICK_MM,
    BoardSpec,
    gridopolis_pad_centre_mm,
    gridopolis_posts_needed,
)
from calibration.colour import linear_to_lab
from engine.gridopolis.layout import CORE, HYPER_PADS, SEATS
from vision.board_locate import BoardPose
from vision.board_rays import box_corners, box_ray_hits, segments_to_board

__all__ = ["PadDetectConfig", "PadDetection", "candidate_pads", "detect_pads", "link_rows", "pad_rows", "piece_places",
           "post_rows"]

F64 = npt.NDArray[np.float64]
U8 = npt.NDArray[np.uint8]
Key = tuple[int, int, int]

#: the guide's footprint (docs/boards.md, "Gridopolis level guide")
GUIDE_CELLS = 7
#: half the width of a link between two pads (12 mm; it spans the 10 mm gap between them)
LINK_HALF_MM = 6.0
#: a post's legs: half their width, and how far off the pad's centre (along x and y) they stand
POST_LEG_HALF_MM = 3.5
POST_LEG_OFF_MM = 14.0


@dataclass(frozen=True)
class PadDetectConfig:
    """Thresholds of pad detection (tuned on re-seeded development renders, docs/boards_vision.md)."""

    max_level: int = 4  # candidates up to this level (12 spare pads reach level 4 over the core)
    rings: tuple[float, ...] = (0.62, 0.9)  # square rings on the top, x the pad's half-size
    ring_points: int = 16
    light_weight: float = 0.5  # L* counts this much against a*b* in colour distances
    informative: float = 7.0  # pad and background colours differ by at least this to say anything
    vote_margin: float = 3.0  # a point votes when one distance is shorter by this much
    min_points: int = 5  # informative points a candidate needs to be decided from the picture
    present: float = 0.5  # (pad votes - background votes) / informative points above this: a pad
    arm_absent: float = -0.7  # an arm whose inner pads' mean score is below this is not on the table
    rechecks: int = 0  # passes checking every pad found with all the others in place
    edge_contrast: float = 6.0  # > 0: a pad's outline is looked at too: point pairs differing by this much ...
    edge_in: float = 0.8  # ... just inside the top's edge (x the half-size) ...
    edge_out: float = 1.25  # ... and just outside it
    edge_from_level: int = 0  # candidates from this level up (all since accuracy round 4: on the table a
    # shadow on the paper can take a pad's grey, but it has no pad's outline; above, the colours behind
    # a candidate are mostly pads, which say little) need ...
    edge_min: float = 0.5  # ... this share of differing pairs with their colour votes,
    present_up: float = 0.55  # ... and these two (at least) for a pad added above the table (level >= 1, not the
    edge_min_up: float = 0.55  # core): 0.5 found 175 such pads not there on 232 development scenes (session 9)
    edge_alone: float = 1.01  # ... or this share where the colours cannot say (> 1: never)
    edge_alone_up: float = 0.8  # the same for candidates above a pad (level >= 1, a pad right below), ...
    edge_clean: bool = True  # ... counting only the point pairs whose rays would end on one surface
    # without the candidate (the same pad below, or print of one colour): an edge already there says nothing
    colour_veto: float = 8.0  # > 0: a point this much more colourful (chroma) than a plain pad votes "no pad"
    piece_room: tuple[float, float] = (14.0, 21.0)  # ... unless seen through this room (half-size, height) above a pad
    links: bool = True  # the links between neighbouring pads found are background (pad-coloured) too
    min_lightness: float = 4.0  # points darker than this (L*, shading undone) say nothing
    arms_as_read: bool = True  # the inner pads of every arm not left out are in place for the levels above
    # (as the classify stage reads them), whatever their own vote and outline (round 7)
    own_piece: bool = True  # a colourful point seen only through the room of a piece standing on the candidate
    # (the whole ray clear of every other pad's room) votes "pad": a piece stands on a pad only (session 7)
    own_piece_saturation: float = 0.3  # ... at least this saturated (chroma / L*) ...
    own_piece_points: int = 4  # ... on this many points of the candidate's rings
    own_piece_from_level: int = 1  # ... for candidates from this level up (on the table the pads of the arms are
    # not yet in place when it is decided: a piece on one of them was taken for a piece on a left-out arm)
    local_light_points: int = 3  # (> 0: on) a candidate's votes are read in its own light, measured on this
    # many of its points or more where the pad and the background look alike (a shaded arm under a bluish
    # sky: a plain pad there looked like the blue print of the arm's zone; session 7), on the table only
    # (above, pad and background are both pads: the light of what is seen through is not told) ...
    local_light_min: float = 0.1  # ... when it differs from the picture's white balance by this much (log)
    late_candidates: bool = True  # the places the start rows make possible (pads on posts above a kingerizer,
    # their neighbours, pads above those) are candidates too, decided after the start rows (round 7)
    piece_pads: bool = True  # the places tested and not found (above a pad found, or beside one on its level) are
    # read for a piece by the classify stage too: a player's piece seen standing there stands on a pad (pieces
    # stand on pads only), which the ring votes missed -- the piece hides most of a pad's top (session 9) ...
    piece_pad_margin: float = 0.4  # ... when the piece beats "empty" by this on the site's probes (0.5 until session 9
    # helper gridboxes: 0.4 read 2 more pieces on 240 development scenes and made none wrong) ...
    piece_pad_from_level: int = 0  # ... at places from this level up (1 until session 16: the places on the table
    # beside an arm -- a pad added there, rulebook "Agregar un pad", with a piece on it hiding its top -- were never
    # read; 0 read 8 such pieces of 1,091-2,522 pixels on 227 development tables and changed no other cell); the
    # pieces read on the pads hide what is behind them (a ray meeting one says nothing about such a place) ...
    piece_pad_room_mm: float = 3.0  # ... within this much round each (a blurred edge); only the places where a
    # few points a piece standing there would fill show a player's plastic (saturated) are read (a quick look) ...
    piece_pad_look: tuple[float, float, int] = (20.0, 0.25, 2)  # ... chroma and chroma / L* at least, on so many
    places_behind_checked: bool = True  # ... a place read a piece is read again on its own with every piece read on
    # the sites as an obstacle -- also those on pads found added above the table that passed ``check_added`` (left out
    # of the first reading) -- and keeps its piece only when that reading shows it too (a player's piece, the same
    # colour, beating "empty" by ``piece_pad_margin``): a place right above or in front of such a piece read it as its
    # own, added a pad that is not there and hid the piece (session 16: 4 such pieces on held13-15)
    check_added: bool = True  # the pieces read on pads found added above the table are read again that way (with the
    # other pieces as obstacles): one seen only where another piece stands behind it is not read (session 9)
    check_added_empty: float = 0.05  # ... unless "empty" scored this at most on the piece's own reading: no probe said
    # "nothing" where it stands (session 10: 5 true pieces of 1,100-4,500 pixels on true added pads were declined, the
    # false ones scored 0.16-0.57 but one; < 0: off)
    drop_seen_through: bool = True  # ... and such a pad is dropped when, read again without it, a site below its level
    # and hidden before shows a piece of the colour read on it: the pad was that piece seen through the place where
    # a pad would be, and it hid the piece (session 10) ...
    drop_reach: int = 1  # ... a site this many steps off (x and y) at most (0: right below the pad; 1 read 3 more
    # pieces right on 294 development scenes, 2 none more) ...
    drop_better_fit: bool = True  # ... when the piece below explains its probes better than the one read on the pad
    # did (a true pad's piece, seen from the place below, fits there less well) ...
    drop_min_conf: float = 0.3  # ... read there with this confidence at least (its shape told: a pawn, king and box
    # explaining its probes alike are a piece seen through the pad's place, as the piece on a true pad above is) ...
    drop_marker_margin: float = 0.3  # (> 0: on) ... or, a marker (pawn or king), beating both "empty" and a box by this
    # much (session 11: a marker's crown unseen, pawn and king tie and its confidence is 0, though its shape is told)
    drop_read_before: bool = True  # ... the sites below counted whether unseen before or read a piece there already
    # (session 11: a box read on few probes before its pad was left out left that false pad standing; on 354
    # development scenes 4 false upper pads more are left out, no true one, no reading changes)
    drop_unheld: bool = True  # ... and a pad found added that nothing holds up once those pads are left out (no link
    # to a held pad of its level, no pad right below) is left out with them (session 11: found above a false pad)
    outline_sides: float = 0.8  # (> 1: off) a candidate above the table (level >= 1, not the core) that its colours
    # do not take for a pad is one all the same when its top's outline is seen all round: on each of at least
    # ``outline_sides_n`` sides with 3 or more clean point pairs (pairs whose rays would end on one surface without
    # it: no edge there anyway) this share of the pairs differ ...
    outline_sides_n: int = 2
    outline_colour_min: float = -1.0  # ... its colour votes at least this (or unable to say: -1 asks every one) ...
    outline_even: float = 10.0  # ... and its top just inside that outline one even surface: the L* of those points
    # spans (90th less 10th percentile) at most this (session 13: on 9 development sets the candidates outlined so
    # spanned 1.5-7.7 where a pad was there, 10.4 and more where none was -- structure and shade seen through)
    unsure_sides: float = 0.5  # (> 1: off) a place above the table not taken for a pad whose outline's lowest share
    # is this on ``unsure_sides_n`` sides or more may hold a pad: a site read empty below it (a level lower, at
    # most one step off) whose pawn's room it would cover in the picture for ``unsure_cover`` of that room's
    # outline is declined instead -- what its probes showed may be that pad, hiding a piece (session 13)
    unsure_sides_n: int = 2
    unsure_cover: float = 0.5
    open_ref: bool = True  # a candidate above the table (level >= 1, not the core) that is not taken is asked
    # again with the pad colour in the open -- measured on the plain pads found, the one at ``open_ref_q`` of their
    # lightness -- for the pad colour (and the colour of the pads and links seen through it): the core's top level,
    # the colour asked otherwise, may stand in the shade while the candidate is in the open (session 13) ...
    open_ref_q: float = 0.9
    open_ref_pads: int = 2  # ... measured on this many pads or more; the candidate is a pad when its votes then
    # beat ``present_up`` and its outline ``edge_min_up``, as any pad added above the table
    lone_pads: bool = True  # several pictures: when more pads are found added than the players hold, those only some
    # pictures found, with nothing read on them, are left out (session 11)


@dataclass(frozen=True)
class PadDetection:
    """The pads found: ``pads`` (x, y, level) and, per candidate tested, its vote score (or None
    when the picture could not say, then the prior decided)."""

    pads: tuple[Key, ...]
    scores: dict[Key, float | None]
    absent: tuple[Key, ...] = ()  # standard pads seen missing: the arms of seats not in play
    gain: Any = None  # the picture's white balance (vision.board_classify.GainField), for the classify stage
    edges: dict[Key, float | None] = field(default_factory=dict)  # per candidate: its outline's share of contrast
    colourful: dict[Key, int] = field(default_factory=dict)  # per candidate: its ring points showing a colour
    unsure: tuple[Key, ...] = ()  # places above the table not taken for pads whose outline is seen on some sides
    # (``PadDetectConfig.unsure_sides``): a pad may stand there


def _plain_core() -> list[Key]:
    return sorted((p.x, p.y, p.level) for p in CORE if p not in HYPER_PADS)


def candidate_pads(max_level: int = 4) -> list[Key]:
    """Every pad position the guide's footprint can hold outside the core, levels 0..``max_level``."""
    core = {(p.x, p.y, p.level) for p in CORE}
    return [(x, y, lv) for lv in range(max_level + 1) for y in range(GUIDE_CELLS) for x in range(GUIDE_CELLS)
            if (x, y, lv) not in core]


@lru_cache(maxsize=32)
def _level_candidates(max_level: int, level: int) -> tuple[Key, ...]:
    """The candidates of one level, the seats' start rows left out (they come with their arm)."""
    start_rows = {(p.x, p.y, p.level) for s in SEATS.values() for p in s.start_row}
    return tuple(k for k in candidate_pads(max_level) if k[2] == level and k not in start_rows)


def pad_rows(spec: BoardSpec, pads: Iterable[Key]) -> F64:
    """Solid rows (``vision.board_rays.hits``) of pads: thin boxes."""
    keys = np.array(list(pads), np.float64).reshape(-1, 3)
    if len(keys):
        gridopolis_pad_centre_mm(spec, 0, 0, 0)  # (checks that ``spec`` is the level guide)
    top = GRIDOPOLIS_PAD_THICK_MM + keys[:, 2] * GRIDOPOLIS_LEVEL_MM  # gridopolis_pad_top_mm, vectorised
    return np.column_stack([np.zeros(len(keys)), (keys[:, 0] + 0.5) * spec.cell_mm, (keys[:, 1] + 0.5) * spec.cell_mm,
                            np.full(len(keys), GRIDOPOLIS_PAD_MM / 2), top - GRIDOPOLIS_PAD_THICK_MM, top])


def link_rows(spec: BoardSpec, pads: Iterable[Key]) -> F64:
    """Solid rows of the links joining neighbouring ``pads`` of one level (docs/boards.md: the pitch is
    a pad plus a link): 12 mm wide bars across the 10 mm gap, 4 mm thick, just under the pads' tops
    (a square box, about the link's size)."""
    return _link_rows_at(spec, _link_mids(pads))


def _link_mids(pads: Iterable[Key]) -> F64:
    """The places (M, 3: x, y at half steps, level) of the links joining neighbouring ``pads``."""
    have = set(pads)
    mids = [((x + 0.5 * dx, y + 0.5 * dy, lv)) for x, y, lv in sorted(have) for dx, dy in ((1, 0), (0, 1))
            if (x + dx, y + dy, lv) in have]
    return np.array(mids, np.float64).reshape(-1, 3)


def _link_mids_on_grid(keys: npt.NDArray[np.int64], n_lv: int) -> F64:
    """:func:`_link_mids` of distinct pads ``keys`` (N, 3: x, y, level; sorted, on the guide's footprint,
    levels below ``n_lv``) without a loop: the same places in the same order."""
    occ = np.zeros((n_lv, GUIDE_CELLS + 1, GUIDE_CELLS + 1), bool)  # (one row and column more: no pad)
    x, y, lv = keys[:, 0], keys[:, 1], keys[:, 2]
    occ[lv, y, x] = True
    have = np.stack([occ[lv, y, x + 1], occ[lv, y + 1, x]], axis=1).reshape(-1)  # per pad: right, then down
    k = keys.astype(np.float64)
    mids = np.stack([np.column_stack([k[:, 0] + 0.5, k[:, 1], k[:, 2]]),
                     np.column_stack([k[:, 0], k[:, 1] + 0.5, k[:, 2]])], axis=1).reshape(-1, 3)
    return np.asarray(mids[have], np.float64).reshape(-1, 3)


@lru_cache(maxsize=8)
def _grid_rows(spec: BoardSpec, n_lv: int) -> tuple[F64, F64]:
    """The solid rows of a pad at every place of the guide's footprint, levels below ``n_lv`` (as
    ``[level, y, x]``), and of a link at every half step between them (``[level, 2 y, 2 x]``): computed
    by :func:`pad_rows` and :func:`_link_rows_at` once per board (the same numbers).  Read-only."""
    grid = [(x, y, lv) for lv in range(n_lv) for y in range(GUIDE_CELLS) for x in range(GUIDE_CELLS)]
    pads = pad_rows(spec, grid).reshape(n_lv, GUIDE_CELLS, GUIDE_CELLS, 6)
    half = 2 * GUIDE_CELLS - 1
    places = np.array([(0.5 * i, 0.5 * j, lv) for lv in range(n_lv) for j in range(half) for i in range(half)])
    links = _link_rows_at(spec, places).reshape(n_lv, half, half, 6)
    for a in (pads, links):
        a.setflags(write=False)
    return pads, links


def _link_rows_at(spec: BoardSpec, m: F64) -> F64:
    """Solid rows of links at places ``m`` (:func:`_link_mids`)."""
    if not len(m):
        return np.zeros((0, 6))
    top = GRIDOPOLIS_PAD_THICK_MM + m[:, 2] * GRIDOPOLIS_LEVEL_MM
    return np.column_stack([np.zeros(len(m)), (m[:, 0] + 0.5) * spec.cell_mm, (m[:, 1] + 0.5) * spec.cell_mm,
                            np.full(len(m), LINK_HALF_MM), top - 5.0, top - 1.0])


def post_rows(spec: BoardSpec, pads: Iterable[Key]) -> F64:
    """Solid rows of the legs of the posts holding up ``pads`` (docs/boards.md: a post is a pair of
    7 mm legs under two opposite corners of the pad it holds, 14 mm off its centre each way, standing
    on the pad below): the standard grid-set's posts (engine.gridopolis.layout) where both pads are
    there, and under the pads not held up by links to a pad of their level, as
    :func:`vision.board_reconstruct.reconstruct_board` puts them in the state.  Legs are square boxes here."""
    from engine.gridopolis.layout import standard_layout

    have = set(pads)
    posts = {(p.x, p.y, p.level) for p in standard_layout(4)[1]}
    posts = gridopolis_posts_needed(have, {k for k in posts if k in have and (k[0], k[1], k[2] - 1) in have})
    rows = []
    for x, y, lv in sorted(posts):
        cx, cy = (x + 0.5) * spec.cell_mm, (y + 0.5) * spec.cell_mm
        z0 = GRIDOPOLIS_PAD_THICK_MM + (lv - 1) * GRIDOPOLIS_LEVEL_MM
        z1 = GRIDOPOLIS_PAD_THICK_MM + lv * GRIDOPOLIS_LEVEL_MM - GRIDOPOLIS_PAD_THICK_MM
        rows += [[0.0, cx + o, cy + o, POST_LEG_HALF_MM, z0, z1] for o in (-POST_LEG_OFF_MM, POST_LEG_OFF_MM)]
    return np.array(rows, np.float64).reshape(-1, 6)


def _ring_offsets(cfg: PadDetectConfig) -> F64:
    h = GRIDOPOLIS_PAD_MM / 2
    t = np.linspace(-1.0, 1.0, cfg.ring_points // 4, endpoint=False)
    unit = np.concatenate([np.column_stack([t, -np.ones_like(t)]), np.column_stack([np.ones_like(t), t]),
                           np.column_stack([-t, np.ones_like(t)]), np.column_stack([-np.ones_like(t), -t])])
    return np.concatenate([r * h * unit for r in cfg.rings])


def _lut_index(spec: BoardSpec, cfg: PadDetectConfig, rows: F64) -> tuple[npt.NDArray[np.int64], ...]:
    """Where box rows (pads, links, pieces' rooms on the footprint's grid) sit in the table of their
    bounding boxes in the picture: (kind, level, 2 y, 2 x)."""
    kind = np.where(np.abs(rows[:, 3] - LINK_HALF_MM) < 1e-6, 1,
                    np.where(np.abs(rows[:, 3] - cfg.piece_room[0]) < 1e-6, 2, 0))
    top = np.where(kind == 1, rows[:, 5] + 1.0, np.where(kind == 2, rows[:, 4], rows[:, 5]))
    lv = np.round((top - GRIDOPOLIS_PAD_THICK_MM) / GRIDOPOLIS_LEVEL_MM).astype(np.int64)
    ix = np.round(2.0 * (rows[:, 1] / spec.cell_mm - 0.5)).astype(np.int64)
    iy = np.round(2.0 * (rows[:, 2] / spec.cell_mm - 0.5)).astype(np.int64)
    return kind.astype(np.int64), lv, iy, ix


@lru_cache(maxsize=8)
def _every_box(spec: BoardSpec, cfg: PadDetectConfig) -> tuple[int, F64, tuple[npt.NDArray[np.int64], ...]]:
    """Every box pad detection may meet (pads, links, pieces' rooms on the footprint's grid, levels
    0 to ``max_level``; the same for every picture): how many, their corners (8 per box, flat) and
    their places in the table of bounding boxes (:func:`_lut_index`).  Read-only arrays."""
    n_lv = cfg.max_level + 1
    grid = [(x, y, lv) for lv in range(n_lv) for y in range(GUIDE_CELLS) for x in range(GUIDE_CELLS)]
    kinds = [pad_rows(spec, grid), link_rows(spec, grid), pad_rows(spec, grid)]
    kinds[2][:, 3] = cfg.piece_room[0]
    kinds[2][:, 4] = kinds[2][:, 5]
    kinds[2][:, 5] += cfg.piece_room[1]
    every = np.concatenate(kinds)
    corners = np.asarray(box_corners(every).reshape(-1, 3), np.float64)
    idx = _lut_index(spec, cfg, every)
    for a in (corners, *idx):
        a.setflags(write=False)
    return len(every), corners, idx


def _dist(a: F64, b: F64, w: float) -> F64:
    return np.asarray(np.sqrt(w * (a[..., 0] - b[..., 0]) ** 2 + (a[..., 1] - b[..., 1]) ** 2
                              + (a[..., 2] - b[..., 2]) ** 2), np.float64)


def _local_light(lab: F64, pad: F64, bg: F64, ref: npt.NDArray[np.bool_], n_k: int, n_o: int,
                 cfg: PadDetectConfig) -> F64:
    """The colours ``lab`` (N, 3; ``n_k`` candidates of ``n_o`` points each) with each candidate's own light
    undone: the light is measured on its points ``ref`` where the pad and the background look alike (a plain
    pad or the white print, either way a pale neutral surface of known colour), as the ratio of what is seen
    to what is expected there (linear RGB, median); a candidate with fewer than ``local_light_points`` of them,
    or lit as the picture's white balance expects, keeps its colours."""
    from calibration.colour import lab_to_linear

    r = ref.reshape(n_k, n_o)
    out = lab.copy().reshape(n_k, n_o, 3)
    qs = np.nonzero(r.sum(axis=1) >= cfg.local_light_points)[0]
    if not len(qs):  # (no candidate has enough of them -- every one above the table: nothing to undo)
        return out.reshape(-1, 3)
    # (the light measured on those candidates only: the same numbers, each point's on its own)
    seen = np.maximum(lab_to_linear(out[qs].reshape(-1, 3)), 1e-4)
    ratio = np.log(seen / np.maximum(lab_to_linear((0.5 * (pad + bg)).reshape(n_k, n_o, 3)[qs].reshape(-1, 3)), 1e-4))
    seen, ratio = seen.reshape(len(qs), n_o, 3), ratio.reshape(len(qs), n_o, 3)
    for t, q in enumerate(qs.tolist()):
        light = np.median(ratio[t][r[q]], axis=0)
        if float(np.abs(light).max()) >= cfg.local_light_min:
            out[q] = linear_to_lab(seen[t] / np.exp(light)[None, :])
    return out.reshape(-1, 3)


def detect_pads(image: U8, pose: BoardPose, config: PadDetectConfig | None = None) -> PadDetection:
    """Which pads stand on the guide in ``image`` (BGR, the guide located as ``pose``)."""
    from vision.board_classify import (  # the classify stage's picture model (white balance, print)
        _appearance,
        _expected,
        _gain_field,
        _median_rows,
        _median_rows_masked,
        _sample,
        _Scene,
        _table_colour,
        _where_rows,
        config_for,
    )

    cfg = config or PadDetectConfig()
    spec = pose.spec
    ccfg = config_for("gridopolis")
    app = _appearance(spec, ccfg.board_px_per_mm)
    gain = _gain_field(image, pose, app, constant=True)
    table = _table_colour(_Scene(image, pose, app, gain, None, None))
    cam = pose.camera_position
    w, h = pose.image_size
    offs = _ring_offsets(cfg)
    n_o = len(offs)

    def tops(keys: Sequence[Key], rows: F64 | None = None) -> F64:
        c = (pad_rows(spec, keys) if rows is None else rows)[:, [1, 2, 5]]
        pts = np.repeat(c[:, None, :], n_o, axis=1)
        pts[..., :2] += offs[None, :, :]
        return pts.reshape(-1, 3)

    def observe(pts: F64, pixels: list[F64] | None = None) -> tuple[F64, npt.NDArray[np.bool_]]:
        px = pose.project(pts)
        if pixels is not None:
            pixels.append(px)
        ok = (px[:, 0] > 2) & (px[:, 0] < w - 3) & (px[:, 1] > 2) & (px[:, 1] < h - 3)
        lin = _sample(image, _where_rows(ok, px, 0.0))
        lab = linear_to_lab(np.clip(lin / gain.at(pts[:, :2]), 0.0, None))
        if cfg.min_lightness > 0:  # black: nothing can be told there (the picture's edge, a dark object)
            ok &= lab[:, 0] >= cfg.min_lightness
        return lab, ok

    # every box the votes may meet (pads, links, pieces' rooms on the footprint's grid, levels 0 to
    # max_level) is projected once: its bounding box in the picture, looked up by its place
    n_lv = cfg.max_level + 1
    lut = np.zeros((3, n_lv, 2 * GUIDE_CELLS - 1, 2 * GUIDE_CELLS - 1, 4))
    n_every, corners3, every_idx = _every_box(spec, cfg)
    corners = pose.project(corners3).reshape(n_every, 8, 2).transpose(1, 0, 2)  # (8, boxes, 2)
    box_px = np.concatenate([np.minimum.reduce(corners) - 4.0, np.maximum.reduce(corners) + 4.0], axis=1)
    lut[every_idx] = box_px

    def bounds(kind: int, places: F64) -> F64:
        """The bounding boxes in the picture (for :func:`vision.board_rays.box_ray_hits`) of the boxes
        of ``kind`` (0 pad, 1 link, 2 a piece's room) at ``places`` (N, 3: x, y, level; links at half
        steps), as :func:`_lut_index` places them."""
        k = np.asarray(places, np.float64).reshape(-1, 3)
        at = (k[:, 2].astype(np.int64), np.round(2.0 * k[:, 1]).astype(np.int64),
              np.round(2.0 * k[:, 0]).astype(np.int64))
        return np.asarray(lut[(kind, *at)], np.float64).reshape(-1, 4)

    # the grid-set's plain pad colour per level, seen on the core's plain pads where nothing hides them
    core = _plain_core()
    core_rows = pad_rows(spec, [(p.x, p.y, p.level) for p in CORE])
    pts = tops(core)
    core_pix: list[F64] = []
    lab, ok = observe(pts, core_pix)
    # (a core pad in front of a point hides it: the boxes seen around each point's pixel only)
    core_box = bounds(0, np.array([(p.x, p.y, p.level) for p in CORE], np.float64))
    hid = box_ray_hits(cam, pts, core_rows, np.ones(len(pts)), core_pix[0], core_box, chunk=n_o, behind=False)[0]
    good = (ok & ~hid).reshape(len(core), n_o)
    lab = lab.reshape(len(core), n_o, 3)
    ref: dict[int, F64] = {}
    for lv in range(3):
        sel = [i for i, k in enumerate(core) if k[2] == lv]
        vals = lab[sel][good[sel]]
        if len(vals) >= 8:
            ref[lv] = np.asarray(_median_rows(vals), np.float64)
    if not ref:
        ref[0] = np.array([80.0, 0.0, 0.0])
    # the lower core levels stand in the shade of the upper ones: the open top level's colour is the
    # colour of a pad in the open (the arms, pads added around the grid-set)
    lit = ref[max(ref)]

    placed: dict[tuple[Key, ...], tuple[F64, F64, F64, F64, F64, F64, F64]] = {}
    pad_tab, link_tab = _grid_rows(spec, n_lv)

    def on_grid(ik: npt.NDArray[np.int64]) -> bool:
        return bool(len(ik) and ik.min() >= 0 and ik[:, :2].max() < GUIDE_CELLS and ik[:, 2].max() < n_lv)

    def rows_of(keys: Sequence[Key]) -> F64:
        """``pad_rows(spec, keys)``, looked up where the keys are on the footprint."""
        ik = np.array(keys, np.int64).reshape(-1, 3)
        return np.asarray(pad_tab[ik[:, 2], ik[:, 1], ik[:, 0]]) if on_grid(ik) else pad_rows(spec, keys)

    def in_place(others: list[Key]) -> tuple[F64, F64, F64, F64, F64, F64, F64]:
        """The rows of ``others`` (pads), their places (N, 3), their bounding boxes in the picture, the
        rows and bounding boxes of the links joining them, and the rows and bounding boxes of both
        (pads, then links): the same for every test of one level (computed once per set of pads)."""
        key = tuple(others)
        got = placed.get(key)
        if got is None:
            okeys = np.array(others, np.float64).reshape(-1, 3)
            ik = okeys.astype(np.int64)
            if on_grid(ik):  # (rows looked up, computed once per board)
                mids = _link_mids_on_grid(ik, n_lv)
                im = np.round(2.0 * mids).astype(np.int64)
                orows, lrows = pad_tab[ik[:, 2], ik[:, 1], ik[:, 0]], link_tab[im[:, 2] // 2, im[:, 1], im[:, 0]]
            else:
                mids = _link_mids(others)
                orows, lrows = pad_rows(spec, others), _link_rows_at(spec, mids)
            obox, lbox = bounds(0, okeys), bounds(1, mids)
            got = (orows, okeys, obox, lrows, lbox, np.concatenate([orows, lrows]), np.concatenate([obox, lbox]))
            placed[key] = got
        return got

    def votes(lab: F64, pad: F64, back: F64) -> F64:
        """Per point: 1 where it looks like the pad colour ``pad`` rather than the background ``back``, -1 the
        other way round, 0 when neither by ``vote_margin``."""
        d_pad, d_bg = _dist(lab, pad, cfg.light_weight), _dist(lab, back, cfg.light_weight)
        out: F64 = np.where(d_bg > d_pad + cfg.vote_margin, 1.0, np.where(d_pad > d_bg + cfg.vote_margin, -1.0, 0.0))
        return out

    def shares(inf: npt.NDArray[np.bool_], vote: F64, n_keys: int) -> list[float | None]:
        """Per candidate: its informative points' mean vote; None with fewer than ``min_points`` of them."""
        # (votes are -1, 0 or 1: their sums are exact in any order)
        vote_sum = np.where(inf, vote, 0.0).reshape(n_keys, n_o).sum(axis=1)
        n_inf = inf.reshape(n_keys, n_o).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            share = (vote_sum / n_inf).tolist()
        return [v if n >= cfg.min_points else None for v, n in zip(share, n_inf.tolist(), strict=True)]

    def score(keys: list[Key], others: list[Key], alt: F64 | None = None,
              alt_out: list[float | None] | None = None) -> list[float | None]:
        """Vote of each candidate with ``others`` (pads, with their links) in place around it (the
        background a pad or link shows: the plain pad colour ``lit``).  With ``alt`` (a pad colour), each
        candidate's vote with that colour for the pad and for the pads and links seen through it is appended
        to ``alt_out`` too (:attr:`PadDetectConfig.open_ref`; the table's local light not undone)."""
        if not keys:
            return []
        krows = rows_of(keys)
        pts = tops(keys, krows)
        pix: list[F64] = []
        lab_o, ok = observe(pts, pix)
        ends = segments_to_board(cam, pts)
        bg_lin, on_board = _expected(app, ends[:, :2])
        bg = linear_to_lab(bg_lin)
        if table is not None:
            bg = _where_rows(on_board, bg, table)
        orows, okeys, obox, _, _, all_rows, all_box = in_place(others)
        prows = orows
        if cfg.links:  # the links joining neighbouring pads of a level: grey plastic too
            orows, obox = all_rows, all_box
        hidden = np.zeros(len(pts), bool)
        if len(orows):
            # another pad in front of the point hides it (only a higher pad can); beyond it, a lower
            # pad is the background (the highest one met)
            cam_d = np.linalg.norm(pts - cam, axis=1) / np.maximum(np.linalg.norm(ends - cam, axis=1), 1e-9)
            hidden, first = box_ray_hits(cam, ends, orows, cam_d, pix[0], obox, chunk=n_o)
        bg_print = bg
        if len(orows):
            bg = _where_rows(first >= 0, lit, bg)  # (a pad or link: the pad colour)
        rf = np.broadcast_to(lit, lab_o.shape)
        inf = ok & ~hidden & (_dist(rf, bg, cfg.light_weight) >= cfg.informative)
        lab_v = lab_o
        if cfg.local_light_points > 0:
            on_table = np.repeat(np.asarray(keys, np.int64).reshape(-1, 3)[:, 2] == 0, n_o)
            lab_v = _local_light(lab_o, rf, bg, ok & ~hidden & ~inf & on_table, len(keys), n_o, cfg)
        vote = votes(lab_v, rf, bg)
        if cfg.colour_veto > 0:  # a plain pad is grey: a point showing a colour (a piece) is no pad's ...
            vivid = ok & ~hidden & (np.hypot(lab_o[:, 1], lab_o[:, 2]) > math.hypot(lit[1], lit[2]) + cfg.colour_veto)
            for k, n in zip(keys, vivid.reshape(len(keys), n_o).sum(axis=1).tolist(), strict=True):
                colourful[k] = int(n)
            piece_seen = np.zeros(len(pts), bool)
            if vivid.any():  # ... unless a piece standing on this pad or another may be in front of it
                rooms = np.concatenate([krows, prows])  # (= pad_rows(spec, [*keys, *others]))
                rooms[:, 3] = cfg.piece_room[0]
                rooms[:, 4] = rooms[:, 5]
                rooms[:, 5] += cfg.piece_room[1]
                j = np.nonzero(vivid)[0]
                d_pt = np.linalg.norm(pts[j] - cam, axis=1) / np.maximum(np.linalg.norm(ends[j] - cam, axis=1), 1e-9)
                r_box = bounds(2, np.concatenate([np.array(keys, np.float64).reshape(-1, 3), okeys]))
                in_room = box_ray_hits(cam, ends[j], rooms, d_pt, pix[0][j], r_box, chunk=4, behind=False)[0]
                vivid[j] = ~in_room
                if cfg.own_piece and in_room.any():
                    # a colour seen only through the candidate's own room, the whole ray clear of every
                    # other room: a piece standing on the candidate (pieces stand on pads only)
                    jj = j[in_room]
                    # (more colourful than what lies behind too: the print's tints are no piece)
                    # and saturated as a player's plastic (a kingerizer's pale tint is not)
                    ch = np.hypot(lab_o[jj, 1], lab_o[jj, 2])
                    jj = jj[(ch > np.hypot(bg[jj, 1], bg[jj, 2]) + cfg.colour_veto)
                            & (ch >= cfg.own_piece_saturation * lab_o[jj, 0])
                            & (np.asarray(keys, np.int64).reshape(-1, 3)[jj // n_o, 2] >= cfg.own_piece_from_level)]
                    other = box_ray_hits(cam, ends[jj], rooms, np.ones(len(jj)), pix[0][jj], r_box,
                                         exclude=jj // n_o, chunk=4, behind=False)[0]
                    piece_seen[jj[~other]] = True
                    # (on enough points: a piece, not a stray ray past another piece or a coloured pad)
                    few = piece_seen.reshape(len(keys), n_o).sum(axis=1) < cfg.own_piece_points
                    piece_seen.reshape(len(keys), n_o)[few] = False
            vote = np.where(vivid, -1.0, np.where(piece_seen, 1.0, vote))
            inf = inf | piece_seen
            inf = inf | vivid
        if alt is not None and alt_out is not None:
            bg2 = np.where((first >= 0)[:, None], alt[None, :], bg_print) if len(orows) else bg_print
            inf2 = ok & ~hidden & (_dist(np.broadcast_to(alt, bg2.shape), bg2, cfg.light_weight) >= cfg.informative)
            vote2 = votes(lab_o, alt[None, :], bg2)
            if cfg.colour_veto > 0:
                vote2 = np.where(vivid, -1.0, np.where(piece_seen, 1.0, vote2))
                inf2 = inf2 | piece_seen | vivid
            alt_out.extend(shares(inf2, vote2, len(keys)))
        return shares(inf, vote, len(keys))

    core_keys = [(p.x, p.y, p.level) for p in CORE]
    core_set = set(core_keys)
    standard_arms = {(p.x, p.y, p.level) for s in SEATS.values() for p in s.arm}
    start_rows = {(p.x, p.y, p.level) for s in SEATS.values() for p in s.start_row}
    scores: dict[Key, float | None] = {}
    edges: dict[Key, float | None] = {}
    colourful: dict[Key, int] = {}
    outlined: dict[Key, tuple[float | None, int]] = {}  # per candidate asked: its outline's lowest share over its
    # sides, and on how many sides it was seen
    found: set[Key] = set(core_keys)

    # the outline of a pad's top: points just inside it and just outside it (clear of the links, in the
    # middle of each side) differ when the pad is there (its top against what lies beyond it)
    side = np.concatenate([np.linspace(-0.8, -0.35, 3), np.linspace(0.35, 0.8, 3)])
    hside = GRIDOPOLIS_PAD_MM / 2
    edge_in = np.concatenate([np.column_stack([side, np.full(6, s0)]) for s0 in (-1.0, 1.0)]
                             + [np.column_stack([np.full(6, s0), side]) for s0 in (-1.0, 1.0)]) * hside
    edge_out = edge_in.copy()
    edge_in[np.abs(edge_in) == hside] *= cfg.edge_in
    edge_out[np.abs(edge_out) == hside] *= cfg.edge_out
    n_e = len(edge_in)

    def edge_share(keys: list[Key], others: list[Key], clean: Sequence[bool] = (),
                   sides_out: list[tuple[float | None, int, float | None]] | None = None) -> list[float | None]:
        """Share of the outline's point pairs (both seen, not hidden by a higher pad) that differ.

        For the candidates flagged ``clean`` only the pairs whose rays, without the candidate, would end
        on one surface count (the same pad or link of ``others``, or the print of one colour): a pair
        straddling an edge that is there anyway (a lower pad's rim, a printed line) says nothing."""
        if not keys:
            return []
        c = rows_of(keys)[:, [1, 2, 5]]
        p_in = np.repeat(c[:, None, :], n_e, axis=1)
        p_in[..., :2] += edge_in[None]
        p_out = np.repeat(c[:, None, :], n_e, axis=1)
        p_out[..., :2] += edge_out[None]
        pts = np.concatenate([p_in.reshape(-1, 3), p_out.reshape(-1, 3)])
        pix: list[F64] = []
        lab_e, ok_seen = observe(pts, pix)
        ok = ok_seen.copy()
        orows, _, obox, _, _, rows, rows_box = in_place(others)
        if len(orows):  # a higher pad in front of a point hides it
            z = float(pts[:, 2].max())
            up = orows[:, 5] > z + 1e-6
            if up.any():
                u_box = obox[up]
                ok &= ~box_ray_hits(cam, pts, orows[up], np.ones(len(pts)), pix[0], u_box, chunk=6, behind=False)[0]
        m = len(keys) * n_e
        both = (ok[:m] & ok[m:]).reshape(len(keys), n_e)
        diff = (_dist(lab_e[:m], lab_e[m:], cfg.light_weight) > cfg.edge_contrast).reshape(len(keys), n_e)
        if any(clean):
            ci = np.nonzero(np.asarray(clean, bool))[0]
            sel = (ci[:, None] * n_e + np.arange(n_e)[None, :]).reshape(-1)
            sel = np.concatenate([sel, sel + m])  # the clean candidates' inner, then outer points
            q = pts[sel]
            ends = segments_to_board(cam, q)
            bg_lin, on_board = _expected(app, ends[:, :2])
            bg = linear_to_lab(bg_lin)
            if table is not None:
                bg = _where_rows(on_board, bg, table)
            first = np.full(len(q), -1, np.int64)
            ok_c = ok_seen[sel]
            if len(rows):
                cam_d = np.linalg.norm(q - cam, axis=1) / np.maximum(np.linalg.norm(ends - cam, axis=1), 1e-9)
                hidden, first = box_ray_hits(cam, ends, rows, cam_d, pix[0][sel], rows_box, chunk=6)
                ok_c = ok_c & ~hidden
            mc = len(ci) * n_e
            same = np.where((first[:mc] >= 0) | (first[mc:] >= 0), first[:mc] == first[mc:],
                            _dist(bg[:mc], bg[mc:], cfg.light_weight) <= cfg.edge_contrast)
            both[ci] = (ok_c[:mc] & ok_c[mc:] & same).reshape(len(ci), n_e)
        n = both.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            share = ((diff & both).sum(axis=1) / n).tolist()
            if sides_out is not None:  # per side (3 or more pairs seen): its share; the lowest, and how many sides
                nb = both.reshape(len(keys), 4, n_e // 4).sum(axis=2)
                sh = np.where(nb >= 3, (diff & both).reshape(len(keys), 4, n_e // 4).sum(axis=2) / np.maximum(nb, 1),
                              np.inf)
                n_sides = (nb >= 3).sum(axis=1)
                low = sh.min(axis=1)
                inner = lab_e[:m, 0].reshape(len(keys), n_e)
                ok_in = ok[:m].reshape(len(keys), n_e)
                # (the inner points' L* span: only where the outline may take the candidate)
                spreads: dict[int, float] = {}
                for q in np.nonzero((n_sides >= cfg.outline_sides_n) & (low >= cfg.outline_sides)
                                    & (ok_in.sum(axis=1) >= 6))[0].tolist():
                    li = np.sort(inner[q][ok_in[q]])
                    spreads[q] = float(np.percentile(li, 90) - np.percentile(li, 10))
                sides_out.extend((lw if ns else None, ns, spreads.get(q))
                                 for q, (lw, ns) in enumerate(zip(low.tolist(), n_sides.tolist(), strict=True)))
        return [v if c >= cfg.min_points else None for v, c in zip(share, n.tolist(), strict=True)]

    def decide(k: Key, s: float | None, e: float | None = None) -> bool:
        up = k[2] > 0 and k not in core_set  # (a pad added above the table: ``present_up``, ``edge_min_up``)
        present = max(cfg.present, cfg.present_up) if up else cfg.present
        if cfg.edge_contrast > 0 and k[2] >= cfg.edge_from_level and e is not None:
            if s is None:  # the colours cannot say: the outline decides (a standard pad is assumed)
                alone = cfg.edge_alone_up if k[2] > 0 and (k[0], k[1], k[2] - 1) in found else cfg.edge_alone
                return e > alone or k in standard_arms
            return s > present and e > (max(cfg.edge_min, cfg.edge_min_up) if up else cfg.edge_min)
        if s is None:  # the picture cannot say: the standard grid-set's pads are assumed
            return k in standard_arms
        return s > present

    def left_out(seat: Any) -> bool:
        """Is the arm of ``seat`` left out: its inner pads' mean vote (those the picture can say) is low."""
        inner = [(p.x, p.y, p.level) for p in seat.arm if p not in seat.start_row]
        seen = [v for v in (scores.get(k) for k in inner) if v is not None]
        return len(seen) >= 2 and float(np.mean(seen)) < cfg.arm_absent

    def start_rows_now() -> None:
        # the start rows (kingerizers, tinted) come with their arm's inner pads; a spare pad there is plain
        for seat in SEATS.values():
            inner = [(p.x, p.y, p.level) for p in seat.arm if p not in seat.start_row]
            row = [(p.x, p.y, p.level) for p in seat.start_row]
            if sum(k in found for k in inner) >= 2:
                found.update(row)
                for k in row:
                    scores[k] = None
            else:
                others = sorted(found)
                for k, s in zip(row, score(row, others), strict=True):
                    scores[k] = s
                    if s is not None and s > cfg.present:
                        found.add(k)

    plain_core = set(core)

    def pad_colours(keys: list[Key], others: list[Key]) -> dict[Key, F64]:
        """The median top colour of each pad ``keys`` seen (ring points not showing a colour; 8 points or more)."""
        if not keys:
            return {}
        pts = tops(keys)
        pix: list[F64] = []
        lab_p, ok = observe(pts, pix)
        ok &= np.hypot(lab_p[:, 1], lab_p[:, 2]) <= math.hypot(lit[1], lit[2]) + cfg.colour_veto
        # (a higher pad in front of a few points is not looked for: a pad too, and the median holds)
        good = ok.reshape(len(keys), n_o)
        lab_p = lab_p.reshape(len(keys), n_o, 3)
        seen = np.nonzero(good.sum(axis=1) >= 8)[0]
        # (every pad's median at once: the numbers ``np.median`` gives each, session 19)
        meds = _median_rows_masked(lab_p[seen], good[seen])
        return {keys[int(q)]: np.asarray(m, np.float64) for q, m in zip(seen, meds, strict=True)}

    open_cache: list[F64 | None] = []  # (measured once, when first asked)

    def pad_in_open(others: list[Key]) -> F64 | None:
        """The pad colour in the open (:attr:`PadDetectConfig.open_ref`): of the plain pads found (``others``: not
        the kingerizers, tinted), the top colour of the pad at the quantile ``open_ref_q`` of their lightness;
        None when fewer than ``open_ref_pads`` were seen.  Measured on the pads found when first asked (the table
        level and the arms as read)."""
        if not open_cache:
            plain = [k for k in others if k not in start_rows and (k in plain_core or k not in core_set)]
            got = list(pad_colours(plain, others).values())
            r = None
            if len(got) >= cfg.open_ref_pads:
                g = np.array(got)
                r = g[np.argsort(g[:, 0])[min(len(g) - 1, int(cfg.open_ref_q * len(g)))]]
            open_cache.append(r)
        return open_cache[0]

    def decide_level(level: list[Key], lv: int) -> None:
        """Score and decide the candidates ``level`` of level ``lv`` with the pads found in place."""
        others = sorted(found)
        r_open = pad_in_open(others) if cfg.open_ref and lv > 0 else None
        s_open: list[float | None] = []
        ss = score(level, others, r_open, s_open)
        es: list[float | None] = [None] * len(level)
        plain: dict[int, float | None] = {}  # (the outlines looked at not clean, with these ``others``: each
        # candidate's share is its own, whatever others are asked with it)
        if cfg.edge_contrast > 0 and lv >= cfg.edge_from_level:
            # the outline is needed only where the colours say "pad" (or cannot say)
            need = [j for j, v in enumerate(ss) if v is None or v > cfg.present]
            # the colours cannot say and a pad is right below: the outline alone decides, looked at clean
            clean = [cfg.edge_clean and lv > 0 and ss[j] is None and (level[j][0], level[j][1], lv - 1) in found
                     for j in need]
            for j, c, e in zip(need, clean, edge_share([level[j] for j in need], others, clean), strict=True):
                es[j] = e
                if not c:
                    plain[j] = e
        sides: dict[int, tuple[float | None, int, float | None]] = {}
        if (cfg.outline_sides <= 1.0 or cfg.unsure_sides <= 1.0) and lv > 0:
            ask = [j for j, (k, v, e) in enumerate(zip(level, ss, es, strict=True))
                   if k not in core_set and not decide(k, v, e) and (v is None or v >= cfg.outline_colour_min)]
            got: list[tuple[float | None, int, float | None]] = []
            edge_share([level[j] for j in ask], others, [True] * len(ask), got)
            sides = dict(zip(ask, got, strict=True))
        second: set[int] = set()
        if s_open:  # the pad colour in the open (``open_ref``): the candidates above the table not taken
            up_ok = [j for j, (k, v, e, v2) in enumerate(zip(level, ss, es, s_open, strict=True))
                     if k not in core_set and not decide(k, v, e) and v2 is not None and v2 > cfg.present_up]
            todo = [j for j in up_ok if j not in plain]
            plain.update(zip(todo, edge_share([level[j] for j in todo], others), strict=True))
            second = {j for j in up_ok if (e := plain[j]) is not None and e > cfg.edge_min_up}
        for j, (k, s, e) in enumerate(zip(level, ss, es, strict=True)):
            scores[k] = s
            edges[k] = e
            if decide(k, s, e) or j in second:
                found.add(k)
            elif j in sides:
                low, n_sides, spread = sides[j]
                outlined[k] = (low, n_sides)
                if low is not None and n_sides >= cfg.outline_sides_n and low >= cfg.outline_sides \
                        and spread is not None and spread <= cfg.outline_even:
                    found.add(k)
    for lv in range(cfg.max_level + 1):
        level = list(_level_candidates(cfg.max_level, lv))
        if lv > 0:  # the engine allows a pad above a pad or beside one of its level; check twice
            level = [(x, y, z) for x, y, z in level if (x, y, z - 1) in found or (x + 1, y, z) in found
                     or (x - 1, y, z) in found or (x, y + 1, z) in found or (x, y - 1, z) in found]
        decide_level(level, lv)
        if lv == 0 and cfg.arms_as_read:
            # the table level decides which arms are on the table (below): the pads of the arms not left
            # out are in place, as the classify stage will read them (vision.board_pipeline.sites_for)
            for seat in SEATS.values():
                if not left_out(seat):
                    found.update((p.x, p.y, p.level) for p in seat.arm if p not in seat.start_row)

    start_rows_now()
    if cfg.late_candidates:
        # the places the start rows (and the pads found there) make possible: pads on posts above a
        # kingerizer and their neighbours were never candidates above; they are now, level by level,
        # with every pad found in place (the pads already decided stay as they are; deciding the start
        # rows before the upper levels instead changes those, and read no better: round 5)
        for lv in range(1, cfg.max_level + 1):
            level = [(x, y, z) for x, y, z in _level_candidates(cfg.max_level, lv) if (x, y, z) not in scores
                     and ((x, y, z - 1) in found or (x + 1, y, z) in found or (x - 1, y, z) in found
                          or (x, y + 1, z) in found or (x, y - 1, z) in found)]
            decide_level(level, lv)
    # an arm left out (a seat not in play: the guide's print shows through where its pads would be)
    absent: set[Key] = set()
    for seat in SEATS.values():
        if left_out(seat):
            absent |= {(p.x, p.y, p.level) for p in seat.arm}
    # every pad found again, with all the others in place (an upper pad in front of a lower candidate)
    extra = sorted(found - set(core_keys) - start_rows)
    for _ in range(cfg.rechecks):
        if not extra:
            break
        keep = []
        for k in extra:
            others = sorted(found - {k})
            s = score([k], others)[0]
            scores[k] = s
            if decide(k, s):
                keep.append(k)
            else:
                found.discard(k)
        if keep == extra:
            break
        extra = keep
    # a pad must be held up: a chain of links and posts down to the table (rulebook "Agregar un pad")
    held = {k for k in found if k[2] == 0}
    grew = True
    while grew:
        grew = False
        for k in sorted(found - held):
            if (k[0], k[1], k[2] - 1) in held or any(
                    (k[0] + dx, k[1] + dy, k[2]) in held for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))):
                held.add(k)
                grew = True
    unsure = tuple(sorted(k for k, (low, n_sides) in outlined.items() if k not in held and low is not None
                          and n_sides >= cfg.unsure_sides_n and low >= cfg.unsure_sides))
    return PadDetection(tuple(sorted(held)), scores, tuple(sorted(absent - held)), gain, edges, colourful, unsure)


def piece_places(tested: Iterable[Key], pads: Iterable[Key], from_level: int = 1) -> list[Key]:
    """The places pad detection tested (``tested``) where no pad is among ``pads`` but the engine allows one (a
    pad right below it, or one beside it on its level: rulebook "Agregar un pad"), from level ``from_level`` up:
    where a piece seen standing would show a pad missed (:attr:`PadDetectConfig.piece_pads`)."""
    have = set(pads)
    return sorted(k for k in set(tested) if k not in have and k[2] >= from_level
                  and ((k[0], k[1], k[2] - 1) in have
                       or any((k[0] + dx, k[1] + dy, k[2]) in have for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)))))


def piece_colour_at(image: U8, pose: BoardPose, gain: Any, places: Sequence[Key],
                    config: PadDetectConfig | None = None) -> list[bool]:
    """A quick look for :attr:`PadDetectConfig.piece_pads`: does each place (pad top) show a player's plastic
    (chroma and saturation of ``piece_pad_look``) on the points a piece standing there would fill (its middle 4,
    8 and 12 mm up, and 6 mm round it 6 mm up), on ``piece_pad_look[2]`` of them or more?  ``gain``: the picture's
    white balance (``PadDetection.gain``; None: none)."""
    from vision.board_classify import _sample

    cfg = config or PadDetectConfig()
    if not places:
        return []
    local = np.array([(0.0, 0.0, 4.0), (0.0, 0.0, 8.0), (0.0, 0.0, 12.0),
                      (6.0, 0.0, 6.0), (-6.0, 0.0, 6.0), (0.0, 6.0, 6.0), (0.0, -6.0, 6.0)])
    tops = pad_rows(pose.spec, places)[:, [1, 2, 5]]
    pts = (tops[:, None, :] + local[None, :, :]).reshape(-1, 3)
    px = pose.project(pts)
    w, h = pose.image_size
    ok = (px[:, 0] > 2) & (px[:, 0] < w - 3) & (px[:, 1] > 2) & (px[:, 1] < h - 3)
    lin = _sample(image, np.where(ok[:, None], px, 0.0))
    if gain is not None:
        lin = lin / gain.at(pts[:, :2])
    lab = linear_to_lab(np.clip(lin, 0.0, None))
    ch = np.hypot(lab[:, 1], lab[:, 2])
    c_min, s_min, n_min = cfg.piece_pad_look
    vivid = ok & (ch >= c_min) & (ch >= s_min * np.maximum(lab[:, 0], 1.0))
    return [bool(n >= n_min) for n in vivid.reshape(len(places), len(local)).sum(axis=1).tolist()]
