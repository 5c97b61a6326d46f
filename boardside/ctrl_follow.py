"""A CTRL game followed from the camera, turn by turn (``boardside ctrl follow ...``).

Reading the battlefield with the game's history is what makes the camera reading dependable (the
pictures must then show legal turns played from the last known position; docs/vision.md).  A
followed game keeps that history for the players: a game record (``engine.ctrl.record.GameRecord``,
so ``ctrl replay`` reads it) that grows by the turns each set of pictures shows, plus one entry per
reading -- which pictures, how many turns, whether the reading was trusted or accepted by the
player.  The file is only ever replaced whole (written aside, then renamed), after a reading is
accepted, so an interrupted or refused reading leaves it as it was; ``undo`` keeps what it removes.
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boardside.io import read_json, write_json
from engine.core import IllegalMoveError, InvalidStateError
from engine.ctrl import FlagSpot, GameRecord, State, Turn
from engine.ctrl.record import with_final_flags
from engine.errors import BoardsideInputError

FOLLOW_FORMAT = 1
#: How often the players take the pictures of a followed game (``follow start --every``).
EVERY = ("turn", "round", "any")


class FollowFileError(BoardsideInputError):
    """A followed-game file that is missing, not a followed game, or inconsistent."""


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat()


@dataclass(frozen=True)
class Reading:
    """One set of pictures read into the record: ``turns`` whole turns (0 for the set-up).

    ``provisional``: the colours whose flag this reading recorded without its being made out for sure
    or confirmed -- the next reading's pictures check it again (:func:`defer_flags`); ``resolved``: how
    this reading settled the provisional flags of the reading before it (colour -> "pictures", "player",
    "corrected by the player (was X,Y,Z DIR)" or "accepted by the player (--accept)").  Both are empty in
    files written before session 10, which load as they were."""

    turns: int
    pictures: tuple[str, ...]
    trusted: bool
    accepted: str  # "trusted" or "by the player (--accept)" or "set-up"
    problems: tuple[str, ...] = ()  # the reading's error codes (what made it untrusted)
    at: str = field(default_factory=_now)
    provisional: tuple[str, ...] = ()
    resolved: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"turns": self.turns, "pictures": list(self.pictures), "trusted": self.trusted,
                               "accepted": self.accepted, "problems": list(self.problems), "at": self.at}
        if self.provisional:
            doc["provisional"] = list(self.provisional)
        if self.resolved:
            doc["resolved"] = dict(self.resolved)
        return doc

    @classmethod
    def from_json(cls, doc: Any, where: str) -> Reading:
        try:
            turns = int(doc["turns"])
            pictures = tuple(str(p) for p in doc.get("pictures", []))
            provisional = doc.get("provisional", [])
            resolved = doc.get("resolved", {})
            if not isinstance(provisional, list) or not isinstance(resolved, dict):
                raise TypeError
            return cls(turns, pictures, bool(doc.get("trusted", False)), str(doc.get("accepted", "")),
                       tuple(str(p) for p in doc.get("problems", [])), str(doc.get("at", "")),
                       tuple(str(c) for c in provisional), tuple((str(k), str(v)) for k, v in resolved.items()))
        except (KeyError, TypeError, ValueError, AttributeError):
            raise FollowFileError(f"{where}: a reading entry is malformed: {doc!r:.80}") from None


@dataclass
class FollowedGame:
    """A game record with the readings that built it, and the camera/mat files to read it with."""

    record: GameRecord
    readings: list[Reading]
    calibration: str | None = None
    mat: str | None = None
    undone: list[dict[str, Any]] = field(default_factory=list)
    every: str = "turn"  # how often the players take pictures: "turn", "round" or "any" (see expected_turns)

    @property
    def state(self) -> State:
        """The position after every recorded turn."""
        return self.record.final()

    def to_json(self) -> dict[str, Any]:
        doc = self.record.to_json()
        doc["follow"] = {"format": FOLLOW_FORMAT, "calibration": self.calibration, "mat": self.mat, "every": self.every,
                         "readings": [r.to_json() for r in self.readings], "undone": self.undone}
        return doc

    @classmethod
    def from_json(cls, doc: Any, where: str) -> FollowedGame:
        follow = doc.get("follow") if isinstance(doc, dict) else None
        if not isinstance(follow, dict):
            raise FollowFileError(f"{where!r} is not a followed CTRL game (no 'follow' section); start one "
                                  "with 'boardside ctrl follow start'")
        if follow.get("format", FOLLOW_FORMAT) != FOLLOW_FORMAT:
            raise FollowFileError(f"{where!r}: unsupported follow format {follow.get('format')!r}")
        try:
            record = GameRecord.from_json(doc)
            record.final()  # every recorded turn must still be legal
        except (InvalidStateError, IllegalMoveError) as exc:
            raise FollowFileError(f"{where!r}: {exc}") from None
        raw = follow.get("readings", [])
        if not isinstance(raw, list):
            raise FollowFileError(f"{where!r}: 'readings' must be a list, got {raw!r:.60}")
        readings = [Reading.from_json(r, where) for r in raw]
        if sum(r.turns for r in readings) != len(record.turns):
            raise FollowFileError(f"{where!r}: its readings account for {sum(r.turns for r in readings)} turns "
                                  f"but the record holds {len(record.turns)}")
        undone = follow.get("undone", [])
        every = str(follow.get("every", "turn"))
        if every not in EVERY:
            raise FollowFileError(f"{where!r}: 'every' must be one of {', '.join(EVERY)}, got {every!r}")
        return cls(record, readings, _opt_str(follow.get("calibration")), _opt_str(follow.get("mat")),
                   list(undone) if isinstance(undone, list) else [], every)

    def expected_turns(self) -> int | None:
        """How many turns the next reading should show: 1 when the players take pictures after every
        turn, one per colour after every round, ``None`` (any number) for "any"."""
        if self.every == "turn":
            return 1
        if self.every == "round":
            return len(self.state.colors)
        return None

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> FollowedGame:
        return cls.from_json(read_json(path, "followed game"), str(path))

    def save(self, path: str | os.PathLike[str]) -> None:
        write_json(path, self.to_json())

    def add(self, turns: Sequence[Turn], reading: Reading) -> State:
        """Append a reading's turns (checked: each must be legal in turn) and return the new position."""
        try:
            state = GameRecord(self.state, list(turns)).final()
        except IllegalMoveError as exc:  # (it names the turn)
            raise IllegalMoveError(f"cannot be recorded: {exc}") from None
        self.record.turns.extend(turns)
        self.readings.append(reading)
        return state

    @property
    def provisional(self) -> dict[str, FlagSpot]:
        """The flags recorded provisionally and not yet checked: those the last reading left provisional
        (the next reading settles each, by its pictures or by the player; a game is never finished on one)."""
        if not self.readings:
            return {}
        flags = self.state.flags
        return {c: flags[c] for c in self.readings[-1].provisional if c in flags}

    def correct_flag(self, color: str, spot: FlagSpot | None) -> None:
        """Put ``color``'s provisional flag where the player says it stands: the record's last turn of that
        colour (the one that plugged it) plugs it there instead (checked: the turns after it must stay legal)."""
        if color not in self.provisional:
            raise FollowFileError(f"the {color} flag is not provisional in this game")
        states = list(self.record.states())
        last = max((i for i, st in enumerate(states[:-1]) if st.to_move == color), default=None)
        if last is None:
            raise FollowFileError(f"no recorded turn of {color} plugged its flag")
        flags: dict[str, FlagSpot] = {k: v for k, v in self.state.flags.items() if k != color}
        if spot is not None:
            flags[color] = spot
        try:
            self.record.turns[last:] = with_final_flags(states[last], self.record.turns[last:], flags)
        except IllegalMoveError as exc:
            raise BoardsideInputError(f"the {color} flag cannot stand at {spot}: {exc}") from None

    def note_confirmed(self, resolved: dict[str, str]) -> None:
        """Provisional flags the player confirmed or corrected (:meth:`correct_flag`) without a reading being
        recorded: kept as a reading of no turn, so they are not provisional any more (``undo`` takes it back);
        the other provisional flags stay provisional."""
        still = tuple(c for c in self.provisional if c not in resolved)
        self.readings.append(Reading(0, (), True, "flags confirmed by the player", provisional=still,
                                     resolved=tuple(sorted(resolved.items()))))

    def undo(self) -> Reading:
        """Take back the last reading (not the set-up); what it removed is kept under ``undone``."""
        if len(self.readings) <= 1:
            raise FollowFileError("nothing to undo: only the set-up is recorded")
        last = self.readings.pop()
        removed = self.record.turns[len(self.record.turns) - last.turns:] if last.turns else []
        del self.record.turns[len(self.record.turns) - last.turns:]
        self.undone.append({"reading": last.to_json(), "turns": [str(t) for t in removed], "undone_at": _now()})
        return last


