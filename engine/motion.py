"""The primitive robot motion vocabulary shared by the Quirky Circuits engine and the hardware layer.

The engine resolves every card into these primitives, each with the pose the robot
figure must have after it; the hardware layer executes exactly these and compares the
robot's reported pose with ``expected``.  Grid coordinates: ``x`` grows to the east,
``y`` grows to the north; headings are the four compass directions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from engine.core import InvalidMoveError


class Heading(Enum):
    N = (0, 1)
    E = (1, 0)
    S = (0, -1)
    W = (-1, 0)

    @property
    def dx(self) -> int:
        return self.value[0]

    @property
    def dy(self) -> int:
        return self.value[1]

    def left(self) -> Heading:
        return _LEFT[self]

    def right(self) -> Heading:
        return _RIGHT[self]

    def opposite(self) -> Heading:
        return _RIGHT[_RIGHT[self]]

    @classmethod
    def parse(cls, text: str) -> Heading:
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise InvalidMoveError(f"unknown heading {text!r} (expected one of N, E, S, W)") from None


_ORDER = [Heading.N, Heading.E, Heading.S, Heading.W]
_RIGHT = {h: _ORDER[(i + 1) % 4] for i, h in enumerate(_ORDER)}
_LEFT = {h: _ORDER[(i - 1) % 4] for i, h in enumerate(_ORDER)}


@dataclass(frozen=True, order=True)
class Pose:
    """A robot's cell and heading on a grid board; ``str`` is ``"x,y,H"``."""

    x: int
    y: int
    heading: Heading

    _RE = re.compile(r"^\s*(-?\d+)\s*,\s*(-?\d+)\s*,\s*([NESWnesw])\s*$")

    def __str__(self) -> str:
        return f"{self.x},{self.y},{self.heading.name}"

    def __repr__(self) -> str:
        return f"Pose.parse({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> Pose:
        m = cls._RE.match(text)
        if not m:
            raise InvalidMoveError(f"invalid pose {text!r} (expected 'x,y,H' such as '2,3,N')")
        return cls(int(m.group(1)), int(m.group(2)), Heading[m.group(3).upper()])

    def ahead(self, steps: int = 1) -> tuple[int, int]:
        return (self.x + self.heading.dx * steps, self.y + self.heading.dy * steps)


class MotionKind(Enum):
    """Primitive motions a robot toy performs (one grid space or one quarter turn each)."""

    FORWARD = "F"  # drive forward one space
    BACKWARD = "B"  # drive backward one space
    TURN_LEFT = "L"  # rotate 90 degrees counter-clockwise in place
    TURN_RIGHT = "R"  # rotate 90 degrees clockwise in place
    BUMP_FORWARD = "XF"  # try to go forward, touch the obstacle, come back: pose unchanged
    BUMP_BACKWARD = "XB"  # the same backwards
    PICK = "P"  # pick up a token in the current space (argument: token name)
    DROP = "D"  # drop a carried token (argument: token name)
    # added for Quirky Circuits scenario cards and Twirl's momentum (docs/rules/quirky.md "Motion trace"):
    JUMP = "J"  # hop forward over whatever is in between (argument: spaces); heading unchanged
    SLIDE = "S"  # move one space in the compass direction given as argument, heading unchanged
    BUMP_SLIDE = "XS"  # try to slide (argument: direction), touch the barrier, come back: pose unchanged


@dataclass(frozen=True)
class Motion:
    """One primitive motion with the pose expected after it.

    ``str`` is ``"<kind>[:<arg>]><pose>"``, e.g. ``"F>2,3,N"`` or ``"P:vase>2,3,N"``.
    """

    kind: MotionKind
    expected: Pose
    arg: str = ""

    _RE = re.compile(r"^\s*([A-Z]{1,2})(?::([A-Za-z0-9_\-]+))?\s*>\s*(.+)$")

    def __str__(self) -> str:
        arg = f":{self.arg}" if self.arg else ""
        return f"{self.kind.value}{arg}>{self.expected}"

    def __repr__(self) -> str:
        return f"Motion.parse({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> Motion:
        m = cls._RE.match(text)
        if not m:
            raise InvalidMoveError(f"invalid motion {text!r} (expected e.g. 'F>2,3,N' or 'P:vase>2,3,N')")
        try:
            kind = MotionKind(m.group(1))
        except ValueError:
            codes = ", ".join(k.value for k in MotionKind)
            raise InvalidMoveError(
                f"unknown motion {m.group(1)!r} in {text!r} (expected one of {codes})"
            ) from None
        return cls(kind, Pose.parse(m.group(3)), m.group(2) or "")
