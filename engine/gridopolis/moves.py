"""Gridopolis moves: small frozen values with a ``parse()`` / ``str`` round trip.

Notation (pads are ``x,y,level``; spaces around separators are ignored):

=====================  ===============================================================
``3,1,0-3,2,0``        step one pad (any of the 26 directions)
``3,1,0-3,3,1>2,2,2``  step onto a hyper-pad and transmit to the hyper-pad after ``>``
``3,0,0~3,2,0~3,4,0``  jump own markers, one hop per ``~`` (rulebook "Moviente")
``3,2,0x3,4,0x5,4,0``  capture jump, one hop per ``x`` (rulebook "Saltar 101", "Salto múltiple")
``3,2,0*3,3,0``        kamikaze: jump the marker at the second pad off the grid-set
``block 3,3,0``        place a blocker box on an open pad (rulebook "Caja bloqueadora")
``add 5,3,0``          add a pad linked horizontally (rulebook "Agregar un pad")
``add 3,3,3 post``     add a pad on a post, directly above another pad
``end``                decline a king's optional second move
``pass``               only when no other move is possible (interpretation)
=====================  ===============================================================

``repr`` is paste-able: ``Move.parse('3,1,0-3,2,0')``.  A string that cannot be read as
a move raises :class:`engine.core.InvalidMoveError`; whether a well-formed move is
allowed in a position is decided by the state (``IllegalMoveError``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, TypeVar

from engine.core import InvalidMoveError
from engine.gridopolis.pads import Pad

__all__ = ["AddPad", "EndTurn", "Jump", "Kamikaze", "Move", "Pass", "PlaceBlocker", "Step", "parse_move"]

_PAD = r"-?\d+\s*,\s*-?\d+\s*,\s*-?\d+"
_STEP_RE = re.compile(rf"^({_PAD})\s*-\s*({_PAD})\s*(?:>\s*({_PAD}))?$")
_JUMP_RE = re.compile(rf"^({_PAD})((?:\s*[x~]\s*{_PAD})+)\s*(?:>\s*({_PAD}))?$")
_HOP_RE = re.compile(rf"([x~])\s*({_PAD})")
_KAMIKAZE_RE = re.compile(rf"^({_PAD})\s*\*\s*({_PAD})$")
_BLOCK_RE = re.compile(rf"^block\s+({_PAD})$")
_ADD_RE = re.compile(rf"^add\s+({_PAD})(\s+post)?$")

T = TypeVar("T", bound="Move")


class Move:
    """Base class of every Gridopolis move."""

    __slots__ = ()
    #: True for moves that move a marker (steps, jumps, kamikaze).
    moves_marker: ClassVar[bool] = False

    @classmethod
    def parse(cls: type[T], text: str) -> T:
        """Parse any move notation; on a subclass, also check the kind of move."""
        move = parse_move(text)
        if not isinstance(move, cls):
            raise InvalidMoveError(f"{text!r} is a {type(move).__name__}, not a {cls.__name__}")
        return move

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"


def _is_neighbour(a: Pad, b: Pad) -> bool:
    d = a.delta(b)
    return d != (0, 0, 0) and all(abs(c) <= 1 for c in d)


def _is_hop(a: Pad, b: Pad) -> bool:
    d = a.delta(b)
    return d != (0, 0, 0) and all(c in (-2, 0, 2) for c in d)


@dataclass(frozen=True, repr=False)
class Step(Move):
    """Move a marker one pad in any direction (rulebook "Moviente"), then maybe transmit."""

    frm: Pad
    to: Pad
    transmit: Pad | None = None
    moves_marker: ClassVar[bool] = True

    def __post_init__(self) -> None:
        if not _is_neighbour(self.frm, self.to):
            raise InvalidMoveError(f"step {str(self)!r} must go to one of the 26 neighbouring pads")
        if self.transmit is not None and self.transmit == self.to:
            raise InvalidMoveError(f"step {str(self)!r} cannot transmit to the hyper-pad it landed on")

    def __str__(self) -> str:
        tail = f">{self.transmit}" if self.transmit is not None else ""
        return f"{self.frm}-{self.to}{tail}"

    @property
    def landing(self) -> Pad:
        return self.to

    @property
    def final(self) -> Pad:
        return self.transmit if self.transmit is not None else self.to


@dataclass(frozen=True, repr=False)
class Jump(Move):
    """A straight-line jump, or several hops in one move.

    ``capture`` jumps hop over opponents' markers (rulebook "Saltar 101/102", "Salto
    múltiple"); otherwise every hop is over one of the mover's own markers ("Moviente":
    "¡Los peones también pueden saltar a su propio equipo"). The two never mix ("No puedes
    combinar saltar sobre tus propios marcadores y capturar a un oponente").
    """

    path: tuple[Pad, ...]
    capture: bool
    transmit: Pad | None = None
    moves_marker: ClassVar[bool] = True

    def __post_init__(self) -> None:
        if len(self.path) < 2:
            raise InvalidMoveError(f"a jump needs a start and at least one landing pad, got {self.path!r}")
        for a, b in zip(self.path, self.path[1:], strict=False):
            if not _is_hop(a, b):
                raise InvalidMoveError(
                    f"jump hop {str(a)!r} to {str(b)!r} is not a straight jump over one pad "
                    "(each coordinate must change by 0 or 2)"
                )
        if self.transmit is not None and self.transmit == self.path[-1]:
            raise InvalidMoveError(f"jump {str(self)!r} cannot transmit to the hyper-pad it landed on")

    def __str__(self) -> str:
        sep = "x" if self.capture else "~"
        tail = f">{self.transmit}" if self.transmit is not None else ""
        return sep.join(str(p) for p in self.path) + tail

    @property
    def frm(self) -> Pad:
        return self.path[0]

    @property
    def landing(self) -> Pad:
        return self.path[-1]

    @property
    def final(self) -> Pad:
        return self.transmit if self.transmit is not None else self.path[-1]

    def jumped(self) -> tuple[Pad, ...]:
        """The pads jumped over, one per hop (the midpoints)."""
        return tuple(
            Pad((a.x + b.x) // 2, (a.y + b.y) // 2, (a.level + b.level) // 2)
            for a, b in zip(self.path, self.path[1:], strict=False)
        )


@dataclass(frozen=True, repr=False)
class Kamikaze(Move):
    """Jump an opponent on the same level and fall off the grid-set (rulebook "Kamikaze")."""

    frm: Pad
    over: Pad
    moves_marker: ClassVar[bool] = True

    def __post_init__(self) -> None:
        if not _is_neighbour(self.frm, self.over) or self.frm.level != self.over.level:
            raise InvalidMoveError(f"kamikaze {str(self)!r} must jump a neighbouring pad on the same level")

    def __str__(self) -> str:
        return f"{self.frm}*{self.over}"

    @property
    def landing(self) -> Pad:
        """The point beyond the jumped marker, where there is no playable pad."""
        d = self.frm.delta(self.over)
        return Pad(self.over.x + d[0], self.over.y + d[1], self.over.level)


@dataclass(frozen=True, repr=False)
class PlaceBlocker(Move):
    """Put a blocker box on an open pad instead of moving (rulebook "Caja bloqueadora")."""

    pad: Pad

    def __str__(self) -> str:
        return f"block {self.pad}"


@dataclass(frozen=True, repr=False)
class AddPad(Move):
    """Connect a new pad instead of moving (rulebook "Agregar un pad").

    ``post=False``: linked horizontally to a pad of the same level; ``post=True``: on a
    post, directly above another pad ("la nueva plataforma debe estar directamente encima
    de otra plataforma").
    """

    pad: Pad
    post: bool = False

    def __str__(self) -> str:
        return f"add {self.pad}" + (" post" if self.post else "")


@dataclass(frozen=True, repr=False)
class EndTurn(Move):
    """Decline a king's optional second move (rulebook "Moviente": "El segundo movimiento es
    siempre opcional")."""

    def __str__(self) -> str:
        return "end"


@dataclass(frozen=True, repr=False)
class Pass(Move):
    """Pass; legal only when the player has no other legal move (interpretation, see
    docs/rules/gridopolis.md)."""

    def __str__(self) -> str:
        return "pass"


def _pad(text: str) -> Pad:
    return Pad.parse(text)


def parse_move(text: str) -> Move:
    """Parse a move in the notation above; raises :class:`InvalidMoveError`."""
    if not isinstance(text, str):
        raise InvalidMoveError(f"a move must be a string, got {text!r}")
    s = " ".join(text.strip().lower().split())
    if s == "end":
        return EndTurn()
    if s == "pass":
        return Pass()
    try:
        if m := _BLOCK_RE.match(s):
            return PlaceBlocker(_pad(m.group(1)))
        if m := _ADD_RE.match(s):
            return AddPad(_pad(m.group(1)), post=m.group(2) is not None)
        if m := _KAMIKAZE_RE.match(s):
            return Kamikaze(_pad(m.group(1)), _pad(m.group(2)))
        if m := _STEP_RE.match(s):
            return Step(_pad(m.group(1)), _pad(m.group(2)), _pad(m.group(3)) if m.group(3) else None)
        if m := _JUMP_RE.match(s):
            hops = _HOP_RE.findall(m.group(2))
            seps = {sep for sep, _ in hops}
            if len(seps) != 1:
                raise InvalidMoveError(
                    f"invalid move {text!r}: a jump is either all captures ('x') or all over "
                    "own markers ('~'), never both"
                )
            path = (_pad(m.group(1)), *(_pad(p) for _, p in hops))
            return Jump(path, capture=seps == {"x"}, transmit=_pad(m.group(3)) if m.group(3) else None)
    except InvalidMoveError as exc:
        if repr(text) in str(exc):
            raise
        raise InvalidMoveError(f"invalid move {text!r}: {exc}") from None
    raise InvalidMoveError(
        f"invalid move {text!r} (expected e.g. '3,1,0-3,2,0', '3,2,0x3,4,0', '3,0,0~3,2,0', "
        "'3,2,0*3,3,0', 'block 3,3,0', 'add 5,3,0', 'add 3,3,3 post', 'end' or 'pass')"
    )
