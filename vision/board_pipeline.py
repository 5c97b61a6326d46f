"""Read a flat board game from pictures: locate -> classify -> reconstruct -> validate.

:func:`read_board` takes one or more pictures of the same board (BGR), finds the board in each
(:mod:`vision.board_locate`), reads every cell or Gridopolis pad (:mod:`vision.board_classify`),
keeps for each cell the most confident reading over the pictures, builds the engine's state and runs
the engine's validator on it (:mod:`vision.board_reconstruct`).  Each stage's time is recorded.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from calibration.boards import (
    GRIDOPOLIS_PAD_MM,
    GRIDOPOLIS_PAD_THICK_MM,
    BoardSpec,
    RobotTag,
    board_spec,
    gridopolis_pad_centre_mm,
    gridopolis_pads,
)
from calibration.camera import CameraCalibration
from engine.core import Problem
from vision.board_classify import (
    DECLINED_KINDS,
    CellReading,
    ClassifyBoardConfig,
    PictureCache,
    Site,
    cell_where,
    classify_sites,
    flat_sites,
)
from vision.board_locate import BoardLocateConfig, BoardPose, WrongBoardError, locate_board
from vision.board_pads import (
    PadDetectConfig,
    detect_pads,
    link_rows,
    pad_rows,
    piece_colour_at,
    piece_places,
    post_rows,
)
from vision.board_pieces import PIECES
from vision.board_rays import box_corners
from vision.board_reconstruct import (
    BoardReconstruction,
    ReconstructOptionError,
    ReconstructOptions,
    cells_of_problem,
    reconstruct_board,
)
from vision.board_robot import TagReading, robot_from_tag
from vision.board_setupcheck import CHECK_CODE, check_unsure_readings
from vision.board_sureness import P_SURE, SEEN_LOW, CellDoubt, judge_cells, unsure_problems
from vision.locate import ImageRejectedError

__all__ = ["BoardReading", "FuseConfig", "ImageReading", "read_board", "sites_for", "structure_groups"]

U8 = npt.NDArray[np.uint8]
F64 = npt.NDArray[np.float64]

#: half the width of a toy robot's body around its tag's centre (mm)
ROBOT_BODY_HALF_MM = 22.0

#: owner colours each game's pieces come in
PLAYER_COLOURS: dict[str, tuple[str, ...]] = {
    "bandera": ("blue", "red", "green", "yellow"),
    "gridopolis": ("green", "red", "blue", "yellow"),
    "quirky": (),
}


@dataclass
class ImageReading:
    name: str
    pose: BoardPose
    cells: list[CellReading]
    timings: dict[str, float]
    #: Gridopolis: the places with no pad found that were read for a piece (``PadDetectConfig.piece_pads``), as read
    piece_places: list[CellReading] = field(default_factory=list)


@dataclass
class BoardReading:
    game: str
    spec: BoardSpec
    images: list[ImageReading]
    reconstruction: BoardReconstruction
    timings: dict[str, float] = field(default_factory=dict)
    #: per cell of ``cells``, how sure its reading is (None: declined; :mod:`vision.board_sureness`, session 13)
    doubts: list[CellDoubt | None] = field(default_factory=list)

    @property
    def cells(self) -> list[CellReading]:
        return self.reconstruction.cells

    @property
    def unsure(self) -> list[tuple[CellReading, CellDoubt]]:
        """The read cells judged unsure, with why."""
        return [(c, d) for c, d in zip(self.cells, self.doubts, strict=False) if d is not None and not d.sure]

    def to_json(self) -> dict[str, Any]:
        errors = [p for p in self.reconstruction.problems if p.severity == "error"]
        return {
            "game": self.game,
            "board": self.spec.name,
            "valid": not errors,
            # rule errors resting on a reading the camera is unsure of (``check-cell`` warnings, session 12)
            "to_check": sum(p.code == CHECK_CODE for p in self.reconstruction.problems),
            "problems": [p.to_json() for p in self.reconstruction.problems],
            "state": self.reconstruction.doc,
            "cells": [c.to_json() | self._sure_json(i) for i, c in enumerate(self.cells) if c.kind != "empty"],
            # every read cell judged unsure (empty ones too), with why: look at these (session 13)
            "unsure_cells": [c.to_json() | d.to_json() for c, d in self.unsure],
            "images": [{"name": r.name, "pose": r.pose.to_json(),
                        "timings_ms": {k: round(v * 1000, 2) for k, v in r.timings.items()}} for r in self.images],
        }


    def _sure_json(self, i: int) -> dict[str, Any]:
        d = self.doubts[i] if i < len(self.doubts) else None
        return {} if d is None else {"sure": d.sure, "p_right": round(d.p_right, 3)}


def sites_for(spec: BoardSpec, added_pads: Sequence[tuple[int, int, int]] = (),
              absent_pads: Sequence[tuple[int, int, int]] = ()) -> tuple[list[Site], F64 | None]:
    """The places a piece can stand on ``spec`` and the fixed structure around them (Gridopolis:
    the pads of the four-player grid-set but ``absent_pads``, and ``added_pads``, as thin boxes, then
    the links between neighbouring pads of a level and the legs of the posts, :func:`vision.board_pads.link_rows`,
    :func:`vision.board_pads.post_rows`).  (Computed once per board and pads, a fresh list and array given each
    time: session 19.)"""
    if spec.game != "gridopolis":
        return flat_sites(spec), None
    added, absent = tuple(tuple(p) for p in added_pads), tuple(tuple(p) for p in absent_pads)
    if not all(type(v) is int for p in (*added, *absent) for v in p):  # (keys of other types: as they are, anew)
        return _sites_for(spec, added_pads, absent_pads)
    try:
        kept_sites, kept_rows = _sites_kept(spec, added, absent)
    except TypeError:  # (an unhashable spec: computed anew)
        return _sites_for(spec, added_pads, absent_pads)
    return list(kept_sites), kept_rows.copy()


@lru_cache(maxsize=64)
def _sites_kept(spec: BoardSpec, added_pads: tuple[tuple[int, int, int], ...],
                absent_pads: tuple[tuple[int, int, int], ...]) -> tuple[tuple[Site, ...], F64]:
    """:func:`_sites_for`, kept (the sites as a tuple, the structure read-only)."""
    sites, rows = _sites_for(spec, added_pads, absent_pads)
    rows.setflags(write=False)
    return tuple(sites), rows


def _sites_for(spec: BoardSpec, added_pads: Sequence[tuple[int, int, int]],
               absent_pads: Sequence[tuple[int, int, int]]) -> tuple[list[Site], F64]:
    """:func:`sites_for` of a Gridopolis board, computed."""
    sites = []
    rows = []
    std = gridopolis_pads(4)
    gone = set(absent_pads)
    pads = [*(p for p in std if p not in gone), *sorted(set(added_pads) - set(std))]
    for x, y, lv in pads:
        cx, cy, top = gridopolis_pad_centre_mm(spec, x, y, lv)
        sites.append(Site((x, y, lv), cx, cy, top))
        rows.append([0.0, cx, cy, GRIDOPOLIS_PAD_MM / 2, top - GRIDOPOLIS_PAD_THICK_MM, top])
    # the links joining neighbouring pads of a level and the posts' legs hide what is behind them too
    return sites, np.concatenate([np.array(rows), link_rows(spec, pads), post_rows(spec, pads)])


def structure_groups(sites: Sequence[Site], n_rows: int) -> npt.NDArray[np.int64]:
    """Gridopolis: per structure row of :func:`sites_for` (its pads first, in the order of its sites, then
    links and posts), the pads made alike: 0 the hyper-pads, 1-4 each seat's kingerizers (its start row),
    -1 the others (docs/rules/gridopolis.md, set-up)."""
    from engine.gridopolis.layout import HYPER_PADS, SEATS

    kind: dict[tuple[int, ...], int] = {(p.x, p.y, p.level): 0 for p in HYPER_PADS}
    for k, seat in enumerate(SEATS.values()):
        kind |= {(p.x, p.y, p.level): 1 + k for p in seat.start_row}
    out = np.full(n_rows, -1, np.int64)
    out[: len(sites)] = [kind.get(tuple(s.key), -1) for s in sites]
    return out


def _piece_fit(r: CellReading) -> float:
    """How well the best piece hypothesis (pawn, king or box) explained a site's probes (its score)."""
    return max((v for k, v in r.scores.items() if k in ("pawn", "king", "blocker")), default=0.0)


