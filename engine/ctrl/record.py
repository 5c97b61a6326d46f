"""CTRL game records: the set-up plus every turn, as JSON that round-trips and replays exactly."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.core import IllegalMoveError, InvalidMoveError, InvalidStateError
from engine.ctrl.geometry import Cell
from engine.ctrl.moves import FlagSpot, Turn
from engine.ctrl.state import State

RECORD_FORMAT = 1


@dataclass
class GameRecord:
    """A game: its initial state and the list of whole turns played from it."""

    initial: State
    turns: list[Turn] = field(default_factory=list)

    def states(self) -> Iterator[State]:
        """Yield the initial state and the state after every turn (raises on an illegal turn)."""
        state = self.initial
        yield state
        for i, turn in enumerate(self.turns, start=1):
            try:
                state = state.apply(turn)
            except IllegalMoveError as exc:
                raise IllegalMoveError(f"turn {i} ({str(turn)!r}): {exc}") from None
            yield state

    def final(self) -> State:
        state = self.initial
        for state in self.states():  # noqa: B007 - we want the last
            pass
        return state

    def to_json(self) -> dict[str, Any]:
        final = self.final()
        doc: dict[str, Any] = {
            "game": "ctrl",
            "format": RECORD_FORMAT,
            "initial": self.initial.to_json(),
            "turns": [str(t) for t in self.turns],
        }
        if final.is_terminal():
            doc["result"] = {"totals": final.totals(), "winners": final.winners()}
        return doc

    @classmethod
    def from_json(cls, doc: Any) -> GameRecord:
        if not isinstance(doc, dict) or doc.get("game") != "ctrl" or "initial" not in doc:
            raise InvalidStateError("not a CTRL game record (needs 'game': 'ctrl', 'initial' and 'turns')")
        if doc.get("format", RECORD_FORMAT) != RECORD_FORMAT:
            raise InvalidStateError(f"unsupported record format {doc.get('format')!r}")
        turns_raw = doc.get("turns", [])
        if not isinstance(turns_raw, list):
            raise InvalidStateError(f"'turns' must be a list of turn strings, got {turns_raw!r:.60}")
        turns: list[Turn] = []
        for i, t in enumerate(turns_raw, start=1):
            if not isinstance(t, str):
                raise InvalidStateError(f"turn {i} must be a string, got {t!r}")
            try:
                turns.append(Turn.parse(t))
            except InvalidMoveError as exc:
                raise InvalidStateError(f"turn {i}: {exc}") from None
        return cls(State.from_json(doc["initial"]), turns)


def _taken_back(state: State, color: str, cells: tuple[Cell, ...]) -> State | None:
    """``state`` with ``cells`` (some of ``color``'s blocks, possibly none: a pass) and ``color``'s flag
    removed, ``color`` to place, when that is a well-formed position (``None`` otherwise)."""
    doc = state.to_json()
    doc["blocks"] = [b for b in doc["blocks"] if tuple(b["cell"]) not in cells]
    doc["flags"] = [f for f in doc["flags"] if f["color"] != color]
    doc["to_move"] = color
    doc["terminal"] = False
    doc["phase"] = "place"
    # a pass added one to the passes in a row; a placement reset them (their earlier count is unknown)
    doc["passes_in_row"] = max(0, state.passes_in_row - 1) if not cells else 0
    pending = set(state.first_turn_pending)
    if not any(col == color and c != state.starts.get(color) for c, col in state.blocks.items()
               if c not in cells):
        pending.add(color)  # rulebook "First Turn Rule": it has not placed a block yet
    doc["first_turn_pending"] = [c for c in state.colors if c in pending]
    doc.pop("first_turn", None)
    try:
        return State.from_json(doc)
    except ValueError:
        return None


def _placements_back(state: State, color: str) -> Iterator[State]:
    """The positions before ``color``'s last placement: each set of three of its blocks (never its
    start block) that was one of its legal placements there, in sorted order."""
    from itertools import combinations

    from engine.ctrl.moves import Placement

    mine = sorted(c for c, col in state.blocks.items() if col == color and c != state.starts.get(color))
    for cells in combinations(mine, 3):
        before = _taken_back(state, color, cells)
        if before is not None and Placement.of(cells) in set(before.legal_moves()):
            yield before


def turns_back_options(state: State) -> Iterator[State]:
    """Every position one turn before ``state`` in turn order, most likely first (see
    :func:`one_turn_back`, which takes the first): the last placements of the colour that played last
    that can be taken back, then -- when that colour has no block left, so the turn order may have gone
    over it -- those of the colour before it, and so on; and the colour's pass when it had no legal path
    (rulebook "Game Turn": a player passes only then).  Nothing for a set-up, or where the colour before
    the one to move has blocks left, a legal path and no placement that can be taken back."""
    order = list(state.colors)
    if state.to_move is None or state.terminal:
        for color in reversed(order):
            yield from _placements_back(state, color)
        return
    i = order.index(state.to_move)
    for k in range(1, len(order) + 1):
        color = order[(i - k) % len(order)]
        yield from _placements_back(state, color)
        if state.remaining(color) == 0:
            continue  # no block left: the turn order may have gone over it
        if color == state.to_move:
            return
        before = _taken_back(state, color, ())
        if before is not None and not before.placements():
            yield before  # it had no legal path: its last turn was a pass (with its flag re-plugged)
        return


def one_turn_back(state: State) -> State | None:
    """The position one turn earlier, in turn order: the colour that played last -- the nearest colour
    before the one to move, going over those that have no block left (they are skipped, rulebook
    "Game Turn" / docs/rules/ctrl.md "First turn, passing, end of game") -- is to move again, with the
    three blocks of its last placement taken off and its flag not yet re-plugged (the flag's earlier
    spot is not recorded in a position, so it is left out).  When none of its block sets can have been
    its last placement, its last turn was a pass if it had no legal placement then (the result has
    the same blocks, that colour to move and its flag left out); otherwise the position cannot have
    been reached in turn order and the result is ``None`` -- as it is for a set-up.

    A placement is preferred to a pass when both could have been the last turn, and the first set of
    blocks in sorted order to a later one.  From the result, the turn taken back (the placement, or a
    pass, then the flag plug) leads to ``state`` again; in a terminal ``state`` the last colour to play
    is unknown, so the nearest colour before the first in the order whose placement can be taken back
    is taken.  Used to test ``score-images --previous``.
    """
    return next(turns_back_options(state), None)


def turns_back_chain(state: State, n: int, budget: int = 200) -> list[State]:
    """``state`` and the positions 1, 2, ... turns before it, in turn order, as long as the order lets
    (at most ``n`` turns).  When the first choice at each step (:func:`one_turn_back`) comes to a
    position that cannot go further back in turn order, the other choices (:func:`turns_back_options`:
    another set of three blocks can have been the same colour's last placement) are tried depth first,
    at most ``budget`` positions in all; the longest chain found is returned (the first choices' chain
    when none is longer)."""
    if n < 0:
        raise ValueError(f"cannot take back a negative number of turns: {n!r}")
    best = [state]
    tried = 0

    def go(chain: list[State]) -> bool:
        nonlocal best, tried
        if len(chain) > len(best):
            best = list(chain)
        if len(chain) > n:
            return True
        for before in turns_back_options(chain[-1]):
            tried += 1
            if tried > budget:
                return True  # give up: keep the longest chain so far
            if go([*chain, before]):
                return True
        return False

    go([state])
    return best


def turns_back(state: State, n: int) -> State:
    """The position ``n`` turns before ``state`` in turn order (:func:`turns_back_chain`), or as far
    back as the turn order lets -- ``state`` itself when no turn can be taken back; count the turns
    taken with ``len(turns_back_chain(state, n)) - 1``."""
    return turns_back_chain(state, n)[-1]


def random_turn(state: State, rng: Any) -> tuple[Turn, State]:
    """A whole turn chosen at random among the legal ones (``rng.choice`` on the placements or pass,
    then on the flag spots or no flag: rulebook "Game Turn"), and the state after it."""
    from engine.ctrl.moves import Placement

    first = rng.choice(list(state.legal_moves()))
    mid = state.apply(first)
    second = rng.choice(list(mid.legal_moves()))
    return (Turn(first if isinstance(first, Placement) else None, second if isinstance(second, FlagSpot) else None),
            mid.apply(second))


def with_final_flags(previous: State, turns: Sequence[Turn], flags: Mapping[str, FlagSpot]) -> list[Turn]:
    """``turns`` (whole turns played from ``previous``) with each colour's last flag plug set to where
    ``flags`` has that colour's flag (``noflag`` when it has none) -- for a reading that settles the
    flags after the turns' placements, so that the turns recorded give the position read.

    Rulebook "Game Turn" step 3: a colour re-plugs its flag at the end of each of its turns, so after
    several turns its flag is where its last turn put it; earlier turns' plugs are left as they are.
    Raises :class:`IllegalMoveError` (naming the turn) when a flag cannot be plugged there at that turn.
    """
    movers: list[str | None] = []
    state = previous
    for turn in turns:
        movers.append(state.to_move)
        state = state.apply(turn)
    last = {color: i for i, color in enumerate(movers)}
    result = [Turn(turn.placement, flags.get(color)) if color is not None and last[color] == i else turn
              for i, (turn, color) in enumerate(zip(turns, movers, strict=True))]
    GameRecord(previous, result).final()  # each turn legal in turn (else the error names it)
    return result
