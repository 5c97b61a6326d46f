"""Rule-based inference for the free reading (``score-images`` without ``--previous``), issue 5.

A set-up position -- every colour has exactly its start block -- is one where no turn has been
played: each turn places blocks (CTRL rulebook "Game Turn"; on a colour's first turn a legal path
always exists, so nobody passes before moving).  The flags then stand where set-up put them: each
on its start block, pointing up (rulebook "Setup" 4).  A flag the pictures did not make out there
(a banner edge-on, behind the Central Cube, or its pole seen in one picture only) is assumed to
stand there, and reported; without this the tie-break of a set-up (every total ties, the highest
flag wins) dropped the colour whose flag was not found.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from calibration.colour import ColourModel
from engine.core import Problem
from engine.ctrl import BLOCKS_PER_COLOR, SIDES, State
from engine.ctrl.geometry import ALL_DIRS, CENTRAL_CUBE, SIDE_VECTORS, Cell
from engine.ctrl.moves import FlagSpot
from engine.ctrl.scoring import first_in_line, line_box
from engine.ctrl.state import BLOCKS_PER_TURN
from vision.camera import ViewCamera
from vision.labels import COLOR_LABELS, LABEL_COLORS
from vision.reconstruct import RayScorer, ReconstructConfig, ViewEvidence


def is_setup_position(state: State) -> bool:
    """Every colour has exactly one block, on its start cell."""
    values = list(state.blocks.values())
    return bool(state.colors) and len(values) == len(state.colors) and all(
        values.count(c) == 1 and state.blocks.get(state.starts.get(c, (0, 0, -1))) == c for c in state.colors)


def assume_setup_flags(state: State) -> tuple[State, list[Problem]]:
    """In a set-up position, each colour's flag that was not found is put on its start block,
    pointing up, when that spot is legal (see the module docstring); one warning per flag."""
    if not is_setup_position(state):
        return state, []
    flags = dict(state.flags)
    notes: list[Problem] = []
    for color in state.colors:
        if color in flags:
            continue
        spot = FlagSpot.on_block(state.starts[color], (0, 0, 1))
        if spot not in state.flag_spots(color):
            continue
        flags[color] = spot
        notes.append(Problem("flag-assumed", f"the {color} flag was not made out in the pictures; in a set-up "
                             f"position it stands on its start block pointing up ({spot}): check that it is plugged "
                             "in there", f"{color} flag", 'CTRL rulebook, "Setup" 4', "warning"))
    return (replace(state, flags=flags) if notes else state), notes


def count_doubts(state: State) -> dict[str, list[str]]:
    """Colours whose block count no game can reach, and so the sides their reading puts in doubt.

    After its start block a colour gains three blocks a turn (rulebook "Game Turn": a path of 3
    blocks; a player with no free path passes the whole turn), so it has 1, 4, 7, ... 22 blocks.  A
    reading with another count has misread or missed some of that colour's blocks (a cool shadow
    read as blue, a block no picture shows), and a block added or taken away may show on any side:
    every side is in doubt for that colour.  Returns side -> colours (empty when every count is
    possible)."""
    odd = [c for c in state.colors if (sum(1 for v in state.blocks.values() if v == c) - 1) % 3]
    return {side: list(odd) for side in SIDES} if odd else {}


#: a pocket: at least this many of a cell's six face neighbours are blocks or the Central Cube
POCKET_NEIGHBOURS = 3


def fill_pockets(blocks: dict[Cell, str], scorer: RayScorer, unobserved: Sequence[Cell],
                 min_pixels: int = 6) -> tuple[list[Cell], list[Problem]]:
    """Fill the empty cells the pictures cannot tell from full, inside a pile.

    A cell in front of a block of its own colour is a depth ambiguity: the rays that would meet a
    block there first show that colour whether the block is there or behind it (seen at 40
    degrees, a blue block on a blue start block, between two blue blocks and the Central Cube,
    changes no sampled pixel).  The search leaves such a cell empty.  Here it is filled when (1)
    a block there of the colour most of those rays show explains them at least as well as the
    cell empty (:meth:`RayScorer.delta` <= 0, on at least ``min_pixels`` rays) and (2) it is a
    pocket: at least :data:`POCKET_NEIGHBOURS` of its face neighbours are full.  On SIMULATED
    development renders, 12 of 13 such cells held a block of that colour (the rule was chosen
    there).  Each fill is reported; the sides it shows on are returned by :func:`pocket_sides`.
    Mutates ``blocks``; returns the filled cells and the warnings."""
    occupied = set(blocks) | set(CENTRAL_CUBE)
    hidden = set(unobserved)
    scorer.set_base(blocks)
    fills: dict[Cell, str] = {}
    present = set(blocks.values())  # a colour with no block has nothing behind to be confused with
    candidates = {(c[0] + d[0], c[1] + d[1], c[2] + d[2]) for c in blocks for d in ALL_DIRS} - occupied - hidden
    for cell in sorted(candidates):
        if cell[2] < 0:
            continue
        if sum((cell[0] + d[0], cell[1] + d[1], cell[2] + d[2]) in occupied for d in ALL_DIRS) < POCKET_NEIGHBOURS:
            continue
        labels = scorer.labels_reaching(cell)
        if len(labels) < min_pixels:
            continue
        lab = int(np.bincount(labels).argmax())
        colour = LABEL_COLORS.get(lab)
        if colour not in COLOR_LABELS or colour not in present:
            continue
        if sum(1 for v in blocks.values() if v == colour) + sum(1 for v in fills.values() if v == colour) \
                >= BLOCKS_PER_COLOR:
            continue
        if scorer.delta({cell: colour}) <= 0:
            fills[cell] = colour
    notes = [Problem("inferred-pocket", f"a {colour} block is assumed here: the pictures show {colour} whether it "
                     f"is here or behind, and blocks surround the cell", f"cell {c[0]},{c[1]},{c[2]}",
                     "", "warning") for c, colour in sorted(fills.items())]
    blocks.update(fills)
    return sorted(fills), notes


def pocket_sides(cells: Sequence[Cell], occupied: set[Cell]) -> dict[str, int]:
    """Side -> how many of ``cells`` show a face on it (nothing between the cell and that side)."""
    out: dict[str, int] = {}
    for c in cells:
        for side in SIDES:
            v = SIDE_VECTORS[side]
            if all((c[0] + k * v[0], c[1] + k * v[1], c[2] + k * v[2]) not in occupied for k in range(1, 12)):
                out[side] = out.get(side, 0) + 1
    return out


#: switches (for measuring each step's effect).  The refill is OFF in the product: on the held-out
#: renders (seed +7919, never tuned on) it added one wrong block and fixed none (cells 231 -> 232);
#: its gains were on the development renders it was tuned on (2 blocks) and on fixture scene_023,
#: where the fixtures had shaped its count guard -- not independent evidence (docs/vision.md,
#: "Session 5b").  The connector recolouring fired only where right.
RECOLOUR_CONNECTORS = True
REFILL_FLOATING = False


def _cap_ok(blocks: Mapping[Cell, str], colour: str) -> bool:
    return sum(1 for v in blocks.values() if v == colour) < BLOCKS_PER_COLOR


def recolour_connectors(blocks: dict[Cell, str], scorer: RayScorer, connectors: Sequence[Cell]) -> dict[Cell, str]:
    """Re-choose the colour of the blocks the reconstruct stage added to reconnect a floating group.

    Their colour was chosen on the predictions made before the connection (the group's own
    blocks absent), so a block the connected pile now explains differently may carry the wrong
    one (SIMULATED dev scene_022: read blue where yellow explains 75 more rays).  Each connector
    takes the colour whose :meth:`RayScorer.delta` against the final blocks is lowest, when it is
    lower than the current colour's (never a 23rd block of a colour, rulebook "Components").
    Mutates ``blocks``; returns the changed cells and their old colours."""
    changed: dict[Cell, str] = {}
    for cell in sorted(c for c in connectors if c in blocks):
        scorer.set_base(blocks)
        old = blocks[cell]
        best, best_d = old, 0
        for colour in sorted(set(blocks.values())):
            if colour == old or not _cap_ok(blocks, colour):
                continue
            d = scorer.delta({cell: colour})
            if d < best_d:
                best, best_d = colour, d
        if best != old:
            blocks[cell] = best
            changed[cell] = old
    return changed


#: a block added after the floating ones were dropped must explain at least this many rays net
REFILL_MIN_GAIN = 6
#: at most this many blocks added that way per reading
REFILL_MAX = 8
#: a refilled block must also explain more than the read banner of its colour loses with it there
REFILL_FLAG_GUARD = True
#: refills that make a colour's possible block count impossible are taken back
REFILL_COUNT_GUARD = True


def refill_after_floating(blocks: dict[Cell, str], scorer: RayScorer, dropped: Mapping[Cell, str],
                          unobserved: list[Cell], flags: Mapping[str, FlagSpot] | None = None,
                          min_gain: int = REFILL_MIN_GAIN) -> list[Cell]:
    """Give the rays of dropped floating blocks back to the pile.

    The search priced every cell while a floating block (a block high above the mat seen by one
    picture, often a flag's banner from afar) was the first thing some rays met; once it is dropped
    (every block touches the Central Cube through blocks, rulebook "The Battlefield"), those rays
    show colour nothing explains, and the block at the pile's foot that they show was never added
    (SIMULATED dev: 27 cells whose truth block alone lowers the cost).  Here the empty cells ahead
    on those rays, next to the pile (so the block is connected), are priced again: greedily the
    block (of the colour most of its rays show) that explains the most rays net is added, while it
    explains at least ``min_gain``.  The floating block hid some of those cells from the rays, so
    cells in ``unobserved`` are candidates too (an added one is removed from that list).  Guards:
    a block must also explain more than the read banner of its colour (``flags``) loses with it there
    (:data:`REFILL_FLAG_GUARD`), and refills that take a colour from a possible block count to an
    impossible one are taken back (:data:`REFILL_COUNT_GUARD`).  On the held-out renders the step was
    neutral (docs/vision.md "Session 5b").  Mutates ``blocks`` and ``unobserved``; returns the added
    cells."""
    if not dropped:
        return []
    present = set(blocks.values())
    flag_at = dict(flags or {}) if REFILL_FLAG_GUARD else {}
    scorer.set_base(blocks)
    cand: set[Cell] = set()
    for cell in dropped:
        cand.update(scorer.cells_ahead_through(cell))
    added: list[Cell] = []
    while len(added) < REFILL_MAX:
        occupied = set(blocks) | set(CENTRAL_CUBE)
        best: tuple[int, Cell, str] | None = None
        # cells "no picture shows" are candidates too: the floating block may be what hid them
        for cell in sorted(cand - occupied):
            if cell[2] < 0 or not any((cell[0] + d[0], cell[1] + d[1], cell[2] + d[2]) in occupied for d in ALL_DIRS):
                continue
            labels = scorer.labels_reaching(cell)
            if len(labels) < min_gain:
                continue
            colour = LABEL_COLORS.get(int(np.bincount(labels).argmax()))
            if colour not in COLOR_LABELS or colour not in present or not _cap_ok(blocks, colour):
                continue
            d = scorer.delta({cell: colour})
            spot = flag_at.get(colour)
            if spot is not None and d <= -min_gain:
                # the colour's banner, read before, may be what those rays show: the block must explain
                # more than the banner loses with it there (both in rays, for minus against)
                before = max(0.0, scorer.flag_scores(blocks, colour, [spot])[0])
                after = max(0.0, scorer.flag_scores({**blocks, cell: colour}, colour, [spot])[0]) \
                    if spot.cell != cell else 0.0
                d += int(before - after)
            if d <= -min_gain and (best is None or d < best[0]):
                best = (d, cell, colour)
        if best is None:
            break
        blocks[best[1]] = best[2]
        added.append(best[1])
        scorer.set_base(blocks)
    if REFILL_COUNT_GUARD:
        # a colour has 1, 4, 7, ... blocks (rulebook "Game Turn"): refills that make a possible count
        # impossible are taken back (a set-up read right must stay one block per colour)
        for colour in {blocks[c] for c in added}:
            n = sum(1 for v in blocks.values() if v == colour)
            n_before = n - sum(1 for c in added if blocks[c] == colour)
            if (n_before - 1) % 3 == 0 and (n - 1) % 3 != 0:
                for c in [c for c in added if blocks[c] == colour]:
                    del blocks[c]
                    added.remove(c)
        scorer.set_base(blocks)
    for c in added:
        if c in unobserved:
            unobserved.remove(c)
    return added


def repair_after_floating(blocks: dict[Cell, str], scorer: RayScorer, dropped: Mapping[Cell, str],
                          confidence: Mapping[Cell, float], unobserved: list[Cell],
                          flags: Mapping[str, FlagSpot] | None = None) -> list[Problem]:
    """:func:`recolour_connectors` on the reconnecting blocks (the reconstruct stage gives them
    confidence 0) and :func:`refill_after_floating` on the dropped floating blocks' rays, each
    change reported.  Mutates ``blocks``."""
    notes: list[Problem] = []
    if RECOLOUR_CONNECTORS:
        connectors = [c for c in blocks if confidence.get(c, 1.0) == 0.0]
        for c, old in sorted(recolour_connectors(blocks, scorer, connectors).items()):
            notes.append(Problem("connector-recoloured", f"a block added to connect a group to the pile was read "
                                 f"{old}; with the group connected, {blocks[c]} explains the pictures better",
                                 f"cell {c[0]},{c[1]},{c[2]}", "", "warning"))
    if REFILL_FLOATING:
        for c in refill_after_floating(blocks, scorer, dropped, unobserved, flags):
            notes.append(Problem("refilled", f"a {blocks[c]} block read here once the floating blocks were left "
                                 "out: the pictures' rays they had taken show it", f"cell {c[0]},{c[1]},{c[2]}",
                                 "", "warning"))
    return notes


def spread_doubts(state: State) -> dict[str, list[str]]:
    """Colours whose block counts no game reaches *together*, and so the sides the reading puts in
    doubt.

    Players take turns, three blocks a turn, and pass only when no path is free (rulebook "Game
    Turn"; on a colour's first turn a path always exists), so two colours still placing differ by at
    most one turn (3 blocks).  A free reading with a bigger gap (the pipeline reports it as
    ``implausible-turns``) has misread blocks: too many of the colour with the most (a cool shadow or a
    tinted print read as that colour: SIMULATED fixture scene_035, 19 yellow blocks beside three
    colours with their start block only) or too few of the colour with the fewest.  Such a block may
    show on any side, and hide other colours' faces there: every side is in doubt for both colours,
    whether or not each count is possible on its own (:func:`count_doubts` catches the impossible
    ones).  Returns side -> colours (empty when the counts are plausible)."""
    counts = {c: sum(1 for v in state.blocks.values() if v == c) for c in state.colors}
    placing = {c: n for c, n in counts.items() if n < BLOCKS_PER_COLOR}
    if len(placing) < 2:
        return {}
    most = max(placing, key=lambda c: placing[c])
    least = min(placing, key=lambda c: placing[c])
    if placing[most] - placing[least] <= BLOCKS_PER_TURN:
        return {}
    return {side: [most, least] for side in SIDES}


def _open_sides(cell: Cell, occupied: set[Cell]) -> set[str]:
    """The sides ``cell`` shows on (nothing between it and that side)."""
    return {side for side in SIDES if all(
        (cell[0] + k * SIDE_VECTORS[side][0], cell[1] + k * SIDE_VECTORS[side][1],
         cell[2] + k * SIDE_VECTORS[side][2]) not in occupied for k in range(1, 12))}


def _shows_on_a_side(cell: Cell, occupied: set[Cell]) -> bool:
    """``bool(_open_sides(cell, occupied))``, stopping at the first open side (and at the first cell in the way of
    each): :func:`depth_tie_candidates` asks it of every empty cell around the pile (session 18)."""
    x, y, z = cell
    for side in SIDES:
        vx, vy, vz = SIDE_VECTORS[side]
        for k in range(1, 12):
            if (x + k * vx, y + k * vy, z + k * vz) in occupied:
                break
        else:
            return True
    return False


def support_doubts(state: State) -> dict[str, list[Cell]]:
    """Blocks of a free reading that break the support rules, and the sides they put in doubt.

    Every block touches the Central Cube through blocks, and no block is ever placed under another
    (rulebook "The Battlefield", "Placing Blocks": a path runs along the surface, never under
    anything; docs/rules/ctrl.md "Rule checks": ``not-connected``, ``hanging``).  A reading with such a
    block misread it or missed the block that holds it: the side counts near it are in doubt -- the
    sides the block shows on and those its empty face neighbours (where a missed block would stand)
    show on.  Returns side -> the offending cells."""
    occupied = set(state.blocks) | set(CENTRAL_CUBE)
    out: dict[str, list[Cell]] = {}
    for c in sorted(_unsupported(state.blocks)):
        sides = _open_sides(c, occupied)
        for d in ALL_DIRS:
            nb = (c[0] + d[0], c[1] + d[1], c[2] + d[2])
            if nb not in occupied and nb[2] >= 0:
                sides |= _open_sides(nb, occupied)
        for side in sides:
            out.setdefault(side, []).append(c)
    return out


def start_doubts(state: State) -> dict[str, list[Cell]]:
    """Start cells not read as their colour's block, and the sides they put in doubt.

    A start block never leaves its cell (rulebook "Setup" 3: it is placed before the game and blocks
    never move), so a free reading without it there misread that cell (or the colours in play): the
    sides the start cell shows on are in doubt.  Returns side -> the start cells."""
    occupied = set(state.blocks) | set(CENTRAL_CUBE)
    out: dict[str, list[Cell]] = {}
    for color in state.colors:
        start = state.starts.get(color)
        if start is None or state.blocks.get(start) == color:
            continue
        for side in _open_sides(start, occupied - {start}):
            out.setdefault(side, []).append(start)
    return out


#: switch and reach of :func:`hidden_move_doubts`: "all" tries the block of every face neighbour of a hidden
#: cell, "above" only the one over it (the top picture's line of sight), "" turns the doubt off
HIDDEN_MOVE_NEIGHBOURS = "all"


def hidden_move_doubts(state: State, hidden: Collection[Cell]) -> dict[str, list[Cell]]:
    """Sides whose counts change if a block read next to a cell no picture shows stands in that cell instead.

    A cell no picture shows (``unobserved``) is hidden by the blocks read around it: every ray through it
    meets one of them first.  The pictures then cannot tell a block read there from the same block one cell
    further along those rays, in the hidden cell (session 12's fresh scene_021: a block read one cell up
    over an empty hidden cell, two sides wrong and not reported, because a block *added* in the hidden cell
    would show on no side).  For each hidden cell and each face neighbour holding a block that may move
    (not a start block, rulebook "Setup" 3; no flag plugged into it), the reading with that block in the
    hidden cell instead is compared, if every block in it is still held (rulebook "The Battlefield"): the
    sides whose score rows differ are in doubt.  Returns side -> the hidden cells that put it in doubt."""
    if not HIDDEN_MOVE_NEIGHBOURS:
        return {}
    dirs = [(0, 0, 1)] if HIDDEN_MOVE_NEIGHBOURS == "above" else list(ALL_DIRS)
    starts = {cell for colour, cell in state.starts.items() if state.blocks.get(cell) == colour}
    pinned = {f.block for f in state.flags.values()} | {f.cell for f in state.flags.values()}
    before: set[Cell] | None = None  # _unsupported(state.blocks), when first needed
    occupied = CENTRAL_CUBE | state.blocks.keys()
    flag_dirs: dict[Cell, Cell] = {f.cell: f.normal for f in state.flags.values()}
    cols = set(state.colors)
    out: dict[str, list[Cell]] = {}
    for u in sorted(hidden):
        if u in state.blocks or u in CENTRAL_CUBE or u in pinned or u[2] < 0:
            continue
        changed: set[str] = set()
        for d in dirs:
            n = (u[0] + d[0], u[1] + d[1], u[2] + d[2])
            if n not in state.blocks or n in starts or n in pinned:
                continue
            # the sides the move changes (side_scores with the block at u instead, compared), and only then,
            # when that adds a side, whether every block is still held
            moved = sides_changed_by_move(state, n, u, occupied, flag_dirs, cols)
            if not moved - changed:
                continue
            blocks = {c: v for c, v in state.blocks.items() if c != n}
            blocks[u] = state.blocks[n]
            if before is None:
                before = _unsupported(state.blocks)
            if _unsupported(blocks) - {u} - before:
                continue
            changed.update(moved)
        for side in [side for side in SIDES if side in changed]:
            out.setdefault(side, []).append(u)
    return out


def _line_front(p: Cell, v: Cell, occupied: Collection[Cell], blocks: Mapping[Cell, str],
                flag_dirs: Mapping[Cell, Cell], lo: Sequence[int], hi: Sequence[int],
                src: Cell | None = None, dst: Cell | None = None) -> str | None:
    """The colour side ``v`` counts on the line of sight through ``p`` parallel to ``v`` (None: none), inside the
    box ``lo``..``hi`` (bounding every occupied and flagged cell): walking from the box's far end towards
    ``p``'s side, the first occupied cell if it is a block and no flag whose pole is not parallel to ``v``
    stands in front of it (``engine.ctrl.scoring.first_in_line``'s rule: only the front block of a line can
    count, and it does unless a flag hides it).  With ``src``/``dst``: as if the block at ``src`` stood at
    ``dst`` instead."""
    a = 0 if v[0] else 1 if v[1] else 2
    step = 1 if v[a] > 0 else -1
    x = list(p)
    x[a] = hi[a] if step > 0 else lo[a]
    while lo[a] <= x[a] <= hi[a]:
        c = (x[0], x[1], x[2])
        if c == dst and dst is not None:
            return blocks[src] if src is not None else None
        if c != src and c in occupied:
            return blocks.get(c)  # None: the Central Cube
        f = flag_dirs.get(c)
        if f is not None and f[0] * v[0] + f[1] * v[1] + f[2] * v[2] == 0:
            return None
        x[a] -= step
    return None


def sides_changed_by_move(state: State, src: Cell, dst: Cell, occupied: Collection[Cell] | None = None,
                          flag_dirs: Mapping[Cell, Cell] | None = None, cols: Collection[str] | None = None,
                          ) -> set[str]:
    """The sides whose score row (``state.side_scores()``) changes when the block at ``src`` stands at ``dst``
    (empty, no flag there) instead, worked out on the lines of sight through the two cells per side only
    (each line counts at most its front block: :func:`_line_front`); ``occupied``, ``flag_dirs`` and
    ``cols`` (the state's occupied cells with the Central Cube, its flags' cells -> pole directions, its
    colours) may be given when known."""
    if occupied is None:
        occupied = CENTRAL_CUBE | state.blocks.keys()
    if flag_dirs is None:
        flag_dirs = {f.cell: f.normal for f in state.flags.values()}
    if cols is None:
        cols = set(state.colors)
    lo, hi = line_box([*occupied, *flag_dirs, dst])
    out: set[str] = set()
    for side in SIDES:
        v = SIDE_VECTORS[side]
        a = 0 if v[0] else 1 if v[1] else 2
        lines = [src] if all(src[k] == dst[k] for k in range(3) if k != a) else [src, dst]
        was = [_line_front(p, v, occupied, state.blocks, flag_dirs, lo, hi) for p in lines]
        now = [_line_front(p, v, occupied, state.blocks, flag_dirs, lo, hi, src, dst) for p in lines]
        seen_was = sorted(c for c in was if c is not None and c in cols)
        if seen_was != sorted(c for c in now if c is not None and c in cols):
            out.add(side)
    return out


#: switch (for measuring the step's effect and for the tests that show it matters)
RELOCATE_BLOCKS = True
#: which blocks may move: "all" = every block that is not a start block; "rules" = only those breaking
#: a support rule or next to their colour's empty start cell (cheaper: ~4 against ~15 ms a scene on the
#: fixtures, but of the fixtures' 10 moves it finds 2, and none of the 6 on 40 development renders)
RELOCATE_CANDIDATES = "all"
#: sampled rays a move must explain net to be taken (the history search's tolerance,
#: :class:`vision.history.HistoryConfig`)
RELOCATE_MIN_GAIN = 6
#: at most this many moves per reading
RELOCATE_MAX_MOVES = 8

_AROUND: tuple[Cell, ...] = tuple((dx, dy, dz) for dx in (-1, 0, 1) for dy in (-1, 0, 1) for dz in (-1, 0, 1)
                                  if (dx, dy, dz) != (0, 0, 0))


def relocation_targets(b: Cell, colour: str, blocks: Mapping[Cell, str], start_of: Mapping[Cell, str],
                       scorer: RayScorer) -> list[Cell]:
    """The cells a block of ``colour`` at ``b`` may be moved to by one step (26 around it): on or above the mat,
    empty, not the Central Cube, not another colour's start cell, inside the scorer's volume."""
    return [e for e in ((b[0] + d[0], b[1] + d[1], b[2] + d[2]) for d in _AROUND)
            if e[2] >= 0 and e not in blocks and e not in CENTRAL_CUBE and start_of.get(e, colour) == colour
            and scorer.in_volume(e)]


def _held(cell: Cell, occupied: Collection[Cell]) -> bool:
    """Whether ``cell`` touches a block or the Central Cube (``occupied``) other than by a block above it
    (rulebook "Placing Blocks": no block is placed under another)."""
    return any((cell[0] + d[0], cell[1] + d[1], cell[2] + d[2]) in occupied for d in ALL_DIRS if d != (0, 0, 1))


def _unsupported(blocks: Mapping[Cell, str]) -> set[Cell]:
    """Blocks not connected to the Central Cube through blocks, or held by nothing but a block above
    (rulebook "The Battlefield", "Placing Blocks"; the cells :func:`support_doubts` reports)."""
    reached = _reached_from_cube(blocks)
    out: set[Cell] = set()
    cube = CENTRAL_CUBE
    for c in blocks:
        if c not in reached:
            out.add(c)
            continue
        # _held(c, blocks and the Central Cube), written out (session 18: called thousands of times a reading)
        x, y, z = c
        if not any(n in blocks or n in cube for n in ((x + 1, y, z), (x - 1, y, z), (x, y + 1, z), (x, y - 1, z),
                                                        (x, y, z - 1))):
            out.add(c)
    return out


def _gains_still_known(known: Mapping[Cell, tuple[str, tuple[Cell, ...], list[int]]], scorer: RayScorer,
                       changed: Sequence[Cell]) -> dict[Cell, tuple[str, tuple[Cell, ...], list[int]]]:
    """The entries of ``known`` (block -> colour, targets, :meth:`RayScorer.move_gains` of it to them) that a change
    of the base at the cells ``changed`` alone leaves the same: those whose block and targets no ray through a
    changed cell crosses (a ray's prediction and first full cell depend on the cells along it alone)."""
    crossed = scorer.sharing_rays(changed)

    def untouched(cell: Cell) -> bool:
        i = scorer.cell_index(cell)
        return i >= 0 and not bool(crossed[i])

    return {c: k for c, k in known.items() if c not in changed and untouched(c) and all(map(untouched, k[1]))}


def relocate_blocks(blocks: dict[Cell, str], scorer: RayScorer, starts: Mapping[str, Cell],
                    ) -> list[tuple[Cell, Cell, int]]:
    """Move single blocks of a free reading to a neighbouring cell where the pictures show them better.

    The reconstruct stage's local search stops where no *single* cell change lowers the ray cost; a
    block read one cell off its true place (seen at 40 degrees, a block one level up and one row
    back covers nearly the same pixels) is such a stop: removing it alone breaks the rays it
    explains, adding the true one alone explains nothing they do not already.  Moving it explains
    the rays both ways.  Each candidate block (:data:`RELOCATE_CANDIDATES`) is priced at each empty
    cell of its 26 neighbours (:meth:`RayScorer.move_gains`); the move that
    explains the most rays net is taken while it explains at least :data:`RELOCATE_MIN_GAIN`
    (the same objective the search minimises: a move is only a better optimum of it).  The rules
    guard the moves: a start block never moves and no block of another colour enters a start cell
    (rulebook "Setup" 3), and a move never leaves more blocks unsupported than before (rulebook "The
    Battlefield").  Block counts do not change.  Mutates ``blocks``; returns (from, to, rays
    explained) per block moved (a block moved twice is one entry, from where it was read to where it
    ends; one moved back to where it was read is none)."""
    if not RELOCATE_BLOCKS:
        return []
    in_play = set(blocks.values())  # a colour not in play has no start block (its cell is a plain cell)
    starts = {colour: cell for colour, cell in starts.items() if colour in in_play}
    start_of = {cell: colour for colour, cell in starts.items()}
    moves: list[tuple[Cell, Cell, int]] = []
    # each block's gains on the base they were priced on (block -> colour, targets, gains), kept across moves: a
    # move changes two cells, and only the gains of a block whose rays or whose targets' rays cross one of them
    # can change (``RayScorer.sharing_rays``), so the others are the same integers as pricing them again
    known: dict[Cell, tuple[str, tuple[Cell, ...], list[int]]] = {}
    for _ in range(RELOCATE_MAX_MOVES):
        unsupported = _unsupported(blocks)
        if RELOCATE_CANDIDATES == "all":
            movable = set(blocks)
        else:
            movable = set(unsupported)
            for colour, s in starts.items():
                if blocks.get(s) != colour:  # a start cell read empty (or another colour): its block was read nearby
                    movable |= {c for c, v in blocks.items() if v == colour and
                                max(abs(c[0] - s[0]), abs(c[1] - s[1]), abs(c[2] - s[2])) <= 1}
        movable = {c for c in movable if start_of.get(c) != blocks[c]}  # a start block never moves
        priced: list[tuple[int, Cell, Cell]] = []
        scorer.set_base(blocks)
        for b in sorted(movable):
            colour = blocks[b]
            free = relocation_targets(b, colour, blocks, start_of, scorer)
            if not free:
                continue
            hit = known.get(b)
            if hit is not None and hit[0] == colour and hit[1] == tuple(free):
                gains = hit[2]
            else:
                gains = scorer.move_gains(b, free)
                known[b] = (colour, tuple(free), gains)
            for e, gain in zip(free, gains, strict=True):
                if gain >= RELOCATE_MIN_GAIN:
                    priced.append((-gain, b, e))
        priced.sort()
        for neg, b, e in priced:
            moved = {k: v for k, v in blocks.items() if k != b}
            moved[e] = blocks[b]
            if len(_unsupported(moved)) <= len(unsupported):
                blocks.clear()
                blocks.update(moved)
                known = _gains_still_known(known, scorer, (b, e))
                # a block moved on again is one move, from where it was read to where it ends
                earlier = next((k for k, mv in enumerate(moves) if mv[1] == b), None)
                if earlier is None:
                    moves.append((b, e, -neg))
                else:
                    src, _, gain = moves.pop(earlier)
                    if src != e:
                        moves.append((src, e, gain - neg))
                break
        else:
            break
    return moves


@dataclass(frozen=True)
class DepthAlternative:
    """A block of the reading at ``cell`` that one cell further from a picture or one level lower (``target``,
    empty) would explain the sampled rays nearly as well: ``cost`` sampled rays more left unexplained there (0 or
    less: as well or better, but under :data:`RELOCATE_MIN_GAIN` or barred by the support rule)."""

    cell: Cell
    target: Cell
    cost: int


def _back_steps(cell: Cell, centres_mm: Sequence[npt.NDArray[np.float64]], block_mm: float) -> set[Cell]:
    """The steps "one cell back" from ``cell`` along each picture's viewing direction (the horizontal axis the
    line of sight mostly runs along, away from the camera, with and without a level down), and one level down."""
    out: set[Cell] = {(0, 0, -1)}
    mid = (np.asarray(cell, np.float64) + 0.5) * block_mm
    for c in centres_mm:
        d = mid - c
        if abs(d[0]) < 1e-9 and abs(d[1]) < 1e-9:
            continue
        step = (int(np.sign(d[0])), 0, 0) if abs(d[0]) >= abs(d[1]) else (0, int(np.sign(d[1])), 0)
        out.add(step)
        out.add((step[0], step[1], -1))
    return out


def depth_alternatives(blocks: Mapping[Cell, str], scorer: RayScorer, starts: Mapping[str, Cell],
                       cameras: Sequence[ViewCamera], skip: Collection[Cell], max_cost: int) -> list[DepthAlternative]:
    """Every block of a free reading whose move one cell back along a picture's line of sight or one level down
    (:func:`_back_steps`) costs at most ``max_cost`` sampled rays (:meth:`RayScorer.move_gains`) -- the depth
    errors session 16 found (docs/vision.md, "Session 16: extra blocks in front": a block read one cell too near
    / high, its true cell behind empty, the sampled rays preferring the wrong cell by a median 8 rays), and the
    true blocks a rule choosing between the two would face.  Never a start block, no block into another colour's
    start cell (rulebook "Setup" 3), no move leaving more blocks unsupported ("The Battlefield"), nothing in
    ``skip``.  ``cameras`` are the pictures' cameras (``center`` in mm, ``block_mm``).  Cheapest first."""
    in_play = set(blocks.values())
    start_of = {cell: colour for colour, cell in starts.items() if colour in in_play}
    centres = [np.asarray(c.center, np.float64) for c in cameras]
    block_mm = float(cameras[0].block_mm) if cameras else 22.0
    n_unsupported = len(_unsupported(blocks))
    scorer.set_base(blocks)
    out: list[DepthAlternative] = []
    for b in sorted(blocks):
        colour = blocks[b]
        if start_of.get(b) == colour or b in skip:
            continue
        around = set(relocation_targets(b, colour, blocks, start_of, scorer))
        targets = sorted(t for t in ((b[0] + d[0], b[1] + d[1], b[2] + d[2]) for d in _back_steps(b, centres, block_mm))
                         if t in around and t not in skip)
        if not targets:
            continue
        for t, gain in zip(targets, scorer.move_gains(b, targets), strict=True):
            if -gain > max_cost:
                continue
            moved = {k: v for k, v in blocks.items() if k != b}
            moved[t] = colour
            if len(_unsupported(moved)) <= n_unsupported:
                out.append(DepthAlternative(b, t, -gain))
    return sorted(out, key=lambda a: (a.cost, a.cell, a.target))


#: :func:`edge_moves`: on/off (off: see its docstring for why), the candidates' price limit (sampled rays), the outline
#: fit asked (``fine_rays.outline_score``, a log ratio of mean gradients: 0.4 = the moved block's own outline pixels
#: 1.5 times as strong), how far the finer rays may argue against (fine rays, stride 1: 40 = 2.5 sampled rays), at
#: most this many moves
EDGE_MOVES = False
EDGE_MOVE_MAX_COST = 10
EDGE_MOVE_MIN_OUTLINE = 0.4
EDGE_MOVE_FINE_FLOOR = -40
EDGE_MOVE_MAX = 4


@dataclass(frozen=True)
class EdgeMove:
    """A block moved from ``cell`` to ``target`` by :func:`edge_moves`: the sampled rays' price of the move
    (``cost``, positive: fewer explained), the outline fit, the fine rays' verdict (positive: for the move)."""

    cell: Cell
    target: Cell
    colour: str
    cost: int
    outline: float
    fine: int

    def __str__(self) -> str:
        return (f"the {self.colour} block read at {self.cell[0]},{self.cell[1]},{self.cell[2]}, moved to "
                f"{self.target[0]},{self.target[1]},{self.target[2]}")


def edge_moves(blocks: dict[Cell, str], scorer: RayScorer, starts: Mapping[str, Cell],
               pictures: Sequence[npt.NDArray[np.uint8]], models: Sequence[ColourModel],
               views: Sequence[ViewEvidence], skip: Collection[Cell],
               cfg: ReconstructConfig | None = None) -> list[EdgeMove]:
    """Move blocks read one cell too near / high where the pictures' edges follow the moved block's outline.

    Session 16 (docs/vision.md, "Session 16: extra blocks in front") found blocks read one cell in front of or
    above their true cell, the true cell left empty, the sampled rays preferring the wrong cell by a few rays
    only (under :data:`RELOCATE_MIN_GAIN`, so :func:`relocate_blocks` keeps them).  Colour cannot tell the two
    placements apart (the same colour's faces cover nearly the same pixels); where they draw their outlines can.
    Each :func:`depth_alternatives` move costing at most :data:`EDGE_MOVE_MAX_COST` sampled rays is scored by
    ``fine_rays.outline_score`` (the picture's grey gradient on the outline pixels only the moved block draws,
    against those only the read block draws) and, when that exceeds :data:`EDGE_MOVE_MIN_OUTLINE`, priced on the
    finer rays (``fine_rays.fine_move_gains``): taken unless they argue against it by more than
    :data:`EDGE_MOVE_FINE_FLOOR`; the best outline first, each block and cell once, at most
    :data:`EDGE_MOVE_MAX`, never leaving more blocks unsupported (rulebook "The Battlefield"), no start block
    moved and no block into another colour's start cell ("Setup" 3).  Mutates ``blocks``.

    Off by default (``EDGE_MOVES``): on the session-17 dev sets (docs/vision.md, "Session 17: blocks one cell
    off") the outline fit separates the right moves from the wrong ones only partly (AUC ~0.8 on the measurable
    candidates), and most candidates are pure ties no picture's pixels decide."""
    if not EDGE_MOVES:
        return []
    from vision import fine_rays  # (late: fine_rays imports this module)

    cands = depth_alternatives(blocks, scorer, starts, [v.camera for v in views], skip, EDGE_MOVE_MAX_COST)
    scored = []
    for a in cands:
        outline, _n_views, _n_px = fine_rays.outline_score(blocks, a.cell, a.target, pictures, views)
        if outline is not None and outline > EDGE_MOVE_MIN_OUTLINE:
            scored.append((outline, a))
    if not scored:
        return []
    fines = fine_rays.fine_move_gains(blocks, [a for _, a in scored], pictures, models, views, cfg)
    passing = sorted(((o, a, f[0]) for (o, a), f in zip(scored, fines, strict=True) if f[0] >= EDGE_MOVE_FINE_FLOOR),
                     key=lambda t: (-t[0], t[1].cell, t[1].target))
    start_of = {cell: colour for colour, cell in starts.items() if colour in set(blocks.values())}
    used: set[Cell] = set()
    done: list[EdgeMove] = []
    for outline, a, fine in passing:
        if len(done) >= EDGE_MOVE_MAX:
            break
        if a.cell in used or a.target in used or a.cell not in blocks or a.target in blocks:
            continue
        colour = blocks[a.cell]
        if start_of.get(a.target, colour) != colour or start_of.get(a.cell) == colour:
            continue
        moved = {k: v for k, v in blocks.items() if k != a.cell}
        moved[a.target] = colour
        if len(_unsupported(moved)) > len(_unsupported(blocks)):
            continue
        blocks.clear()
        blocks.update(moved)
        used |= {a.cell, a.target}
        done.append(EdgeMove(a.cell, a.target, colour, a.cost, outline, fine))
    return done


#: switch (for measuring): lower blocks read one level above a hidden empty cell (:func:`lower_blocks`)
LOWER_BLOCKS = True
#: at most this many blocks of the lowered block's colour added next to it (each showing itself, see there)
LOWER_MAX_ADDS = 2


def lower_blocks(blocks: dict[Cell, str], scorer: RayScorer, starts: Mapping[str, Cell],
                 unobserved: Collection[Cell]) -> list[tuple[Cell, Cell, list[Cell], int]]:
    """Lower blocks read one level above a cell no picture shows, together with the blocks they hid.

    A block read at ``(x, y, z)`` above an empty cell that no ray reaches (it is hidden by the block and by
    what stands in front) may stand one level lower: seen at 40 degrees from a side, a block in the cell
    below and a block of the same colour one row further in (on the Central Cube, say) cover nearly the
    same pixels as the one block read.  Neither single change lowers the ray cost -- moving the block down
    uncovers a cell that then looks empty, and the hidden neighbour shows nothing while the block stands
    in front of it -- so the reconstruct stage's search and :func:`relocate_blocks` stop there (SIMULATED
    development renders: held scene_001 and scene_007, dev2 scene_017 and scene_039).  Here the block is
    moved down and then up to :data:`LOWER_MAX_ADDS` cells around both cells are given its colour, each
    only if the pictures show it (a block there explains at least :data:`RELOCATE_MIN_GAIN` sampled rays
    more); the change is taken when it explains at least :data:`RELOCATE_MIN_GAIN` rays more in all (the
    search's own objective) and leaves no more blocks unsupported (rulebook "The Battlefield").  A start
    block never moves and no block of another colour enters a start cell ("Setup" 3); never a 23rd block
    ("Components").  Mutates ``blocks``; returns (from, to, cells added, rays explained) per change."""
    if not LOWER_BLOCKS:
        return []
    in_play = set(blocks.values())
    start_of = {cell: colour for colour, cell in starts.items() if colour in in_play}
    hidden = set(unobserved)
    done: list[tuple[Cell, Cell, list[Cell], int]] = []
    # each trial's outcome (block -> its colour, the cells added, the rays explained), kept across the changes taken:
    # a trial reads the blocks and the rays of its two cells and the cells around them only (``_lowering_looks_at``),
    # so a change whose cells no such ray crosses, and that adds no block of its colour, leaves it the same
    known: dict[Cell, tuple[str, list[Cell], int]] = {}
    for _ in range(RELOCATE_MAX_MOVES):
        base_cost = scorer.set_base(blocks)
        n_unsupported = len(_unsupported(blocks))
        best: tuple[int, Cell, Cell, list[Cell], dict[Cell, str]] | None = None
        priced = False
        for e in sorted(blocks):
            colour = blocks[e]
            below = (e[0], e[1], e[2] - 1)
            if e[2] == 0 or start_of.get(e) == colour or below in blocks or below in CENTRAL_CUBE \
                    or below not in hidden or start_of.get(below, colour) != colour:
                continue
            trial = {k: v for k, v in blocks.items() if k != e}
            trial[below] = colour
            hit = known.get(e)
            if hit is not None and hit[0] == colour:
                added, gain = list(hit[1]), hit[2]
                for a in added:
                    trial[a] = colour
            else:
                # (from the last trial's base, not the reading's: set_base prices any base alike)
                cost = scorer.set_base(trial)
                priced = True
                added = []
                around = _around_lowering(e)
                for _add in range(LOWER_MAX_ADDS):
                    if sum(1 for v in trial.values() if v == colour) >= BLOCKS_PER_COLOR:
                        break
                    cands = [n for n in around if n != e and n[2] >= 0 and n not in trial and n not in CENTRAL_CUBE
                             and start_of.get(n, colour) == colour and scorer.in_volume(n)]
                    if not cands:
                        break
                    gains = scorer.deltas([[n] for n in cands], colour)
                    k = int(np.argmin(gains))
                    if gains[k] > -RELOCATE_MIN_GAIN:
                        break
                    trial[cands[k]] = colour
                    added.append(cands[k])
                    cost = scorer.set_base(trial)
                gain = base_cost - cost
                known[e] = (colour, list(added), gain)
            if gain >= RELOCATE_MIN_GAIN and (best is None or gain > best[0]) \
                    and len(_unsupported(trial)) <= n_unsupported:
                best = (gain, e, below, added, trial)
        if priced:
            scorer.set_base(blocks)  # the base the step leaves, as before
        if best is None:
            break
        gain, e, below, added, trial = best
        blocks.clear()
        blocks.update(trial)
        hidden.discard(below)
        done.append((e, below, added, gain))
        known = _trials_still_known(known, scorer, [e, below, *added], blocks[below])
    return done


def _around_lowering(e: Cell) -> list[Cell]:
    """The cells around the block at ``e`` and the cell below it: where a :func:`lower_blocks` trial may add blocks."""
    below = (e[0], e[1], e[2] - 1)
    return sorted({(c[0] + d[0], c[1] + d[1], c[2] + d[2]) for c in (e, below) for d in _AROUND})


def _lowering_looks_at(e: Cell) -> list[Cell]:
    """The cells whose blocks and rays a :func:`lower_blocks` trial of the block at ``e`` reads: ``e``, the cell below
    it and every cell around the two (:func:`_around_lowering`)."""
    return sorted(set(_around_lowering(e)) | {e, (e[0], e[1], e[2] - 1)})


def _trials_still_known(known: Mapping[Cell, tuple[str, list[Cell], int]], scorer: RayScorer,
                        changed: Sequence[Cell], colour: str) -> dict[Cell, tuple[str, list[Cell], int]]:
    """The :func:`lower_blocks` trials of ``known`` (block -> colour, cells added, rays explained) that a change of the
    blocks at the cells ``changed`` (a block of ``colour`` lowered, with the blocks added) leaves the same: those
    whose cells (:func:`_lowering_looks_at`) hold none of ``changed`` and share no ray with them, and, when blocks
    were added, of another colour (the count of a colour limits what its trials add)."""
    crossed = scorer.sharing_rays(changed)
    moved = set(changed)
    more = len(changed) > 2

    def kept(e: Cell, col: str) -> bool:
        if more and col == colour:
            return False
        for c in _lowering_looks_at(e):
            i = scorer.cell_index(c)
            if c in moved or (i >= 0 and crossed[i]):
                return False
        return True

    return {e: k for e, k in known.items() if kept(e, k[0])}


#: switch (for measuring): fill the hidden cells that connect / hold blocks read where nothing could hold them
CONNECT_HIDDEN = True
#: the longest run of hidden cells one connection may fill, and the most cells filled in all
CONNECT_MAX_PATH = 3
CONNECT_MAX_CELLS = 8
#: how the filled cells' colour is chosen: "neighbours" (most face neighbours' colour) or
#: "counts" (a neighbour colour whose block count is not yet possible first)
CONNECT_COLOUR = "neighbours"
#: among the shortest runs: the one holding the most blocks, then the one showing on fewest sides
CONNECT_TIEBREAK = True


#: the cells with a face on the Central Cube (the cube's own cells that touch another of its cells included)
_BY_CUBE: frozenset[Cell] = frozenset((c[0] + d[0], c[1] + d[1], c[2] + d[2]) for c in CENTRAL_CUBE for d in ALL_DIRS)


def _reached_from_cube(blocks: Mapping[Cell, str]) -> set[Cell]:
    """The blocks connected to the Central Cube through blocks (rulebook "The Battlefield")."""
    reached = {c for c in blocks if c in _BY_CUBE}
    todo = list(reached)
    while todo:
        x, y, z = todo.pop()
        for nb in ((x + 1, y, z), (x - 1, y, z), (x, y + 1, z), (x, y - 1, z), (x, y, z + 1), (x, y, z - 1)):
            if nb in blocks and nb not in reached:
                reached.add(nb)
                todo.append(nb)
    return reached


def connect_hidden(blocks: dict[Cell, str], unobserved: Sequence[Cell],
                   starts: Mapping[str, Cell]) -> tuple[list[Cell], list[Problem]]:
    """Fill the hidden cells that blocks read where nothing could hold them need.

    Every block touches the Central Cube through blocks and none hangs under another (rulebook "The
    Battlefield", "Placing Blocks").  The reconstruct stage keeps a group that only cells no picture
    sees (``unobserved``: inside the pile, or in front of a face no picture looks at) can connect,
    but leaves those cells empty, so the reading breaks the rule and the faces the hidden blocks show
    are missing from the side counts.  Here the shortest runs (at most :data:`CONNECT_MAX_PATH`) of
    hidden cells that make fewer blocks unsupported (:func:`_unsupported`) are filled, the best first.
    The colour is a prior, not a reading: a colour of the cell's face neighbours, one whose count is
    not yet possible (1, 4, 7, ...: rulebook "Game Turn") first (:data:`CONNECT_COLOUR`), then the
    commonest; never a colour's 23rd block, never another colour on a start cell ("Setup" 3).  Each
    filled cell is reported (``inferred-connection``); the sides it shows on are in doubt
    (:func:`pocket_sides`).  Mutates ``blocks``; returns the filled cells and the warnings."""
    if not CONNECT_HIDDEN:
        return [], []
    in_play = set(blocks.values())  # a colour not in play has no start block (its cell is a plain cell)
    start_of = {cell: colour for colour, cell in starts.items() if colour in in_play}
    hidden = {c for c in unobserved if c not in blocks and c not in CENTRAL_CUBE and c[2] >= 0}
    filled: dict[Cell, str] = {}
    while len(filled) < CONNECT_MAX_CELLS:
        unsupported = _unsupported(blocks)
        if not unsupported:
            break
        reached = _reached_from_cube(blocks) | set(CENTRAL_CUBE)
        # breadth-first from the connected pile through hidden cells
        prev: dict[Cell, Cell | None] = {}
        frontier = [c for c in sorted(hidden) if any(
            (c[0] + d[0], c[1] + d[1], c[2] + d[2]) in reached for d in ALL_DIRS)]
        for c in frontier:
            prev[c] = None
        best: list[Cell] | None = None
        occupied = set(blocks) | set(CENTRAL_CUBE)
        for _depth in range(CONNECT_MAX_PATH):
            ranked: list[tuple[int, int, list[Cell]]] = []
            for c in frontier:
                path = [c]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])  # type: ignore[arg-type]
                trial = dict(blocks)
                for p in path:
                    trial[p] = "?"
                after = _unsupported(trial)
                if len(after) < len(unsupported) and not any(p in after for p in path):
                    # the run that holds the most blocks; then the one whose cells show on fewest sides
                    # (a guess no side count depends on is the smaller one)
                    shown = sum(pocket_sides(path, occupied | set(path)).values()) if CONNECT_TIEBREAK else 0
                    ranked.append((len(after), shown, path))
            if ranked:
                best = min(ranked, key=lambda t: (t[0], t[1], t[2]))[2]
            if best is not None or len(filled) + _depth + 1 >= CONNECT_MAX_CELLS:
                break
            nxt: list[Cell] = []
            for c in frontier:
                for d in ALL_DIRS:
                    nb = (c[0] + d[0], c[1] + d[1], c[2] + d[2])
                    if nb in hidden and nb not in prev:
                        prev[nb] = c
                        nxt.append(nb)
            frontier = nxt
            if not frontier:
                break
        if best is None:
            break
        for cell in reversed(best):  # from the pile outwards, so each cell sees the colours filled before it
            colour = _connector_colour(blocks, cell, start_of)
            if colour is None:
                return _connect_done(filled)
            blocks[cell] = colour
            filled[cell] = colour
            hidden.discard(cell)
    return _connect_done(filled)


#: switch (docs/vision.md, "Session 19: free reading where every block is seen"): fill the hidden cell under a block
#: read above the mat (:func:`fill_under`).  Off by default.
FILL_UNDER = False


def fill_under(blocks: dict[Cell, str], unobserved: Sequence[Cell],
               starts: Mapping[str, Cell]) -> tuple[list[Cell], list[Problem]]:
    """Fill the hidden cells right under blocks read above the mat, with the colour of the block above.

    A block read at (x, y, z >= 1) over an empty cell no picture shows (``unobserved``): blocks are placed from the
    mat up ("Placing Blocks"), and on SIMULATED development renders (held18 and dev19, the final free readings)
    the truth holds a block in such a cell 164 times of 186 (five pictures; 129 of 138 with nine), of the colour
    of the block above 129 (five) and 89 (nine) times.  Downwards, cell by cell, while the cell below is hidden
    and empty too; never a colour's 23rd block ("Components"), never another colour on a start cell ("Setup" 3).
    Each filled cell is reported (``inferred-under``, a warning); the caller puts the sides it shows on in
    doubt (:func:`pocket_sides`).  Mutates ``blocks``; returns the filled cells and the warnings."""
    if not FILL_UNDER:
        return [], []
    in_play = set(blocks.values())
    start_of = {cell: colour for colour, cell in starts.items() if colour in in_play}
    hidden = {c for c in unobserved if c not in blocks and c not in CENTRAL_CUBE and c[2] >= 0}
    filled: dict[Cell, str] = {}
    for cell in sorted(blocks, key=lambda c: (-c[2], c)):
        colour = blocks[cell]
        below = (cell[0], cell[1], cell[2] - 1)
        while below in hidden and below not in blocks and start_of.get(below, colour) == colour \
                and _cap_ok(blocks, colour):
            blocks[below] = colour
            filled[below] = colour
            below = (below[0], below[1], below[2] - 1)
    notes = [Problem("inferred-under", f"a {colour} block is assumed here: no picture shows the cell, and the "
                     f"{colour} block read above it stands on it more often than not",
                     f"cell {c[0]},{c[1]},{c[2]}", 'CTRL rulebook, "Placing Blocks"', "warning")
             for c, colour in sorted(filled.items())]
    return sorted(filled), notes


def _connect_done(filled: Mapping[Cell, str]) -> tuple[list[Cell], list[Problem]]:
    notes = [Problem("inferred-connection", f"a {colour} block is assumed here: no picture can show the cell, "
                     "and blocks read next to it need one here to be connected to the Central Cube or held",
                     f"cell {c[0]},{c[1]},{c[2]}", 'CTRL rulebook, "The Battlefield"', "error")
             for c, colour in sorted(filled.items())]
    return sorted(filled), notes


def _connector_colour(blocks: Mapping[Cell, str], cell: Cell, start_of: Mapping[Cell, str]) -> str | None:
    if cell in start_of:
        colour = start_of[cell]
        return colour if _cap_ok(blocks, colour) else None
    near: dict[str, int] = {}
    for d in ALL_DIRS:
        v = blocks.get((cell[0] + d[0], cell[1] + d[1], cell[2] + d[2]))
        if v in COLOR_LABELS and _cap_ok(blocks, v):
            near[v] = near.get(v, 0) + 1
    if not near:
        return None
    counts = {c: sum(1 for v in blocks.values() if v == c) for c in near}

    def key(c: str) -> tuple[int, int, str]:
        short = (counts[c] - 1) % BLOCKS_PER_TURN != 0 if CONNECT_COLOUR == "counts" else False
        return (-int(short), -near[c], c)
    return min(near, key=key)


#: switch (for measuring): leave out blocks on the mat whose pixels are far paler than their colour's blocks
#: (:func:`drop_pale_mat_blocks`)
DROP_PALE_MAT_BLOCKS = True
#: ... paler: the median saturation of the block's rays below this share of its colour's reference median
PALE_MAT_RATIO = 0.45
#: ... and the reference (the colour's start block and its blocks above the mat) seen on at least this many rays
PALE_MAT_MIN_REFERENCE = 30
#: switch (docs/vision.md, "Session 19: free reading where every block is seen"): a pale candidate that EVERY
#: picture read shows -- each explains at least this many more sampled rays with the block than without it
#: (``RayScorer.gains_by_view``) -- stays.  A tinted shadow is flat on the mat: a block there projects onto other
#: pixels in each picture, and at least one picture (hidden by the pile, or showing bare mat where the block's
#: silhouette would reach) does not back it; a real block standing in the open is backed by all.  ``None``: off.
PALE_KEEP_SEEN_BY_ALL: int | None = None


def drop_pale_mat_blocks(blocks: dict[Cell, str], scorer: RayScorer, starts: Mapping[str, Cell],
                         ) -> tuple[list[tuple[Cell, str, float]], dict[str, float]]:
    """Leave out blocks read on the mat where the pictures show only a tinted shadow.

    Under a warm key light and a cooler fill (or daylight from a window), the white mat in a pile's shadow
    is lit by the fill alone and, after white balance to the key, reads as a pale **blue**; the black print
    there reads blue too.  The free reading explains those pixels with blocks on the mat (z = 0), often
    several in a row along the shadow (docs/vision.md, "Session 10: the free reading's score sheet": on
    the development renders most wrong sides whose every wrong line of sight the side's own picture shows
    are such blocks).  Shading scales a surface's CIELAB lightness and chroma together, so a real block
    keeps its plastic's saturation (chroma / lightness) in its own shadow; the shadowed paper does not.
    A non-start block on the mat whose first-hit rays of its colour (at least the relocation's
    :data:`RELOCATE_MIN_GAIN`: a median of a handful of rays moves with every other block) have a median
    saturation below
    :data:`PALE_MAT_RATIO` of the median over its colour's start block and blocks above the mat (the
    same plastic under the same light; at least :data:`PALE_MAT_MIN_REFERENCE` rays) is left out, palest
    first, unless that leaves a block unsupported that is not such a block itself (rulebook "The
    Battlefield"); in the end no block is unsupported that was held before.  A start block is
    never left out (rulebook "Setup" 3).  Mutates ``blocks``; returns (cell, colour, ratio) per block
    left out (the caller reports them and the sides they would show on), and per colour that had one
    left out the saturation under which its pixels are as pale (for ``RayScorer.without_pale``: the
    later steps would otherwise move other blocks into the shadow to explain them)."""
    if not DROP_PALE_MAT_BLOCKS:
        return [], {}
    sats = scorer.first_hit_saturation(blocks)
    found: list[tuple[float, Cell, str]] = []
    limits: dict[str, float] = {}
    for colour in sorted(set(blocks.values())):
        ref = [sats[c] for c, v in blocks.items() if v == colour and (c[2] >= 1 or c == starts.get(colour))]
        ref_all = np.concatenate(ref) if ref else np.zeros(0, np.float32)
        if len(ref_all) < PALE_MAT_MIN_REFERENCE:
            continue
        ref_med = float(np.median(ref_all))
        limits[colour] = PALE_MAT_RATIO * ref_med
        for c, v in blocks.items():
            if v != colour or c[2] != 0 or c == starts.get(colour) or len(sats[c]) < RELOCATE_MIN_GAIN:
                continue
            ratio = float(np.median(sats[c])) / max(ref_med, 1e-6)
            if ratio < PALE_MAT_RATIO:
                found.append((ratio, c, colour))
    if found and PALE_KEEP_SEEN_BY_ALL is not None:
        found = [f for f in found if not seen_by_every_picture(blocks, scorer, f[1], PALE_KEEP_SEEN_BY_ALL)]
    out = _leave_out(blocks, found)
    return out, {c: v for c, v in limits.items() if any(col == c for _, col, _ in out)}


def seen_by_every_picture(blocks: Mapping[Cell, str], scorer: RayScorer, cell: Cell, min_gain: int) -> bool:
    """Does every picture read back the block of ``blocks`` at ``cell``: each explains at least ``min_gain`` more
    weighted sampled rays with it than without it (``RayScorer.gains_by_view``)?  The pictures' parallax: a flat
    patch of colour on the mat (a tinted shadow) projects where a block would in some pictures only."""
    gains = scorer.gains_by_view(blocks, [cell])
    return len(gains) > 0 and int(gains.min()) >= min_gain


def _leave_out(blocks: dict[Cell, str], found: list[tuple[float, Cell, str]]) -> list[tuple[Cell, str, float]]:
    """Take the candidates ``found`` (key, cell, colour) out of ``blocks``, lowest key first, unless that leaves
    a block unsupported that is not a candidate itself; in the end no block is unsupported that was held
    before.  Returns (cell, colour, key) per block left out."""
    out: list[tuple[Cell, str, float]] = []
    todo = sorted(found)
    unsupported_before = _unsupported(blocks)
    # a shadow's blocks often hold each other (a row along the shadow): one left out alone may leave the
    # next one unconnected, so they are tried palest first, again while one more goes
    while todo:
        left = []
        for ratio, c, colour in todo:
            before = _unsupported(blocks)
            del blocks[c]
            if _unsupported(blocks) - before - {d for _, d, _ in todo}:
                blocks[c] = colour
                left.append((ratio, c, colour))
                continue
            out.append((c, colour, round(ratio, 2)))
        if len(left) == len(todo):
            break
        todo = left
    # a candidate left unsupported by the others going but kept itself: put back the last ones left out
    # until no block is unsupported that was held before
    while out and _unsupported(blocks) - unsupported_before:
        c, colour, _ = out.pop()
        blocks[c] = colour
    return out


#: switch (for measuring): leave out blocks on the mat whose pixels are as smooth as bare paper
#: (:func:`drop_smooth_mat_blocks`; docs/vision.md, "Session 16: mat tint").  Off by default (session 16 lead): on
#: development it removed 6 wrong cells for one true block lost and no side gained with five pictures (3 fewer wrong
#: sides with nine, resting on 3 readings); its own check set did not move; and its threshold is an absolute grey
#: level spread measured on the renders' sensor model alone -- a real camera's noise and the mat paper's grain would
#: move it.  By the rule that a gain must show on a check set, it stays off until one does.
DROP_SMOOTH_MAT_BLOCKS = False
#: ... smooth: the median, over the block's first-hit rays of its colour, of the grey level's standard deviation
#: in a ``SMOOTH_MAT_WINDOW`` pixel square around each ray's pixel is below this (grey levels, 0-255)
SMOOTH_MAT_MAX_GREY_STD = 2.0
SMOOTH_MAT_WINDOW = 7


def grey_std_at(grey: npt.NDArray[np.uint8], pixels: npt.NDArray[np.int64], window: int) -> npt.NDArray[np.float64]:
    """The grey level's standard deviation in a ``window`` x ``window`` square (clipped at the picture's edges)
    around each pixel (x, y) of ``pixels`` (N, 2)."""
    if window < 1:
        raise ValueError(f"window must be at least 1 pixel, got {window!r}")
    if len(pixels) == 0:
        return np.zeros(0)
    h, w = grey.shape[:2]
    r = window // 2
    off = np.arange(-r, r + 1)
    xs = np.clip(pixels[:, 0, None, None] + off[None, None, :], 0, w - 1)
    ys = np.clip(pixels[:, 1, None, None] + off[None, :, None], 0, h - 1)
    patch = grey[ys, xs].astype(np.float64)
    return patch.reshape(len(pixels), -1).std(axis=1)  # type: ignore[no-any-return]


def drop_smooth_mat_blocks(blocks: dict[Cell, str], scorer: RayScorer, starts: Mapping[str, Cell],
                           greys: Sequence[npt.NDArray[np.uint8]]) -> list[tuple[Cell, str, float]]:
    """Leave out blocks read on the mat whose pixels are as smooth as bare paper: a tinted shadow or colour
    bled onto the mat next to a pile (docs/vision.md, "Session 16: mat tint").

    On the development renders the mat-level blocks the free reading adds where the truth has only a blue
    shadow on the paper show a smooth grey picture around their rays (the median 7 x 7 standard deviation 4
    grey levels, a third of them under 2), while the first-hit rays of every true mat-level block (1052 cells)
    have a median of 2.8 or more: a block's faces meet edges, a shading step between its top and its sides,
    and the plastic's sheen.  A non-start block on the mat whose first-hit rays of its colour (at least
    :data:`RELOCATE_MIN_GAIN`) have a median grey standard deviation (:func:`grey_std_at`, in each ray's own
    picture ``greys``) under :data:`SMOOTH_MAT_MAX_GREY_STD` is left out, smoothest first, unless that leaves
    a block unsupported (as :func:`drop_pale_mat_blocks`).  A start block is never left out (rulebook "Setup"
    3).  Mutates ``blocks``; returns (cell, colour, median standard deviation) per block left out."""
    if not DROP_SMOOTH_MAT_BLOCKS:
        return []
    found: list[tuple[float, Cell, str]] = []
    for c, colour in blocks.items():
        if c[2] != 0 or c == starts.get(colour):
            continue
        views, pixels = scorer.rays_meeting_first(blocks, [c], colour)
        if len(views) < RELOCATE_MIN_GAIN:
            continue
        stds = np.concatenate([grey_std_at(greys[int(v)], pixels[views == v], SMOOTH_MAT_WINDOW)
                               for v in np.unique(views)])
        med = float(np.median(stds))
        if med < SMOOTH_MAT_MAX_GREY_STD:
            found.append((med, c, colour))
    return _leave_out(blocks, found)


#: switch (for measuring): leave out blocks on the mat whose colour the pictures show on the mat around them
#: (:func:`drop_ground_mat_blocks`; docs/vision.md, "Session 12: the free reading with nine pictures")
DROP_GROUND_MAT_BLOCKS = True
#: ... at least this many of the block's rays have their place on the mat seen by another picture ...
GROUND_MAT_MIN_RAYS = 20
#: ... and at least this share of them show the block's colour there
GROUND_MAT_SHARE = 0.95


#: ... unless, with at least ``FLAT_PATCH.min_low_pictures`` pictures taken low down, a flat patch of its colour on the
#: mat (:meth:`RayScorer.flat_patch_deltas`) would explain more than this many weighted rays fewer than the block:
#: then the colour around it is bled from it, and it stands (None: no such check).  Nine-picture development
#: readings (fixtures, held13, held12, low10): the 5 extras the rule left out were at -217 to +44 rays, the 2
#: right blocks it left out at +122 and +255 (docs/vision.md, "Session 14: blocks the free reading leaves out")
GROUND_MAT_PATCH_MARGIN: int | None = 100


def drop_ground_mat_blocks(blocks: dict[Cell, str], scorer: RayScorer, starts: Mapping[str, Cell],
                           low_pictures: int | None = None) -> list[tuple[Cell, str, float]]:
    """Leave out blocks read on the mat whose colour the other pictures show *on the mat* where this one's rays
    would reach it (:meth:`RayScorer.colour_on_ground`).

    A block hides from each picture the patch of mat behind it, and the other pictures see that patch: if
    nearly all of them show the block's colour there too, the colour lies on the mat (a tinted cast shadow,
    colour bled onto the paper), not in a block standing on it.  The saturation test of
    :func:`drop_pale_mat_blocks` misses hard shadows under a warm key, which read as saturated as blue plastic
    seen dimly (ratios 0.5-0.7); the four low pictures see such a patch from further off, so the test has
    many more places checked with nine pictures.  A non-start block on the mat (rulebook "Setup" 3: a start
    block never moves) with at least :data:`GROUND_MAT_MIN_RAYS` rays checked and at least
    :data:`GROUND_MAT_SHARE` of them showing its colour on the mat is left out, most on the ground first,
    unless that leaves a block unsupported that is not such a block itself (rulebook "The Battlefield").
    A block's colour also bleeds onto the mat around it: with ``low_pictures`` (how many pictures were taken
    low down; None: not known) at least ``FLAT_PATCH.min_low_pictures``, a candidate that a flat patch of its
    colour explains more than :data:`GROUND_MAT_PATCH_MARGIN` rays worse than the block stays.
    Mutates ``blocks``; returns (cell, colour, share on the mat) per block left out."""
    if not DROP_GROUND_MAT_BLOCKS:
        return []
    found: list[tuple[float, Cell, str]] = []
    for c, colour in sorted(blocks.items()):
        if c[2] != 0 or c == starts.get(colour):
            continue
        checked, on_ground = scorer.colour_on_ground(blocks, c)
        if checked >= GROUND_MAT_MIN_RAYS and on_ground >= GROUND_MAT_SHARE * checked:
            found.append((-on_ground / checked, c, colour))
    fp = FLAT_PATCH
    if (found and GROUND_MAT_PATCH_MARGIN is not None and low_pictures is not None
            and low_pictures >= fp.min_low_pictures):
        deltas = scorer.flat_patch_deltas(blocks, [c for _, c, _ in found], fp.bin_size, fp.min_views)
        found = [f for f, (d, n) in zip(found, deltas, strict=True) if not (n and d > GROUND_MAT_PATCH_MARGIN)]
    return [(c, colour, -key) for c, colour, key in _leave_out(blocks, found)]


@dataclass(frozen=True)
class FlatPatchConfig:
    """Thresholds of :func:`drop_flat_patch_blocks` (docs/vision.md, "Session 13: colour on the mat as a flat
    patch")."""

    #: the mat squares a patch is made of (block units: 0.25 of a block is 5.5 mm on the 22 mm mat)
    bin_size: float = 0.25
    #: a square takes a colour only where at least this many pictures show it that colour
    min_views: int = 2
    #: a block on the mat is left out when the patch explains more than this many weighted rays more than the
    #: block does (offline, the nine-picture dev readings' blocks on the mat: 0 left out 51 extras, 5 right blocks
    #: and 4 of another colour, those 9 all within 32 rays; 20 left out 38 extras and 1 blue block read pink)
    min_gain: int = 20
    #: rounds: the blocks behind one left out meet its rays first, so they are priced again
    rounds: int = 3
    #: the later free rules price blocks without every ray the patches explain (``RayScorer.flat_patch_rays``:
    #: the rays that showed the blocks and those reaching the patches' squares in their colour), not only
    #: those that showed the blocks left out (``RayScorer.shown_by``)
    hide_patch_rays: bool = True
    #: the rule runs only with at least this many pictures taken low down (at most ``low_elevation_deg`` above
    #: the table): with the five usual pictures it left out as many extras as the later rules put back
    #: (development renders: 11 extras gone, 11 new, 2 right blocks lost, 1 gained; 286 wrong sides before and
    #: after), with the four low ones too it helped (docs/vision.md, "Session 13: colour on the mat as a flat
    #: patch")
    min_low_pictures: int = 2
    low_elevation_deg: float = 30.0


#: switch (for measuring): leave out blocks on the mat that a flat patch of their colour explains better
#: (:func:`drop_flat_patch_blocks`)
DROP_FLAT_PATCH_BLOCKS = True
FLAT_PATCH = FlatPatchConfig()


def drop_flat_patch_blocks(blocks: dict[Cell, str], scorer: RayScorer, starts: Mapping[str, Cell],
                           cfg: FlatPatchConfig | None = None, low_pictures: int | None = None,
                           ) -> list[tuple[Cell, str, float]]:
    """Leave out blocks read on the mat that a flat patch of their colour *on* the mat explains better
    (:meth:`RayScorer.flat_patch_deltas`).

    The ray model explains colour only by blocks, so colour lying on the mat -- a cast shadow tinted blue under
    a warm key, the renderer's colour bled onto the paper beside and under blocks -- is read as blocks standing
    there, most of all from the low pictures, which see such a patch across many cells.  A block and a patch
    show their colour differently: a patch at the same mat places in every picture, a block on its side faces
    above the mat, which each picture sees in front of another piece of mat.  A non-start block on the mat
    (rulebook "Setup" 3: a start block never moves) that explains more than ``cfg.min_gain`` rays fewer than the
    patch is left out, the patch's best first, unless that leaves a block unsupported that is not such
    a block itself (rulebook "The Battlefield"); then the blocks left are priced again (``cfg.rounds``).
    ``low_pictures``: how many of the pictures were taken low down (``cfg.low_elevation_deg``); with fewer than
    ``cfg.min_low_pictures`` nothing is left out (None: not known, the rule runs).  Mutates ``blocks``; returns
    (cell, colour, patch cost - block cost) per block left out."""
    cfg = cfg or FLAT_PATCH
    if not DROP_FLAT_PATCH_BLOCKS or (low_pictures is not None and low_pictures < cfg.min_low_pictures):
        return []
    out: list[tuple[Cell, str, float]] = []
    for _ in range(cfg.rounds):
        cells = [c for c, colour in sorted(blocks.items()) if c[2] == 0 and c != starts.get(colour)]
        if not cells:
            break
        deltas = scorer.flat_patch_deltas(blocks, cells, cfg.bin_size, cfg.min_views)
        found = [(float(d), c, blocks[c]) for c, (d, n) in zip(cells, deltas, strict=True) if n and d < -cfg.min_gain]
        gone = _leave_out(blocks, found)
        out += gone
        if not gone:
            break
    return out


#: :func:`depth_tie_doubts`: the most sampled rays (weighted) a block added in an empty cell may change the
#: reading's cost by, either way, for the pictures to count as "about as well explained" with it (6: the least
#: gain :data:`RELOCATE_MIN_GAIN` and :data:`REFILL_MIN_GAIN` act on); 0 turns the doubt off
DEPTH_TIE_RAYS = 6


@dataclass(frozen=True)
class DepthTie:
    """A block the pictures barely speak on: ``colour`` at ``cell`` changes the reading's ray cost by
    ``rays`` (positive: explains fewer sampled rays) and would change the counts of ``sides``."""

    cell: Cell
    colour: str
    rays: int
    sides: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.colour} {self.cell[0]},{self.cell[1]},{self.cell[2]}"