def _marker_told(r: CellReading, margin: float) -> bool:
    """A marker (pawn or king) whose probes it explains better than both "empty" and a box by ``margin`` (> 0): its
    shape is told even where pawn and king tie (its crown unseen: its confidence, between the best two, is 0)."""
    if margin <= 0 or r.kind not in ("pawn", "king"):
        return False
    s = r.scores
    return s.get(r.kind, 0.0) - max(s.get("empty", 0.0), s.get("blocker", 0.0)) >= margin


def _held_up(pads: set[tuple[int, int, int]]) -> set[tuple[int, int, int]]:
    """The pads of ``pads`` that can be held up: level 0 rests on the table, a pad is held by a link to a held pad of
    its level or by a post on the held pad right below it (docs/rules/gridopolis.md, "Adding a pad")."""
    held = {k for k in pads if k[2] == 0}
    todo = list(held)
    while todo:
        x, y, lv = todo.pop()
        for q in ((x + 1, y, lv), (x - 1, y, lv), (x, y + 1, lv), (x, y - 1, lv), (x, y, lv + 1)):
            if q in pads and q not in held:
                held.add(q)
                todo.append(q)
    return held


def _kept_when_left_out(added: set[tuple[int, int, int]], out: Sequence[tuple[int, int, int]],
                        absent: set[tuple[int, int, int]] | None, pcfg: PadDetectConfig) -> set[tuple[int, int, int]]:
    """The pads found added that stay when the pads ``out`` are left out: with ``pcfg.drop_unheld`` not those that
    nothing holds up any more (found above a pad left out, they were found with it; session 11)."""
    rest = added - set(out)
    if not pcfg.drop_unheld:
        return rest
    every = (set(gridopolis_pads(4)) - set(absent or ())) | added
    before, after = _held_up(every), _held_up(every - set(out))
    return {k for k in rest if k in after or k not in before}


def _key3(key: tuple[int, ...]) -> tuple[int, int, int]:
    """A Gridopolis site's key (x, y, level) as such."""
    return int(key[0]), int(key[1]), int(key[2])


def _what(r: CellReading) -> str:
    """What one reading of a site shows, in words (for messages)."""
    if r.kind == "empty":
        return "nothing"
    out = r.kind.replace("_", " ") + (f" ({r.colour})" if r.colour else "")
    if r.cubes:
        out += f", {r.cubes} cube(s)"
    if r.character:
        out += f", a {r.character_colour or 'unknown'} character"
    return out


def pictures_disagree(readings: Sequence[ImageReading], merged: Sequence[CellReading],
                      why: dict[int, str] | None = None) -> list[Problem]:
    """Never guess silently: a site that two pictures read differently (neither declining it) is reported as
    a warning naming what each picture read, what was kept (or that it was not read) and why (``why``, per site
    index, from :func:`merge_readings`; else "the more confident reading").  On session 10's held-out boards read from
    two pictures, the more confident reading was the right one at 20 of 38 such sites (docs/boards_vision.md,
    "Session 10 (lead)"); session 11 chooses otherwise (:func:`merge_readings`)."""
    if len(readings) < 2:
        return []
    out: list[Problem] = []
    short = [r.name.replace("\\", "/").rsplit("/", 1)[-1] for r in readings]
    names = short if len(set(short)) == len(short) else [r.name for r in readings]
    for i, kept in enumerate(merged):
        seen = [(n, r.cells[i]) for n, r in zip(names, readings, strict=True) if r.cells[i].kind not in DECLINED_KINDS]
        if len({c.says() for _, c in seen}) < 2:
            continue
        where = cell_where(kept.key)
        said = "; ".join(f"{name} reads {_what(c)}" for name, c in seen)
        how = (why or {}).get(i, "the more confident reading")
        done = how if kept.kind in DECLINED_KINDS else f"kept: {_what(kept)} ({how}) -- check this cell"
        out.append(Problem("pictures-disagree", f"the pictures disagree here: {said}; {done}", where, "", "warning"))
    return out


