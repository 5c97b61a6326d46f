"""Gridopolis, the "Matrix" game (rulebook ``../shared/seeds/002_710f66395df92b4b.txt``).

A three-dimensional grid-set of pads at ``(x, y, level)``; pawns race to an opponent's
start row to become kings, jumping, capturing, transmitting through hyper-pads, blocking
pads and adding pads.  Rules and interpretations: docs/rules/gridopolis.md.
"""

from __future__ import annotations

from engine.gridopolis.layout import SEATS, seats_for, standard_layout
from engine.gridopolis.moves import (
    AddPad,
    EndTurn,
    Jump,
    Kamikaze,
    Move,
    Pass,
    PlaceBlocker,
    Step,
    parse_move,
)
from engine.gridopolis.pads import DIRECTIONS, Pad
from engine.gridopolis.serialize import read_state, state_from_json, state_to_json, validate_state
from engine.gridopolis.state import FORWARD_VECTORS, Marker, Player, State, new_state

__all__ = [
    "DIRECTIONS",
    "FORWARD_VECTORS",
    "SEATS",
    "AddPad",
    "EndTurn",
    "Jump",
    "Kamikaze",
    "Marker",
    "Move",
    "Pad",
    "Pass",
    "PlaceBlocker",
    "Player",
    "State",
    "Step",
    "new_state",
    "parse_move",
    "read_state",
    "seats_for",
    "standard_layout",
    "state_from_json",
    "state_to_json",
    "validate_state",
]