def read_setup(pics: Sequence[tuple[str, Any]], spec: Any, camera: Any) -> tuple[State, list[Any]]:
    """Read a set-up table from pictures and check it (``ctrl check-setup``, ``ctrl follow start``): the
    position read and every problem (``vision.pipeline.Problem``: the set-up rules, the Central Cube on
    its footprint, the flags' poles)."""
    from engine.ctrl import check_setup
    from vision.pipeline import confirm_setup_flags, cube_on_footprint, score_images

    res = score_images(list(pics), spec, camera)
    state, flag_notes = confirm_setup_flags(res.state, res.pictures, res.cameras)
    problems = check_setup(state) + cube_on_footprint(res.pictures, res.poses, res.labels, spec.block_mm) + flag_notes
    # score_images already confirms a set-up position's flags by their poles: its notes are kept,
    # once each (the check above repeats them for a position read otherwise)
    problems += [p for p in res.problems if p.code == "unobserved"
                 or p.code in ("flag-by-pole", "flag-unconfirmed")
                 or (p.code == "flag-not-found" and p.where.split()[0] not in state.flags)]
    return state, list({(p.code, p.where, p.message): p for p in problems}.values())


def setup_position(read: State, two_player: bool = False) -> State:
    """The set-up position a set-up reading shows, ready to play: its start blocks (one per colour),
    flags on top, the first turns pending and the first colour to move (docs/rules/ctrl.md "Set-up":
    the colour order; ``two_player``: four colours are the 2-player variant).  A picture reading is
    a position, not a game: it does not know whose turn it is."""
    from engine.ctrl import new_state

    starts = {color: cell for cell, color in read.blocks.items()}
    players = 2 if two_player and len(starts) == 4 else len(starts)
    if players not in (2, 3, 4):
        raise BoardsideInputError(f"a set-up needs 3 or 4 colours (or 4 for the 2-player variant); the "
                                  f"pictures show {len(starts)}: {', '.join(sorted(starts)) or 'none'}")
    setup = new_state(players, starts=starts)
    if set(setup.colors) != set(starts):
        raise BoardsideInputError(f"{players} players play {', '.join(setup.colors)}; the pictures show "
                                  f"{', '.join(sorted(starts))}")
    return setup


