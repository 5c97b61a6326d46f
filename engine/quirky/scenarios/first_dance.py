"""Shipped scenario 'first-dance' (a Boardside original; TOML, docs/rules/quirky.md section 4)."""

TEXT = r'''# Boardside original scenario (the rulebook's scenario book is not available).
id = "first-dance"
title = "First Dance"
robot = "twirl"
difficulty = 1
description = """Twirl glides across the stage to take a bow in the spotlight. Remember her momentum: \
after a Forward 2 she slides one more space after the next card."""

[board]
facing = "N"
map = """
......
..#...
......
.#..#.
Q.....
"""

[battery]
track = 6
yellow = 3
green = 5

[[tokens]]
id = "spotlight"
kind = "spotlight"
at = [5, 4]

[objective]
text = "Stand on the spotlight (top right) facing the audience (north)."
reach = [5, 4]
facing = "N"
'''
