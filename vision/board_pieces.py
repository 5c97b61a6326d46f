"""What can stand on a cell of a flat board, as simple solids: the hypotheses the classifier tests.

Every piece is a few vertical solids (boxes with a square footprint, cylinders) centred on the cell,
stacked from the cell's floor (the board, or a Gridopolis pad's top).  A solid's ``role`` says which
colour it carries: ``"cube"`` (a Bandera cube or a king's crown: colour not part of the game state),
``"character"`` (a Bandera character: its player's colour) or ``"marker"`` (a Gridopolis pawn, king
or blocker box: its player's colour).  Dimensions are the physical pieces' (docs/boards.md,
"Pieces"); they are properties of the game's components, never of a picture.

Quirky Circuits tokens are flat printed squares: they are told apart by their printed colour
(:data:`TOKEN_ART`), not by shape (``vision.board_classify``).
"""

from __future__ import annotations

from dataclasses import dataclass

from calibration.boards import TOKEN_ART

__all__ = ["PIECES", "TOKEN_ART", "Hypothesis", "PieceGeometry", "Solid", "hypotheses_for"]


@dataclass(frozen=True)
class Solid:
    shape: str  # "box" (square footprint, half-size ``half``) or "cyl" (radius ``half``)
    half: float
    z0: float  # above the cell's floor, mm
    z1: float
    role: str  # "cube" | "character" | "marker"


@dataclass(frozen=True)
class Hypothesis:
    """One possible content of a cell: ``kind`` as in the fixtures' truth (``empty``, ``cube``,
    ``tower2``, ``pawn``, ``king``, ``blocker``), the number of cubes (Bandera) and whether a
    character stands on top.  (A royal tower is a ``tower2`` on which a flag is then found.)"""

    kind: str
    solids: tuple[Solid, ...]
    cubes: int = 0
    character: bool = False


@dataclass(frozen=True)
class PieceGeometry:
    """Physical sizes of the pieces (mm): the project's components (docs/boards.md, "Pieces")."""

    cube_mm: float = 22.0  # Legends of Cubes cube
    character_radius: float = 6.0  # a character token: round base, body and head
    character_height: float = 17.5
    character_body: float = 12.5  # the player's colour is on the body up to here; the head is skin-coloured
    character_body_radius: float = 4.0  # the body (above a 2.5 mm base of ``character_radius``) is slim
    flag_height: float = 28.0  # a royal tower's flag: pole above the tower's top ...
    flag_banner: tuple[float, float] = (17.0, 27.0)  # ... with its banner between these heights
    flag_reach: float = 26.0  # how far from the top's centre the pole and banner may reach
    marker_radius: float = 11.0  # a Gridopolis marker (pawn side up): a 22 mm rounded square puck ...
    marker_square: float = 9.5  # ... whose corners (rounded 6 mm) reach this square's (half-size) corners
    pawn_height: float = 12.0
    king_height: float = 17.5  # the flipped marker: crown side up
    crown_radius: float = 7.0
    blocker_half: float = 13.0  # a Gridopolis blocker box
    blocker_height: float = 19.5


PIECES = PieceGeometry()



def _bandera(g: PieceGeometry) -> list[Hypothesis]:
    """Cube stacks; a character on top and a royal tower's flag are looked for separately on each
    stack found (``vision.board_classify``: both are small next to the cubes)."""
    c = g.cube_mm
    h = c / 2
    out = [Hypothesis("empty", ())]
    for n, kind in ((1, "cube"), (2, "tower2")):
        out.append(Hypothesis(kind, tuple(Solid("box", h, k * c, (k + 1) * c, "cube") for k in range(n)), cubes=n))
    return out


def _gridopolis(g: PieceGeometry) -> list[Hypothesis]:
    """A marker is a rounded square puck lying square on its pad: the union of a cylinder (its
    rounded corners) and a slightly smaller square box (its sides)."""
    r = g.marker_radius
    puck = (Solid("cyl", r, 0.0, g.pawn_height, "marker"), Solid("box", g.marker_square, 0.0, g.pawn_height, "marker"))
    return [
        Hypothesis("empty", ()),
        Hypothesis("pawn", puck),
        Hypothesis("king", (*puck, Solid("cyl", g.crown_radius, g.pawn_height, g.king_height, "cube"))),
        Hypothesis("blocker", (Solid("box", g.blocker_half, 0.0, g.blocker_height, "marker"),)),
    ]


def hypotheses_for(game: str, geometry: PieceGeometry | None = None) -> list[Hypothesis]:
    """The cell contents the classifier weighs for ``game`` (``empty`` first)."""
    g = geometry or PIECES
    if game == "bandera":
        return _bandera(g)
    if game == "gridopolis":
        return _gridopolis(g)
    raise ValueError(f"no pieces known for game {game!r}")
