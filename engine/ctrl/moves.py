"""CTRL move values: placements, passes, flag spots and whole turns.

Each value is a frozen dataclass with a ``parse``/``str`` round trip and a ``repr`` that can be
pasted back, as python-chess does with ``Move.from_uci`` / ``uci``.

Text forms::

    Placement   "1,-1,1 1,-1,2 1,-1,3"          (cells sorted)
    Pass        "pass"
    FlagSpot    "flag 1,-1,4 +z"                (the flag's cell and pole direction)
    NoFlag      "noflag"                        (no exposed face of the colour was free)
    Turn        "1,-1,1 1,-1,2 1,-1,3 flag 1,-1,4 +z",  "pass flag 1,-1,2 +z",  "pass noflag"
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.core import InvalidMoveError
from engine.ctrl.geometry import DIR_NAMES, DIRECTIONS, DOWN, Cell, cell_str, sub

_CELL_RE = re.compile(r"^\(?\s*(-?\d+)\s*,\s*(-?\d+)\s*,\s*(-?\d+)\s*\)?$")


def _parse_cell_text(text: str, whole: str) -> Cell:
    m = _CELL_RE.match(text.strip())
    if not m:
        raise InvalidMoveError(f"invalid cell {text!r} in {whole!r} (expected 'x,y,z')")
    return (int(m.group(1)), int(m.group(2)), int(m.group(3)))


@dataclass(frozen=True, order=True)
class Placement:
    """The set of cells of one turn's path (rulebook "Placing Blocks"), stored sorted."""

    cells: tuple[Cell, ...]

    @classmethod
    def of(cls, cells: frozenset[Cell] | set[Cell] | list[Cell] | tuple[Cell, ...]) -> Placement:
        return cls(tuple(sorted(cells)))

    def __str__(self) -> str:
        return " ".join(cell_str(c) for c in self.cells)

    def __repr__(self) -> str:
        return f"Placement.parse({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> Placement:
        parts = text.split()
        if not parts:
            raise InvalidMoveError(f"empty placement {text!r} (expected cells like '1,-1,1 1,-1,2 1,-1,3')")
        cells = [_parse_cell_text(p, text) for p in parts]
        if len(set(cells)) != len(cells):
            raise InvalidMoveError(f"placement {text!r} names the same cell twice")
        return cls.of(cells)

    def to_json(self) -> dict[str, list[list[int]]]:
        return {"cells": [list(c) for c in self.cells]}


@dataclass(frozen=True)
class Pass:
    """No legal path exists: the player passes (docs/rules/ctrl.md, "Passing")."""

    def __str__(self) -> str:
        return "pass"

    def __repr__(self) -> str:
        return "Pass()"


@dataclass(frozen=True, order=True)
class FlagSpot:
    """Where a flag is plugged: the cell it occupies and its pole direction (never ``-z``).

    The block it is plugged into is at ``cell - points`` (docs/rules/ctrl.md, "Flags").
    """

    cell: Cell
    points: str

    def __post_init__(self) -> None:
        if self.points not in DIRECTIONS:
            raise InvalidMoveError(f"flag direction {self.points!r} is not one of {', '.join(DIRECTIONS)}")

    @classmethod
    def trusted(cls, cell: Cell, points: str) -> FlagSpot:
        """Construct without re-checking ``points`` (for the engine's own generated spots)."""
        spot = object.__new__(cls)
        object.__setattr__(spot, "cell", cell)
        object.__setattr__(spot, "points", points)
        return spot

    @property
    def normal(self) -> Cell:
        return DIRECTIONS[self.points]

    @property
    def block(self) -> Cell:
        """The cell of the block this flag is plugged into."""
        return sub(self.cell, self.normal)

    @property
    def points_down(self) -> bool:
        return self.normal == DOWN

    def __str__(self) -> str:
        return f"flag {cell_str(self.cell)} {self.points}"

    def __repr__(self) -> str:
        return f"FlagSpot.parse({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> FlagSpot:
        parts = text.split()
        if len(parts) == 3 and parts[0] == "flag":
            parts = parts[1:]
        if len(parts) != 2:
            raise InvalidMoveError(f"invalid flag spot {text!r} (expected 'flag x,y,z +z')")
        cell = _parse_cell_text(parts[0], text)
        if parts[1] not in DIRECTIONS:
            raise InvalidMoveError(f"invalid flag direction {parts[1]!r} in {text!r}")
        return cls(cell, parts[1])

    @classmethod
    def on_block(cls, block: Cell, direction: Cell) -> FlagSpot:
        return cls((block[0] + direction[0], block[1] + direction[1], block[2] + direction[2]), DIR_NAMES[direction])

    def to_json(self) -> dict[str, object]:
        return {"cell": list(self.cell), "points": self.points}


@dataclass(frozen=True)
class NoFlag:
    """The colour has no free exposed face: its flag stays off the battlefield this turn."""

    def __str__(self) -> str:
        return "noflag"

    def __repr__(self) -> str:
        return "NoFlag()"


CtrlMove = Placement | Pass | FlagSpot | NoFlag


@dataclass(frozen=True)
class Turn:
    """A whole turn: the placement (``None`` = pass) and the flag spot (``None`` = no flag)."""

    placement: Placement | None
    flag: FlagSpot | None

    def __str__(self) -> str:
        first = str(self.placement) if self.placement is not None else "pass"
        second = str(self.flag) if self.flag is not None else "noflag"
        return f"{first} {second}"

    def __repr__(self) -> str:
        return f"Turn.parse({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> Turn:
        t = " ".join(text.split())
        if " flag " in f" {t} ":
            head, _, tail = f" {t} ".partition(" flag ")
            flag: FlagSpot | None = FlagSpot.parse(tail.strip())
        elif t.endswith("noflag"):
            head, flag = t[: -len("noflag")], None
        else:
            raise InvalidMoveError(f"invalid turn {text!r} (expected '<cells>|pass flag x,y,z DIR' or '... noflag')")
        head = head.strip()
        placement = None if head == "pass" else Placement.parse(head)
        return cls(placement, flag)

    def moves(self) -> tuple[CtrlMove, CtrlMove]:
        return (self.placement if self.placement is not None else Pass(), self.flag or NoFlag())


def parse_move(text: str) -> CtrlMove:
    """Parse any half-move: a placement, ``pass``, ``flag x,y,z DIR`` or ``noflag``."""
    t = text.strip()
    if t == "pass":
        return Pass()
    if t == "noflag":
        return NoFlag()
    if t.startswith("flag"):
        return FlagSpot.parse(t)
    return Placement.parse(t)
