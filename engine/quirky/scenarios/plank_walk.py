"""Shipped scenario 'plank-walk' (a Boardside original; TOML, docs/rules/quirky.md section 4)."""

TEXT = r'''# Boardside original scenario (the rulebook's scenario book is not available).
id = "plank-walk"
title = "Plank Walk"
robot = "rover"
difficulty = 4
description = """Rover hauls a long plank to the workshop. The plank sticks out one space behind Rover: \
any command that would make it hang past a wall or the edge of the board is ignored."""

[board]
facing = "N"
walls = ["1,1,E", "1,2,E", "1,3,E", "3,2,E", "3,3,E", "3,4,E", "4,0,N", "5,0,N"]
map = """
..#...
......
......
......
......
Q.....
"""

[battery]
track = 7
yellow = 3
green = 5

[deck]
add = { PK = 3, DR = 3, J2 = 1 }

[[tokens]]
id = "plank"
kind = "plank"
at = [0, 4]
long = true

[[tokens]]
id = "bench"
kind = "bench"
fixed = true
at = [5, 0]

[objective]
text = "Deliver the plank to the workbench in the south-east corner."
deliver = { plank = [5, 0] }
'''
