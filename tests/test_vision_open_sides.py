"""``free_rules._shows_on_a_side`` (session 18, for speed in ``depth_tie_candidates``) is ``bool(_open_sides(...))``
on random piles, dense enough that cells closed on every side occur."""

from __future__ import annotations

import random

from engine.ctrl.geometry import CENTRAL_CUBE
from vision.free_rules import _open_sides, _shows_on_a_side


def test_shows_on_a_side_is_open_sides_not_empty() -> None:
    rng = random.Random(1818)
    seen = {True: 0, False: 0}
    for _ in range(40):
        occupied = set(CENTRAL_CUBE)
        for _ in range(rng.randrange(0, 250)):
            occupied.add((rng.randrange(-5, 8), rng.randrange(-5, 8), rng.randrange(0, 6)))
        for x in range(-6, 9):
            for y in range(-6, 9):
                for z in range(0, 6):
                    c = (x, y, z)
                    got = _shows_on_a_side(c, occupied)
                    assert got == bool(_open_sides(c, occupied)), (c, sorted(occupied))
                    seen[got] += 1
    assert seen[True] > 1000 and seen[False] > 50
