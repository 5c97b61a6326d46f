"""The games Boardside knows, and where each engine's entry points live."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any

from engine.core import BoardsideInputError, Problem

#: game name -> engine package.  Each exposes ``validate_state(doc) -> list[Problem]``.
GAMES: dict[str, str] = {
    "ctrl": "engine.ctrl",
    "quirky": "engine.quirky",
    "gridopolis": "engine.gridopolis",
    "bandera": "engine.bandera",
}


class UnknownGameError(BoardsideInputError):
    """A game name that Boardside does not know."""


def engine_module(game: str) -> ModuleType:
    name = game.strip().lower()
    if name not in GAMES:
        raise UnknownGameError(f"unknown game {game!r} (expected one of {', '.join(GAMES)})")
    try:
        return importlib.import_module(GAMES[name])
    except ModuleNotFoundError as exc:  # an engine not installed in this build
        raise UnknownGameError(f"the {name} engine is not available in this installation ({exc})") from None


def validator(game: str) -> Callable[[Any], list[Problem]]:
    mod = engine_module(game)
    fn = getattr(mod, "validate_state", None)
    if fn is None:
        raise UnknownGameError(f"the {game} engine has no set-up validator")
    return fn  # type: ignore[no-any-return]
