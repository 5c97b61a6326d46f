"""Helpers for the Gridopolis tests: build hand-made positions on the standard grid-set."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from engine.gridopolis import Marker, Pad, State, new_state

LETTERS = {"g": "green", "b": "blue", "r": "red", "y": "yellow"}

Builder = Callable[..., State]


def build(
    pieces: dict[str, str],
    to_move: str = "green",
    players: int = 2,
    **changes: Any,
) -> State:
    """The standard Matrix grid-set with only ``pieces`` on it: ``{"3,1,0": "g"}``, upper case
    for kings; ``changes`` replace other State fields (``blockers=...``, ``turn_limit=...``)."""
    base = new_state(players)
    markers = {Pad.parse(k): Marker(LETTERS[v.lower()], v.isupper()) for k, v in pieces.items()}
    return replace(base, markers=markers, to_move=base.player_names.index(to_move), **changes)


@pytest.fixture
def position() -> Builder:
    return build
