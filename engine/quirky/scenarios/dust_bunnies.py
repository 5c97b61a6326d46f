"""Shipped scenario 'dust-bunnies' (a Boardside original; TOML, docs/rules/quirky.md section 4)."""

TEXT = r'''# Boardside original scenario (the rulebook's scenario book is not available).
id = "dust-bunnies"
title = "Dust Bunnies"
robot = "gizmo"
difficulty = 1
description = "Gizmo's first day: three dust bunnies hide around the living room. Suck them all up."

[board]
facing = "N"
# rows run north (top) to south; . floor  # obstacle  Q start  L/R spin spaces
map = """
.....
.#...
...#.
.....
Q....
"""

[battery]
track = 6
yellow = 3
green = 5

[[tokens]]
id = "bunny1"
kind = "dust"
at = [0, 3]

[[tokens]]
id = "bunny2"
kind = "dust"
at = [2, 4]

[[tokens]]
id = "bunny3"
kind = "dust"
at = [4, 2]

[objective]
text = "Collect all three dust bunnies."
collect = ["dust"]
'''