def _better(a: CellReading, b: CellReading) -> CellReading:
    """The more trustworthy of two readings of one site from two pictures."""
    rank = {"unseen": 0, "occluded": 1, "robot": 3}
    ra, rb = rank.get(a.kind, 2), rank.get(b.kind, 2)
    if ra != rb:
        return a if ra > rb else b
    return a if a.confidence >= b.confidence else b


def _hypothesis(r: CellReading) -> str:
    """The classify stage's hypothesis (a key of ``scores``) a reading stands for."""
    if r.kind == "royal_tower":
        return "tower2"
    if r.kind == "cube":
        return "tower2" if r.cubes >= 2 else "cube"
    return r.kind


def _evidence(hyp: str, at: Sequence[CellReading]) -> float | None:
    """How well ``hyp`` explains a site's probes in every picture that read it: the sum of the log scores
    (None when some picture did not score that hypothesis; a score under 0, a shape ruled out, counts as 0)."""
    if any(hyp not in r.scores for r in at):
        return None
    return float(sum(np.log(max(r.scores[hyp], 0.0) + EVIDENCE_FLOOR) for r in at))  # (-1: a shape ruled out)


#: added to a hypothesis's score (0..1) before its log is taken (:func:`_evidence`): one picture's probes saying
#: "nothing like it" do not outweigh everything the other pictures show
EVIDENCE_FLOOR = 0.05

#: how many sites the pictures read differently, or only some of them read, may be weighed together against the
#: rules (:func:`_within_rules`), and how many of them changed at most
RULE_SEARCH_SITES = 12
RULE_SEARCH_CHANGES = 3


@dataclass(frozen=True)
class FuseConfig:
    """How a site that two or more pictures read differently is settled (session 18, docs/boards_vision.md "Session 18:
    two pictures"), before session 11's two signs (:func:`merge_readings`).  Each switch off: as before.

    ``view``: where some pictures saw the site well (``CellReading.seen`` at least :data:`SEEN_LOW`, the sureness
    judgement's own limit of "hardly seen") and others hardly saw it, and the pictures that saw it well agree, their
    reading is kept: a site read from a few rays (a pad above it, a piece or the hand in front) is weak evidence against
    a picture that saw all of it.  ``sureness``: each picture's own judgement of its reading (:func:`vision.
    board_sureness.judge_cells` of that picture's readings alone, its camera: the share right ``p`` of readings like it
    on the development tables) is taken as a witness's reliability, and a reading kept where the pictures together make
    it right at least ``p_sure`` (the judgement's own ``P_SURE``) of the time (:func:`_posterior`).  ``abstain``: with
    ``sureness``, where they make no reading that sure, the site is declined (not read: "take another picture").
    ``rescue``: only at the sites session 11's signs decline -- a reading they keep stays.
    Measured on development renders (docs/boards_vision.md, "Session 18: two pictures"); all off by default."""

    view: bool = False
    sureness: bool = False
    abstain: bool = False
    #: only at the sites session 11's two signs decline (a reading they keep is kept)
    rescue: bool = False
    #: the share right a reading must reach, the pictures' judgements together, to be kept by ``sureness`` (the
    #: judgement's own ``P_SURE``)
    p_sure: dict[str, float] = field(default_factory=lambda: dict(P_SURE))

    @property
    def on(self) -> bool:
        return self.view or self.sureness


#: the fusion of the pictures' readings read_board uses by default (session 18: see :class:`FuseConfig`)
FUSE = FuseConfig()


def _agreed(cands: Sequence[CellReading]) -> CellReading | None:
    """The most confident of ``cands`` when they all say the same thing (None when empty or they differ)."""
    if not cands or len({c.says() for c in cands}) > 1:
        return None
    return max(cands, key=lambda c: c.confidence)


def _fuse_by_quality(game: str, at: Sequence[tuple[CellReading, CellDoubt | None]], cfg: FuseConfig
                     ) -> tuple[CellReading | None, str] | None:
    """Session 18 (:class:`FuseConfig`): the reading kept at a site the pictures read differently, by how well each
    picture saw the site and how sure its own judgement is of its reading -- ``(reading, why)``, the reading None to
    decline the site -- or None to leave it to session 11's signs."""
    if cfg.view:
        well = [c for c, _ in at if c.seen is not None and c.seen >= SEEN_LOW]
        poor = [c for c, _ in at if c.seen is not None and c.seen < SEEN_LOW]
        kept = _agreed(well) if poor else None
        if kept is not None:
            return kept, (f"the reading of the pictures that saw the site well (at least {round(100 * SEEN_LOW)} % of "
                          "its view clear; the others hardly saw it)")
    if cfg.sureness and all(d is not None for _, d in at):
        post = _posterior([(c, d.p_right) for c, d in at if d is not None])
        says, p = max(post.items(), key=lambda kv: kv[1])
        if p >= cfg.p_sure.get(game, 0.9):
            kept = max((c for c, _ in at if c.says() == says), key=lambda c: c.confidence)
            return kept, (f"the reading the pictures' own judgements together are sure of ({round(100 * p)} % right, "
                          "weighing each picture's share right of readings like its own)")
        if cfg.abstain:
            return None, ("not read: the pictures' own judgements together are sure of no reading of it -- take "
                          "another picture")
    return None


def _posterior(votes: Sequence[tuple[CellReading, float]]) -> dict[tuple[Any, ...], float]:
    """Per reading the pictures gave of a site, how likely it is the right one, from each picture's share right of
    readings like its own (``p``): a reading is right where its pictures are right and every other picture wrong (one of
    the readings taken to be right, the pictures as independent witnesses)."""
    says = {c.says() for c, _ in votes}
    lik = {s: float(np.prod([min(max(p, 1e-4), 1 - 1e-4) if c.says() == s else 1 - min(max(p, 1e-4), 1 - 1e-4)
                             for c, p in votes])) for s in says}
    tot = sum(lik.values())
    return {s: v / tot for s, v in lik.items()}


