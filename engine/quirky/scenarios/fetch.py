"""Shipped scenario 'fetch' (a Boardside original; TOML, docs/rules/quirky.md section 4)."""

TEXT = r'''# Boardside original scenario (the rulebook's scenario book is not available).
id = "fetch"
title = "Fetch!"
robot = "rover"
difficulty = 2
description = """Rover has to bring the ball back to its basket. Pick Up loads the ball on \
Rover's bed; Drop unloads it. \
The Move Token card rolls the ball one space toward Rover (it is ignored while Rover carries the ball)."""

[board]
facing = "E"
map = """
......
.#..#.
...#..
......
Q.#...
"""

[battery]
track = 6
yellow = 3
green = 5

[deck]
add = { PK = 3, DR = 3, "MT:ball>robot" = 2 }

[[tokens]]
id = "ball"
kind = "ball"
at = [4, 2]

[[tokens]]
id = "basket"
kind = "basket"
fixed = true
at = [0, 3]

[objective]
text = "Drop the ball in the basket."
deliver = { ball = [0, 3] }
'''
