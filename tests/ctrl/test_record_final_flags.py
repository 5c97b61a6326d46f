"""``engine.ctrl.record.with_final_flags``: the turns a reading chose, with each colour's last flag
plug moved to where the reading finally put that colour's flag (rulebook "Game Turn" step 3)."""

from __future__ import annotations

import random

import pytest

from engine.core import IllegalMoveError
from engine.ctrl import FlagSpot, Pass, State, Turn, new_state
from engine.ctrl.record import with_final_flags
from tests.ctrl.test_state import play_random


def _legal(state: State, turns: list[Turn]) -> bool:
    try:
        for t in turns:
            state = state.apply(t)
    except IllegalMoveError:
        return False
    return True


def _other_flags(previous: State, turns: list[Turn], rng: random.Random) -> list[Turn]:
    """The same placements with each turn's flag plugged at another legal spot, where one leaves the
    later turns legal (a flag obstructs other colours' paths)."""
    out: list[Turn] = []
    state = previous
    for i, t in enumerate(turns):
        mid = state.apply(t.placement) if t.placement is not None else state.apply(Pass())
        spots = [m for m in mid.legal_moves() if isinstance(m, FlagSpot)]
        rng.shuffle(spots)
        t2 = next((Turn(t.placement, f) for f in spots if _legal(state, [Turn(t.placement, f), *turns[i + 1:]])), t)
        state = state.apply(t2)
        out.append(t2)
    return out


@pytest.mark.parametrize("seed", range(12))
def test_the_turns_give_the_flags_read(seed: int) -> None:
    rng = random.Random(seed)
    previous, _ = play_random(new_state(4), rng, rng.randrange(0, 8))
    if previous.is_terminal():
        pytest.skip("game over")
    final, turns = play_random(previous, rng, rng.randrange(1, 7))
    wrong = _other_flags(previous, turns, rng)  # the placements right, the flags anywhere legal
    fixed = with_final_flags(previous, wrong, final.flags)
    state = previous
    for t in fixed:
        state = state.apply(t)
    assert dict(state.flags) == dict(final.flags) and state.blocks == final.blocks
    # only each colour's last turn changes, and only in its flag
    assert [t.placement for t in fixed] == [t.placement for t in wrong]
    assert sum(a != b for a, b in zip(fixed, wrong, strict=True)) <= len(previous.colors)


def test_no_flag_read_is_noflag_and_illegal_while_a_face_is_free() -> None:
    s = new_state(4)
    final, turns = play_random(s, random.Random(3), 1)
    color = s.to_move
    assert color is not None
    with pytest.raises(IllegalMoveError, match=r"turn 1 \(.* noflag'\): blue must plug its flag"):
        with_final_flags(s, turns, {c: f for c, f in final.flags.items() if c != color})


def test_an_impossible_flag_names_the_turn() -> None:
    s = new_state(4)
    _, turns = play_random(s, random.Random(5), 1)
    color = s.to_move
    assert color is not None
    bad = FlagSpot((0, 0, 3), "+z")  # on top of the Central Cube: no block of the colour there
    with pytest.raises(IllegalMoveError, match=r"turn 1 \("):
        with_final_flags(s, turns, {color: bad})
