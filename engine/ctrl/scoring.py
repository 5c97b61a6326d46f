"""CTRL scoring (rulebook "End Game & Scoring"; docs/rules/ctrl.md, "Scoring").

Scoring is what a player sees looking straight at a side.  The sides are ``"+x"``, ``"-x"``,
``"+y"``, ``"-y"`` and ``"top"``; the bottom never counts.  A block's face with outward normal
``v`` counts for side ``v`` iff for every ``k >= 1`` the cell ``block + k*v`` is not occupied and
holds no flag whose pole is not parallel to ``v`` (a flag hides what is behind it, except when
seen end-on).  The winner has the highest total; ties go to the flag reaching highest (flag cell
``z + 1.0`` if its pole is ``+z``, else ``z + 0.5``); still tied, the win is shared.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass

from engine.ctrl.geometry import CENTRAL_CUBE, SIDE_VECTORS, SIDES, UP, Cell
from engine.ctrl.moves import FlagSpot


@dataclass(frozen=True)
class FaceView:
    """One block face as seen from a side: counted, hidden by a block, or hidden by a flag."""

    cell: Cell
    color: str
    side: str
    status: str  # "counted" | "hidden" | "flag"
    by: Cell | None = None  # the cell that hides it


def line_box(cells: Iterable[Cell]) -> tuple[list[int], list[int]]:
    """The least and greatest coordinates of ``cells`` (at least one): the box a line of sight is walked in."""
    pts = list(cells)
    return [min(c[i] for c in pts) for i in range(3)], [max(c[i] for c in pts) for i in range(3)]


def first_in_line(cell: Cell, v: Cell, occupied: Container[Cell], flag_dirs: Mapping[Cell, Cell],
                  lo: Sequence[int], hi: Sequence[int]) -> tuple[str, Cell | None]:
    """What stands in front of ``cell``'s face with normal ``v``: walking ``cell + k*v`` (k >= 1) inside the box
    ``lo``..``hi`` (which bounds every occupied and flagged cell), ``("hidden", c)`` at the first occupied cell,
    ``("flag", c)`` at the first flag (``flag_dirs``: cell -> pole direction) whose pole is not parallel to ``v``,
    else ``("counted", None)`` (the module's rule)."""
    x, y, z = cell
    while True:
        x, y, z = x + v[0], y + v[1], z + v[2]
        if not (lo[0] <= x <= hi[0] and lo[1] <= y <= hi[1] and lo[2] <= z <= hi[2]):
            return "counted", None
        c = (x, y, z)
        if c in occupied:
            return "hidden", c
        n = flag_dirs.get(c)
        if n is not None and n[0] * v[0] + n[1] * v[1] + n[2] * v[2] == 0:
            return "flag", c


def face_views(blocks: Mapping[Cell, str], flags: Mapping[str, FlagSpot]) -> list[FaceView]:
    """Every scorable face (five sides per block) with its status; the basis of scores and annotations."""
    occupied = CENTRAL_CUBE | blocks.keys()
    flag_dirs: dict[Cell, Cell] = {f.cell: f.normal for f in flags.values()}
    lo, hi = line_box([*occupied, *flag_dirs])
    out: list[FaceView] = []
    for cell, color in blocks.items():
        for side in SIDES:
            status, by = first_in_line(cell, SIDE_VECTORS[side], occupied, flag_dirs, lo, hi)
            out.append(FaceView(cell, color, side, status, by))
    return out


def side_scores(
    blocks: Mapping[Cell, str], flags: Mapping[str, FlagSpot], colors: Iterable[str]
) -> dict[str, dict[str, int]]:
    """Per side, per colour: the number of exposed faces (the rows of the score sheet)."""
    cols = list(colors)
    result = {side: dict.fromkeys(cols, 0) for side in SIDES}
    for fv in face_views(blocks, flags):
        if fv.status == "counted" and fv.color in result[fv.side]:
            result[fv.side][fv.color] += 1
    return result


def totals(sides: Mapping[str, Mapping[str, int]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for per_color in sides.values():
        for color, n in per_color.items():
            out[color] = out.get(color, 0) + n
    return out


def flag_height(flag: FlagSpot | None) -> float:
    """How high a flag reaches above the table, for the tie-break (docs/rules/ctrl.md)."""
    if flag is None:
        return float("-inf")
    return flag.cell[2] + (1.0 if flag.normal == UP else 0.5)


def winners(
    total: Mapping[str, int], flags: Mapping[str, FlagSpot], contenders: Iterable[str]
) -> list[str]:
    """Highest total wins; ties go to the highest flag; still tied: a shared win."""
    cands = list(contenders)
    if not cands:
        return []
    best = max(total.get(c, 0) for c in cands)
    tied = [c for c in cands if total.get(c, 0) == best]
    if len(tied) == 1:
        return tied
    top = max(flag_height(flags.get(c)) for c in tied)
    return [c for c in tied if flag_height(flags.get(c)) == top]
