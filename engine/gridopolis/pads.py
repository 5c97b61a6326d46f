"""Pads, directions and the lattice geometry of a Gridopolis grid-set.

A grid-set is a set of pads at integer lattice points ``(x, y, level)``: ``x`` grows to
the east, ``y`` to the north (docs/coordinates.md, "Flat boards"), ``level`` 0 rests on
the table.  Links join orthogonally neighbouring pads of one level and posts join a pad
to the pad directly below it (Gridopolis rulebook, "Piezas de construcción": "La
plataforma y el enlace se conectan horizontalmente y el poste se conecta verticalmente").

Movement and jumping use the 26 lattice directions: one pad "en cualquier dirección ...
en diagonal, de lado y de un nivel a otro" (rulebook, "Moviente").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from engine.core import InvalidMoveError

__all__ = ["DIRECTIONS", "FLAT_DIRECTIONS", "ORTHOGONAL", "Direction", "Pad", "rays"]

_PAD_RE = re.compile(r"^\s*(-?\d+)\s*,\s*(-?\d+)\s*,\s*(-?\d+)\s*$")


@dataclass(frozen=True, order=True)
class Pad:
    """A lattice point ``(x, y, level)`` of the grid-set; ``str`` is ``"x,y,level"``."""

    x: int
    y: int
    level: int

    def __str__(self) -> str:
        return f"{self.x},{self.y},{self.level}"

    def __repr__(self) -> str:
        return f"Pad.parse({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> Pad:
        """Parse ``"x,y,level"`` such as ``"3,1,0"``; raises :class:`InvalidMoveError`."""
        m = _PAD_RE.match(text) if isinstance(text, str) else None
        if not m:
            raise InvalidMoveError(f"invalid pad {text!r} (expected 'x,y,level' such as '3,1,0')")
        level = int(m.group(3))
        if level < 0:
            raise InvalidMoveError(f"invalid pad {text!r}: level must be 0 (the table) or higher")
        return cls(int(m.group(1)), int(m.group(2)), level)

    def __add__(self, d: Direction) -> Pad:
        return Pad(self.x + d[0], self.y + d[1], self.level + d[2])

    def above(self) -> Pad:
        return Pad(self.x, self.y, self.level + 1)

    def below(self) -> Pad:
        return Pad(self.x, self.y, self.level - 1)

    def delta(self, other: Pad) -> tuple[int, int, int]:
        """``other - self`` as a vector."""
        return (other.x - self.x, other.y - self.y, other.level - self.level)

    def as_list(self) -> list[int]:
        return [self.x, self.y, self.level]


Direction = tuple[int, int, int]

#: The 26 lattice directions (one pad in any direction, diagonals and level changes included).
DIRECTIONS: tuple[Direction, ...] = tuple(
    (dx, dy, dl) for dl in (-1, 0, 1) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dx, dy, dl) != (0, 0, 0)
)

#: The 8 directions within one level (kamikaze is "solo ... en el mismo nivel").
FLAT_DIRECTIONS: tuple[Direction, ...] = tuple(d for d in DIRECTIONS if d[2] == 0)

#: The 4 link directions within one level (links join orthogonal neighbours).
ORTHOGONAL: tuple[Direction, ...] = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0))


@lru_cache(maxsize=4096)
def rays(pad: Pad) -> tuple[tuple[Direction, Pad, Pad], ...]:
    """``(direction, pad + direction, pad + 2 * direction)`` for the 26 directions (cached:
    move generation asks for the same few pads over and over)."""
    return tuple(
        (d, pad + d, Pad(pad.x + 2 * d[0], pad.y + 2 * d[1], pad.level + 2 * d[2])) for d in DIRECTIONS
    )
