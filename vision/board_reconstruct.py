"""Board reconstruct stage: per-cell readings -> the game engine's interchange state, checked by the
engine's own validator (rule checks return :class:`engine.core.Problem`).

What a picture cannot show is taken from the set-up or from options, and said so (docs/boards_vision.md):

* **Captura la Bandera**: the level (cube count) is an option (default ``easy``); the players are the
  colours seen on flags and characters (or ``players``).  A table whose only cubes are royal towers is
  checked as the set-up (phase ``start``); any other table as a game in progress (phase ``move_roll``,
  turn 1, first player to move -- the dice and whose turn it is are not on the table).
* **Quirky Circuits**: the scenario is given; tokens seen are matched to the scenario's tokens of the
  same kind (nearest to where each starts); a token not seen is "not on the board" (held or lost --
  the validator says which is allowed); the robot's pose comes from its tag when a reading is given,
  else the scenario's start is kept and a warning says so.  Battery, cards: the set-up's.
* **Gridopolis**: the standard grid-set of ``players`` players (default: as many seats as colours
  seen on markers and blocker boxes, at least two); markers as read (pawn or king, colour), blocker
  boxes as read (each player holds two less those placed), pads added as found.  A table with a pad
  added or a box placed is a game in progress (or ``setup=False``); there the markers not read are
  taken as captured (held off the table, ``captures-assumed``) and the first player with a marker on
  the grid-set is to move.

A rule error that says a piece is missing (a flag, a character, a token, a start-row marker, a
capture count) becomes a warning naming the cells the picture does not show when one of them could
hold the piece (:func:`_maybe_hidden`).

Cells the reader could not see (a hand over them) or read with low confidence become warnings, so a
state with them is never reported as right without saying so.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from calibration.boards import BoardSpec, gridopolis_posts_needed
from engine.core import Problem
from engine.errors import BoardsideInputError
from engine.gridopolis.layout import MARKERS_PER_PLAYER, START_BLOCKERS, START_PADS, START_POSTS
from vision.board_classify import CellReading, cell_where

#: the rulebook passage on the spare pads and posts (docs/rules/gridopolis.md, "Adding a pad")
R_ADD_PAD = 'Gridopolis rulebook, "Agregar un pad"'
#: the rulebook passages on captured markers (docs/rules/gridopolis.md)
R_CAPTURE = 'Gridopolis rulebook, "Capturando", "Kamikaze"'

__all__ = ["BoardReconstruction", "ReconstructOptions", "reconstruct_board"]

class ReconstructOptionError(BoardsideInputError):
    """An option that does not fit the game (unknown level, bad player count)."""


@dataclass(frozen=True)
class ReconstructOptions:
    level: str = "easy"  # bandera
    #: check as the set-up (True) or a game in progress (False); None: bandera, a set-up when only royal
    #: towers stand; gridopolis, a set-up unless a pad was added or a blocker box placed
    setup: bool | None = None
    players: int | None = None  # bandera, gridopolis, quirky (hand size)
    scenario: Any = None  # quirky: engine.quirky.Scenario
    robot: Any = None  # quirky: an object with ``cell`` (x, y) and ``heading`` (engine.motion.Heading)
    min_confidence: float = 0.3
    #: gridopolis: pads added during play that the reader found (x, y, level); None: the standard set
    added_pads: tuple[tuple[int, int, int], ...] | None = None


@dataclass
class BoardReconstruction:
    game: str
    doc: dict[str, Any]
    problems: list[Problem]
    cells: list[CellReading]
    #: problem index -> board cells (x, y) it concerns (for the annotated picture)
    problem_cells: list[list[tuple[int, int]]] = field(default_factory=list)

    @property
    def trusted(self) -> bool:
        return not any(p.severity == "error" for p in self.problems)


_CELL_RE = re.compile(r"\((-?\d+)\s*,\s*(-?\d+)\)|\[(-?\d+),\s*(-?\d+)\]|(?<![\d.])(-?\d+),(-?\d+)(?:,(-?\d+))?")


def cells_of_problem(p: Problem) -> list[tuple[int, int]]:
    """The board cells named in a problem's ``where`` and message: ``(3,4)``, ``[3, 4]``, ``3,4,0``."""
    out: list[tuple[int, int]] = []
    for text in (p.where, p.message):
        for m in _CELL_RE.finditer(text):
            g = m.groups()
            xy = (g[0], g[1]) if g[0] is not None else (g[2], g[3]) if g[2] is not None else (g[4], g[5])
            c = (int(xy[0]), int(xy[1]))
            if c not in out:
                out.append(c)
        if out:
            break
    return out


