"""Captura la Bandera moves: one decision each, with a ``parse()`` / ``str`` round trip.

A turn is a sequence of small decisions, so every step is one :class:`Move`:

=====================  ==========================================================  =====
text                   meaning                                                     cost
=====================  ==========================================================  =====
``place 3,4``          place a cube from the supply flat on square (3, 4)          roll
``stack 3,4``          place a cube on top of the single cube at (3, 4) (roll 5)   roll
``pass``               place no (more) cubes this turn
``cube 3,4 E``         move the single cube at (3, 4) one square east              1
``tower 3,4 E``        move the two-cube tower at (3, 4) one square east           3
``lower 3,4 E``        lower the top cube of the tower at (3, 4) to the east       5
``royal 0,3 N``        move your royal tower one paved square north                1
``char 1,3 E``         move your character (standing at (1, 3)) east               1/3/all
``end``                end the turn (movement points left over are lost)
=====================  ==========================================================  =====

Dice are not moves: they are :class:`engine.core.ChanceEvent` values (``start:blue``,
``place:4``, ``move:3``), see :func:`parse_event`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum
from operator import attrgetter

from engine.bandera.board import HEIGHT, WIDTH, Square
from engine.core import ChanceEvent, InvalidMoveError
from engine.motion import Heading


class MoveKind(Enum):
    PLACE = "place"
    STACK = "stack"
    PASS = "pass"
    CUBE = "cube"
    TOWER = "tower"
    LOWER = "lower"
    ROYAL = "royal"
    CHAR = "char"
    END = "end"


_NEEDS_SQUARE = {
    MoveKind.PLACE,
    MoveKind.STACK,
    MoveKind.CUBE,
    MoveKind.TOWER,
    MoveKind.LOWER,
    MoveKind.ROYAL,
    MoveKind.CHAR,
}
_NEEDS_HEADING = {MoveKind.CUBE, MoveKind.TOWER, MoveKind.LOWER, MoveKind.ROYAL, MoveKind.CHAR}
_KIND_ORDER = {k: i for i, k in enumerate(MoveKind)}
_HEADING_ORDER = {Heading.N: 0, Heading.E: 1, Heading.S: 2, Heading.W: 3}

_RE = re.compile(r"^\s*([A-Za-z]+)(?:\s+(-?\d+)\s*,\s*(-?\d+))?(?:\s+([A-Za-z]+))?\s*$")

USAGE = (
    "expected e.g. 'place 3,4', 'stack 3,4', 'pass', 'cube 3,4 E', 'tower 3,4 E', "
    "'lower 3,4 E', 'royal 0,3 N', 'char 1,3 E' or 'end'"
)


@dataclass(frozen=True)
class Move:
    """One decision of the player to move (see the module docstring for the notation)."""

    kind: MoveKind
    square: Square | None = None
    heading: Heading | None = None
    order: tuple[int, int, int, int] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        if (self.square is None) == (self.kind in _NEEDS_SQUARE):
            raise InvalidMoveError(
                f"move {self.kind.value!r} {'needs' if self.square is None else 'takes no'} square"
            )
        if (self.heading is None) == (self.kind in _NEEDS_HEADING):
            raise InvalidMoveError(
                f"move {self.kind.value!r} {'needs' if self.heading is None else 'takes no'} direction"
            )
        if self.square is not None and not (0 <= self.square[0] < WIDTH and 0 <= self.square[1] < HEIGHT):
            raise InvalidMoveError(
                f"square {self.square[0]},{self.square[1]} is off the {WIDTH}x{HEIGHT} board "
                f"(x 0..{WIDTH - 1}, y 0..{HEIGHT - 1})"
            )
        object.__setattr__(self, "order", self.sort_key())

    @property
    def target(self) -> Square | None:
        """The square a step moves to (``None`` for placements, ``pass`` and ``end``)."""
        if self.square is None or self.heading is None:
            return None
        return (self.square[0] + self.heading.dx, self.square[1] + self.heading.dy)

    def __str__(self) -> str:
        parts = [self.kind.value]
        if self.square is not None:
            parts.append(f"{self.square[0]},{self.square[1]}")
        if self.heading is not None:
            parts.append(self.heading.name)
        return " ".join(parts)

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"

    def sort_key(self) -> tuple[int, int, int, int]:
        sq = self.square or (-1, -1)
        h = _HEADING_ORDER[self.heading] if self.heading is not None else -1
        return (_KIND_ORDER[self.kind], sq[0], sq[1], h)

    @classmethod
    def parse(cls, text: str) -> Move:
        if not isinstance(text, str):
            raise InvalidMoveError(f"invalid move {text!r}: not text ({USAGE})")
        m = _RE.match(text)
        if not m:
            raise InvalidMoveError(f"invalid move {text!r} ({USAGE})")
        try:
            kind = MoveKind(m.group(1).lower())
        except ValueError:
            raise InvalidMoveError(f"invalid move {text!r}: unknown kind {m.group(1)!r} ({USAGE})") from None
        square = (int(m.group(2)), int(m.group(3))) if m.group(2) is not None else None
        heading = None
        if m.group(4) is not None:
            try:
                heading = Heading.parse(m.group(4))
            except InvalidMoveError:
                raise InvalidMoveError(
                    f"invalid move {text!r}: unknown direction {m.group(4)!r} (expected N, E, S or W)"
                ) from None
        try:
            return cls(kind, square, heading)
        except InvalidMoveError as exc:
            raise InvalidMoveError(f"invalid move {text!r}: {exc} ({USAGE})") from None


PASS = Move(MoveKind.PASS)
END = Move(MoveKind.END)

_BY_ORDER = attrgetter("order")


def sort_moves(moves: list[Move]) -> None:
    """Sort moves in place into the canonical order (kind, x, y, heading N E S W)."""
    moves.sort(key=_BY_ORDER)


def _table() -> tuple[
    dict[Square, Move], dict[Square, Move], dict[MoveKind, dict[Square, tuple[tuple[Move, Square], ...]]]
]:
    squares = [(x, y) for x in range(WIDTH) for y in range(HEIGHT)]
    place = {sq: Move(MoveKind.PLACE, sq) for sq in squares}
    stack = {sq: Move(MoveKind.STACK, sq) for sq in squares}
    steps: dict[MoveKind, dict[Square, tuple[tuple[Move, Square], ...]]] = {}
    for kind in _NEEDS_HEADING:
        steps[kind] = {
            (x, y): tuple(
                (Move(kind, (x, y), h), (x + h.dx, y + h.dy))
                for h in (Heading.N, Heading.E, Heading.S, Heading.W)
                if 0 <= x + h.dx < WIDTH and 0 <= y + h.dy < HEIGHT
            )
            for x, y in squares
        }
    return place, stack, steps


# Every possible move, built once: the move generator hands out these shared values.
PLACE_MOVES, STACK_MOVES, STEP_MOVES = _table()


EVENT_KINDS = ("start", "place", "move")
_EVENT_RE = re.compile(r"^\s*(start|place|move)\s*:\s*([A-Za-z0-9_\-]+)\s*$")


def parse_event(text: str) -> ChanceEvent:
    """Parse a recorded chance event: ``start:blue`` (who begins), ``place:4`` (the placement
    roll), ``move:3`` (the movement roll)."""
    m = _EVENT_RE.match(text) if isinstance(text, str) else None
    if not m:
        raise InvalidMoveError(
            f"invalid chance event {text!r} (expected 'start:PLAYER', 'place:N' or 'move:N')"
        )
    kind, value = m.group(1), m.group(2)
    if kind == "start":
        return ChanceEvent("start", value)
    if not value.isdigit() or not 1 <= int(value) <= 6:
        raise InvalidMoveError(f"invalid chance event {text!r}: a die shows 1 to 6")
    return ChanceEvent(kind, int(value))


def parse_step(text: str) -> Move | ChanceEvent:
    """Parse one line of a game record: a move, or a chance event when it contains ``:``."""
    if isinstance(text, str) and ":" in text:
        return parse_event(text)
    return Move.parse(text)
