"""CTRL game records: the set-up plus every turn, as JSON that round-trips and replays exactly."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from engine.core import IllegalMoveError, InvalidMoveError, InvalidStateError
from engine.ctrl.moves import Turn
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
