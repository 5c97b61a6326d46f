"""Shipped scenario 'double-delivery' (a Boardside original; TOML, docs/rules/quirky.md section 4)."""

TEXT = r'''# Boardside original scenario (the rulebook's scenario book is not available).
id = "double-delivery"
title = "Double Delivery"
robot = "penny"
difficulty = 4
description = """The cup and the book lie together under the cat's cushion. Penny must carry the cup \
to the kitchen (north-west) and the book to the shelf (north-east). Picking up from a space \
with several tokens, the players choose which one. Drop always uses the right hand; Swap \
exchanges the hands."""

[board]
facing = "N"
walls = ["1,2,E", "3,1,N"]
map = """
.....
.#.#.
..#..
Q....
"""

[battery]
track = 6
yellow = 3
green = 5

[deck]
add = { PK = 3, DR = 3, SW = 2 }

[[tokens]]
id = "cushion"
kind = "cushion"
fixed = true
at = [3, 0]

[[tokens]]
id = "cup"
kind = "cup"
at = [3, 0]

[[tokens]]
id = "book"
kind = "book"
at = [3, 0]

[objective]
text = "Cup to the kitchen corner, book to the shelf corner."
deliver = { cup = [0, 3], book = [4, 3] }
'''
