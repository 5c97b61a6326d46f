"""CTRL game records: the set-up plus every turn, as JSON that round-trips and replays exactly."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.core import IllegalMoveError, InvalidMoveError, InvalidStateError
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


def one_turn_back(state: State) -> State | None:
    """A state one placement earlier: the position before the last colour to play placed its last
    three blocks, with that colour to move and its flag not yet re-plugged (the flag's earlier spot
    is not recorded in a position, so it is left out).  ``None`` when no colour's blocks can be taken
    back as one legal placement.  Used to test ``score-images --previous`` on recorded positions.

    Rulebook "Game Turn": a turn places three blocks along one path, then re-plugs the flag; the
    position before it is the one in which those three cells were one of the mover's legal placements.
    """
    from itertools import combinations

    from engine.ctrl.moves import Placement

    doc = state.to_json()
    order = list(state.colors)
    if state.to_move in order:
        i = order.index(state.to_move)
        candidates = [order[(i - k) % len(order)] for k in range(1, len(order) + 1)]
    else:
        candidates = list(reversed(order))
    for color in candidates:
        mine = sorted(c for c, col in state.blocks.items() if col == color and c != state.starts.get(color))
        for cells in combinations(mine, 3):
            d = dict(doc)
            d["blocks"] = [b for b in doc["blocks"] if tuple(b["cell"]) not in cells]
            d["flags"] = [f for f in doc["flags"] if f["color"] != color]
            d["to_move"] = color
            d["terminal"] = False
            d["phase"] = "place"
            d["passes_in_row"] = 0
            try:
                before = State.from_json(d)
            except ValueError:
                continue
            if Placement.of(cells) in set(before.legal_moves()):
                return before
    return None


def turns_back(state: State, n: int) -> State:
    """The position ``n`` turns before ``state`` by :func:`one_turn_back`, stopping early (and
    returning ``state`` itself when no turn can be taken back) where the record cannot go further."""
    for _ in range(n):
        step = one_turn_back(state)
        if step is None:
            break
        state = step
    return state



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
