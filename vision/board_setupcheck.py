"""Set-up check on unsure readings (issue 9 item 3, session 12): a rule error that rests on a reading the
camera is unsure of is reported as "check this cell" -- a warning naming the cell(s) and the rule -- not as
the table breaking the rule; an error resting on sure readings stays an error.

This is the validation layer only: it reads the reconstruction (:class:`BoardReconstruction`: the cells as
read, the state, the engine validator's problems) and changes no reading.  It runs after the reading is
settled (:func:`vision.board_pipeline.read_board`), so the search over the pictures' readings, which counts
rule errors, is not changed by it either.

What counts as unsure (one definition, the reader's own, not tuned on any set):

* a cell the reader declined (``occluded``, ``unseen``), or read with a confidence under the
  reconstruction's ``min_confidence`` (the same limit that reports ``cell-unsure``);
* the confidence asked of a piece is the one the rule needs: a reading's confidence is the margin between
  its two best shapes (a Bandera cube or a two-cube tower, a Gridopolis pawn, king or blocker box), which
  says how high a stack is but not whether a piece is there at all (a pawn and a king often tie at nil:
  the crown is told by a cue of its own).  So for *where a piece stands* (Bandera, Gridopolis) the margin
  of its best shape over "empty" is used, on the same scale (:data:`PRESENCE_FULL` is the classifier's
  ``margin_full``) and with the same limit; for a Bandera *cube count*, the lower of the two.  (Measured
  against the reading's own confidence everywhere, leave-one-set-out: the same on 6 of 8 sets.)

Which errors, and which cells they rest on (rulebook sections, docs/rules/<game>.md):

* a piece where the rules forbid one -- Bandera ``zone-a`` (section 2, zone A), ``royal-off-rail`` (section 7,
  paved squares), ``setup-royal`` (section 3, start squares), ``flag-twice`` (section 3, one flag per player);
  Gridopolis ``node-off-grid``, ``node-conflict``, ``marker-stack`` ("Node parts"), ``setup-marker`` (set-up:
  start rows), ``marker-on-blocker`` ("Blocker boxes"); Quirky ``extra-token``, ``token-on-obstacle``
  (section 2.5, items on obstacles; "Preparar 5"): unsure when a cell it names is;
* a count over the limit -- Bandera ``cube-count`` (section 1, cubes per level), Gridopolis ``markers``
  (three per player), ``blockers`` (two per player, "Blocker boxes"): unsure when the pieces read with low
  confidence are at least as many as the excess;
* the players a Bandera table was checked with are the colours seen on its flags and characters (``--players``
  unset): when fewer than four colours were seen and a paved square (x = 0 or 9, where a royal tower stands,
  section 2 and 3) is unsure, a hidden royal tower may make another player, and the errors that depend on
  who plays (``players-colours``, ``setup-royal``, ``royal-off-rail``, ``flag-unknown``, ``colour-not-playing``;
  sections 3 and 7) are checks naming those squares.

A Gridopolis king read at the set-up (``setup-king``) rests on the crown cue, which has no confidence of its
own: it stays an error.  Pads added in play (``parts-added``) come from the pad finder, whose scores are not
part of the reading: it stays an error too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from engine.core import Problem
from vision.board_classify import CellReading
from vision.board_reconstruct import BoardReconstruction, cells_of_problem

__all__ = ["CHECK_CODE", "PRESENCE_FULL", "check_unsure_readings"]

#: the code of a rule error softened to a "check this cell" warning
CHECK_CODE = "check-cell"
#: a score margin this large makes a reading sure (the classifier's ``ClassifyBoardConfig.margin_full``)
PRESENCE_FULL = 0.15

_DECLINED = ("occluded", "unseen")
_PLACE_CODES = {
    "bandera": ("zone-a", "royal-off-rail", "setup-royal", "flag-twice", "royal-height"),
    "gridopolis": ("node-off-grid", "node-conflict", "marker-stack", "setup-marker", "marker-on-blocker"),
    "quirky": ("extra-token", "token-on-obstacle"),
}
#: Bandera errors that depend on which players play (their seats, rails and colours)
_SEAT_CODES = ("players-colours", "setup-royal", "royal-off-rail", "flag-unknown", "colour-not-playing")
#: the rulebook section (docs/rules/<game>.md) of each rule this check may soften
SECTIONS: dict[str, dict[str, str]] = {
    "bandera": {
        "zone-a": "section 2, The board (zone A)", "royal-off-rail": "section 7, Royal towers (paved squares)",
        "setup-royal": "section 3, Set-up (start squares)", "flag-twice": "section 3, Set-up (one flag each)",
        "royal-height": "section 3, Set-up (two cubes and the flag)",
        "cube-count": "section 1, Components and levels (cube count)",
        "players-colours": "section 3, Set-up (two players: blue and red)",
        "flag-unknown": "section 3, Set-up", "colour-not-playing": "section 3, Set-up",
    },
    "gridopolis": {
        "node-off-grid": "Node parts", "node-conflict": "Node parts", "marker-stack": "Node parts",
        "marker-on-blocker": "Blocker boxes", "setup-marker": "The Matrix layout (start rows)",
        "markers": "The Matrix layout (each player's parts: 3 markers)",
        "blockers": "Blocker boxes; The Matrix layout (2 blocker boxes each)",
    },
    "quirky": {"extra-token": "section 1, Preparar 5 (scenario tokens)",
               "token-on-obstacle": "section 2.5, Items on obstacles"},
}
_R3 = re.compile(r"(?<![\d.])(\d+)\s*,\s*(\d+)\s*,\s*(\d+)(?![\d.])")
_PAVED = (0, 9)


def _name(key: Sequence[int]) -> str:
    return "(" + ",".join(str(v) for v in key) + ")"


def _presence(c: CellReading) -> float:
    """How sure the reader is that a piece (any) stands on a site read with one: its best shape's margin
    over "empty", scaled as the classifier's confidence; 1.0 when the scores do not say."""
    piece = [v for k, v in c.scores.items() if k != "empty"]
    if "empty" not in c.scores or not piece:
        return 1.0
    return max(0.0, min(1.0, (max(piece) - c.scores["empty"]) / PRESENCE_FULL))


