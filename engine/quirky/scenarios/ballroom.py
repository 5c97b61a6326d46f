"""Shipped scenario 'ballroom' (a Boardside original; TOML, docs/rules/quirky.md section 4)."""

TEXT = r'''# Boardside original scenario (the rulebook's scenario book is not available).
id = "ballroom"
title = "The Ballroom"
robot = "twirl"
difficulty = 4
description = """A crowded ballroom with columns, rope barriers and spinning dance floors. \
Twirl must reach the stage and face the orchestra (west). Rotate North cards are quirk cards: \
they must be played before any other card of the round."""

[board]
facing = "E"
walls = ["0,4,E", "0,0,N", "4,0,N", "5,3,S"]
map = """
.......
#.#.R..
..#.#.L
.#..#..
.#.#...
...#.#.
Q......
"""

[battery]
track = 6
yellow = 3
green = 5

[deck]
add = { RN = 2 }
remove = { F3 = 1 }
first = ["RN"]

[[tokens]]
id = "stage"
kind = "stage"
at = [0, 6]

[objective]
text = "Reach the stage in the north-west corner facing west."
reach = [0, 6]
facing = "W"
'''