def turns_read(previous: State, turn_texts: Sequence[str], state: State) -> tuple[list[Turn], str | None]:
    """The turns a reading with history shows, as they give the position it read: the reading settles
    each flag after choosing the turns' placements (by its pole, among nearly-as-good spots), so each
    colour's last flag plug is moved to where the reading put the flag
    (:func:`engine.ctrl.record.with_final_flags`).  Returns the turns and, when that cannot be done
    (a flag the rules would not let that turn plug there), the turns as chosen and the reason."""
    turns = [Turn.parse(t) for t in turn_texts]
    try:
        return with_final_flags(previous, turns, state.flags), None
    except IllegalMoveError as exc:
        return turns, str(exc)


#: The errors that concern only where flags stand: a reading untrusted for these alone has its blocks
#: settled, and the player can settle it by saying where each such flag is (``follow turn --flag``).
FLAG_ERRORS = ("flag-ambiguous", "flag-missing")


def unsettled_flags(problems: Sequence[Any], uncertain: Sequence[str] = ()) -> list[str] | None:
    """The colours whose flags alone keep a reading from being trusted -- its errors are all
    ``flag-ambiguous`` / ``flag-missing``, each naming ``"<colour> flag"`` -- together with the colours
    whose flags the reading says may stand elsewhere (``uncertain``: ``SceneResult.uncertain_flags``,
    the ``side-uncertain`` warnings' flags), so that every flag the sheet depends on is settled; or
    ``None`` when another error stands (or none does)."""
    errors = [p for p in problems if p.severity == "error"]
    if not errors or any(p.code not in FLAG_ERRORS for p in errors):
        return None
    return sorted({p.where.split()[0] for p in errors} | set(uncertain))