def _why_unsure(game: str, c: CellReading, min_conf: float, claim: str = "place") -> str | None:
    """Why the reading of ``c`` is unsure (words), or None when it is sure.  ``claim``: what the error needs of
    it -- ``place`` (a piece there or not), ``count`` (how many cubes: the reading's own confidence too)."""
    if c.kind in _DECLINED:
        return f"{_name(c.key)} could not be read ({'covered' if c.kind == 'occluded' else 'not seen'})"
    if c.kind == "robot":  # (read from its tag)
        return None
    if game == "gridopolis":
        conf = c.confidence if c.kind == "empty" else _presence(c)
        what = "nothing" if c.kind == "empty" else f"a {c.colour or ''} {c.kind}".replace("  ", " ")
    else:
        conf = c.confidence
        if c.kind != "empty" and game == "bandera":
            # where a piece stands rests on whether one is there; how many cubes, on its height too
            conf = _presence(c) if claim == "place" else min(conf, _presence(c))
        what = "nothing" if c.kind == "empty" else c.kind.replace("_", " ") + (f" ({c.colour})" if c.colour else "")
    if conf < min_conf:
        return f"{_name(c.key)} read as {what} with low confidence ({conf:.2f})"
    return None


def _section(game: str, code: str) -> str:
    sec = SECTIONS.get(game, {}).get(code)
    return f"docs/rules/{game}.md, {sec}" if sec else ""


def _cells_named(game: str, p: Problem, cells: Sequence[CellReading]) -> list[CellReading]:
    if game == "gridopolis":
        keys = []
        for text in (p.where, p.message):
            keys += [tuple(int(v) for v in m.groups()) for m in _R3.finditer(text)]
        return [c for c in cells if tuple(c.key) in keys]
    xy = cells_of_problem(p)
    return [c for c in cells if tuple(c.key[:2]) in xy]


def _doubt(game: str, p: Problem, recon: BoardReconstruction, min_conf: float,
           players_given: bool) -> list[str]:
    """The unsure readings an error rests on (words; empty: it rests on sure readings)."""
    cells, doc = recon.cells, recon.doc
    out: list[str] = []
    if p.code in _PLACE_CODES.get(game, ()):
        out += [w for c in _cells_named(game, p, cells) if (w := _why_unsure(game, c, min_conf))]
    if game == "bandera" and p.code == "cube-count":
        over = sum(int(e["cubes"]) for e in doc.get("board", [])) - int(doc.get("cubes", 0))
        unsure = [(c, w) for c in cells if c.cubes > 0 and (w := _why_unsure(game, c, min_conf, "count"))]
        if over > 0 and sum(c.cubes for c, _ in unsure) >= over:
            out += [w for _, w in unsure]
    if game == "gridopolis" and p.code in ("markers", "blockers"):
        m = re.match(r"(\w+) has (?:placed )?(\d+)", p.message)
        if m:
            colour, n = m.group(1), int(m.group(2))
            limit = 3 if p.code == "markers" else 2
            kinds = ("pawn", "king") if p.code == "markers" else ("blocker",)
            doubtful = [w for c in cells if c.kind in kinds and c.colour == colour
                        and (w := _why_unsure(game, c, min_conf))]
            if n > limit and len(doubtful) >= n - limit:
                out += doubtful
    if game == "bandera" and p.code in _SEAT_CODES and not players_given:
        seen = {e.get("flag") for e in doc.get("board", []) if e.get("flag")} | set(doc.get("characters", {}))
        if len(seen - {"unknown"}) < 4:
            paved = [w for c in cells if c.key[0] in _PAVED and c.kind not in ("royal_tower",)
                     and (w := _why_unsure(game, c, min_conf))]
            out += [f"{w}: a royal tower may stand there, so who plays is not sure" for w in paved]
    return list(dict.fromkeys(out))


def check_unsure_readings(recon: BoardReconstruction, min_conf: float = 0.3,
                          players_given: bool = False) -> BoardReconstruction:
    """``recon`` with every rule error that rests on an unsure reading made a ``check-cell`` warning (the
    cells, why each is unsure, and the rule); the other problems and every reading unchanged.
    ``players_given``: the number of players was given (``--players``), not taken from the colours seen."""
    problems: list[Problem] = []
    where: list[list[tuple[int, int]]] = []
    for p, at in zip(recon.problems, recon.problem_cells, strict=True):
        doubt = _doubt(recon.game, p, recon, min_conf, players_given) if p.severity == "error" else []
        if doubt:
            p = Problem(CHECK_CODE, f"check this cell -- the table may break a rule ({p.code}: {p.message}), but "
                        f"only by a reading the camera is unsure of: {'; '.join(doubt[:6])}"
                        + (f" and {len(doubt) - 6} more" if len(doubt) > 6 else "")
                        + "; look at the table (or take another picture): if it is as read, the rule is broken",
                        p.where, "; ".join(r for r in (p.rule, _section(recon.game, p.code)) if r), "warning")
            at = list(dict.fromkeys([*at, *cells_of_problem(p)]))
        problems.append(p)
        where.append(at)
    return replace(recon, problems=problems, problem_cells=where)