def _rule_notes(c: CellReading) -> tuple[str, ...]:
    """A cell's notes to report as ``reading-by-rule`` warnings: a cell not read (``unseen``) already
    reports its first note as the reason (``cell-unseen``, :func:`_reader_problems`), not twice."""
    return c.notes[1:] if c.kind == "unseen" else c.notes


def _reader_problems(cells: Sequence[CellReading], min_conf: float) -> list[Problem]:
    out: list[Problem] = []
    for c in cells:
        where = cell_where(c.key)
        if c.kind == "occluded":
            out.append(Problem("cell-covered", "something covers this cell (a hand?): it could not be read", where,
                               "", "warning"))
        elif c.kind == "unseen":
            why = c.notes[0] if c.notes else "this cell is outside the picture or hidden: it could not be read"
            out.append(Problem("cell-unseen", why, where, "", "warning"))
        elif c.kind == "robot":
            # Quirky: tokens may lie on the robot's space (docs/rules/quirky.md section 1, "Tokens para
            # compartir espacios"; Pick Up takes them from there): the robot's body hides them from the camera
            out.append(Problem("cell-under-robot", "the robot stands on this cell: a token under it cannot be seen "
                               "(any scenario token not found elsewhere may lie here)", where,
                               "Quirky rulebook, Tokens para compartir espacios", "warning"))
        elif c.confidence < min_conf:
            out.append(Problem("cell-unsure", f"read as {c.kind} with low confidence ({c.confidence:.2f})", where,
                               "", "warning"))
    return out


# ----------------------------------------------------------------------------------------- bandera
def _bandera(cells: Sequence[CellReading], opt: ReconstructOptions) -> tuple[dict[str, Any], list[Problem]]:
    from engine.bandera import LEVELS
    from engine.bandera.board import DEFAULT_NAMES, TWO_PLAYER_NAMES
    from engine.bandera.state import parse_level

    try:
        level = parse_level(opt.level)
    except BoardsideInputError as exc:
        raise ReconstructOptionError(str(exc)) from None
    extra: list[Problem] = []
    board: list[dict[str, Any]] = []
    chars: dict[str, dict[str, int]] = {}
    seen: set[str] = set()
    for c in cells:
        for note in _rule_notes(c):  # a choice the reader made by a rule against the picture's first impression
            extra.append(Problem("reading-by-rule", note, f"square ({c.key[0]},{c.key[1]})",
                                 "Captura la Bandera, \"Componentes necesarios\" (one flag per player) and "
                                 "\"Movimientos de la torre real\" (paved squares); docs/rules/bandera.md",
                                 "warning"))
        if c.cubes <= 0 or c.kind in ("occluded", "unseen"):
            continue
        x, y = c.key[0], c.key[1]
        entry: dict[str, Any] = {"x": x, "y": y, "cubes": c.cubes}
        if c.kind == "royal_tower":
            flag = c.colour or "unknown"
            entry["flag"] = flag
            seen.add(flag)
        board.append(entry)
        if c.character:
            who = c.character_colour or "unknown"
            seen.add(who)
            if who in chars:
                extra.append(Problem("character-twice", f"two {who} characters: at ({chars[who]['x']},"
                                     f"{chars[who]['y']}) and ({x},{y})", f"character at ({x},{y})",
                                     "Captura la Bandera, \"Componentes necesarios\"", "error"))
            else:
                chars[who] = {"x": x, "y": y}
    if opt.players is not None:
        if opt.players not in (2, 3, 4):
            raise ReconstructOptionError(f"Captura la Bandera is for 2 to 4 players, got {opt.players!r}")
        players = list(TWO_PLAYER_NAMES if opt.players == 2 else DEFAULT_NAMES[: opt.players])
    else:
        players = [p for p in DEFAULT_NAMES if p in seen]
        if len(players) < 2:
            players = list(TWO_PLAYER_NAMES)
    for p in sorted(seen - set(players) - {"unknown"}):
        extra.append(Problem("colour-not-playing", f"a {p} flag or character is on the board but {p} is not "
                             f"one of the players {players!r}", f"{p} pieces", "", "error"))
    on_board = sum(int(e["cubes"]) for e in board)
    supply = max(0, LEVELS[level] - on_board)
    setup = all("flag" in e for e in board) if opt.setup is None else opt.setup
    doc: dict[str, Any] = {
        "game": "bandera", "format": 1, "players": players, "level": level, "cubes": LEVELS[level],
        "supply": supply, "board": board, "characters": chars, "captures": [],
    }
    if setup:
        doc |= {"phase": "start", "turn": 0, "to_move": None}
    else:
        doc |= {"phase": "move_roll", "turn": 1, "to_move": players[0]}
    return doc, extra


