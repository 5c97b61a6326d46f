"""Printed flat boards: Captura la Bandera 10x7, Quirky Circuits scenario boards, the Gridopolis level guide.

One :class:`BoardSpec` says everything a camera needs to find a printed board and its cells: the grid
(``cols`` x ``rows`` cells of ``cell_mm``), the ArUco markers printed in the margin (ids, corners in
board millimetres) and the printed marks (zones, walls, pads...) for drawing it.  The board frame is
docs/coordinates.md "Flat boards": origin at the south-west corner of the grid, ``x`` east, ``y`` north,
``z`` up, millimetres; cell ``(x, y)`` spans ``[x*cell, (x+1)*cell] x [y*cell, (y+1)*cell]``; the margin
lies outside the grid (negative coordinates).

Every game owns a range of marker ids of one dictionary (``DICT_4X4_250``, not the CTRL mat's
``DICT_5X5_250``), so a detected id says which game's board is on the table
(:func:`game_of_marker_id`); :data:`ROBOT_TAG_IDS` is reserved for the robot's tag (:class:`RobotTag`).
Markers sit at the four corners of the margin and along every edge, so the pose survives a hand
covering some of them.  Large Quirky boards (floor robots) also carry markers inside the grid, on
grid intersections, so that every printed sheet of a tiled board shows markers of its own.

Physical dimensions that the rulebooks do not give (cell sizes, pad pitch, level height) are
interpretations, listed in docs/boards.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.errors import CalibrationError

__all__ = [
    "BANDERA_CELL_MM",
    "DICTIONARY",
    "GAMES",
    "GRIDOPOLIS_LEVEL_MM",
    "GRIDOPOLIS_PAD_MM",
    "GRIDOPOLIS_PAD_THICK_MM",
    "GRIDOPOLIS_PITCH_MM",
    "MARKER_IDS",
    "QUIRKY_CELL_MM",
    "ROBOT_TAG_IDS",
    "TOKEN_ART",
    "BoardImage",
    "BoardSpec",
    "BoardSpecError",
    "Fiducial",
    "Mark",
    "RobotTag",
    "board_spec",
    "game_of_marker_id",
    "gridopolis_pad_centre_mm",
    "gridopolis_pad_top_mm",
    "gridopolis_pads",
    "render_board",
    "render_robot_tag",
]

GAMES: tuple[str, ...] = ("bandera", "quirky", "gridopolis")
DICTIONARY = "DICT_4X4_250"
#: marker ids owned by each game's boards (``range`` objects; every id is in ``DICTIONARY``)
MARKER_IDS: dict[str, range] = {
    "bandera": range(0, 30),
    "gridopolis": range(30, 60),
    "quirky": range(60, 230),
}
#: ids reserved for the robot's tag (never printed on a board)
ROBOT_TAG_IDS: tuple[int, ...] = tuple(range(230, 250))

#: The printed Quirky Circuits tokens (Boardside's token art, docs/boards.md): kind -> the sRGB
#: colour of the token's printed face (a white disc with a darker centre and the name lie on it).
#: One table for the renderer that draws them and the board reader that recognises them.
TOKEN_ART: dict[str, tuple[int, int, int]] = {
    "dust": (190, 190, 196),
    "vase": (60, 110, 200),
    "seed": (140, 90, 40),
    "fossil": (226, 212, 170),
    "flag": (210, 40, 40),
    "ball": (240, 140, 30),
    "sock": (235, 120, 170),
    "cup": (40, 170, 160),
    "book": (120, 70, 170),
    "teapot": (70, 160, 70),
    "plank": (170, 120, 70),
    "spotlight": (250, 220, 60),
    "stage": (140, 30, 50),
    "cushion": (180, 160, 220),
}

#: Captura la Bandera square side (interpretation: 22 mm cubes with room to pick them up)
BANDERA_CELL_MM = 32.0
#: Quirky Circuits default step: table robots 50 mm (floor robots: pass ``cell_mm=150``)
QUIRKY_CELL_MM = 50.0
#: Gridopolis grid-set (interpretation, docs/boards.md): pad pitch (pad + link), pad side,
#: pad thickness and the height of one level (post length + pad thickness)
GRIDOPOLIS_PITCH_MM = 50.0
GRIDOPOLIS_PAD_MM = 40.0
GRIDOPOLIS_PAD_THICK_MM = 6.0
GRIDOPOLIS_LEVEL_MM = 55.0
GRIDOPOLIS_SIZE = 7  # the 4-player layout spans x, y in 0..6

_LABEL_BAND_MM = 5.0  # between the grid and the markers: column / row numbers
_GAP_MM = 2.0
_OUTER_MM = 5.0
_EDGE_SPACING_MM = 100.0  # target distance between markers along an edge
_INTERIOR_ABOVE_MM = 380.0  # grids larger than this (either way) get interior markers
_INTERIOR_PITCH_MM = 130.0  # at most: a sheet (>= 184 mm of board) always holds a lattice line


class BoardSpecError(CalibrationError):
    """A board cannot be specified as asked (unknown game or scenario, bad cell size, too many markers)."""


@dataclass(frozen=True)
class Fiducial:
    """One printed ArUco marker: ``corners_mm`` in board mm, OpenCV corner order as printed
    (top-left, top-right, bottom-right, bottom-left; the printed top faces north)."""

    id: int
    corners_mm: tuple[tuple[float, float], ...]

    @property
    def centre_mm(self) -> tuple[float, float]:
        xs = [c[0] for c in self.corners_mm]
        ys = [c[1] for c in self.corners_mm]
        return (sum(xs) / len(xs), sum(ys) / len(ys))

    @property
    def side_mm(self) -> float:
        (x0, y0), (x1, y1) = self.corners_mm[0], self.corners_mm[1]
        return math.hypot(x1 - x0, y1 - y0)

    def __repr__(self) -> str:
        return f"Fiducial(id={self.id!r}, corners_mm={self.corners_mm!r})"


@dataclass(frozen=True)
class Mark:
    """Something printed on a board cell (for drawing and for the reader's benefit).

    ``kind``: ``zone`` (text = zone letter), ``paved``, ``obstacle``, ``wall`` (text = side N/E/S/W of
    cell x, y), ``spin`` (text L/R), ``start`` (text = heading), ``item`` (a fixed Quirky token;
    text = its kind), ``target`` (an objective square; text), ``pad`` (Gridopolis level-0 pad; text =
    seat colour or ``core``), ``kingerizer`` (text = seat colour), ``post`` (text = level it holds),
    ``upper`` (text = levels stacked above, e.g. ``"1,2"``), ``hyper`` (text = level).
    """

    kind: str
    x: int
    y: int
    text: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "x": self.x, "y": self.y, "text": self.text}


@dataclass(frozen=True)
class BoardSpec:
    """A printed board: grid, margin, markers and printed marks, in board mm (module docstring)."""

    game: str
    cols: int
    rows: int
    cell_mm: float
    margin_mm: float
    dictionary: str
    fiducials: tuple[Fiducial, ...]
    name: str
    marks: tuple[Mark, ...] = field(default=(), repr=False)

    def cell_centre_mm(self, x: int, y: int) -> tuple[float, float]:
        """Centre of cell ``(x, y)`` in board mm (cells outside the grid are extrapolated)."""
        return ((x + 0.5) * self.cell_mm, (y + 0.5) * self.cell_mm)

    def cell_of_mm(self, xm: float, ym: float) -> tuple[int, int] | None:
        """The cell containing board point ``(xm, ym)``, or None outside the grid."""
        if not (math.isfinite(xm) and math.isfinite(ym)):
            return None
        x, y = math.floor(xm / self.cell_mm), math.floor(ym / self.cell_mm)
        if 0 <= x < self.cols and 0 <= y < self.rows:
            return (x, y)
        return None

    @property
    def grid_mm(self) -> tuple[float, float]:
        return (self.cols * self.cell_mm, self.rows * self.cell_mm)

    @property
    def size_mm(self) -> tuple[float, float]:
        """Width and height of the whole printed board, margins included."""
        w, h = self.grid_mm
        return (w + 2 * self.margin_mm, h + 2 * self.margin_mm)

    @property
    def extent_mm(self) -> tuple[float, float, float, float]:
        """``(xmin, ymin, xmax, ymax)`` of the printed board in board mm."""
        w, h = self.grid_mm
        m = self.margin_mm
        return (-m, -m, w + m, h + m)

    @property
    def marker_ids(self) -> tuple[int, ...]:
        return tuple(f.id for f in self.fiducials)

    def fiducial(self, marker_id: int) -> Fiducial:
        for f in self.fiducials:
            if f.id == marker_id:
                return f
        raise BoardSpecError(f"board {self.name!r} has no marker {marker_id!r}")

    def marks_at(self, x: int, y: int) -> tuple[Mark, ...]:
        return tuple(m for m in self.marks if m.x == x and m.y == y)

    def aruco_dictionary(self) -> cv2.aruco.Dictionary:
        return _dictionary(self.dictionary)

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "name": self.name,
            "cols": self.cols,
            "rows": self.rows,
            "cell_mm": self.cell_mm,
            "margin_mm": self.margin_mm,
            "dictionary": self.dictionary,
            "origin": "south-west corner of the grid, x east, y north, mm",
            "fiducials": [
                {"id": f.id, "corners_mm": [[round(v, 4) for v in c] for c in f.corners_mm]} for f in self.fiducials
            ],
            "marks": [m.to_json() for m in self.marks],
        }

    @classmethod
    def from_json(cls, doc: Any) -> BoardSpec:
        """Read :meth:`to_json`'s document; a malformed one raises :class:`BoardSpecError`."""
        if not isinstance(doc, dict):
            raise BoardSpecError(f"a board spec must be a JSON object, got {type(doc).__name__!r}")
        try:
            fids = tuple(
                Fiducial(int(f["id"]), tuple((float(c[0]), float(c[1])) for c in f["corners_mm"]))
                for f in doc["fiducials"]
            )
            marks = tuple(
                Mark(str(m["kind"]), int(m["x"]), int(m["y"]), str(m.get("text", ""))) for m in doc.get("marks", [])
            )
            spec = cls(
                game=str(doc["game"]),
                cols=int(doc["cols"]),
                rows=int(doc["rows"]),
                cell_mm=float(doc["cell_mm"]),
                margin_mm=float(doc["margin_mm"]),
                dictionary=str(doc["dictionary"]),
                fiducials=fids,
                name=str(doc["name"]),
                marks=marks,
            )
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise BoardSpecError(f"malformed board spec: {exc!r}") from None
        if spec.game not in GAMES:
            raise BoardSpecError(f"unknown game {spec.game!r} in board spec (expected one of {', '.join(GAMES)})")
        if any(len(f.corners_mm) != 4 for f in fids):
            raise BoardSpecError("malformed board spec: every fiducial needs 4 corners")
        _dictionary(spec.dictionary)
        return spec


@dataclass(frozen=True)
class RobotTag:
    """The ArUco tag on top of the robot: id from :data:`ROBOT_TAG_IDS`, black square ``tag_mm`` wide,
    printed with a one-module white border, mounted flat ``height_mm`` above the board, its printed
    top edge pointing the robot's heading (docs/boards.md, "Robot tag")."""

    id: int = ROBOT_TAG_IDS[0]
    tag_mm: float = 30.0
    height_mm: float = 45.0
    dictionary: str = DICTIONARY

    def __post_init__(self) -> None:
        if self.id not in ROBOT_TAG_IDS:
            raise BoardSpecError(
                f"robot tag id {self.id!r} is not in the reserved range {ROBOT_TAG_IDS[0]}..{ROBOT_TAG_IDS[-1]}"
            )
        if not (math.isfinite(self.tag_mm) and 5.0 <= self.tag_mm <= 200.0):
            raise BoardSpecError(f"robot tag size must be 5..200 mm, got {self.tag_mm!r}")
        if not (math.isfinite(self.height_mm) and 0.0 <= self.height_mm <= 500.0):
            raise BoardSpecError(f"robot tag height must be 0..500 mm, got {self.height_mm!r}")

    def corners_local_mm(self) -> tuple[tuple[float, float], ...]:
        """Corners of the black square in the robot's frame (x = heading, y = robot's left), OpenCV
        order: top-left, top-right, bottom-right, bottom-left, where "top" is the heading edge."""
        h = self.tag_mm / 2
        return ((h, h), (h, -h), (-h, -h), (-h, h))


def game_of_marker_id(marker_id: int) -> str | None:
    """Which game's board a detected marker id belongs to (``"robot"`` for a robot tag), else None."""
    for game, ids in MARKER_IDS.items():
        if marker_id in ids:
            return game
    if marker_id in ROBOT_TAG_IDS:
        return "robot"
    return None


# ---------------------------------------------------------------------------------------- layout


def _dictionary(name: str) -> cv2.aruco.Dictionary:
    dict_id = getattr(cv2.aruco, name, None) if name.startswith("DICT_") else None
    if not isinstance(dict_id, int):
        raise BoardSpecError(f"unknown ArUco dictionary {name!r} (e.g. {DICTIONARY!r})")
    return cv2.aruco.getPredefinedDictionary(dict_id)


def _square(mid: int, cx: float, cy: float, side: float) -> Fiducial:
    h = side / 2
    return Fiducial(mid, ((cx - h, cy + h), (cx + h, cy + h), (cx + h, cy - h), (cx - h, cy - h)))


def _between(n: int, a: float, b: float) -> list[float]:
    return [a + (b - a) * (i + 1) / (n + 1) for i in range(n)]


def _layout_fiducials(
    game: str, cols: int, rows: int, cell: float, marker_mm: float, interior: bool
) -> tuple[tuple[Fiducial, ...], float]:
    """Margin markers (corners, then along the edges) and optional interior ones; returns (fiducials, margin)."""
    margin = _LABEL_BAND_MM + _GAP_MM + marker_mm + max(_OUTER_MM, math.ceil(marker_mm / 6 + 1.0))  # quiet zone fits
    d = _LABEL_BAND_MM + _GAP_MM + marker_mm / 2  # marker centre's distance from the grid edge
    w, h = cols * cell, rows * cell
    spacing = max(_EDGE_SPACING_MM, 4 * marker_mm)
    centres: list[tuple[float, float, float]] = [
        (-d, -d, marker_mm),
        (w + d, -d, marker_mm),
        (w + d, h + d, marker_mm),
        (-d, h + d, marker_mm),
    ]
    k = max(1, math.floor(_INTERIOR_PITCH_MM / cell + 1e-9))
    if interior:  # edge markers in line with the interior lattice: any sheet holding a lattice row and
        # column (or a margin) holds the marker where they cross
        along_x = [i * cell for i in range(k, cols, k)]
        along_y = [j * cell for j in range(k, rows, k)]
    else:
        along_x = _between(max(0, math.ceil((w + 2 * d) / spacing) - 1), -d, w + d)
        along_y = _between(max(0, math.ceil((h + 2 * d) / spacing) - 1), -d, h + d)
    centres += [(x, -d, marker_mm) for x in along_x]  # south
    centres += [(w + d, y, marker_mm) for y in along_y]  # east
    centres += [(x, h + d, marker_mm) for x in reversed(along_x)]  # north
    centres += [(-d, y, marker_mm) for y in reversed(along_y)]  # west
    if interior:
        side = min(marker_mm, 0.3 * cell)
        for j in range(k, rows, k):
            for i in range(k, cols, k):
                centres.append((i * cell, j * cell, side))
    ids = MARKER_IDS[game]
    if len(centres) > len(ids):
        raise BoardSpecError(
            f"a {cols}x{rows} {game} board of {cell:g} mm cells needs {len(centres)} markers, "
            f"more than the {len(ids)} ids reserved for {game}; use smaller cells"
        )
    return tuple(_square(ids[i], cx, cy, s) for i, (cx, cy, s) in enumerate(centres)), margin


def _check_cell(cell_mm: float | None, default: float, lo: float, hi: float) -> float:
    if cell_mm is None:
        return default
    if isinstance(cell_mm, bool) or not isinstance(cell_mm, (int, float)) or not math.isfinite(cell_mm):
        raise BoardSpecError(f"cell size must be a number of millimetres, got {cell_mm!r}")
    if not lo <= cell_mm <= hi:
        raise BoardSpecError(f"cell size must be between {lo:g} and {hi:g} mm, got {cell_mm!r}")
    return float(cell_mm)


def _bandera_spec(cell_mm: float | None) -> BoardSpec:
    from engine.bandera import board as bb

    cell = _check_cell(cell_mm, BANDERA_CELL_MM, 25.0, 80.0)
    marks: list[Mark] = []
    for x, y in bb.all_squares():
        zone = bb.zone_of((x, y))
        if zone:
            marks.append(Mark("zone", x, y, zone))
        if (x, y) in bb.PAVED:
            marks.append(Mark("paved", x, y))
    fids, margin = _layout_fiducials("bandera", bb.WIDTH, bb.HEIGHT, cell, round(0.56 * cell, 1), False)
    return BoardSpec("bandera", bb.WIDTH, bb.HEIGHT, cell, margin, DICTIONARY, fids, "bandera 10x7", tuple(marks))


def _load_scenario(scenario: str | None) -> Any:
    from pathlib import Path

    from engine.quirky.scenario import ScenarioError, builtin_ids, builtin_scenario, parse_scenario

    if scenario is None:
        raise BoardSpecError(f"a quirky board needs a scenario: an id ({', '.join(builtin_ids())}) or a .toml file")
    if scenario in builtin_ids():
        return builtin_scenario(scenario)
    p = Path(scenario)
    if p.suffix.lower() == ".toml" or p.exists():
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as exc:
            raise BoardSpecError(f"cannot read scenario file {scenario!r}: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise BoardSpecError(f"scenario file {scenario!r} is not UTF-8 text") from None
        try:
            return parse_scenario(text, str(p))
        except ScenarioError as exc:
            raise BoardSpecError(str(exc)) from None
    raise BoardSpecError(f"unknown scenario {scenario!r} (known: {', '.join(builtin_ids())}; or a .toml file)")


_QUIRKY_SYMBOLS = {"dust": "dust_bunny", "flag": "quirky_flag"}


def _quirky_spec(scenario: str | None, cell_mm: float | None) -> BoardSpec:
    scn = _load_scenario(scenario)
    cell = _check_cell(cell_mm, QUIRKY_CELL_MM, 30.0, 300.0)
    b = scn.board
    marks: list[Mark] = []
    for x, y in sorted(b.obstacles):
        marks.append(Mark("obstacle", x, y))
    for c, s in sorted(b.spins.items()):
        marks.append(Mark("spin", c[0], c[1], s))
    marks.append(Mark("start", b.start.x, b.start.y, b.start.heading.name))
    for wall in sorted(tuple(sorted(w)) for w in b.walls):
        (ax, ay), (bx, by) = wall
        side = "E" if bx > ax else "N" if by > ay else "W" if bx < ax else "S"
        marks.append(Mark("wall", ax, ay, side))
    for t in scn.tokens:
        if t.fixed:
            marks.append(Mark("item", t.at[0], t.at[1], t.kind))
    obj = scn.objective
    if obj.reach is not None:
        marks.append(Mark("target", obj.reach[0], obj.reach[1], obj.facing.name if obj.facing else ""))
    for _tid, at in obj.deliver:
        marks.append(Mark("target", at[0], at[1], "deliver"))
    grid_w, grid_h = b.width * cell, b.height * cell
    interior = max(grid_w, grid_h) > _INTERIOR_ABOVE_MM
    marker = round(min(40.0, max(15.0, 0.4 * cell)), 1)
    fids, margin = _layout_fiducials("quirky", b.width, b.height, cell, marker, interior)
    return BoardSpec("quirky", b.width, b.height, cell, margin, DICTIONARY, fids, f"quirky:{scn.id}", tuple(marks))


def _gridopolis_spec(cell_mm: float | None) -> BoardSpec:
    from engine.gridopolis.layout import CORE, HYPER_PADS, SEATS, STRUCTURE_POSTS

    if cell_mm is not None and _check_cell(cell_mm, GRIDOPOLIS_PITCH_MM, 1, 1000) != GRIDOPOLIS_PITCH_MM:
        raise BoardSpecError(
            f"the Gridopolis level guide is printed at the grid-set's pad pitch "
            f"({GRIDOPOLIS_PITCH_MM:g} mm); --cell-mm {cell_mm!r} is not allowed"
        )
    cell = GRIDOPOLIS_PITCH_MM
    marks: list[Mark] = []
    for pad in sorted(CORE):
        if pad.level == 0:
            uppers = sorted(p.level for p in CORE if (p.x, p.y) == (pad.x, pad.y) and p.level > 0)
            marks.append(Mark("pad", pad.x, pad.y, "core"))
            marks.append(Mark("upper", pad.x, pad.y, ",".join(map(str, uppers))))
    for seat in SEATS.values():
        for pad in sorted(seat.arm):
            marks.append(Mark("pad", pad.x, pad.y, seat.colour))
        for pad in seat.start_row:
            marks.append(Mark("kingerizer", pad.x, pad.y, seat.colour))
    for post in sorted(STRUCTURE_POSTS):
        marks.append(Mark("post", post.x, post.y, str(post.level)))
    for pad in sorted(HYPER_PADS):
        marks.append(Mark("hyper", pad.x, pad.y, str(pad.level)))
    fids, margin = _layout_fiducials("gridopolis", GRIDOPOLIS_SIZE, GRIDOPOLIS_SIZE, cell, 20.0, False)
    return BoardSpec(
        "gridopolis",
        GRIDOPOLIS_SIZE,
        GRIDOPOLIS_SIZE,
        cell,
        margin,
        DICTIONARY,
        fids,
        "gridopolis level guide",
        tuple(marks),
    )


def board_spec(game: str, *, scenario: str | None = None, cell_mm: float | None = None) -> BoardSpec:
    """The printed board of ``game`` (``bandera``, ``quirky`` with ``scenario`` = a shipped id or a
    ``.toml`` file, ``gridopolis``); ``cell_mm`` overrides the default cell size (Quirky: the robot's
    step, 50 mm table robots, 150 mm floor robots).  Raises :class:`BoardSpecError`."""
    g = game.strip().lower() if isinstance(game, str) else game
    if g == "bandera":
        if scenario is not None:
            raise BoardSpecError(f"--scenario is for quirky boards, not {game!r}")
        return _bandera_spec(cell_mm)
    if g == "quirky":
        return _quirky_spec(scenario, cell_mm)
    if g == "gridopolis":
        if scenario is not None:
            raise BoardSpecError(f"--scenario is for quirky boards, not {game!r}")
        return _gridopolis_spec(cell_mm)
    raise BoardSpecError(f"unknown game {game!r} (boards exist for: {', '.join(GAMES)})")


# ---------------------------------------------------------------------------------------- gridopolis


def gridopolis_pad_top_mm(level: int) -> float:
    """Height of the top face of a pad on ``level`` above the board (interpretation, docs/boards.md)."""
    if level < 0:
        raise BoardSpecError(f"pad level must be 0 or more, got {level!r}")
    return GRIDOPOLIS_PAD_THICK_MM + level * GRIDOPOLIS_LEVEL_MM


def gridopolis_pad_centre_mm(spec: BoardSpec, x: int, y: int, level: int) -> tuple[float, float, float]:
    """Centre of the top face of pad ``(x, y, level)`` in board mm (the guide's frame)."""
    if spec.game != "gridopolis":
        raise BoardSpecError(f"pad positions need the gridopolis level guide, not {spec.name!r}")
    cx, cy = spec.cell_centre_mm(x, y)
    return (cx, cy, gridopolis_pad_top_mm(level))


@lru_cache(maxsize=8)
def gridopolis_pads(players: int = 4) -> tuple[tuple[int, int, int], ...]:
    """``(x, y, level)`` of every pad of the standard grid-set for ``players`` players (layout.py)."""
    from engine.gridopolis.layout import standard_layout

    if players not in (2, 3, 4):
        raise BoardSpecError(f"Gridopolis is for 2, 3 or 4 players, not {players!r}")
    pads, _posts = standard_layout(players)
    return tuple((p.x, p.y, p.level) for p in sorted(pads))


def gridopolis_posts_needed(pads: set[tuple[int, int, int]], posts: set[tuple[int, int, int]],
                            ) -> set[tuple[int, int, int]]:
    """The posts ``pads`` stand on: ``posts`` (already there), plus one under each pad that neither a
    link to a held pad of its level nor an existing post holds up.  Level 0 rests on the table; pads
    are held up through links first, and only what is left gets a new post, lowest first (rulebook
    "Agregar un pad"; docs/boards.md)."""
    posts = set(posts)
    held = {k for k in pads if k[2] == 0}
    grew = True
    while grew:  # held up through links first; what is left stands on posts
        grew = False
        for k in sorted(pads - held):
            if any((k[0] + dx, k[1] + dy, k[2]) in held for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))) or (
                    k in posts and (k[0], k[1], k[2] - 1) in held):
                held.add(k)
                grew = True
        if not grew:
            for k in sorted(pads - held, key=lambda q: q[2]):
                if (k[0], k[1], k[2] - 1) in held:
                    posts.add(k)
                    held.add(k)
                    grew = True
                    break
    return posts