def merge_readings(game: str, readings: Sequence[ImageReading], doubts: Sequence[Sequence[CellDoubt | None]] = (),
                   fuse: FuseConfig | None = None) -> tuple[list[CellReading], dict[int, str]]:
    """One reading per site from several pictures of the same table, and, per site they read differently
    (none declining it), what was done there (in words).

    A declined site gives way to a read one (:func:`_better`).  Where the pictures read a site differently, two
    signs are weighed (session 11, docs/boards_vision.md "Session 11: two pictures of one table"): the more
    confident reading, and the reading whose hypothesis explains the site's probes best over every picture
    that read it (:func:`_evidence`).  When both point to the same reading it is kept; when they point to
    different readings the site is declined (not read: "never guess silently"); when the probes cannot tell
    (a hypothesis some picture did not score, or the two readings of one hypothesis: a pawn or a king, a
    character or none) the more confident reading is kept.  Bandera: a character read on its royal tower by some
    pictures and on another stack by others (:func:`_character_off_banner`).

    ``fuse`` (default :data:`FUSE`) with ``doubts`` (per picture, per site: the picture's own judgement of its
    reading, :func:`vision.board_sureness.judge_cells`): first how well each picture saw the site and how sure its own
    judgement is (:func:`_fuse_by_quality`, session 18); where that does not settle it, the two signs."""
    cfg = FUSE if fuse is None else fuse
    merged = list(readings[0].cells)
    for r in readings[1:]:
        merged = [_better(m, c) for m, c in zip(merged, r.cells, strict=True)]
    why: dict[int, str] = {}
    if len(readings) < 2:
        return merged, why
    for i in range(len(merged)):
        at = [r.cells[i] for r in readings if r.cells[i].kind not in DECLINED_KINDS]
        if len({c.says() for c in at}) < 2:
            continue
        best = max(at, key=lambda c: c.confidence)
        ev = {h: _evidence(h, at) for h in {_hypothesis(c) for c in at}}
        if len(ev) < 2 or any(v is None for v in ev.values()) or len(set(ev.values())) < len(ev):
            why[i] = "the more confident reading; the pictures' probes cannot tell them apart"
        elif max(ev, key=lambda h: ev[h] or 0.0) == _hypothesis(best):
            why[i] = "the more confident reading, which the probes of every picture also support best"
        else:
            best = CellReading(best.key, "unseen", None, 0, False, 0.0, None, best.scores)
            why[i] = ("not read: the more confident reading is not the one the probes of every picture support best"
                      " -- take another picture")
        if cfg.on and (not cfg.rescue or best.kind == "unseen"):
            own = [(r.cells[i], doubts[j][i] if j < len(doubts) and i < len(doubts[j]) else None)
                   for j, r in enumerate(readings) if r.cells[i].kind not in DECLINED_KINDS]
            fused = _fuse_by_quality(game, own, cfg)
            if fused is not None:
                got, why[i] = fused
                best = got if got is not None else CellReading(best.key, "unseen", None, 0, False, 0.0, None,
                                                               best.scores)
        merged[i] = best
    if game == "bandera":
        _character_off_banner(readings, merged, why)
    return merged, why


def _character_off_banner(readings: Sequence[ImageReading], merged: list[CellReading], why: dict[int, str]) -> None:
    """Bandera: one character per player (docs/rules/bandera.md, section 1).  Where the pictures disagree about
    where a player's character stands -- some read it on the player's royal tower, others on a stack that is no
    royal tower (and not on the tower) -- it is taken to stand on that stack: the royal tower carries the
    player's banner, of the character's colour, which a picture may read as the character; a plain stack shows
    nothing of that colour (session 11: 3 tables of 114, the character on the stack each time)."""
    for i in list(why):
        m = merged[i]
        if m.kind != "royal_tower" or not m.character or m.character_colour is None:
            continue
        colour = m.character_colour
        bare = [r.cells[i] for r in readings if r.cells[i].kind == "royal_tower" and r.cells[i].colour == m.colour
                and not r.cells[i].character]
        stacks = [j for j in why if j != i and any(
            r.cells[j].kind == "cube" and r.cells[j].character and r.cells[j].character_colour == colour
            for r in readings)]
        if not bare or len(stacks) != 1:
            continue
        j = stacks[0]
        merged[i] = max(bare, key=lambda c: c.confidence)
        merged[j] = max((r.cells[j] for r in readings if r.cells[j].kind == "cube" and r.cells[j].character
                         and r.cells[j].character_colour == colour), key=lambda c: c.confidence)
        for k in (i, j):
            why[k] = (f"{colour}'s character read on its royal tower in some pictures and on the stack at "
                      f"({merged[j].key[0]},{merged[j].key[1]}) in others: taken to be on the stack (the tower's "
                      "banner is of its colour)")


