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

* Gridopolis pads: more pads added in play than the players hold (``parts-added``, "Adding a pad": three
  spares each) is a check when the pads found added with a low vote of the pad finder (its score's height
  above the score that finds a pad, scaled to 1; same limit) and nothing read on them are at least as many as
  the excess; a piece read where the players' grid-set has no pad (``node-off-grid``, ``marker-off-grid``,
  "Node parts") is a check when the place is a pad of the four-player grid-set the pad finder did not find
  missing (a pad added there in play is not told from that grid-set's own pad).

A Gridopolis king read at the set-up (``setup-king``) rests on the crown cue, which has no confidence of its
own: it stays an error.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from engine.core import Problem
from vision.board_classify import CellReading
from vision.board_reconstruct import BoardReconstruction, cells_of_problem
from vision.board_sureness import CellDoubt, presence_margin

__all__ = ["CHECK_CODE", "PRESENCE_FULL", "check_unsure_readings"]

#: the code of a rule error softened to a "check this cell" warning
CHECK_CODE = "check-cell"
#: a score margin this large makes a reading sure (the classifier's ``ClassifyBoardConfig.margin_full``)
PRESENCE_FULL = 0.15

_DECLINED = ("occluded", "unseen")
Key3 = tuple[int, int, int]
Key = tuple[int, ...]
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
        "node-off-grid": "Node parts; Adding a pad", "node-conflict": "Node parts", "marker-stack": "Node parts",
        "marker-on-blocker": "Blocker boxes", "setup-marker": "The Matrix layout (start rows)",
        "markers": "The Matrix layout (each player's parts: 3 markers)",
        "blockers": "Blocker boxes; The Matrix layout (2 blocker boxes each)",
        "marker-off-grid": "Node parts; Adding a pad", "parts-added": "Adding a pad (3 spare pads each)",
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
    margin = presence_margin(c)
    return 1.0 if margin is None else max(0.0, min(1.0, margin / PRESENCE_FULL))


def _why_unsure(game: str, c: CellReading, min_conf: float, claim: str = "place",
                doubts: Mapping[Key, CellDoubt] | None = None, judged: Sequence[str] = ("count",)) -> str | None:
    """Why the reading of ``c`` is unsure (words), or None when it is sure.  ``claim``: what the error needs of
    it -- ``place`` (a piece there or not), ``count`` (how many cubes: the reading's own confidence too).
    ``doubts``: the cells judged unsure by their doubt signs (:mod:`vision.board_sureness`, session 13) are
    unsure too, for the claims in ``judged``."""
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
            conf = _presence(c) if claim in ("place", "seat") else min(conf, _presence(c))
        what = "nothing" if c.kind == "empty" else c.kind.replace("_", " ") + (f" ({c.colour})" if c.colour else "")
    if conf < min_conf:
        return f"{_name(c.key)} read as {what} with low confidence ({conf:.2f})"
    d = (doubts or {}).get(tuple(c.key))
    if d is not None and not d.sure and claim in judged:
        return (f"{_name(c.key)} read as {what}, but {'; '.join(d.reasons) or 'such readings are often wrong'} "
                f"(about {round(100 * d.p_right)} % of such readings right)")
    return None


def _unsure_pads(p: Problem, recon: BoardReconstruction, votes: Mapping[Key3, float | None], min_conf: float,
                 present: float) -> list[str]:
    """More pads added than the players hold (rulebook "Adding a pad"): unsure when the pads found with a low
    vote, nothing read on them, are at least as many as the excess."""
    m = re.match(r"(\d+) pads added in play were read, but \d+ players hold only (\d+)", p.message)
    if not m:
        return []
    over = int(m.group(1)) - int(m.group(2))
    occupied = {tuple(c.key) for c in recon.cells if c.kind not in ("empty", *_DECLINED)}
    out = []
    for k, v in sorted(votes.items()):
        conf = None if v is None else max(0.0, min(1.0, (v - present) / (1.0 - present)))
        if k not in occupied and (conf is None or conf < min_conf):
            out.append(f"the pad found added at {_name(k)}, nothing read on it, " + (
                "was not seen well enough to vote (taken by the prior)" if conf is None else
                f"with a low vote (confidence {conf:.2f})"))
    return out if over > 0 and len(out) >= over else []


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
           players_given: bool, doubts: Mapping[Key, CellDoubt] | None = None,
           judged: Sequence[str] = ("count",)) -> list[str]:
    """The unsure readings an error rests on (words; empty: it rests on sure readings)."""
    cells, doc = recon.cells, recon.doc
    out: list[str] = []
    if p.code in _PLACE_CODES.get(game, ()):
        out += [w for c in _cells_named(game, p, cells)
                if (w := _why_unsure(game, c, min_conf, doubts=doubts, judged=judged))]
    if game == "gridopolis" and p.code in ("node-off-grid", "marker-off-grid"):
        from calibration.boards import gridopolis_pads

        four = set(gridopolis_pads(4))
        pads = {tuple(int(v) for v in q) for q in doc.get("pads", [])}
        out += [f"a piece is read on {_name(c.key)}, a pad of the four-player grid-set that the pad finder did "
                "not find missing: whether a pad was added there in play is not told apart from that grid-set's "
                "own pad" for c in _cells_named(game, p, cells)
                if tuple(c.key) in four and tuple(c.key) not in pads and c.kind not in ("empty", *_DECLINED)]
    if game == "bandera" and p.code == "cube-count":
        over = sum(int(e["cubes"]) for e in doc.get("board", [])) - int(doc.get("cubes", 0))
        unsure = [(c, w) for c in cells
                  if c.cubes > 0 and (w := _why_unsure(game, c, min_conf, "count", doubts, judged))]
        if over > 0 and sum(c.cubes for c, _ in unsure) >= over:
            out += [w for _, w in unsure]
    if game == "gridopolis" and p.code in ("markers", "blockers"):
        m = re.match(r"(\w+) has (?:placed )?(\d+)", p.message)
        if m:
            colour, n = m.group(1), int(m.group(2))
            limit = 3 if p.code == "markers" else 2
            kinds = ("pawn", "king") if p.code == "markers" else ("blocker",)
            doubtful = [w for c in cells if c.kind in kinds and c.colour == colour
                        and (w := _why_unsure(game, c, min_conf, "count", doubts, judged))]
            if n > limit and len(doubtful) >= n - limit:
                out += doubtful
    if game == "bandera" and p.code in _SEAT_CODES and not players_given:
        seen = {e.get("flag") for e in doc.get("board", []) if e.get("flag")} | set(doc.get("characters", {}))
        if len(seen - {"unknown"}) < 4:
            paved = [w for c in cells if c.key[0] in _PAVED and c.kind not in ("royal_tower",)
                     and (w := _why_unsure(game, c, min_conf, "seat", doubts, judged))]
            out += [f"{w}: a royal tower may stand there, so who plays is not sure" for w in paved]
    return list(dict.fromkeys(out))


