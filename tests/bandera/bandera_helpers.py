"""Build hand-made Captura la Bandera positions for the rule tests."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from engine.bandera import Capture, Move, State, new_state
from engine.bandera.board import Square

M = Move.parse


def position(
    players: int = 2,
    *,
    level: str = "easy",
    cubes: Mapping[Square, int] | None = None,
    royal: Mapping[str, Square] | None = None,
    chars: Mapping[str, Square] | None = None,
    to_move: str = "blue",
    phase: str = "move",
    roll: int = 6,
    spent: int = 0,
    placement_roll: int | None = None,
    placements_left: int = 0,
    supply: int | None = None,
    first_cube_placed: Iterable[str] = (),
    captures: Iterable[Capture] = (),
    turn: int = 5,
) -> State:
    """A position with the given cubes.  Royal towers (two cubes each) default to the set-up
    squares and are added to ``cubes`` automatically; characters default to their towers; the
    supply defaults to the cubes not on the board."""
    base = new_state(players, level)
    royal_sq = dict(base.royal if royal is None else royal)
    stacks: dict[Square, int] = {sq: 2 for sq in royal_sq.values()}
    stacks.update(cubes or {})
    ch = dict(base.chars)
    ch.update(royal_sq)
    ch.update(chars or {})
    if supply is None:
        supply = base.cubes_total - sum(stacks.values())
    movement_roll = roll if phase == "move" else None
    return replace(
        base,
        stacks=stacks,
        royal=royal_sq,
        chars=ch,
        to_move=to_move,
        phase=phase,  # type: ignore[arg-type]
        movement_roll=movement_roll,
        points=(roll - spent) if phase == "move" else 0,
        spent=spent if phase == "move" else 0,
        placement_roll=placement_roll,
        placements_left=placements_left,
        supply=supply,
        first_cube_placed=frozenset(first_cube_placed),
        captures=tuple(captures),
        turn=turn,
    )


def moves_of(state: State) -> set[str]:
    return {str(m) for m in state.legal_moves()}


def play(state: State, *steps: str) -> State:
    from engine.bandera import parse_step

    for s in steps:
        state = state.apply(parse_step(s))
    return state
