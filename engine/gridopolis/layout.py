"""The standard Matrix grid-set (the rulebook's layout figure is missing: our interpretation).

See docs/rules/gridopolis.md, "The Matrix layout".  In short, with ``x``/``y`` as in
docs/coordinates.md:

* a 3 x 3 x 3 core: pads ``x, y in {2, 3, 4}`` on levels 0, 1 and 2 (27 pads), levels 1
  and 2 each held by four support posts under their corner pads;
* one 3 x 2 arm of six pads per player on level 0 ("un juego adicional de seis pads para
  cada jugador"), joined to the middle of one side of the core;
* the player's start row -- three kingerizers -- is the outer row of its arm, and its
  three markers start there;
* five hyper-pads: the centre of level 1 and the four corners of level 2.

Seats, in turn order: south (green, moving north), west (red, moving east), north (blue,
moving south), east (yellow, moving west).  Two players use south and north, three use
south, west and north, four use all sides.  The component counts confirm the choice:
27 + 4 x 6 grid pads + 4 x 3 spare pads = 63 pads ("63 almohadillas"), 36 + 4 x 10 links + 12
for spare pads = 88 links ("88 enlaces"), 8 + 4 x 2 spare posts = 16 posts, 4 x 3 = 12
kingerizers, markers and 4 x 2 = 8 blocker boxes.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.gridopolis.pads import Pad

__all__ = [
    "CORE",
    "HYPER_PADS",
    "MARKERS_PER_PLAYER",
    "SEATS",
    "START_BLOCKERS",
    "START_PADS",
    "START_POSTS",
    "STRUCTURE_POSTS",
    "Seat",
    "seats_for",
    "standard_layout",
]

#: Each player's reserve ("Cada jugador obtiene las siguientes diez partes"): 3 markers,
#: 2 blocker boxes, 3 pads and 2 posts.
MARKERS_PER_PLAYER = 3
START_BLOCKERS = 2
START_PADS = 3
START_POSTS = 2

CORE: frozenset[Pad] = frozenset(Pad(x, y, lv) for lv in range(3) for y in (2, 3, 4) for x in (2, 3, 4))
#: Four support posts under each upper level, at the core's corners.
STRUCTURE_POSTS: frozenset[Pad] = frozenset(Pad(x, y, lv) for lv in (1, 2) for x in (2, 4) for y in (2, 4))
HYPER_PADS: frozenset[Pad] = frozenset({Pad(3, 3, 1), Pad(2, 2, 2), Pad(4, 2, 2), Pad(2, 4, 2), Pad(4, 4, 2)})


@dataclass(frozen=True)
class Seat:
    """A side of the table: the player's colour, forward direction, arm and start row."""

    colour: str
    side: str  # "south", "west", "north", "east"
    forward: str  # "+y", "+x", "-y", "-x" (docs/coordinates.md direction names)
    arm: frozenset[Pad]
    start_row: tuple[Pad, ...]


def _seat(
    colour: str, side: str, forward: str, arm: list[tuple[int, int]], row: list[tuple[int, int]]
) -> Seat:
    return Seat(
        colour, side, forward, frozenset(Pad(x, y, 0) for x, y in arm), tuple(Pad(x, y, 0) for x, y in row)
    )


SEATS: dict[str, Seat] = {
    "south": _seat(
        "green", "south", "+y", [(x, y) for x in (2, 3, 4) for y in (0, 1)], [(2, 0), (3, 0), (4, 0)]
    ),
    "west": _seat("red", "west", "+x", [(x, y) for x in (0, 1) for y in (2, 3, 4)], [(0, 2), (0, 3), (0, 4)]),
    "north": _seat(
        "blue", "north", "-y", [(x, y) for x in (2, 3, 4) for y in (5, 6)], [(2, 6), (3, 6), (4, 6)]
    ),
    "east": _seat(
        "yellow", "east", "-x", [(x, y) for x in (5, 6) for y in (2, 3, 4)], [(6, 2), (6, 3), (6, 4)]
    ),
}

_SIDES_FOR = {2: ("south", "north"), 3: ("south", "west", "north"), 4: ("south", "west", "north", "east")}


def seats_for(players: int) -> tuple[Seat, ...]:
    """The seats used by a Matrix game of 2, 3 or 4 players, in turn order."""
    return tuple(SEATS[s] for s in _SIDES_FOR[players])


def standard_layout(players: int) -> tuple[frozenset[Pad], frozenset[Pad]]:
    """``(pads, posts)`` of the standard Matrix grid-set for ``players`` players."""
    pads = set(CORE)
    for seat in seats_for(players):
        pads |= seat.arm
    return frozenset(pads), STRUCTURE_POSTS
