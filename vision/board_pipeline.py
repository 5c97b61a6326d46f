"""Read a flat board game from pictures: locate -> classify -> reconstruct -> validate.

:func:`read_board` takes one or more pictures of the same board (BGR), finds the board in each
(:mod:`vision.board_locate`), reads every cell or Gridopolis pad (:mod:`vision.board_classify`),
keeps for each cell the most confident reading over the pictures, builds the engine's state and runs
the engine's validator on it (:mod:`vision.board_reconstruct`).  Each stage's time is recorded.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
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
from vision.board_classify import CellReading, ClassifyBoardConfig, Site, classify_sites, flat_sites
from vision.board_locate import BoardLocateConfig, BoardPose, locate_board
from vision.board_pads import PadDetectConfig, detect_pads, link_rows, piece_colour_at, piece_places, post_rows
from vision.board_pieces import PIECES
from vision.board_reconstruct import (
    BoardReconstruction,
    ReconstructOptionError,
    ReconstructOptions,
    cells_of_problem,
    reconstruct_board,
)
from vision.board_robot import TagReading, robot_from_tag

__all__ = ["BoardReading", "ImageReading", "read_board", "sites_for", "structure_groups"]

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

    @property
    def cells(self) -> list[CellReading]:
        return self.reconstruction.cells

    def to_json(self) -> dict[str, Any]:
        errors = [p for p in self.reconstruction.problems if p.severity == "error"]
        return {
            "game": self.game,
            "board": self.spec.name,
            "valid": not errors,
            "problems": [p.to_json() for p in self.reconstruction.problems],
            "state": self.reconstruction.doc,
            "cells": [c.to_json() for c in self.cells if c.kind != "empty"],
            "images": [{"name": r.name, "pose": r.pose.to_json(),
                        "timings_ms": {k: round(v * 1000, 2) for k, v in r.timings.items()}} for r in self.images],
        }


def sites_for(spec: BoardSpec, added_pads: Sequence[tuple[int, int, int]] = (),
              absent_pads: Sequence[tuple[int, int, int]] = ()) -> tuple[list[Site], F64 | None]:
    """The places a piece can stand on ``spec`` and the fixed structure around them (Gridopolis:
    the pads of the four-player grid-set but ``absent_pads``, and ``added_pads``, as thin boxes, then
    the links between neighbouring pads of a level and the legs of the posts, :func:`vision.board_pads.link_rows`,
    :func:`vision.board_pads.post_rows`)."""
    if spec.game != "gridopolis":
        return flat_sites(spec), None
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


def pictures_disagree(readings: Sequence[ImageReading], merged: Sequence[CellReading]) -> list[Problem]:
    """Never guess silently: a site that two pictures read differently (neither declining it) is kept as
    the more confident reading (:func:`_better`), and reported as a warning naming what each picture read.
    On session 10's held-out boards read from two pictures, the more confident reading was the right one at
    20 of 38 such sites (docs/boards_vision.md, "Session 10 (lead)")."""
    if len(readings) < 2:
        return []
    out: list[Problem] = []
    declined = ("occluded", "unseen", "robot")
    short = [r.name.replace("\\", "/").rsplit("/", 1)[-1] for r in readings]
    names = short if len(set(short)) == len(short) else [r.name for r in readings]
    for i, kept in enumerate(merged):
        seen = [(n, r.cells[i]) for n, r in zip(names, readings, strict=True) if r.cells[i].kind not in declined]
        kinds = {(c.kind, c.colour, c.cubes, c.character, c.character_colour) for _, c in seen}
        if len(kinds) < 2:
            continue
        where = "cell (" + ",".join(str(v) for v in kept.key[:2]) + ")" + \
            (f" level {kept.key[2]}" if len(kept.key) > 2 else "")
        said = "; ".join(f"{name} reads {_what(c)}" for name, c in seen)
        out.append(Problem("pictures-disagree", f"the pictures disagree here: {said}; kept: {_what(kept)} (the more "
                           "confident reading) -- check this cell", where, "", "warning"))
    return out


def _better(a: CellReading, b: CellReading) -> CellReading:
    """The more trustworthy of two readings of one site from two pictures."""
    rank = {"unseen": 0, "occluded": 1, "robot": 3}
    ra, rb = rank.get(a.kind, 2), rank.get(b.kind, 2)
    if ra != rb:
        return a if ra > rb else b
    return a if a.confidence >= b.confidence else b


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
) -> BoardReading:
    """Read the board of ``game`` from ``images`` ((name, BGR image) pairs of the same board).

    ``on_image(name)`` is called after each picture is read (progress).  Raises the locate stage's
    errors (:class:`vision.locate.ImageRejectedError` and subclasses) for a picture that cannot be
    used, with the reason.

    Gridopolis: the pads on the table are looked for first (:func:`vision.board_pads.detect_pads`,
    thresholds ``pad_config``): pads added during play are read as sites too, arms left out are not
    read.  ``find_pads=False`` reads the standard four-player grid-set's pads only."""
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
    absent: set[tuple[int, int, int]] | None = None
    gains: list[Any] = []
    tested: set[tuple[int, int, int]] = set()  # Gridopolis: the places pad detection looked at
    for name, img in images:
        tm: dict[str, float] = {}
        a = time.perf_counter()
        pose = locate_board(img, spec, camera, name=name, config=locate_config, timings=tm)
        if game == "gridopolis" and find_pads:
            p0 = time.perf_counter()
            found = detect_pads(img, pose, pad_config)
            added |= set(found.pads) - set(gridopolis_pads(4))
            gains.append(found.gain)
            tested |= set(found.scores)
            # a standard pad counts as left out only when every picture sees it missing
            absent = set(found.absent) if absent is None else absent & set(found.absent)
            tm["locate.pads_s"] = time.perf_counter() - p0
        tm["locate_s"] = time.perf_counter() - a
        poses.append(pose)
        tms.append(tm)
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
        for i, ((_, img), pose, tm) in enumerate(zip(images, poses, tms, strict=True)):
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
                                   gain=gain, structure_groups=groups, prepared=prepared)
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
                looked = classify_sites(img, pose, at,
                                        game, colours=colours, structure=structure, obstacles=rooms,
                                        config=classify_config, gain=gain, structure_groups=groups, pad_sites=sites,
                                        pad_empty=np.array([r.kind == "empty" for r in cells], bool),
                                        prepared=prepared)
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
            tm["classify_s"] = tm.get("classify_s", 0.0) + time.perf_counter() - b
            if seen is not None and seen.cell is not None:
                cells = [CellReading(r.key, "robot", None, 0, False, 1.0) if r.key[:2] == seen.cell else r
                         for r in cells]
            got.append((cells, extra))
        return got

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
    for (name, _), pose, tm, (cells, extra) in zip(images, poses, tms, per_image, strict=True):
        readings.append(ImageReading(name, pose, cells, tm, extra))
        if on_image is not None:
            on_image(name)
    for seen in robots:
        if seen.cell is not None:
            robot = robot or seen
    t1 = time.perf_counter()
    merged = list(readings[0].cells)
    for r in readings[1:]:
        merged = [_better(m, c) for m, c in zip(merged, r.cells, strict=True)]
    if robot is not None and opt.robot is None:
        opt = replace(opt, robot=robot)
    recon = reconstruct_board(game, spec, merged, opt)
    for p in pictures_disagree(readings, merged):
        recon.problems.append(p)
        recon.problem_cells.append(cells_of_problem(p))
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
    return BoardReading(game, spec, readings, recon, timings)