# ---------------------------------------------------------------------------------------- rendering

U8 = npt.NDArray[np.uint8]
F64 = npt.NDArray[np.float64]

#: printed colours (sRGB) -- light, so pieces stand out
ZONE_RGB: dict[str, tuple[int, int, int]] = {
    "A": (250, 226, 150),
    "B": (196, 216, 246),
    "C": (246, 200, 196),
}
SEAT_RGB: dict[str, tuple[int, int, int]] = {
    "green": (200, 235, 200),
    "red": (245, 205, 200),
    "blue": (200, 215, 245),
    "yellow": (245, 235, 180),
    "core": (232, 232, 232),
}
_INK = (40, 40, 40)
_GRID_INK = (90, 90, 90)


@dataclass(frozen=True, eq=False)
class BoardImage:
    """A rendered board (or a region of it): ``image`` H x W x 3 **RGB** uint8, row 0 = the north edge
    of ``region_mm`` (xmin, ymin, xmax, ymax in board mm), ``px_per_mm`` pixels per mm."""

    spec: BoardSpec
    image: U8
    px_per_mm: float
    region_mm: tuple[float, float, float, float]

    def mm_to_px(self, xy: npt.ArrayLike) -> F64:
        """Board mm ``(..., 2)`` -> pixel ``(..., 2)`` (col, row; pixel centres at integers)."""
        a = np.asarray(xy, dtype=np.float64)
        k = self.px_per_mm
        x0, _, _, y1 = self.region_mm
        return np.stack([(a[..., 0] - x0) * k - 0.5, (y1 - a[..., 1]) * k - 0.5], axis=-1)

    def px_to_mm(self, cr: npt.ArrayLike) -> F64:
        """Pixel ``(..., 2)`` (col, row) -> board mm ``(..., 2)``."""
        a = np.asarray(cr, dtype=np.float64)
        k = self.px_per_mm
        x0, _, _, y1 = self.region_mm
        return np.stack([x0 + (a[..., 0] + 0.5) / k, y1 - (a[..., 1] + 0.5) / k], axis=-1)


