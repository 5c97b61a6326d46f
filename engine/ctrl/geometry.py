"""Lattice geometry for CTRL (docs/rules/ctrl.md, "Lattice").

Cells are integer triples ``(x, y, z)``; ``z = 0`` rests on the table.  The Central Cube
occupies every cell with ``0 <= x, y, z <= 2``.
"""

from __future__ import annotations

from typing import Final

from engine.core import InvalidStateError

Cell = tuple[int, int, int]

DIRECTIONS: Final[dict[str, Cell]] = {
    "+x": (1, 0, 0),
    "-x": (-1, 0, 0),
    "+y": (0, 1, 0),
    "-y": (0, -1, 0),
    "+z": (0, 0, 1),
    "-z": (0, 0, -1),
}
DIR_NAMES: Final[dict[Cell, str]] = {v: k for k, v in DIRECTIONS.items()}
ALL_DIRS: Final[tuple[Cell, ...]] = tuple(DIRECTIONS.values())
UP: Final[Cell] = (0, 0, 1)
DOWN: Final[Cell] = (0, 0, -1)
NOT_DOWN: Final[tuple[Cell, ...]] = tuple(d for d in ALL_DIRS if d != DOWN)

#: The five scored sides (rulebook "End Game & Scoring"): the bottom never counts.
SIDES: Final[tuple[str, ...]] = ("+x", "-x", "+y", "-y", "top")
SIDE_VECTORS: Final[dict[str, Cell]] = {
    "+x": (1, 0, 0),
    "-x": (-1, 0, 0),
    "+y": (0, 1, 0),
    "-y": (0, -1, 0),
    "top": (0, 0, 1),
}

CUBE_SIZE: Final[int] = 3
CENTRAL_CUBE: Final[frozenset[Cell]] = frozenset(
    (x, y, z) for x in range(CUBE_SIZE) for y in range(CUBE_SIZE) for z in range(CUBE_SIZE)
)


def add(a: Cell, b: Cell) -> Cell:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def sub(a: Cell, b: Cell) -> Cell:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def neg(a: Cell) -> Cell:
    return (-a[0], -a[1], -a[2])


def scale(a: Cell, k: int) -> Cell:
    return (a[0] * k, a[1] * k, a[2] * k)


def perpendicular(d: Cell) -> tuple[Cell, ...]:
    """The four unit directions perpendicular to ``d``."""
    return tuple(e for e in ALL_DIRS if e[0] * d[0] + e[1] * d[1] + e[2] * d[2] == 0)


PERP: Final[dict[Cell, tuple[Cell, ...]]] = {d: perpendicular(d) for d in ALL_DIRS}


def neighbours(c: Cell) -> tuple[Cell, ...]:
    x, y, z = c
    return (
        (x + 1, y, z),
        (x - 1, y, z),
        (x, y + 1, z),
        (x, y - 1, z),
        (x, y, z + 1),
        (x, y, z - 1),
    )


def parse_cell(value: object, what: str = "cell") -> Cell:
    """Read a cell from JSON (``[x, y, z]``) or text (``"x,y,z"``)."""
    if isinstance(value, str):
        parts = value.replace("(", "").replace(")", "").split(",")
        try:
            nums = [int(p.strip()) for p in parts]
        except ValueError:
            raise InvalidStateError(f"{what} {value!r} is not three integers 'x,y,z'") from None
    elif isinstance(value, (list, tuple)):
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            raise InvalidStateError(f"{what} {value!r} is not three integers [x, y, z]")
        nums = list(value)
    else:
        raise InvalidStateError(f"{what} {value!r} is not three integers [x, y, z]")
    if len(nums) != 3:
        raise InvalidStateError(f"{what} {value!r} is not three integers [x, y, z]")
    return (nums[0], nums[1], nums[2])


def parse_direction(value: object, what: str = "direction") -> Cell:
    if not isinstance(value, str) or value.strip() not in DIRECTIONS:
        raise InvalidStateError(f"{what} {value!r} is not one of {', '.join(DIRECTIONS)}")
    return DIRECTIONS[value.strip()]


def cell_str(c: Cell) -> str:
    return f"{c[0]},{c[1]},{c[2]}"
