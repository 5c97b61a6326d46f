"""Pixel classes produced by the classify stage and consumed by the reconstruct stage."""

from __future__ import annotations

from enum import IntEnum


class Label(IntEnum):
    BACKGROUND = 0  # mat paper, mat print, table, clutter: anything that is not a piece
    CUBE = 1  # the Central Cube's black plastic
    BLUE = 2
    PINK = 3
    YELLOW = 4
    GREEN = 5
    POLE = 6  # a flag pole (dark, thin)
    UNKNOWN = 255


COLOR_LABELS: dict[str, Label] = {"blue": Label.BLUE, "pink": Label.PINK, "yellow": Label.YELLOW,
                                  "green": Label.GREEN}
LABEL_COLORS: dict[int, str] = {int(v): k for k, v in COLOR_LABELS.items()}
#: Labels that show the ray reached something that is not a block (evidence of free space).
FREE_LABELS = (Label.BACKGROUND, Label.CUBE)
N_LABELS = 8  # 0..7 used for counting; UNKNOWN is dropped before counting
