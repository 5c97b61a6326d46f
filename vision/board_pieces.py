"""What can stand on a cell of a flat board, as simple solids: the hypotheses the classifier tests.

Every piece is a few vertical solids (boxes with a square footprint, cylinders) centred on the cell,
stacked from the cell's floor (the board, or a Gridopolis pad's top).  A solid's ``role`` says which
colour it carries: ``"cube"`` (a Bandera cube or a flag pole: colour not part of the game state),
``"flag"`` (a royal tower's banner: its owner's colour), ``"character"`` (a Bandera character: its
player's colour), ``"marker"`` (a Gridopolis pawn or king: its player's colour) or ``"token"`` (a
Quirky token's own colour).  The dimensions are the physical pieces' (docs/boards.md, "Pieces"); they are
properties of the game's components, never of a picture.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["PIECES", "Hypothesis", "PieceGeometry", "Solid", "hypotheses_for"]


@dataclass(frozen=True)
class Solid:
    shape: str  # "box" (square footprint, half-size ``half``) or "cyl" (radius ``half``)
    half: float
    z0: float  # above the cell's floor, mm
    z1: float
    role: str  # "cube" | "flag" | "character" | "marker" | "token"


@dataclass(frozen=True)
class Hypothesis:
    """One possible content of a cell: ``kind`` as in the fixtures' truth (``empty``, ``cube``,
    ``tower2``, ``royal_tower``, ``character``, a Quirky token kind, ``pawn``, ``king``), the number of
    cubes under it (Bandera) and whether a character stands on top."""

    kind: str
    solids: tuple[Solid, ...]
    cubes: int = 0
    character: bool = False
    colour: str | None = None  # expected colour of the ``token`` role (Quirky kinds), else read


@dataclass(frozen=True)
class PieceGeometry:
    """Physical sizes of the pieces (mm); defaults are the project's components (docs/boards.md)."""

    cube_mm: float = 22.0
    flag_pole_radius: float = 1.1
    flag_height: float = 20.0  # pole above the tower's top
    flag_banner: tuple[float, float] = (10.0, 19.0)  # banner from .. to, above the tower's top
    flag_banner_half: float = 5.0
    character_radius: float = 7.0
    character_height: float = 16.0
    pawn_radius: float = 9.0
    pawn_height: float = 18.0
    king_height: float = 30.0
    token_radius: float = 12.0
    token_heights: dict[str, float] = field(default_factory=lambda: {
        "dust_bunny": 10.0, "vase": 28.0, "seed": 6.0, "fossil": 8.0, "quirky_flag": 30.0,
    })
    token_colours: dict[str, str] = field(default_factory=lambda: {
        "dust_bunny": "grey", "vase": "blue", "seed": "yellow", "fossil": "brown", "quirky_flag": "red",
    })


PIECES = PieceGeometry()


def _bandera(g: PieceGeometry) -> list[Hypothesis]:
    c = g.cube_mm
    h = c / 2
    out = [Hypothesis("empty", ())]
    for n, kind in ((1, "cube"), (2, "tower2")):
        cubes = tuple(Solid("box", h, k * c, (k + 1) * c, "cube") for k in range(n))
        out.append(Hypothesis(kind, cubes, cubes=n))
        ch = Solid("cyl", g.character_radius, n * c, n * c + g.character_height, "character")
        out.append(Hypothesis("character", (*cubes, ch), cubes=n, character=True))
    tower = tuple(Solid("box", h, k * c, (k + 1) * c, "cube") for k in range(2))
    top = 2 * c
    flag = (Solid("cyl", g.flag_pole_radius, top, top + g.flag_height, "cube"),
            Solid("box", g.flag_banner_half, top + g.flag_banner[0], top + g.flag_banner[1], "flag"))
    out.append(Hypothesis("royal_tower", (*tower, *flag), cubes=2))
    ch = Solid("cyl", g.character_radius, top, top + g.character_height, "character")
    out.append(Hypothesis("royal_tower", (*tower, *flag, ch), cubes=2, character=True))
    return out


def _quirky(g: PieceGeometry) -> list[Hypothesis]:
    out = [Hypothesis("empty", ())]
    for kind, height in g.token_heights.items():
        out.append(Hypothesis(kind, (Solid("cyl", g.token_radius, 0.0, height, "token"),),
                              colour=g.token_colours.get(kind)))
    return out


def _gridopolis(g: PieceGeometry) -> list[Hypothesis]:
    return [
        Hypothesis("empty", ()),
        Hypothesis("pawn", (Solid("cyl", g.pawn_radius, 0.0, g.pawn_height, "marker"),)),
        Hypothesis("king", (Solid("cyl", g.pawn_radius, 0.0, g.king_height, "marker"),)),
    ]


def hypotheses_for(game: str, geometry: PieceGeometry | None = None) -> list[Hypothesis]:
    """The cell contents the classifier weighs for ``game`` (``empty`` first)."""
    g = geometry or PIECES
    if game == "bandera":
        return _bandera(g)
    if game == "quirky":
        return _quirky(g)
    if game == "gridopolis":
        return _gridopolis(g)
    raise ValueError(f"no pieces known for game {game!r}")