def sides_changed_by(state: State, cell: Cell, colour: str) -> tuple[str, ...]:
    """The sides (in :data:`SIDES` order) whose score row a ``colour`` block added at ``cell`` (empty, no
    flag there) changes: ``state.side_scores()`` compared with and without it, worked out on the two lines
    of sight through ``cell`` per side only (rulebook "End Game & Scoring"; ``engine.ctrl.scoring.face_views``'s
    rule: a face counts unless a block, or a flag whose pole is not parallel to the line, stands in front).
    The new block's face counts when nothing stands in front of it; the first thing behind it then loses
    its face if it is a block (its face counted before: the line beyond was clear)."""
    occupied = CENTRAL_CUBE | state.blocks.keys()
    flag_dirs: dict[Cell, Cell] = {f.cell: f.normal for f in state.flags.values()}
    lo, hi = line_box([*occupied, *flag_dirs, cell])  # the box face_views walks in, the new block's cell included
    cols = set(state.colors)

    out: list[str] = []
    for side in SIDES:
        v = SIDE_VECTORS[side]
        if first_in_line(cell, v, occupied, flag_dirs, lo, hi)[1] is not None:
            continue  # the new face is hidden, and so was every face behind it already
        gained = colour if colour in cols else None
        behind = first_in_line(cell, (-v[0], -v[1], -v[2]), occupied, flag_dirs, lo, hi)[1]
        lost = state.blocks.get(behind) if behind is not None else None
        lost = lost if lost in cols else None
        if (gained is not None or lost is not None) and gained != lost:
            out.append(side)
    return tuple(out)


