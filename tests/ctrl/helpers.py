"""Small builders for hand-worked CTRL positions."""

from __future__ import annotations

from engine.ctrl import FlagSpot, State, new_state
from engine.ctrl.geometry import Cell


def position(
    blocks: dict[Cell, str],
    flags: dict[str, FlagSpot] | None = None,
    to_move: str = "blue",
    first_turn: bool = False,
) -> State:
    """A 4-player position with the default starts plus ``blocks``; no first-turn restriction."""
    base = new_state(4)
    all_blocks = dict(base.blocks)
    all_blocks.update(blocks)
    from dataclasses import replace

    return replace(
        base,
        blocks=all_blocks,
        flags=dict(flags or {}),
        to_move=to_move,
        first_turn_pending=frozenset({to_move}) if first_turn else frozenset(),
    )


def cells(*cs: Cell) -> frozenset[Cell]:
    return frozenset(cs)