class _Canvas:
    """Anti-aliased drawing in board mm onto an RGB image (sub-pixel via cv2's ``shift``)."""

    SHIFT = 4

    def __init__(self, bi: BoardImage) -> None:
        self.bi = bi
        self.img = bi.image
        self.k = bi.px_per_mm

    def _pts(self, pts_mm: Sequence[tuple[float, float]]) -> npt.NDArray[np.int32]:
        # mm_to_px puts pixel centres at integers, so a polygon edge lands on its true sub-pixel position
        px = self.bi.mm_to_px(np.asarray(pts_mm, dtype=np.float64))
        return np.round(px * (1 << self.SHIFT)).astype(np.int32).reshape(-1, 1, 2)

    def poly(self, pts_mm: Sequence[tuple[float, float]], rgb: tuple[int, int, int], aa: bool = True) -> None:
        cv2.fillPoly(self.img, [self._pts(pts_mm)], rgb, cv2.LINE_AA if aa else cv2.LINE_8, self.SHIFT)

    def rect(self, x0: float, y0: float, x1: float, y1: float, rgb: tuple[int, int, int], aa: bool = True) -> None:
        self.poly([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], rgb, aa)

    def line(self, a: tuple[float, float], b: tuple[float, float], width_mm: float, rgb: tuple[int, int, int]) -> None:
        dx, dy = b[0] - a[0], b[1] - a[1]
        n = math.hypot(dx, dy)
        if n == 0:
            return
        ox, oy = -dy / n * width_mm / 2, dx / n * width_mm / 2
        self.poly([(a[0] + ox, a[1] + oy), (b[0] + ox, b[1] + oy), (b[0] - ox, b[1] - oy), (a[0] - ox, a[1] - oy)], rgb)

    def circle(self, c: tuple[float, float], r_mm: float, rgb: tuple[int, int, int], width_mm: float = 0) -> None:
        n = 48
        outer = [
            (c[0] + r_mm * math.cos(2 * math.pi * i / n), c[1] + r_mm * math.sin(2 * math.pi * i / n)) for i in range(n)
        ]
        if width_mm <= 0:
            self.poly(outer, rgb)
        else:
            for i in range(n):
                self.line(outer[i], outer[(i + 1) % n], width_mm, rgb)

    def text(self, s: str, c: tuple[float, float], cap_mm: float, rgb: tuple[int, int, int], rot90: int = 0) -> None:
        """Text centred at ``c`` with capital height ``cap_mm`` (``rot90`` counter-clockwise quarter turns)."""
        cap_px = cap_mm * self.k
        if cap_px < 3 or not s:
            return
        font = cv2.FONT_HERSHEY_SIMPLEX
        thick = max(1, round(cap_px / 9))
        (_, th), _ = cv2.getTextSize(s, font, 1.0, thick)
        scale = cap_px / max(th, 1)
        (tw, th), base = cv2.getTextSize(s, font, scale, thick)
        pad = thick + 2
        patch = np.zeros((th + base + 2 * pad, tw + 2 * pad), np.uint8)
        cv2.putText(patch, s, (pad, pad + th), font, scale, 255, thick, cv2.LINE_AA)
        patch = np.ascontiguousarray(np.rot90(patch, rot90))
        col, row = self.bi.mm_to_px(np.array(c))
        ph, pw = patch.shape
        r0, c0 = round(row - ph / 2), round(col - pw / 2)
        H, W = self.img.shape[:2]
        rr0, cc0, rr1, cc1 = max(0, r0), max(0, c0), min(H, r0 + ph), min(W, c0 + pw)
        if rr1 <= rr0 or cc1 <= cc0:
            return
        a = patch[rr0 - r0 : rr1 - r0, cc0 - c0 : cc1 - c0].astype(np.float32)[..., None] / 255.0
        sub = self.img[rr0:rr1, cc0:cc1].astype(np.float32)
        self.img[rr0:rr1, cc0:cc1] = (sub * (1 - a) + np.asarray(rgb, np.float32) * a + 0.5).astype(np.uint8)

    def marker(self, f: Fiducial, dictionary: cv2.aruco.Dictionary) -> None:
        """An ArUco marker with a one-module white quiet zone, modules as exact rectangles."""
        n = int(dictionary.markerSize) + 2
        bits = cv2.aruco.generateImageMarker(dictionary, f.id, n, borderBits=1)
        (x0, y1), (x1, _), (_, y0) = f.corners_mm[0], f.corners_mm[1], f.corners_mm[2]
        mod = (x1 - x0) / n
        self.rect(x0 - mod, y0 - mod, x1 + mod, y1 + mod, (255, 255, 255), aa=False)
        for r in range(n):
            for q in range(n):
                if bits[r, q] == 0:
                    self.rect(x0 + q * mod, y1 - (r + 1) * mod, x0 + (q + 1) * mod, y1 - r * mod, (0, 0, 0), aa=False)