def depth_tie_candidates(state: State, scorer: RayScorer, skip: Collection[Cell], max_rays: int) -> list[DepthTie]:
    """Empty cells where a block could legally stand and that the pictures hardly tell empty or full.

    A cell the pictures' rays pass through on their way to a block of the same colour behind is not
    ``unobserved`` (reconstruct), yet a block there may change the reading's cost by a handful of sampled
    rays only: perspective rays barely graze a cell that a side's orthographic line of sight shows in full
    (session 13's held-out fresh13c scene_028: a pink block at the fourth level, +-3 rays in all nine
    pictures, read absent; its side's count wrong and no warning).  For each empty cell (not in ``skip``:
    the hidden cells, which have their own doubts) where a block would be held -- touching the Central
    Cube through blocks and not only under a block (rulebook "The Battlefield", "Placing Blocks") -- and
    that shows on some side, each colour in play is priced as a block there (:meth:`RayScorer.deltas`,
    one pass per colour); those changing the cost by at most ``max_rays`` either way and changing some
    side's score row are returned (cheapest first)."""
    occupied = set(state.blocks) | set(CENTRAL_CUBE)
    pinned = {f.cell for f in state.flags.values()}
    reached = _reached_from_cube(state.blocks) | set(CENTRAL_CUBE)
    skipped = set(skip)
    cands: list[Cell] = []
    seen: set[Cell] = set()
    for c in sorted(reached):
        for d in ALL_DIRS:
            n = (c[0] + d[0], c[1] + d[1], c[2] + d[2])
            if n in seen or n in occupied or n in pinned or n in skipped or n[2] < 0:
                continue
            seen.add(n)
            if not scorer.in_volume(n) or not _shows_on_a_side(n, occupied):
                continue
            if _held(n, occupied):
                cands.append(n)
    if not cands:
        return []
    scorer.set_base(state.blocks)
    # every colour's prices on one gather of the cells' rays (RayScorer.deltas_each: the same integers)
    priced = (scorer.deltas_each(cands, state.colors) if isinstance(scorer, RayScorer)
              else {colour: scorer.deltas([[c] for c in cands], colour) for colour in state.colors})
    out: list[DepthTie] = []
    for colour in state.colors:
        for cell, rays in zip(cands, priced[colour], strict=True):
            if abs(rays) > max_rays:
                continue
            sides = sides_changed_by(state, cell, colour)
            if sides:
                out.append(DepthTie(cell, colour, int(rays), sides))
    return sorted(out, key=lambda t: (t.rays, t.cell, t.colour))


def depth_tie_doubts(state: State, scorer: RayScorer, skip: Collection[Cell],
                     max_rays: int | None = None) -> dict[str, list[DepthTie]]:
    """Side -> the :func:`depth_tie_candidates` that change it (:data:`DEPTH_TIE_RAYS` unless ``max_rays``;
    empty when that is 0)."""
    limit = DEPTH_TIE_RAYS if max_rays is None else max_rays
    if limit <= 0:
        return {}
    out: dict[str, list[DepthTie]] = {}
    for tie in depth_tie_candidates(state, scorer, skip, limit):
        for side in tie.sides:
            out.setdefault(side, []).append(tie)
    return out