# ----------------------------------------------------------------------------------------- quirky
def _quirky(cells: Sequence[CellReading], opt: ReconstructOptions) -> tuple[dict[str, Any], list[Problem]]:
    from engine.quirky import new_state

    scn = opt.scenario
    if scn is None:
        raise ReconstructOptionError("reading a Quirky Circuits board needs its scenario")
    players = opt.players
    if players is None:
        players = 3 if 3 in scn.hands else min(scn.hands)
    if players not in scn.hands:
        raise ReconstructOptionError(f"scenario {scn.id!r} is for {sorted(scn.hands)} players, not {players!r}")
    doc = new_state(scn, players).to_json()
    extra: list[Problem] = []
    # a cell may hold two tokens ("seed+vase"): one reading per token
    seen = [CellReading(c.key, k, None, 0, False, c.confidence) for c in cells
            if c.kind not in ("empty", "occluded", "unseen", "robot") for k in c.kind.split("+")]
    free = {id(c): c for c in seen}
    # each kind's tokens seen are matched to the scenario's tokens of that kind, the matching with the
    # least total distance from where each starts (exhaustive: a scenario has a few of each kind)
    place: dict[str, list[int] | None] = {}
    for kind in sorted({s.kind for s in scn.tokens if not s.fixed}):
        specs = [s for s in scn.tokens if s.kind == kind and not s.fixed]
        cands = [c for c in free.values() if c.kind == kind]
        best: tuple[int, tuple[int, ...]] | None = None
        for perm in itertools.permutations(range(len(cands)), min(len(specs), len(cands))):
            cost = sum(abs(cands[j].key[0] - specs[i].at[0]) + abs(cands[j].key[1] - specs[i].at[1])
                       for i, j in enumerate(perm))
            if best is None or cost < best[0]:
                best = (cost, perm)
        chosen = best[1] if best is not None else ()
        for i, spec in enumerate(specs):
            place[spec.id] = [cands[chosen[i]].key[0], cands[chosen[i]].key[1]] if i < len(chosen) else None
        for j in chosen:
            del free[id(cands[j])]
    tokens = [t if t["id"] not in place else t | {"at": place[t["id"]]} for t in doc["tokens"]]
    doc["tokens"] = tokens
    for c in free.values():
        extra.append(Problem("extra-token", f"a {c.kind} stands here but scenario {scn.id!r} has no other token "
                             "of that kind", f"cell ({c.key[0]},{c.key[1]})", "Quirky rulebook, Preparar 5",
                             "error"))
    if opt.robot is not None and getattr(opt.robot, "cell", None) is not None:
        doc["robot"] = {"at": [int(opt.robot.cell[0]), int(opt.robot.cell[1])], "facing": opt.robot.heading.name}
    else:
        extra.append(Problem("robot-not-read", "the robot's tag was not read: its start pose is assumed", "robot",
                             "", "warning"))
    return doc, extra