def _draw_marks(cv: _Canvas, spec: BoardSpec) -> None:
    c = spec.cell_mm

    def cell_rect(x: int, y: int, inset: float = 0.0) -> tuple[float, float, float, float]:
        return (x * c + inset, y * c + inset, (x + 1) * c - inset, (y + 1) * c - inset)

    for m in spec.marks:
        if m.kind == "zone":
            cv.rect(*cell_rect(m.x, m.y), ZONE_RGB.get(m.text, (230, 230, 230)))
        elif m.kind == "pad":
            cv.rect(*cell_rect(m.x, m.y, (c - GRIDOPOLIS_PAD_MM) / 2), SEAT_RGB.get(m.text, (230, 230, 230)))
    for m in spec.marks:
        x0, y0, x1, y1 = cell_rect(m.x, m.y)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        if m.kind == "paved":  # cobbles: a brick pattern in grey
            rows = 4
            bh = c / rows
            for r in range(rows):
                cv.line((x0, y0 + r * bh), (x1, y0 + r * bh), 0.35, (150, 150, 150))
                off = (c / 4) if r % 2 else 0.0
                for q in range(3):
                    xv = x0 + off + q * c / 2
                    if x0 < xv < x1:
                        cv.line((xv, y0 + r * bh), (xv, y0 + (r + 1) * bh), 0.35, (150, 150, 150))
        elif m.kind == "zone" and m.text in ("A",):
            cv.text("A", (cx, cy), 0.28 * c, (200, 160, 60))
        elif m.kind == "obstacle":
            cv.rect(x0, y0, x1, y1, (120, 120, 120))
            for i in range(1, 6):
                t = i / 6 * c
                cv.line((x0 + t, y0), (x0, y0 + t), 0.6, (170, 170, 170))
                cv.line((x1, y0 + t), (x0 + t, y1), 0.6, (170, 170, 170))
        elif m.kind == "spin":
            rad = 0.3 * c
            cv.circle((cx, cy), rad, (60, 120, 200), width_mm=max(0.8, 0.03 * c))
            cv.text("L" if m.text == "L" else "R", (cx, cy), 0.2 * c, (60, 120, 200))
        elif m.kind == "start":
            d = {"N": (0.0, 1.0), "E": (1.0, 0.0), "S": (0.0, -1.0), "W": (-1.0, 0.0)}[m.text]
            tip = (cx + d[0] * 0.42 * c, cy + d[1] * 0.42 * c)
            base = (cx + d[0] * 0.30 * c, cy + d[1] * 0.30 * c)
            side = (-d[1] * 0.08 * c, d[0] * 0.08 * c)
            cv.poly(
                [tip, (base[0] + side[0], base[1] + side[1]), (base[0] - side[0], base[1] - side[1])], (60, 150, 60)
            )
            cv.text("START", (cx, y0 + 0.12 * c), 0.08 * c, (60, 150, 60))
        elif m.kind == "item":
            cv.rect(x0 + 0.08 * c, y0 + 0.08 * c, x1 - 0.08 * c, y1 - 0.08 * c, (225, 205, 235))
            cv.text(m.text.upper(), (cx, y1 - 0.14 * c), 0.09 * c, (110, 60, 130))
        elif m.kind == "target":
            cv.circle((cx, cy), 0.42 * c, (200, 60, 60), width_mm=max(0.6, 0.02 * c))
            cv.text(m.text or "GOAL", (cx, y0 + 0.12 * c), 0.08 * c, (200, 60, 60))
        elif m.kind == "kingerizer":
            cv.text("K", (cx, y0 + 0.14 * c), 0.14 * c, (90, 90, 90))
        elif m.kind == "post":
            s = 0.16 * c
            px, py = x0 + 0.1 * c, y0 + 0.1 * c
            cv.rect(px, py, px + s, py + s, (110, 110, 110))
        elif m.kind == "upper" and m.text:
            cv.text(f"L{m.text}", (cx, y1 - 0.16 * c), 0.12 * c, (110, 110, 110))
        elif m.kind == "hyper":
            cv.text(f"H{m.text}", (x1 - 0.2 * c, y0 + 0.16 * c), 0.12 * c, (150, 80, 160))


