"""Captura la Bandera (``../shared/seeds/003_76a975bad01ed1c0.txt``): a capture-the-flag game
played with Legends of Cubes cubes on a 10x7 board.  Rules and interpretations:
``docs/rules/bandera.md``.
"""

from __future__ import annotations

from engine.bandera.board import HEIGHT, LEVELS, WIDTH, ZONE_A, ZONE_B, ZONE_C
from engine.bandera.moves import END, PASS, Move, MoveKind, parse_event, parse_step
from engine.bandera.state import BanderaOptionError, Capture, State, new_state, parse_level
from engine.bandera.text import render
from engine.bandera.validate import validate_state

__all__ = [
    "END",
    "HEIGHT",
    "LEVELS",
    "PASS",
    "WIDTH",
    "ZONE_A",
    "ZONE_B",
    "ZONE_C",
    "BanderaOptionError",
    "Capture",
    "Move",
    "MoveKind",
    "State",
    "new_state",
    "parse_event",
    "parse_level",
    "parse_step",
    "render",
    "validate_state",
]
