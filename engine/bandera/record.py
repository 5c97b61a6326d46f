"""Game records: every decision and every die, so a game replays exactly.

A record document::

    {"game": "bandera", "format": 1, "players": ["blue", "red"], "level": "easy",
     "max_turns": null, "initial": null,
     "steps": ["start:red", "place:4", "place 8,3", "move:2", "char 9,3 W", ...]}

``initial`` is ``null`` for a game from the set-up, or a state document to continue from.
Steps with a ``:`` are chance events (``start:PLAYER``, ``place:N``, ``move:N``), the others
are moves (:class:`engine.bandera.Move`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.bandera.moves import Move, parse_step
from engine.bandera.state import State, new_state
from engine.core import ChanceEvent, GameError, IllegalMoveError, InvalidMoveError, InvalidStateError


def step_text(step: Move | ChanceEvent) -> str:
    return str(step)


def new_record(state: State, initial: State | None = None) -> dict[str, Any]:
    return {
        "game": "bandera",
        "format": 1,
        "players": list(state.players),
        "level": state.level,
        "max_turns": state.max_turns,
        "initial": initial.to_json() if initial is not None else None,
        "steps": [],
    }


def initial_state(doc: Any) -> State:
    """The position a record starts from."""
    if not isinstance(doc, Mapping) or doc.get("game") != "bandera" or not isinstance(doc.get("steps"), list):
        raise InvalidStateError(
            "not a Captura la Bandera game record (needs 'game': 'bandera' and a 'steps' list)"
        )
    if doc.get("initial") is not None:
        return State.from_json(doc["initial"])
    players = doc.get("players", 2)
    if not isinstance(players, (int, list)):
        raise InvalidStateError(f"record 'players' must be a count or a list of names, got {players!r}")
    try:
        return new_state(players, doc.get("level", "easy"), max_turns=doc.get("max_turns"))
    except GameError:
        raise
    except ValueError as exc:
        raise InvalidStateError(f"cannot set up the recorded game: {exc}") from None


def replay(doc: Any, upto: int | None = None) -> list[State]:
    """Every state of a recorded game, the initial one first (``upto`` steps at most).

    Raises :class:`InvalidMoveError` / :class:`IllegalMoveError` naming the step that fails.
    """
    state = initial_state(doc)
    states = [state]
    steps: Sequence[Any] = doc["steps"] if upto is None else doc["steps"][:upto]
    for i, text in enumerate(steps, start=1):
        try:
            step = parse_step(text)
        except InvalidMoveError as exc:
            raise InvalidMoveError(f"record step {i}: {exc}") from None
        try:
            state = state.apply(step)
        except IllegalMoveError as exc:
            raise IllegalMoveError(f"record step {i}: {exc}") from None
        states.append(state)
    return states
