"""CTRL positions for the fixtures: set-ups, mid-games and finished games from random legal play.

Everything goes through the CTRL engine (``engine.ctrl``): a position is the engine's own
interchange document, so its truth scores are the engine's scores.
"""

from __future__ import annotations

import random
from typing import Any

from engine.errors import BoardsideError


class EngineUnavailableError(BoardsideError, RuntimeError):
    """The CTRL engine (engine.ctrl) is not present in this checkout."""


def _ctrl() -> Any:
    try:
        import engine.ctrl as ctrl
    except ImportError as exc:  # pragma: no cover - only before the engine was merged
        raise EngineUnavailableError(f"the CTRL engine (engine.ctrl) is needed for fixture states: {exc}") from None
    return ctrl


def play_to(players: int, stage: str, rng: random.Random) -> dict[str, Any]:
    """A position for ``players`` (2 = the 2-player variant) at ``stage``:
    ``setup`` (the set-up), ``mid`` (random legal play for a random share of the game) or
    ``finished`` (random legal play to the end).  Returns the interchange document."""
    ctrl = _ctrl()
    state = ctrl.new_state(players=players)
    if stage == "setup":
        return dict(state.to_json())
    colours = len(state.colors)
    total_turns = colours * 7  # 21 blocks to place per colour, 3 per turn
    target = rng.randint(2 * colours, int(total_turns * 0.8)) if stage == "mid" else 10**9
    placements = 0
    for _ in range(100_000):
        if state.is_terminal() or placements >= target:
            break
        legal = list(state.legal_moves())
        if not legal:
            break
        move = rng.choice(legal)
        if type(move).__name__ in ("Placement", "Pass"):
            placements += 1
        state = state.apply(move)
    # stop after a complete turn (flag re-plugged), as a player would photograph it
    guard = 0
    while not state.is_terminal() and getattr(state, "phase", "place") == "flag" and guard < 4:
        state = state.apply(rng.choice(list(state.legal_moves())))
        guard += 1
    return dict(state.to_json())


def score_document(doc: dict[str, Any]) -> dict[str, Any]:
    """The engine's scores in the ``boardside ctrl score --json`` shape."""
    ctrl = _ctrl()
    state = ctrl.State.from_json(doc)
    return {"sides": state.side_scores(), "totals": state.totals(), "winners": state.winners()}


def problems(doc: dict[str, Any]) -> list[str]:
    ctrl = _ctrl()
    return [str(p) for p in ctrl.validate_state(doc)]