def _within_rules(game: str, spec: BoardSpec, merged: list[CellReading], readings: Sequence[ImageReading],
                  why: dict[int, str], opt: ReconstructOptions,
                  lone: bool | None = None) -> tuple[BoardReconstruction, list[CellReading], list[Problem]]:
    """The reconstruction of ``merged``; when it breaks a rule, the choice with the fewest rule errors (then the
    fewest sites changed, at most :data:`RULE_SEARCH_CHANGES`) among other readings of the sites the pictures
    read differently -- the pictures' own readings -- and, with ``lone``, of the pieces only some pictures read
    (the others declining the site) -- not reading them -- when those sites are :data:`RULE_SEARCH_SITES` at
    most (session 11: a royal tower read one square apart in two pictures is one tower, not two; a cube one
    picture alone sees is not a 23rd).  Also warnings for the pieces left unread.

    ``lone`` None: Gridopolis only, whose counts (markers and blocker boxes per player) and pads a piece read by
    one picture breaks (session 11: 3 tables of 114 called wrong no more, 3 wrong cells fewer, 3 pieces more
    declined); in Bandera and Quirky it declined right pieces to quiet errors of other causes (a Quirky token the
    reconstruction places nowhere, an illegal Bandera table called legal)."""
    recon = reconstruct_board(game, spec, merged, opt)
    errors = sum(p.severity == "error" for p in recon.problems)
    if not errors or len(readings) < 2:
        return recon, merged, []
    others = {i: [c for c in {r.cells[i].says(): r.cells[i] for r in readings
                              if r.cells[i].kind not in DECLINED_KINDS}.values() if c.says() != merged[i].says()]
              for i in sorted(why)}
    if lone if lone is not None else game == "gridopolis":
        for i, m in enumerate(merged):
            if i not in others and m.kind not in (*DECLINED_KINDS, "empty") \
                    and any(r.cells[i].kind in ("occluded", "unseen") for r in readings):
                others[i] = [CellReading(m.key, "unseen", None, 0, False, 0.0, None, m.scores)]
    sites = sorted(i for i in others if others[i])
    if not sites or len(sites) > RULE_SEARCH_SITES:
        return recon, merged, []
    best = (errors, 0, recon, merged)
    for k in range(1, min(len(sites), RULE_SEARCH_CHANGES) + 1):
        for sub in itertools.combinations(sites, k):
            for pick in itertools.product(*(others[i] for i in sub)):
                cells = list(merged)
                for i, c in zip(sub, pick, strict=True):
                    cells[i] = c
                r = reconstruct_board(game, spec, cells, opt)
                e = sum(p.severity == "error" for p in r.problems)
                if e < best[0]:
                    best = (e, k, r, cells)
        if best[0] == 0:
            break
    _, _, recon, cells = best
    notes: list[Problem] = []
    for i in sites:
        if cells[i] is merged[i]:
            continue
        if i in why:
            why[i] = "the reading that keeps the table within the rules (the other breaks one)"
        else:
            where = cell_where(merged[i].key)
            notes.append(Problem("pictures-one-reads", f"{_what(merged[i])} was read here by only some of the "
                                 "pictures (the others could not see it), and breaks a rule with the rest of the "
                                 "table: not read -- check this cell", where, "", "warning"))
    return recon, cells, notes


def _declined_below_unsure(cells: list[CellReading], sites: Sequence[Site], pose: BoardPose,
                           unsure: Sequence[tuple[int, int, int]], pcfg: PadDetectConfig) -> list[CellReading]:
    """Gridopolis (session 13): the sites read empty below a place a pad may stand on (``PadDetection.unsure``: its
    outline seen on some sides, not taken for a pad) -- a level lower, at most one step off, the room of a pawn
    standing there covered by that pad in the picture for ``unsure_cover`` of its outline -- are declined: what
    their probes showed may be that pad, hiding a piece."""
    import cv2

    if not unsure:
        return cells
    spec = pose.spec
    g = PIECES

    def hull(rows: npt.NDArray[np.float64]) -> npt.NDArray[np.float32]:
        return np.asarray(cv2.convexHull(pose.project(box_corners(rows).reshape(-1, 3)).astype(np.float32)),
                          np.float32)

    hulls = {k: hull(pad_rows(spec, [k])) for k in unsure}
    out = list(cells)
    for j, (st, r) in enumerate(zip(sites, cells, strict=True)):
        if r.kind != "empty":
            continue
        x, y, lv = _key3(st.key)
        over = [k for k in unsure if k[2] > lv and abs(k[0] - x) <= 1 and abs(k[1] - y) <= 1]
        if not over:
            continue
        room = hull(np.array([[0.0, st.x_mm, st.y_mm, g.marker_radius, st.floor_mm, st.floor_mm + g.pawn_height]]))
        area = float(cv2.contourArea(room))
        for k in over:
            inter = float(cv2.intersectConvexConvex(room, hulls[k])[0])
            if area > 0 and inter / area >= pcfg.unsure_cover:
                out[j] = CellReading(r.key, "unseen", None, 0, False, 0.0, None, r.scores, notes=(
                    f"read empty, but a pad may stand at ({k[0]},{k[1]},{k[2]}) in front of it (its outline is seen "
                    "on some sides, not clearly enough to take it for one): not read",))
                break
    return out


