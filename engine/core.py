"""The common game interface, errors and rule-check results shared by every engine.

Modelled on OpenSpiel's state API: a state knows whose turn it is, lists its legal
moves, and ``apply`` returns the *next* state (states are treated as immutable values,
which makes undo, search and replay trivial).  Randomness (dice, shuffles) never
happens inside ``apply`` of a player move: a state whose ``is_chance_node()`` is true
lists its outcomes with probabilities in ``chance_outcomes()`` and the caller applies
one of them like any move.  A recorded game is therefore an exact replay.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Generic, Literal, TypeVar

from engine.errors import BoardsideError, BoardsideInputError

__all__ = [
    "BoardsideError",
    "BoardsideInputError",
    "ChanceEvent",
    "GameError",
    "GameState",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidStateError",
    "Problem",
    "random_playout",
]


class GameError(BoardsideError, ValueError):
    """Base class of every rules-engine error (a ``ValueError``, as in python-chess)."""


class InvalidMoveError(GameError):
    """A move string or object is malformed (cannot even be parsed)."""


class IllegalMoveError(GameError):
    """A well-formed move breaks a rule in the current position."""


class InvalidStateError(GameError):
    """A state document is malformed: wrong types, unknown colours, missing fields."""


Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Problem:
    """One finding of a rule check: rule checks return data, never raise.

    ``rule`` names the rulebook passage (e.g. ``"CTRL p.2 Setup 3"``), ``where`` the
    piece or place concerned (e.g. ``"blue block at (1, -1, 0)"``).
    """

    code: str
    message: str
    where: str = ""
    rule: str = ""
    severity: Severity = "error"

    def __str__(self) -> str:
        prefix = f"{self.where}: " if self.where else ""
        suffix = f" [{self.rule}]" if self.rule else ""
        return f"{prefix}{self.message}{suffix}"

    def to_json(self) -> dict[str, str]:
        return {
            "code": self.code,
            "message": self.message,
            "where": self.where,
            "rule": self.rule,
            "severity": self.severity,
        }


@dataclass(frozen=True)
class ChanceEvent:
    """An explicit outcome of chance: a die roll, a shuffle permutation, a deal.

    ``kind`` names the event (``"roll"``, ``"shuffle"``), ``value`` is hashable data
    (an int, or a tuple such as a permutation).
    """

    kind: str
    value: Any

    def __str__(self) -> str:
        return f"{self.kind}:{self.value}"


M = TypeVar("M")
S = TypeVar("S", bound="GameState[Any]")


class GameState(ABC, Generic[M]):
    """Abstract game state.  Subclasses (usually frozen dataclasses) hold the full position."""

    @abstractmethod
    def current_player(self) -> str | None:
        """The player (or colour) to act; ``None`` at a chance node or when terminal."""

    @abstractmethod
    def legal_moves(self) -> Sequence[M]:
        """Every legal move for :meth:`current_player` (empty at chance nodes)."""

    @abstractmethod
    def apply(self, move: M | ChanceEvent) -> GameState[M]:
        """Return the state after ``move``; raises :class:`IllegalMoveError` if illegal."""

    @abstractmethod
    def is_terminal(self) -> bool:
        """True when the game is over."""

    @abstractmethod
    def returns(self) -> Mapping[str, float]:
        """Final result per player: 1.0 win (shared wins split), 0.0 loss.  Only when terminal."""

    def is_chance_node(self) -> bool:
        """True when the next step is a chance event rather than a player's decision."""
        return False

    def chance_outcomes(self) -> Sequence[tuple[ChanceEvent, Fraction]]:
        """The possible chance events with their exact probabilities."""
        return []

    def sample_chance(self, rng: random.Random) -> ChanceEvent:
        """Draw one chance outcome with ``rng`` (for simulations; replays store the event)."""
        outcomes = self.chance_outcomes()
        if not outcomes:
            raise GameError("sample_chance() called on a state that is not a chance node")
        events = [e for e, _ in outcomes]
        weights = [float(p) for _, p in outcomes]
        return rng.choices(events, weights=weights, k=1)[0]


@dataclass
class PlayoutStats:
    """Figures from random playouts (used by every game's ``selfplay``)."""

    games: int = 0
    moves: int = 0
    chance_events: int = 0
    wins: dict[str, float] = field(default_factory=dict)


def random_playout(
    state: GameState[Any], rng: random.Random, max_steps: int = 100_000
) -> tuple[GameState[Any], int, int]:
    """Play uniformly random legal moves (and sampled chance events) to the end.

    Returns ``(final_state, moves, chance_events)``.  Raises :class:`GameError` if the
    game does not end within ``max_steps`` (a rules bug, never a normal outcome).
    """
    moves = chances = 0
    for _ in range(max_steps):
        if state.is_terminal():
            return state, moves, chances
        if state.is_chance_node():
            state = state.apply(state.sample_chance(rng))
            chances += 1
            continue
        legal = state.legal_moves()
        if not legal:
            raise GameError(f"non-terminal state with no legal move for {state.current_player()!r}")
        state = state.apply(rng.choice(list(legal)))
        moves += 1
    raise GameError(f"game did not end within {max_steps} steps")