def flags_to_confirm(trusted: bool, uncertain: Sequence[str], previous: State, read: State) -> list[str]:
    """The flags a TRUSTED reading still needs the player to confirm before it is recorded: those the
    reading says may stand elsewhere (``uncertain``: ``SceneResult.uncertain_flags``, reported as
    ``side-uncertain`` warnings, so the sheet depends on them) of the colours that played since the
    recorded position (more blocks now) or whose flag is read elsewhere than recorded.  A flag that
    stays where the record has it was settled at an earlier reading.  The callers pass
    ``SceneResult.uncertain_flag_spots`` in ``uncertain`` too (flags whose spot alone is unsure, changing no side
    now: ``vision.flag_margin.NEUTRAL_RIVALS``): the record keeps where each flag stands.

    Why (session 9): on a held-out followed game a trusted reading was recorded with the mover's flag in
    the right cell but its pole turned (+x read, +z true), the sides it changes only warned about; on the
    development games 25 of 124 trusted readings had such flags, all read right -- a confirmation is
    cheap, a wrong flag in the record spoils every later sheet."""
    if not trusted or not uncertain:
        return []

    def count(state: State, color: str) -> int:
        return sum(1 for c in state.blocks.values() if c == color)

    return sorted(c for c in set(uncertain) if count(read, c) > count(previous, c)
                  or read.flags.get(c) != previous.flags.get(c))


#: Flags of a reading NOT TRUSTED only because of them (``flag-ambiguous``: read at a spot, but another is
#: nearly as likely) may be recorded provisionally too, not only a trusted reading's flags to confirm.
DEFER_UNSETTLED = True


def deferrable_flags(problems: Sequence[Any], unsettled: Sequence[str] | None, confirm: Sequence[str],
                     read: State) -> list[str]:
    """The flags a reading would rather record provisionally than ask about now (:func:`defer_flags` says
    whether the game allows it): a trusted reading's flags to confirm (:func:`flags_to_confirm`) and, with
    ``DEFER_UNSETTLED``, the unsettled flags (:func:`unsettled_flags`) the reading put somewhere -- not a
    ``flag-missing`` one, which no picture placed."""
    missing = {p.where.split()[0] for p in problems if p.severity == "error" and p.code == "flag-missing"}
    more = [c for c in unsettled or () if c in read.flags and c not in missing] if DEFER_UNSETTLED else []
    return sorted(set(confirm) | set(more))


def turn_movers(previous: State, turn_texts: Sequence[str]) -> list[str]:
    """The colours that play the turns ``turn_texts`` from ``previous`` (whose flags those turns lift and plug
    again: rulebook "Game Turn" step 3), in turn order; as far as the turns are legal."""
    colors: list[str] = []
    state = previous
    for text in turn_texts:
        if state.to_move is None:
            break
        if state.to_move not in colors:
            colors.append(state.to_move)
        try:
            state = state.apply(Turn.parse(text))
        except ValueError:  # an illegal or malformed turn: the colours up to it
            break
    return colors