def read_board(
    images: Sequence[tuple[str, U8]],
    game: str,
    *,
    spec: BoardSpec | None = None,
    scenario: str | None = None,
    camera: CameraCalibration | None = None,
    options: ReconstructOptions | None = None,
    locate_config: BoardLocateConfig | None = None,
    classify_config: ClassifyBoardConfig | None = None,
    on_image: Callable[[str], None] | None = None,
    pad_config: PadDetectConfig | None = None,
    find_pads: bool = True,
    fuse_config: FuseConfig | None = None,
) -> BoardReading:
    """Read the board of ``game`` from ``images`` ((name, BGR image) pairs of the same board).

    ``on_image(name)`` is called after each picture is read (progress).  Raises the locate stage's
    errors (:class:`vision.locate.ImageRejectedError` and subclasses) for a picture that cannot be
    used, with the reason; of several pictures, one that cannot be used is left out (a
    ``picture-not-used`` warning) and the error raised only when none can be used.

    Gridopolis: the pads on the table are looked for first (:func:`vision.board_pads.detect_pads`,
    thresholds ``pad_config``): pads added during play are read as sites too, arms left out are not
    read.  ``find_pads=False`` reads the standard four-player grid-set's pads only.

    ``fuse_config`` (default :data:`FUSE`): how sites the pictures read differently are settled (:class:`FuseConfig`,
    session 18); one picture alone is read as before whatever it says."""
    t0 = time.perf_counter()
    spec = spec or board_spec(game, scenario=scenario)
    sites, structure = sites_for(spec)
    colours = PLAYER_COLOURS.get(game) or None
    opt = options or ReconstructOptions()
    token_kinds: list[str] | None = None
    if game == "quirky":
        if opt.scenario is None:
            from engine.quirky import builtin_ids, builtin_scenario

            sid = spec.name.split(":", 1)[1] if ":" in spec.name else (scenario or "")
            if sid not in builtin_ids():
                raise ReconstructOptionError(f"the scenario of board {spec.name!r} is needed (give its .toml file)")
            opt = replace(opt, scenario=builtin_scenario(sid))
        token_kinds = sorted({t.kind for t in opt.scenario.tokens if not t.fixed})
    readings: list[ImageReading] = []
    robot: TagReading | None = None
    poses: list[BoardPose] = []
    tms: list[dict[str, float]] = []
    added: set[tuple[int, int, int]] = set()
    found_by: dict[tuple[int, int, int], int] = {}  # Gridopolis: per pad found added, how many pictures found it
    pad_votes: dict[tuple[int, int, int], float | None] = {}  # ... and its best vote score (None: the prior decided)
    absent: set[tuple[int, int, int]] | None = None
    gains: list[Any] = []
    unsures: list[tuple[tuple[int, int, int], ...]] = []  # Gridopolis, per picture: places a pad may stand on
    tested: set[tuple[int, int, int]] = set()  # Gridopolis: the places pad detection looked at
    # several pictures: one that cannot be used (blurred, too dark, no board found) is left out, with a warning,
    # and the table read from the others (session 11); all of them unusable, the first one's reason is raised
    unusable: list[tuple[str, ImageRejectedError]] = []
    usable: list[tuple[str, U8]] = []
    for name, img in images:
        tm: dict[str, float] = {}
        a = time.perf_counter()
        try:
            pose = locate_board(img, spec, camera, name=name, config=locate_config, timings=tm)
        except ImageRejectedError as err:
            if len(images) < 2 or isinstance(err, WrongBoardError):  # (another game's board: the person's mistake)
                raise
            unusable.append((name, err))
            continue
        usable.append((name, img))
        if game == "gridopolis" and find_pads:
            p0 = time.perf_counter()
            found = detect_pads(img, pose, pad_config)
            added |= set(found.pads) - set(gridopolis_pads(4))
            for pad in set(found.pads) - set(gridopolis_pads(4)):
                found_by[pad] = found_by.get(pad, 0) + 1
                # (the set-up check: how sure the pad finder was of each pad found added, the best picture's vote)
                v, prev_vote = found.scores.get(pad), pad_votes.get(pad)
                pad_votes[pad] = v if prev_vote is None else prev_vote if v is None else max(v, prev_vote)
            gains.append(found.gain)
            unsures.append(found.unsure)
            tested |= set(found.scores)
            # a standard pad counts as left out only when every picture sees it missing
            absent = set(found.absent) if absent is None else absent & set(found.absent)
            tm["locate.pads_s"] = time.perf_counter() - p0
        tm["locate_s"] = time.perf_counter() - a
        poses.append(pose)
        tms.append(tm)
    if not usable:
        raise unusable[0][1]
    images = usable
    if added or absent:
        sites, structure = sites_for(spec, sorted(added), sorted(absent or ()))
        opt = replace(opt, added_pads=tuple(sorted(added)))
    pcfg = pad_config or PadDetectConfig()
    standard = set(gridopolis_pads(4))
    places: list[tuple[int, int, int]] = []
    if game == "gridopolis" and find_pads and pcfg.piece_pads:
        places = piece_places(tested, [_key3(s.key) for s in sites], pcfg.piece_pad_from_level)
        if places:  # (a quick look first: only where a player's plastic may stand)
            looks = [piece_colour_at(img, pose, gains[i] if i < len(gains) else None, places, pcfg)
                     for i, ((_, img), pose) in enumerate(zip(images, poses, strict=True))]
            places = [k for j, k in enumerate(places) if any(lk[j] for lk in looks)]

    def classify_all(with_places: Sequence[tuple[int, int, int]]) -> list[tuple[list[CellReading], list[CellReading]]]:
        """Each picture's readings of the sites, and of the places ``with_places`` (read as sites standing on no
        pad, with the pieces read on the sites as obstacles: the rays meeting one say nothing about them)."""
        got = []
        groups = structure_groups(sites, len(structure)) if game == "gridopolis" and structure is not None else None
        for i, ((_, img), pose, tm, pic) in enumerate(zip(images, poses, tms, pictures, strict=True)):
            b = time.perf_counter()
            seen = robot_from_tag(pose, image=img) if game == "quirky" else None
            body = None
            if seen is not None:  # the robot's body: a box under its tag (docs/boards.md, "The robot tag")
                tag = RobotTag(seen.tag_id)
                body = np.array([[0.0, seen.x_mm, seen.y_mm, ROBOT_BODY_HALF_MM, 0.0, tag.height_mm]])
                robots.append(seen)
            gain = gains[i] if i < len(gains) else None
            prepared: list[Any] = []
            cells = classify_sites(img, pose, sites, game, colours=colours, structure=structure,
                                   token_kinds=token_kinds, obstacles=body, config=classify_config, timings=tm,
                                   gain=gain, structure_groups=groups, prepared=prepared, picture=pic)
            extra: list[CellReading] = []
            # the pieces read on pads found added above the table: read again as places, with the other pieces as
            # obstacles -- a piece seen there only where another piece is behind it is that piece (session 9)
            check = [j for j, (st, r) in enumerate(zip(sites, cells, strict=True))
                     if game == "gridopolis" and find_pads and pcfg.piece_pads and pcfg.check_added
                     and r.kind in ("pawn", "king", "blocker")
                     and st.key[2] >= 1 and _key3(st.key) not in standard and _key3(st.key) not in by_piece]
            if with_places or check:
                g = PIECES
                rooms = np.array([[0.0, st.x_mm, st.y_mm, g.blocker_half + pcfg.piece_pad_room_mm, st.floor_mm,
                                   st.floor_mm + max(g.blocker_height, g.king_height) + pcfg.piece_pad_room_mm]
                                  for j, (st, r) in enumerate(zip(sites, cells, strict=True))
                                  if r.kind != "empty" and j not in check]).reshape(-1, 6)
                at = [*(Site(k, *gridopolis_pad_centre_mm(spec, *k)) for k in with_places), *(sites[j] for j in check)]
                observed: list[Any] = []  # (the places' probes as observed: the places read alone below observe them)
                looked = classify_sites(img, pose, at,
                                        game, colours=colours, structure=structure, obstacles=rooms,
                                        config=classify_config, gain=gain, structure_groups=groups, pad_sites=sites,
                                        pad_empty=np.array([r.kind == "empty" for r in cells], bool),
                                        prepared=prepared, picture=pic, observed=observed)
                extra = looked[: len(with_places)]
                for j, again in zip(check, looked[len(with_places):], strict=True):
                    r = cells[j]
                    if again.kind in ("pawn", "king", "blocker") and again.colour == r.colour:
                        continue
                    if again.kind == "unseen" and again.scores.get(r.kind, 0.0) - again.scores.get("empty", 0.0) \
                            >= pcfg.piece_pad_margin:
                        continue  # (seen on few rays clear of the others, but those say it is there)
                    if r.scores.get("empty", 1.0) <= pcfg.check_added_empty:
                        continue  # (no probe of its own reading says "nothing": every one shows a piece there)
                    x, y, lv = _key3(r.key)
                    cells[j] = CellReading(r.key, "unseen", None, 0, False, 0.0, None, r.scores, notes=(
                        f"a {r.colour} {r.kind} was read on the pad added at ({x},{y},{lv}), but its colour is seen "
                        "there only where another piece stands behind it: not read",))
                    if r.colour is not None:  # (its colour, and how well a piece explained its probes)
                        got_c, got_fit = seen_through.get((x, y, lv), (set(), 0.0))
                        seen_through[(x, y, lv)] = (got_c | {r.colour}, max(got_fit, _piece_fit(r)))
                kept = [j for j in check if cells[j].kind in ("pawn", "king", "blocker")]
                if pcfg.places_behind_checked and with_places and kept:
                    # (the places read again on their own, the pieces that passed that check obstacles too: a place
                    # keeps its piece only when that reading shows it as well)
                    rooms_all = np.concatenate([rooms, np.array([
                        [0.0, sites[j].x_mm, sites[j].y_mm, g.blocker_half + pcfg.piece_pad_room_mm, sites[j].floor_mm,
                         sites[j].floor_mm + max(g.blocker_height, g.king_height) + pcfg.piece_pad_room_mm]
                        for j in kept])])
                    alone = classify_sites(img, pose, at[: len(with_places)], game, colours=colours,
                                           structure=structure, obstacles=rooms_all, config=classify_config,
                                           gain=gain, structure_groups=groups, pad_sites=sites,
                                           pad_empty=np.array([r.kind == "empty" for r in cells], bool),
                                           prepared=prepared, picture=pic, observed=observed)
                    for j, (both, own) in enumerate(zip(extra, alone, strict=True)):
                        if both.kind in ("pawn", "king", "blocker") and not (
                                own.kind in ("pawn", "king", "blocker") and own.colour == both.colour
                                and own.scores.get(own.kind, 0.0) - own.scores.get("empty", 0.0)
                                >= pcfg.piece_pad_margin):
                            extra[j] = own
            tm["classify_s"] = tm.get("classify_s", 0.0) + time.perf_counter() - b
            if seen is not None and seen.cell is not None:
                cells = [CellReading(r.key, "robot", None, 0, False, 1.0) if r.key[:2] == seen.cell else r
                         for r in cells]
            got.append((cells, extra))
        return got

    # what each picture's readings prepare from the picture alone (blur, table colour, shadow light, hands): kept
    # across the readings again with a pad added or left out (session 17)
    pictures = [PictureCache(img, pose) for (_, img), pose in zip(images, poses, strict=True)]
    robots: list[TagReading] = []
    by_piece: set[tuple[int, int, int]] = set()  # pads added by a piece read on them as a place (checked already)
    # pads found added above the table whose piece ``check_added`` declined, with the colours read on them
    seen_through: dict[tuple[int, int, int], tuple[set[str], float]] = {}
    per_image = classify_all(places)
    if places:
        # a player's piece read standing where no pad was found stands on a pad all the same (pieces stand on
        # pads only): the pad is added and every picture read again with it in place
        more = sorted({_key3(r.key) for _, extra in per_image for r in extra
                       if r.kind in ("pawn", "king", "blocker") and r.colour in (colours or ())
                       and r.scores.get(r.kind, 0.0) - r.scores.get("empty", 0.0) >= pcfg.piece_pad_margin})
        if more:
            first, first_sites, first_structure = per_image, sites, structure
            was = {_key3(r.key): r.colour for _, extra in first for r in extra}
            agreed = False
            for _ in range(2):
                by_piece = set(more)
                sites, structure = sites_for(spec, sorted(added | set(more)), sorted(absent or ()))
                robots.clear()
                per_image = classify_all([])
                # read again with its pad in place, the piece must still be a player's piece of the colour it showed
                # (in a picture): else what was seen there was no piece of its own (a piece or pad behind it, a hand)
                keep = sorted({_key3(r.key) for cells, _ in per_image for r in cells
                               if _key3(r.key) in more and r.kind in ("pawn", "king", "blocker")
                               and r.colour == was[_key3(r.key)]})
                agreed = keep == more
                if agreed or not keep:
                    break
                more = keep
            if agreed:
                added |= set(more)
                opt = replace(opt, added_pads=tuple(sorted(added)))
                per_image = [(cells, extra) for (cells, _), (_, extra) in zip(per_image, first, strict=True)]
            else:
                sites, structure, per_image = first_sites, first_structure, first
                by_piece = set()
    doubt = sorted(k for k in seen_through if k in added)
    if pcfg.drop_seen_through and doubt:
        # a pad found added above the table whose piece was declined as seen only where another piece stands behind
        # it: read again without it, a site below its level (at most ``drop_reach`` steps off, unseen before in every
        # picture) showing a piece of the colour read on the pad (in some picture), its shape told (confidence
        # ``drop_min_conf``) and explaining its probes better than the piece read on the pad did, what the ring votes
        # took for a pad was that piece, seen through the place where a pad would be (and the pad hid it): the pad is
        # left out (session 10); the others are put back
        first, first_sites, first_structure, first_robots = per_image, sites, structure, list(robots)
        hidden_before = set.intersection(*({_key3(r.key) for r in cells if r.kind == "unseen"
                                            or (pcfg.drop_read_before and r.kind in ("pawn", "king", "blocker"))}
                                           for cells, _ in first))
        drop: list[tuple[int, int, int]] = []
        for _ in range(2):
            sites, structure = sites_for(spec, sorted(_kept_when_left_out(added, doubt, absent, pcfg)),
                                         sorted(absent or ()))
            robots.clear()
            per_image = classify_all([])
            shown = [(_key3(r.key), r) for cells, _ in per_image for r in cells
                     if _key3(r.key) in hidden_before and r.kind in ("pawn", "king", "blocker")
                     and (r.confidence >= pcfg.drop_min_conf or _marker_told(r, pcfg.drop_marker_margin))]
            drop = sorted(k for k in doubt if any(
                s_k[2] < k[2] and max(abs(s_k[0] - k[0]), abs(s_k[1] - k[1])) <= pcfg.drop_reach
                and r.colour in seen_through[k][0]
                and (_piece_fit(r) > seen_through[k][1] or not pcfg.drop_better_fit) for s_k, r in shown))
            if drop == doubt or not drop:
                break
            doubt = drop
        if drop and drop == doubt:
            added = _kept_when_left_out(added, drop, absent, pcfg)
            opt = replace(opt, added_pads=tuple(sorted(added)))
            per_image = [(cells, extra) for (cells, _), (_, extra) in zip(per_image, first, strict=True)]
        else:
            sites, structure, per_image = first_sites, first_structure, first
            robots.clear()
            robots.extend(first_robots)
    if unsures and any(unsures):
        per_image = [(_declined_below_unsure(cells, sites, pose, [k for k in unsure if k not in added], pcfg), extra)
                     for (cells, extra), pose, unsure in zip(per_image, poses, unsures, strict=True)]
    for (name, _), pose, tm, (cells, extra) in zip(images, poses, tms, per_image, strict=True):
        readings.append(ImageReading(name, pose, cells, tm, extra))
        if on_image is not None:
            on_image(name)
    for seen in robots:
        if seen.cell is not None:
            robot = robot or seen
    t1 = time.perf_counter()
    fuse = FUSE if fuse_config is None else fuse_config
    own: list[list[CellDoubt | None]] = []
    if fuse.sureness and len(readings) > 1:  # (each picture's own judgement of its readings: session 18)
        own = [judge_cells(game, r.cells, [r.pose.camera_position], spec.cell_mm) for r in readings]
    merged, why = merge_readings(game, readings, own, fuse)
    if robot is not None and opt.robot is None:
        opt = replace(opt, robot=robot)
    lone_pads: list[Problem] = []
    if game == "gridopolis" and len(readings) > 1 and pcfg.lone_pads:
        # more pads added than the players hold (rulebook "Agregar un pad"): the pads only some of the pictures
        # found, with nothing read on them, are left out (session 11: pads added are the union of what the pictures
        # find, so one picture's false pads made too many)
        first_check = reconstruct_board(game, spec, merged, opt)
        if any(p.code == "parts-added" and p.where == "pads added" and p.severity == "error"
               for p in first_check.problems):
            lone = {pad for pad in added if found_by.get(pad, 0) < len(readings) and pad not in by_piece}
            kept_at = [i for i, c in enumerate(merged) if not (_key3(c.key) in lone and c.kind == "empty")]
            if len(kept_at) < len(merged):
                left_out = sorted(_key3(c.key) for c in merged if c.kind == "empty" and _key3(c.key) in lone)
                new_at = {i: n for n, i in enumerate(kept_at)}
                merged = [merged[i] for i in kept_at]
                readings = [replace(r, cells=[r.cells[i] for i in kept_at]) for r in readings]
                why = {new_at[i]: w for i, w in why.items() if i in new_at}
                added -= set(left_out)
                opt = replace(opt, added_pads=tuple(sorted(added)))
                lone_pads.append(Problem(
                    "pads-one-picture", f"{len(left_out)} pad(s) found added by only some of the pictures, with "
                    "nothing read on them, were left out (more pads added than the players hold): "
                    + ", ".join(f"({x},{y},{lv})" for x, y, lv in left_out), "pads added", "", "warning"))
    recon, merged, unread = _within_rules(game, spec, merged, readings, why, opt)
    not_used = [Problem("picture-not-used", f"picture {name!r} was not used: {err}", "picture", "", "warning")
                for name, err in unusable]
    for p in [*not_used, *lone_pads, *unread, *pictures_disagree(readings, merged, why)]:
        recon.problems.append(p)
        recon.problem_cells.append(cells_of_problem(p))
    # how sure each cell read is (session 13): its doubt signs and the share of readings like it that were right on
    # the development tables; the reader's "cell-unsure" warnings (a low confidence) give way to these
    aligned = all(len(r.cells) == len(recon.cells) for r in readings)
    doubts = judge_cells(game, recon.cells, [r.pose.camera_position for r in readings], spec.cell_mm,
                         [r.cells for r in readings] if aligned else ())
    kept = [(p, at) for p, at in zip(recon.problems, recon.problem_cells, strict=True) if p.code != "cell-unsure"]
    recon = replace(recon, problems=[p for p, _ in kept], problem_cells=[at for _, at in kept])
    for p in unsure_problems(game, recon.cells, doubts):
        recon.problems.append(p)
        recon.problem_cells.append(cells_of_problem(p))
    # the set-up check on unsure readings (session 12): after the reading is settled, so no reading changes
    recon = check_unsure_readings(recon, opt.min_confidence, players_given=opt.players is not None,
                                  pad_votes={k: pad_votes.get(k) for k in added if k not in by_piece},
                                  pad_present=(pad_config or PadDetectConfig()).present, doubts=doubts)
    t2 = time.perf_counter()
    timings = {
        "locate_s": sum(r.timings["locate_s"] for r in readings),
        "classify_s": sum(r.timings["classify_s"] for r in readings),
        "reconstruct_s": t2 - t1,
        "total_s": t2 - t0,
    }
    for r in readings:
        for k, v in r.timings.items():
            if "." in k:
                timings[k] = timings.get(k, 0.0) + v
    return BoardReading(game, spec, readings, recon, timings, doubts)
