"""Shipped scenario 'kitchen-crumbs' (a Boardside original; TOML, docs/rules/quirky.md section 4)."""

TEXT = r'''# Boardside original scenario (the rulebook's scenario book is not available).
id = "kitchen-crumbs"
title = "Kitchen Crumbs"
robot = "gizmo"
difficulty = 3
description = """Crumbs everywhere after breakfast. Gizmo must vacuum every crumb without bumping \
the table with grandma's vase on it: if the vase falls, it breaks and the game is lost. \
The rugs (L, R) stop Gizmo and turn it."""

[board]
facing = "E"
walls = ["2,0,N", "5,4,W", "5,3,W"]
map = """
....#..
.L.....
..#..R.
..#....
....#..
Q......
"""

[battery]
track = 6
yellow = 3
green = 5

[[tokens]]
id = "vase"
kind = "vase"
at = [4, 5]

[[tokens]]
id = "crumb1"
kind = "dust"
at = [6, 5]

[[tokens]]
id = "crumb2"
kind = "dust"
at = [0, 4]

[[tokens]]
id = "sock"
kind = "sock"
at = [3, 1]

[[tokens]]
id = "crumb3"
kind = "dust"
at = [3, 1]

[[tokens]]
id = "crumb4"
kind = "dust"
at = [6, 2]

[objective]
text = "Vacuum all four crumbs without breaking the vase."
collect = ["dust"]
intact = ["vase"]
'''