def defer_flags(previous: State, turns: Sequence[Turn], colors: Sequence[str], expected: int | None) -> list[str]:
    """Those of ``colors`` whose flag a reading may record *provisionally* -- checked again in the next
    reading's pictures (:func:`vision.flag_recheck.recheck_flags`) instead of asking the player now: the
    players take the pictures after every turn (``expected`` 1), the game goes on after ``turns`` (a final
    score sheet never rests on a provisional flag) and the next turn is another colour's.  A flag is
    lifted and plugged again only in its owner's turn (CTRL rulebook "Game Turn" step 3, a pass included:
    docs/rules/ctrl.md "Flags"), so the next pictures show it where it stands now."""
    if expected != 1 or not colors:
        return []
    try:
        after = GameRecord(previous, list(turns)).final()
    except IllegalMoveError:
        return []
    if after.is_terminal() or after.to_move is None:
        return []
    return sorted(c for c in set(colors) if c != after.to_move and c in after.flags)


def parse_flag_answer(text: str) -> tuple[str, FlagSpot | None]:
    """``'pink=3,2,1 +y'`` (or ``'pink=none'``): where a player says a colour's flag stands."""
    from engine.core import InvalidMoveError
    from engine.ctrl import COLORS
    from engine.ctrl.moves import parse_move

    color, sep, spot = text.partition("=")
    color, spot = color.strip().lower(), spot.strip()
    if not sep or color not in COLORS:
        raise BoardsideInputError(f"--flag {text!r}: expected COLOUR=X,Y,Z DIR (e.g. 'pink=3,2,1 +y') or "
                                  "COLOUR=none, with COLOUR one of " + ", ".join(COLORS))
    if spot.lower() in ("none", "noflag"):
        return color, None
    try:
        move = parse_move(spot if spot.startswith("flag") else f"flag {spot}")
    except InvalidMoveError as exc:
        raise BoardsideInputError(f"--flag {text!r}: {exc}") from None
    if not isinstance(move, FlagSpot):
        raise BoardsideInputError(f"--flag {text!r}: expected a flag spot 'X,Y,Z DIR'")
    return color, move


def settle_flags(state: State, answers: dict[str, FlagSpot | None]) -> State:
    """The position read with the flags the player placed: each must be one of that colour's legal
    spots in it (docs/rules/ctrl.md "Flags"), or none when it has no legal spot."""
    doc = state.to_json()
    flags = {f["color"]: f for f in doc["flags"]}
    for color, spot in answers.items():
        if color not in state.colors:
            raise BoardsideInputError(f"--flag: {color!r} is not in play ({', '.join(state.colors)})")
        legal = state.flag_spots(color)
        if spot is None:
            if legal:
                raise BoardsideInputError(f"--flag {color}=none: the {color} flag must stand somewhere: its legal "
                                          f"spots are {', '.join(str(s)[5:] for s in legal)}")
            flags.pop(color, None)
        elif spot not in legal:
            raise BoardsideInputError(f"--flag {color}={str(spot)[5:]!r} is not a legal spot for the {color} flag "
                                      f"here; its legal spots are {', '.join(str(s)[5:] for s in legal)}")
        else:
            flags[color] = {"color": color, "cell": list(spot.cell), "points": spot.points}
    doc["flags"] = list(flags.values())
    return State.from_json(doc)


def _opt_str(v: Any) -> str | None:
    return None if v is None else str(v)


