"""CTRL: 3D blocks on a 3x3x3 Central Cube (rulebook: shared/seeds/001_1525aa0c305d7bb7.txt).

Rules implemented and interpretations: docs/rules/ctrl.md.
"""

from engine.ctrl.geometry import CENTRAL_CUBE, DIRECTIONS, SIDES, Cell
from engine.ctrl.moves import CtrlMove, FlagSpot, NoFlag, Pass, Placement, Turn, parse_move
from engine.ctrl.record import GameRecord
from engine.ctrl.state import BLOCKS_PER_COLOR, COLORS, DEFAULT_STARTS, State, new_state
from engine.ctrl.validate import check_setup, validate_state

__all__ = [
    "BLOCKS_PER_COLOR",
    "CENTRAL_CUBE",
    "COLORS",
    "DEFAULT_STARTS",
    "DIRECTIONS",
    "SIDES",
    "Cell",
    "CtrlMove",
    "FlagSpot",
    "GameRecord",
    "NoFlag",
    "Pass",
    "Placement",
    "State",
    "Turn",
    "check_setup",
    "new_state",
    "parse_move",
    "validate_state",
]
