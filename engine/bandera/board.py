"""The Captura la Bandera board: 10 columns of 7 squares, zones A, B, C and the paved edges.

The rulebook's figures 3, 4, 5, 10, 12, 20 and 21 are missing from the text we have; the
layout below is the project's interpretation, written down in ``docs/rules/bandera.md``
("Board layout") and used consistently by the engine, the validator and the CLI.

Coordinates follow ``docs/coordinates.md``: square ``(x, y)``, ``x`` grows to the east
(0..9), ``y`` grows to the north (0..6), ``(0, 0)`` is the south-west square.

* **Zone A** -- "las dos casillas centrales del tablero": ``(4, 3)`` and ``(5, 3)``.
* **Blue territory** is the west half (``x <= 4``), **red territory** the east half (``x >= 5``).
* **Zone B** (blue's marked squares) is the two west columns ``x in {0, 1}``; **zone C** (red's)
  the two east columns ``x in {8, 9}``.
* **Paved squares** ("casillas adoquinadas", the royal towers' rail) are the edge columns
  ``x = 0`` and ``x = 9``.  "Left to right" for a player sitting at a short edge is along ``y``.
* Two players: blue's royal tower starts at ``(0, 3)``, red's at ``(9, 3)`` (the middle of each
  paved column) and may travel the whole column.
* Three or four players: royal towers start in the corners, in seat order south-west ``(0, 0)``,
  south-east ``(9, 0)``, north-east ``(9, 6)``, north-west ``(0, 6)``, and may travel along their
  paved column from the corner up to the column's central square ``y = 3`` (shared).
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.motion import Heading

WIDTH = 10
HEIGHT = 7
CENTRE_Y = 3

Square = tuple[int, int]

ZONE_A: frozenset[Square] = frozenset({(4, 3), (5, 3)})
ZONE_B: frozenset[Square] = frozenset((x, y) for x in (0, 1) for y in range(HEIGHT))
ZONE_C: frozenset[Square] = frozenset((x, y) for x in (8, 9) for y in range(HEIGHT))
PAVED: frozenset[Square] = frozenset((x, y) for x in (0, WIDTH - 1) for y in range(HEIGHT))

TWO_PLAYER_NAMES: tuple[str, str] = ("blue", "red")
DEFAULT_NAMES: tuple[str, ...] = ("blue", "red", "green", "yellow")
TWO_PLAYER_START: dict[str, Square] = {"blue": (0, CENTRE_Y), "red": (WIDTH - 1, CENTRE_Y)}
CORNERS: tuple[Square, ...] = ((0, 0), (WIDTH - 1, 0), (WIDTH - 1, HEIGHT - 1), (0, HEIGHT - 1))

LEVELS: dict[str, int] = {"easy": 22, "medium": 18, "hard": 14}
LEVEL_ALIASES: dict[str, str] = {
    "easy": "easy",
    "facil": "easy",
    "fácil": "easy",
    "medium": "medium",
    "medio": "medium",
    "hard": "hard",
    "dificil": "hard",
    "difícil": "hard",
}

HEADINGS: tuple[Heading, ...] = (Heading.N, Heading.E, Heading.S, Heading.W)


def on_board(sq: Square) -> bool:
    return 0 <= sq[0] < WIDTH and 0 <= sq[1] < HEIGHT


def step(sq: Square, heading: Heading) -> Square:
    return (sq[0] + heading.dx, sq[1] + heading.dy)


_NEIGHBOURS: dict[Square, tuple[tuple[Heading, Square], ...]] = {
    (x, y): tuple(
        (h, (x + h.dx, y + h.dy)) for h in HEADINGS if 0 <= x + h.dx < WIDTH and 0 <= y + h.dy < HEIGHT
    )
    for x in range(WIDTH)
    for y in range(HEIGHT)
}


def neighbours(sq: Square) -> tuple[tuple[Heading, Square], ...]:
    """Orthogonal neighbours on the board ("nunca en diagonal"), in the order N, E, S, W."""
    return _NEIGHBOURS[sq]


def adjacent(a: Square, b: Square) -> bool:
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1


def all_squares() -> Iterator[Square]:
    for y in range(HEIGHT):
        for x in range(WIDTH):
            yield (x, y)


def zone_of(sq: Square) -> str:
    """``"A"``, ``"B"``, ``"C"`` or ``""`` for an ordinary square."""
    if sq in ZONE_A:
        return "A"
    if sq in ZONE_B:
        return "B"
    if sq in ZONE_C:
        return "C"
    return ""


def fmt(sq: Square) -> str:
    return f"{sq[0]},{sq[1]}"


def start_square(players: tuple[str, ...], index: int) -> Square:
    """Where player ``index`` (seat order) sets up the royal tower (figs. 3 and 4, interpreted)."""
    if len(players) == 2:
        return TWO_PLAYER_START[players[index]]
    return CORNERS[index]


def royal_range(players: tuple[str, ...], index: int) -> frozenset[Square]:
    """The paved squares player ``index``'s royal tower may stand on (figs. 20 and 21).

    Two players: the whole paved column of its territory ("de lado a lado del tablero").
    More players: from its corner up to the central square of the column ("hasta la casilla
    central del tablero"), which two players on the same side share.
    """
    sx, sy = start_square(players, index)
    if len(players) == 2:
        return frozenset((sx, y) for y in range(HEIGHT))
    lo, hi = sorted((sy, CENTRE_Y))
    return frozenset((sx, y) for y in range(lo, hi + 1))


def front_of(sq: Square) -> Square:
    """The square "delante de la torre real" (fig. 10): one step toward the board's middle."""
    x, y = sq
    return (1, y) if x == 0 else (WIDTH - 2, y)


def forbidden_zone_for(players: tuple[str, ...], player: str) -> frozenset[Square]:
    """Squares where ``player`` may not place a cube flat (two players: the other territory's
    marked zone; more players: zones B and C, except the first cube, see the state)."""
    if len(players) == 2:
        return ZONE_C if player == "blue" else ZONE_B
    return ZONE_B | ZONE_C