def turns_count_problem(turns: Sequence[Turn], expected: int | None, previous: State) -> str | None:
    """Why a reading's turns cannot be the turns played since the last reading, when the players said
    how many that is (``expected``): a reading that adds a turn of blocks the pictures only seem to
    show (a reflection or shadow on the mat read as three blocks) must not be recorded as if played.
    Fewer turns are right only when the game ended before the round did (rulebook "End Game")."""
    if expected is None or len(turns) == expected:
        return None
    if len(turns) < expected:
        state = previous
        for turn in turns:
            state = state.apply(turn)
        if state.is_terminal():
            return None
    return (f"the pictures were read as {len(turns)} turn(s) since the last reading, but {expected} were played "
            f"(the game is followed every {'turn' if expected == 1 else 'round'}; --turns N says otherwise)")


@dataclass(frozen=True)
class Verdict:
    """What ``follow turn`` does with a reading (``benchmarks/ctrl_follow.py`` plays the player by it)."""

    turns: list[Turn]  # the turns to record (:func:`turns_read`)
    why: str | None  # the flags read cannot be plugged by these turns
    miscount: str | None  # more or fewer turns than the players said were played (:func:`turns_count_problem`)
    settled: bool  # the player said where every unsettled flag stands
    recordable: bool  # trusted, settled by the player or accepted; turns read; none of the reasons above
    unconfirmed: tuple[str, ...] = ()  # trusted, but these flags (:func:`flags_to_confirm`) were not confirmed
    provisional: tuple[str, ...] = ()  # recorded provisionally (:func:`defer_flags`), neither said nor confirmed


def judge(previous: State, turn_texts: Sequence[str], read: State, trusted: bool, unsettled: Sequence[str] | None,
          answered: Sequence[str], expected: int | None, accept: bool = False,
          confirm: Sequence[str] = (), deferred: Sequence[str] = ()) -> Verdict:
    """Whether a reading with history is recorded: ``read`` is the position read with the player's flag
    answers (for the colours ``answered``) put in; ``unsettled`` is :func:`unsettled_flags` of it, and
    ``confirm`` :func:`flags_to_confirm` (a trusted reading is recorded once the player confirmed those
    flags, or with ``accept``).  ``deferred``: flags the caller would record provisionally
    (:func:`defer_flags` of the turns read); they count as settled only where :func:`defer_flags` agrees."""
    turns, why = turns_read(previous, turn_texts, read)
    provisional = tuple(c for c in defer_flags(previous, turns, deferred, expected) if c not in answered
                        and c in read.flags) if why is None and not accept else ()
    said = set(answered) | set(provisional)
    settled = unsettled is not None and all(c in said for c in unsettled)
    unconfirmed = () if accept else tuple(c for c in confirm if c not in said)
    miscount = turns_count_problem(turns, expected, previous) if why is None else None
    recordable = ((trusted and not unconfirmed) or accept or settled) and why is None and bool(turns) and (
        miscount is None or accept)
    return Verdict(turns, why, miscount, settled, recordable, unconfirmed,
                   tuple(c for c in provisional if c in (*confirm, *(unsettled or ()))))


def start(path: Path, initial: State, reading: Reading, calibration: Path | None, mat: Path | None,
          every: str = "turn") -> FollowedGame:
    """A new followed game at ``path`` (which must not exist: a game already followed is never
    overwritten), starting from ``initial``."""
    if path.exists():
        raise FollowFileError(f"{str(path)!r} already exists: follow the game in it with 'ctrl follow turn', "
                              "or choose another file")
    if every not in EVERY:
        raise BoardsideInputError(f"--every {every!r}: expected one of {', '.join(EVERY)}")
    game = FollowedGame(GameRecord(initial), [reading],
                        str(calibration.resolve()) if calibration else None, str(mat.resolve()) if mat else None,
                        every=every)
    game.save(path)
    return game


__all__ = [
    "FLAG_ERRORS",
    "FollowFileError",
    "FollowedGame",
    "Reading",
    "Verdict",
    "defer_flags",
    "deferrable_flags",
    "flags_to_confirm",
    "judge",
    "parse_flag_answer",
    "read_setup",
    "settle_flags",
    "setup_position",
    "start",
    "turn_movers",
    "turns_count_problem",
    "turns_read",
    "unsettled_flags",
]
