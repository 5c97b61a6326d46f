"""Rule-based inference for the free reading (``score-images`` without ``--previous``), issue 5.

A set-up position -- every colour has exactly its start block -- is one where no turn has been
played: each turn places blocks (CTRL rulebook "Game Turn"; on a colour's first turn a legal path
always exists, so nobody passes before moving).  The flags then stand where set-up put them: each
on its start block, pointing up (rulebook "Setup" 4).  A flag the pictures did not make out there
(a banner edge-on, behind the Central Cube, or its pole seen in one picture only) is assumed to
stand there, and reported; without this the tie-break of a set-up (every total ties, the highest
flag wins) dropped the colour whose flag was not found.
"""

from __future__ import annotations

from dataclasses import replace

from engine.core import Problem
from engine.ctrl import SIDES, State
from engine.ctrl.moves import FlagSpot


def is_setup_position(state: State) -> bool:
    """Every colour has exactly one block, on its start cell."""
    values = list(state.blocks.values())
    return bool(state.colors) and len(values) == len(state.colors) and all(
        values.count(c) == 1 and state.blocks.get(state.starts.get(c, (0, 0, -1))) == c for c in state.colors)


def assume_setup_flags(state: State) -> tuple[State, list[Problem]]:
    """In a set-up position, each colour's flag that was not found is put on its start block,
    pointing up, when that spot is legal (see the module docstring); one warning per flag."""
    if not is_setup_position(state):
        return state, []
    flags = dict(state.flags)
    notes: list[Problem] = []
    for color in state.colors:
        if color in flags:
            continue
        spot = FlagSpot.on_block(state.starts[color], (0, 0, 1))
        if spot not in state.flag_spots(color):
            continue
        flags[color] = spot
        notes.append(Problem("flag-assumed", f"the {color} flag was not made out in the pictures; in a set-up "
                             f"position it stands on its start block pointing up ({spot}): check that it is plugged "
                             "in there", f"{color} flag", 'CTRL rulebook, "Setup" 4', "warning"))
    return (replace(state, flags=flags) if notes else state), notes


def count_doubts(state: State) -> dict[str, list[str]]:
    """Colours whose block count no game can reach, and so the sides their reading puts in doubt.

    After its start block a colour gains three blocks a turn (rulebook "Game Turn": a path of 3
    blocks; a player with no free path passes the whole turn), so it has 1, 4, 7, ... 22 blocks.  A
    reading with another count has misread or missed some of that colour's blocks (a cool shadow
    read as blue, a block no picture shows), and a block added or taken away may show on any side:
    every side is in doubt for that colour.  Returns side -> colours (empty when every count is
    possible)."""
    odd = [c for c in state.colors if (sum(1 for v in state.blocks.values() if v == c) - 1) % 3]
    return {side: list(odd) for side in SIDES} if odd else {}
