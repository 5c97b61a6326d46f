"""Pure game rules for Boardside: no I/O, no OpenCV, no imports from the other packages.

Every game offers the same small interface (:class:`engine.core.GameState`):
``legal_moves()``, ``apply()``, ``is_terminal()``, ``returns()``, with dice and
shuffles as explicit chance events so that games replay exactly.
"""

from engine.core import (
    ChanceEvent,
    GameError,
    GameState,
    IllegalMoveError,
    InvalidMoveError,
    InvalidStateError,
    Problem,
)

__all__ = [
    "ChanceEvent",
    "GameError",
    "GameState",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidStateError",
    "Problem",
]
