"""Shipped scenario 'tea-party' (a Boardside original; TOML, docs/rules/quirky.md section 4)."""

TEXT = r'''# Boardside original scenario (the rulebook's scenario book is not available).
id = "tea-party"
title = "Tea Party"
robot = "penny"
difficulty = 2
description = """Penny serves tea: carry the teapot to the table. Penny picks up with her \
right hand first and drops from her right hand."""

[board]
facing = "N"
map = """
.....
.#.#.
.....
.#...
Q....
"""

[battery]
track = 6
yellow = 3
green = 5

[deck]
add = { PK = 3, DR = 3 }

[[tokens]]
id = "teapot"
kind = "teapot"
at = [2, 2]

[[tokens]]
id = "table"
kind = "table"
fixed = true
at = [4, 4]

[objective]
text = "Put the teapot on the table space."
deliver = { teapot = [4, 4] }
'''