# ----------------------------------------------------------------------------------------- gridopolis
def _gridopolis(cells: Sequence[CellReading], opt: ReconstructOptions) -> tuple[dict[str, Any], list[Problem]]:
    from engine.gridopolis import new_state, state_to_json
    from engine.gridopolis.layout import seats_for

    colours_seen = {c.colour for c in cells if c.kind in ("pawn", "king", "blocker") and c.colour}
    n = opt.players
    if n is None:
        n = 2
        for k in (2, 3, 4):
            if colours_seen <= {s.colour for s in seats_for(k)}:
                n = k
                break
        else:
            n = 4
    if n not in (2, 3, 4):
        raise ReconstructOptionError(f"Gridopolis is for 2, 3 or 4 players, got {n!r}")
    doc = state_to_json(new_state(n))
    extra: list[Problem] = []
    if opt.added_pads:
        extra += _with_added_pads(doc, opt.added_pads)
    for c in cells:
        for note in _rule_notes(c):  # a choice the reader made by a rule against the picture's first impression
            extra.append(Problem("reading-by-rule", note, f"pad ({c.key[0]},{c.key[1]},{c.key[2]})",
                                 "Gridopolis, \"Kingerizer\" and the kings (a marker landing on an opponent's "
                                 "start row is flipped); docs/rules/gridopolis.md", "warning"))
    boxes = [c for c in cells if c.kind == "blocker"]
    if boxes:
        # blocker boxes placed (rulebook "Caja bloqueadora"): each player holds two, less those read on the
        # table; more than two of a colour, or one on a kingerizer or hyper-pad, is left for the validator
        # to report (placed + held != 2, one node part per pad), not corrected here
        doc["blockers"] = [{"pad": list(c.key), "player": c.colour or "unknown"} for c in boxes]
        placed = Counter(c.colour for c in boxes)
        for pl in doc["players"]:
            pl["blockers"] = max(0, START_BLOCKERS - placed[pl["name"]])
    in_play = bool(opt.added_pads or boxes) if opt.setup is None else not opt.setup
    if in_play:
        # a pad is only ever added, a blocker box only ever placed, as a move: the table shows a game in
        # progress, not the set-up (whose turn it is is not on the table: the first player's, as for Bandera)
        doc["turns"] = max(1, int(doc.get("turns", 0)))
    doc["markers"] = [{"pad": list(c.key), "player": c.colour or "unknown", "king": c.kind == "king"}
                      for c in cells if c.kind in ("pawn", "king")]
    if in_play:
        extra += _captures_held(doc, cells)
        # whose turn it is is not on the table: the first player (turn order) who still has a marker on the
        # grid-set, since a player left with none is out of the game (rulebook "Fin del juego")
        on_grid = {m["player"] for m in doc["markers"]}
        doc["to_move"] = next((pl["name"] for pl in doc["players"] if pl["name"] in on_grid), doc["to_move"])
    return doc, extra


def _captures_held(doc: dict[str, Any], cells: Sequence[CellReading]) -> list[Problem]:
    """In a game in progress every marker that left the grid-set is held by a player as a capture
    (rulebook "Capturando", "Kamikaze"), off the table: how many each player holds is not in the picture.
    The markers not read are taken as held (given to the players in turn order; the validator checks
    only their sum) and reported, with the cells not read that could hold some of them instead."""
    players = doc["players"]
    missing = MARKERS_PER_PLAYER * len(players) - len(doc["markers"])
    if missing <= 0:
        return []
    for i in range(missing):
        players[i % len(players)]["captured"] = int(players[i % len(players)]["captured"]) + 1
    declined = sum(1 for c in cells if c.kind in ("occluded", "unseen"))
    also = (f", or they stand on some of the {declined} pad(s) the picture does not show" if declined else "")
    return [Problem("captures-assumed", f"{missing} marker(s) are not on the grid-set: taken as captured and held "
                    f"by the players (captures are held off the table, so who holds them is not in the picture)"
                    f"{also}", "captured markers", R_CAPTURE, "warning")]


def _with_added_pads(doc: dict[str, Any], added: Sequence[tuple[int, int, int]]) -> list[Problem]:
    """Put the pads added during play into the state document: each added pad comes from a player's
    three spares (rulebook "Agregar un pad"), a pad not held by a link to a pad of its level stands on a
    post (from the players' two spares). Who added which is not on the table: the spares are taken from
    the players in turn order.  More pads or posts found than the players hold is reported (some pads
    found are not there, or a spare came from elsewhere), not made to fit."""
    def key(p: Sequence[int]) -> tuple[int, int, int]:
        return (int(p[0]), int(p[1]), int(p[2]))

    pads = {key(p) for p in doc["pads"]}
    new = [key(p) for p in added if key(p) not in pads]
    pads |= set(new)
    posts = gridopolis_posts_needed(pads, {key(p) for p in doc["posts"]})
    new_posts = len(posts) - len(doc["posts"])
    players = doc["players"]
    for i in range(len(new)):
        pl = players[i % len(players)]
        pl["pads"] = max(0, int(pl["pads"]) - 1)
    for i in range(new_posts):
        pl = players[i % len(players)]
        pl["posts"] = max(0, int(pl["posts"]) - 1)
    doc["pads"] = [list(p) for p in sorted(pads)]
    doc["posts"] = [list(p) for p in sorted(posts)]
    out = []
    for what, n_new, each in (("pads", len(new), START_PADS), ("posts", new_posts, START_POSTS)):
        if n_new > each * len(players):
            out.append(Problem("parts-added", f"{n_new} {what} added in play were read, but {len(players)} players "
                               f"hold only {each * len(players)} spare {what} ({each} each): some of them may be "
                               "misread", f"{what} added", R_ADD_PAD))
    return out