def check_unsure_readings(recon: BoardReconstruction, min_conf: float = 0.3, players_given: bool = False,
                          pad_votes: Mapping[Key3, float | None] | None = None,
                          pad_present: float = 0.5,
                          doubts: Sequence[CellDoubt | None] | None = None,
                          judged: Sequence[str] = ("count",)) -> BoardReconstruction:
    """``recon`` with every rule error that rests on an unsure reading made a ``check-cell`` warning (the
    cells, why each is unsure, and the rule); the other problems and every reading unchanged.
    ``players_given``: the number of players was given (``--players``), not taken from the colours seen.
    ``pad_votes``: Gridopolis, per pad found added in play (not for a piece read on it), the pad finder's vote
    score (``vision.board_pads.PadDetection.scores``; None: the picture could not say), with ``pad_present``
    the score above which a pad is found: its confidence is how far above, on the scale up to 1.
    ``doubts``: per cell of ``recon.cells``, how sure its reading is (:func:`vision.board_sureness.judge_cells`,
    session 13): a cell judged unsure is unsure here too, whatever its confidence, for the errors whose claim is in
    ``judged``: ``count`` (Bandera cube count, Gridopolis markers and boxes per player: the default), ``place`` (a
    piece where none may stand), ``seat`` (who plays, from a paved square).  Chosen leaving each development set
    out (docs/boards_vision.md, "Session 13: honest confidence"): on place claims the judgement softened more
    breaking tables than legal ones."""
    problems: list[Problem] = []
    by_key = {d.key: d for d in doubts or () if d is not None}
    where: list[list[tuple[int, int]]] = []
    votes = dict(pad_votes or {})
    for p, at in zip(recon.problems, recon.problem_cells, strict=True):
        doubt = _doubt(recon.game, p, recon, min_conf, players_given, by_key, judged) if p.severity == "error" else []
        if p.severity == "error" and recon.game == "gridopolis" and p.code == "parts-added" \
                and p.where == "pads added":
            doubt = _unsure_pads(p, recon, votes, min_conf, pad_present)
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