def _draw_walls(cv: _Canvas, spec: BoardSpec) -> None:
    c = spec.cell_mm
    w = max(2.5, 0.08 * c)
    for m in spec.marks:
        if m.kind != "wall":
            continue
        x0, y0, x1, y1 = m.x * c, m.y * c, (m.x + 1) * c, (m.y + 1) * c
        a, b = {
            "N": ((x0 - w / 2, y1), (x1 + w / 2, y1)),
            "S": ((x0 - w / 2, y0), (x1 + w / 2, y0)),
            "E": ((x1, y0 - w / 2), (x1, y1 + w / 2)),
            "W": ((x0, y0 - w / 2), (x0, y1 + w / 2)),
        }[m.text]
        cv.line(a, b, w, (150, 60, 30))


def _sheet_region(spec: BoardSpec) -> tuple[float, float, float, float]:
    return spec.extent_mm


def render_board(
    spec: BoardSpec,
    px_per_mm: float = 4.0,
    *,
    region_mm: tuple[float, float, float, float] | None = None,
) -> BoardImage:
    """Draw ``spec`` (grid, marks, coordinates, markers, title) at ``px_per_mm``.

    ``region_mm`` (xmin, ymin, xmax, ymax in board mm) renders only that part (a printed sheet of a
    tiled board); by default the whole board with its margin.  The image is RGB, row 0 north."""
    if not (isinstance(px_per_mm, (int, float)) and math.isfinite(px_per_mm) and 0.5 <= px_per_mm <= 40):
        raise BoardSpecError(f"px_per_mm must be between 0.5 and 40, got {px_per_mm!r}")
    region = region_mm or _sheet_region(spec)
    x0, y0, x1, y1 = (float(v) for v in region)
    if not (x1 > x0 and y1 > y0):
        raise BoardSpecError(f"empty board region {region!r}")
    width, height = max(1, round((x1 - x0) * px_per_mm)), max(1, round((y1 - y0) * px_per_mm))
    if width * height > 120_000_000:
        raise BoardSpecError(f"board region {region!r} at {px_per_mm:g} px/mm is too large to render at once")
    img = np.full((height, width, 3), 255, np.uint8)
    bi = BoardImage(spec, img, float(px_per_mm), (x0, y0, x1, y1))
    cv = _Canvas(bi)
    c = spec.cell_mm
    gw, gh = spec.grid_mm
    _draw_marks(cv, spec)
    # grid lines
    lw = max(0.5, min(1.2, 0.02 * c))
    for i in range(spec.cols + 1):
        cv.line((i * c, -lw / 2), (i * c, gh + lw / 2), lw, _GRID_INK)
    for j in range(spec.rows + 1):
        cv.line((-lw / 2, j * c), (gw + lw / 2, j * c), lw, _GRID_INK)
    _draw_walls(cv, spec)
    # coordinates in the label band (x under/over the columns, y beside the rows)
    cap = min(3.0, 0.12 * c)
    band = _LABEL_BAND_MM / 2
    for i in range(spec.cols):
        cv.text(str(i), ((i + 0.5) * c, -band), cap, _INK)
        cv.text(str(i), ((i + 0.5) * c, gh + band), cap, _INK, rot90=2)
    for j in range(spec.rows):
        cv.text(str(j), (-band, (j + 0.5) * c), cap, _INK)
        cv.text(str(j), (gw + band, (j + 0.5) * c), cap, _INK)
    # title between the south-west corner marker and its neighbour along the south edge
    d = spec.dictionary
    dictionary = _dictionary(d)
    south = sorted((f for f in spec.fiducials if f.centre_mm[1] < 0), key=lambda f: f.centre_mm[0])
    a, b = south[0], south[1] if len(south) > 1 else south[0]
    tx = (a.centre_mm[0] + b.centre_mm[0]) / 2
    ty = a.centre_mm[1]
    room = max(10.0, b.centre_mm[0] - a.centre_mm[0] - (a.side_mm + b.side_mm) / 2 - 6.0)
    lines = [f"Boardside {spec.name}", f"cell {c:g} mm  {d}  ids {min(spec.marker_ids)}-{max(spec.marker_ids)}"]
    cap_t = min(2.4, max(1.0, room / (0.95 * max(len(t) for t in lines))))
    cv.text(lines[0], (tx, ty + 1.2 * cap_t), cap_t, (90, 90, 90))
    cv.text(lines[1], (tx, ty - 1.2 * cap_t), cap_t, (90, 90, 90))
    for f in spec.fiducials:
        cv.marker(f, dictionary)
    return bi


def render_robot_tag(tag: RobotTag, px_per_mm: float = 8.0) -> U8:
    """The robot tag as printed (RGB, one-module white border around the black square), top = heading."""
    d = _dictionary(tag.dictionary)
    n = int(d.markerSize) + 2
    side_px = max(n, round(tag.tag_mm * px_per_mm))
    mk = cv2.aruco.generateImageMarker(d, tag.id, side_px, borderBits=1)
    pad = max(1, round(side_px / n))
    out = np.full((side_px + 2 * pad, side_px + 2 * pad), 255, np.uint8)
    out[pad : pad + side_px, pad : pad + side_px] = mk
    return np.repeat(out[..., None], 3, axis=2)


def fiducials_in(spec: BoardSpec, region_mm: tuple[float, float, float, float]) -> list[Fiducial]:
    """The fiducials lying wholly inside ``region_mm``."""
    x0, y0, x1, y1 = region_mm
    return [f for f in spec.fiducials if all(x0 <= x <= x1 and y0 <= y <= y1 for x, y in f.corners_mm)]