def _maybe_hidden(game: str, doc: dict[str, Any], problems: list[Problem],
                  cells: Sequence[CellReading], min_conf: float = 0.0) -> list[Problem]:
    """Never guess silently, either way: a rule error that says a piece is *missing* from the table
    (a flag, a character, a token, a start-row marker) is not asserted when a cell the picture does not
    show (a hand over it, hidden behind a taller piece) could hold that piece.  It is kept, as a
    warning that names those cells ("take another picture"), so the table is not called wrong for what
    the picture cannot see.  A cell read *empty* with a confidence below ``min_conf`` (reported
    ``cell-unsure``) counts as not shown too: the piece may be there, read as nothing."""
    declined = [c.key for c in cells if c.kind in ("occluded", "unseen")
                or (c.kind == "empty" and c.confidence < min_conf)]
    # Quirky: a token may lie on the robot's space (docs/rules/quirky.md section 1, "Tokens para compartir
    # espacios") and the robot's body hides it (``cell-under-robot``): a token found nowhere may be there.
    # (Session 18: two pictures of a held-out table declined no cell but the robot's, and a token under the
    # robot made the legal table a rule error; one picture had declined some other cell, which hid the gap.)
    under_robot = [c.key for c in cells if c.kind == "robot"] if game == "quirky" else []
    if not declined and not under_robot:
        return problems

    def could_hold(p: Problem) -> list[tuple[int, ...]]:
        if game == "bandera" and p.code == "flag-missing":
            # a royal tower stands on a paved column (docs/rules/bandera.md, "Paved squares")
            return [k for k in declined if k[0] in (0, 9)]
        if game == "bandera" and p.code == "character-missing":
            return declined
        if game == "quirky" and p.code == "token-nowhere":
            return declined + under_robot
        if game == "gridopolis" and p.code == "captures":  # fewer markers read than placed and captured
            return declined
        if game == "gridopolis" and p.code == "setup-marker" and p.where.endswith("'s markers"):
            from engine.gridopolis.layout import SEATS

            rows = {seat.colour: {(q.x, q.y, q.level) for q in seat.start_row} for seat in SEATS.values()}
            return [k for k in declined if k in rows.get(p.where[: -len("'s markers")], set())]
        return []

    out = []
    for p in problems:
        hidden = could_hold(p) if p.severity == "error" else []
        if hidden:
            names = ", ".join("(" + ",".join(str(v) for v in k) + ")" for k in hidden[:6])
            more = f" and {len(hidden) - 6} more" if len(hidden) > 6 else ""
            p = Problem(p.code, f"{p.message} -- unless it stands on a cell the picture does not show: {names}"
                        f"{more}; take another picture that shows them", p.where, p.rule, "warning")
        out.append(p)
    return out


def reconstruct_board(
    game: str, spec: BoardSpec, cells: Sequence[CellReading], options: ReconstructOptions | None = None
) -> BoardReconstruction:
    """The engine state for the cells read, every rule problem (the engine's validator) and the
    reader's own warnings (covered, unseen or unsure cells)."""
    opt = options or ReconstructOptions()
    del spec
    if game == "bandera":
        from engine.bandera import validate_state as vb

        doc, extra = _bandera(cells, opt)
        problems = vb(doc)
    elif game == "quirky":
        from engine.quirky import validate_state as vq

        doc, extra = _quirky(cells, opt)
        problems = vq(doc, opt.scenario)
    elif game == "gridopolis":
        from engine.gridopolis import validate_state as vg

        doc, extra = _gridopolis(cells, opt)
        problems = vg(doc)
    else:
        raise ReconstructOptionError(f"no board reading for game {game!r} (bandera, quirky, gridopolis)")
    problems = (_maybe_hidden(game, doc, problems, cells, opt.min_confidence) + extra
                + _reader_problems(cells, opt.min_confidence))
    return BoardReconstruction(game, doc, problems, list(cells), [cells_of_problem(p) for p in problems])
