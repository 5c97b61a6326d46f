"""A top-down picture of a Captura la Bandera position (OpenCV drawing, north at the top).

Squares are drawn as on the printed board of the project's layout (docs/rules/bandera.md):
zone A dark, zone B blue-tinted, zone C red-tinted, paved edge squares with a brick pattern.
A cube is a grey square with its count (1 or 2); a royal tower carries its owner's flag (a
coloured pennant); characters are coloured discs with the player's initial.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from engine.bandera import State
from engine.bandera.board import HEIGHT, PAVED, WIDTH, ZONE_A, ZONE_B, ZONE_C
from engine.bandera.text import initials

BGR = tuple[int, int, int]

PLAYER_COLOURS: dict[str, BGR] = {
    "blue": (200, 110, 30),
    "red": (40, 40, 210),
    "green": (40, 150, 40),
    "yellow": (0, 200, 235),
}
_FALLBACK: list[BGR] = [(150, 60, 150), (30, 120, 200), (120, 120, 0), (90, 90, 90)]

PLAIN: BGR = (225, 232, 236)
ZONE_A_COLOUR: BGR = (70, 70, 70)
ZONE_B_COLOUR: BGR = (235, 205, 170)
ZONE_C_COLOUR: BGR = (175, 185, 240)
CUBE: BGR = (150, 150, 150)
CUBE_EDGE: BGR = (60, 60, 60)


def player_colour(state: State, player: str) -> BGR:
    return PLAYER_COLOURS.get(player, _FALLBACK[state.players.index(player) % len(_FALLBACK)])


def square_box(x: int, y: int, cell: int, margin: int) -> tuple[int, int, int, int]:
    """Pixel box ``(left, top, right, bottom)`` of square ``(x, y)`` (north at the top)."""
    left = margin + x * cell
    top = margin + (HEIGHT - 1 - y) * cell
    return left, top, left + cell, top + cell


def draw(state: State, cell: int = 80, title: str | None = None) -> np.ndarray[Any, Any]:
    """The picture as a BGR image."""
    margin = cell // 2
    banner = cell // 2 + 10
    w = 2 * margin + WIDTH * cell
    h = 2 * margin + HEIGHT * cell + banner
    img = np.full((h, w, 3), 255, np.uint8)
    font = cv2.FONT_HERSHEY_SIMPLEX
    scale = cell / 80
    royal_sq = {sq: p for p, sq in state.royal.items()}
    ini = initials(state.players)
    for y in range(HEIGHT):
        for x in range(WIDTH):
            sq = (x, y)
            left, t, r, b = square_box(x, y, cell, margin)
            colour = PLAIN
            if sq in ZONE_A:
                colour = ZONE_A_COLOUR
            elif sq in ZONE_B:
                colour = ZONE_B_COLOUR
            elif sq in ZONE_C:
                colour = ZONE_C_COLOUR
            cv2.rectangle(img, (left, t), (r, b), colour, -1)
            if sq in PAVED:  # a brick pattern near the border of the square
                for k in range(1, 4):
                    yy = t + k * cell // 4
                    cv2.line(img, (left + 2, yy), (left + cell // 8, yy), (120, 120, 120), 1)
                    cv2.line(img, (r - cell // 8, yy), (r - 2, yy), (120, 120, 120), 1)
            cv2.rectangle(img, (left, t), (r, b), (110, 110, 110), 1)
            if sq in ZONE_A:
                cv2.putText(
                    img,
                    "A",
                    (left + cell // 2 - 6, t + cell // 2 + 6),
                    font,
                    0.6 * scale,
                    (230, 230, 230),
                    1,
                    cv2.LINE_AA,
                )
            h_sq = state.stacks.get(sq, 0)
            if h_sq:
                inset = cell // 8
                cv2.rectangle(img, (left + inset, t + inset), (r - inset, b - inset), CUBE, -1)
                cv2.rectangle(img, (left + inset, t + inset), (r - inset, b - inset), CUBE_EDGE, 2)
                if h_sq == 2:  # the second cube: an inner outline
                    i2 = cell // 4
                    cv2.rectangle(img, (left + i2, t + i2), (r - i2, b - i2), CUBE_EDGE, 2)
                cv2.putText(
                    img,
                    str(h_sq),
                    (left + inset + 3, t + inset + int(16 * scale)),
                    font,
                    0.5 * scale,
                    (0, 0, 0),
                    1,
                    cv2.LINE_AA,
                )
            if sq in royal_sq:
                owner = royal_sq[sq]
                pole_x = left + cell // 2
                cv2.line(img, (pole_x, t + cell // 6), (pole_x, t + cell // 2), (30, 30, 30), 2)
                pennant = np.array(
                    [[pole_x, t + cell // 6], [pole_x + cell // 3, t + cell // 4], [pole_x, t + cell // 3]],
                    np.int32,
                )
                cv2.fillPoly(img, [pennant], player_colour(state, owner))
            chars = state.chars_at(sq)
            for k, p in enumerate(chars):
                cx = left + cell // 4 + (k % 2) * cell // 2
                cy = b - cell // 4 - (k // 2) * cell // 4
                rad = max(4, cell // 7)
                cv2.circle(img, (cx, cy), rad, player_colour(state, p), -1)
                cv2.circle(img, (cx, cy), rad, (0, 0, 0), 1)
                cv2.putText(
                    img, ini[p], (cx - rad // 2, cy + rad // 2), font, 0.4 * scale, (255, 255, 255), 1, cv2.LINE_AA
                )
    for x in range(WIDTH):  # coordinates
        left, _, r, _ = square_box(x, 0, cell, margin)
        cv2.putText(
            img,
            str(x),
            ((left + r) // 2 - 5, margin + HEIGHT * cell + margin // 2 + 5),
            font,
            0.45 * scale,
            (0, 0, 0),
            1,
            cv2.LINE_AA,
        )
    for y in range(HEIGHT):
        _, t, _, b = square_box(0, y, cell, margin)
        cv2.putText(img, str(y), (margin // 3, (t + b) // 2 + 5), font, 0.45 * scale, (0, 0, 0), 1, cv2.LINE_AA)
    text = title if title is not None else _title(state)
    cv2.putText(img, text, (margin, h - banner // 3), font, 0.5 * scale, (0, 0, 0), 1, cv2.LINE_AA)
    return img


def _title(state: State) -> str:
    if state.is_terminal():
        return f"game over - winner {' and '.join(state.winners())}"
    if state.phase == "start":
        return "set-up: roll-off to decide who begins"
    extra = f", roll {state.movement_roll}, {state.points} left" if state.phase == "move" else ""
    return f"turn {state.turn}: {state.to_move} ({state.phase}{extra}); {state.supply} cubes off the board"
