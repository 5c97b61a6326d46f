"""``boardside.fixtures_render.followed.play_game``: the followed games' truth (rendering itself needs
the optional renderer and is exercised by ``boardside fixtures render-followed``)."""

from __future__ import annotations

import itertools
import random

import pytest

from boardside.fixtures_render.followed import play_game


@pytest.mark.parametrize(("players", "every"), [(4, 0), (3, 1), (2, 0), (4, 3)])
def test_a_followed_game_is_photographed_at_the_set_up_every_step_and_at_the_end(players: int, every: int) -> None:
    record, shots = play_game(players, random.Random(players * 10 + every), every)
    states = list(record.states())  # every turn legal
    assert states[-1].is_terminal() and shots[0] == 0 and shots[-1] == len(record.turns)
    step = every or len(states[0].colors)
    assert all(b - a == step for a, b in itertools.pairwise(shots[:-1]))
    assert 0 < shots[-1] - shots[-2] <= step
    # the same seed gives the same game
    again, shots2 = play_game(players, random.Random(players * 10 + every), every)
    assert again.turns == record.turns and shots2 == shots
