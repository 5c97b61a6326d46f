"""Bandera round 8 (docs/boards_vision.md): mechanisms chosen on the development renders, tested on
development renders committed in tests/boardread/data/bandera_dev/ (rendered photographs, SIMULATED;
README there).  Checked: each test fails with its mechanism off."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.boardread.test_board_round7_bandera import _read
from vision.board_classify import config_for


@pytest.mark.parametrize(("name", "cell", "colour"), [("dev_311", (9, 0), "red"), ("dev_011", (0, 1), "blue")])
def test_a_banner_in_front_of_the_top_cube_does_not_hide_the_royal_towers_character(
        name: str, cell: tuple[int, int], colour: str) -> None:
    """Renders dev_311 (red's royal tower at (9, 0), two wood cubes) and dev_011 (blue's at (0, 1), an
    ivory cube on top), both in dim light, each with its character of the flag's colour beside the
    pole.  The banner and pole are seen in front of the top cube's face as a stripe of the flag's colour,
    which made the cube itself look red (blue): the character's probes then differed too little from
    "the cube's" hue.  Read without the face probes showing a player's plastic
    (``character_banner_deg``), the cube is wood (ivory) and the character is found; without it, not."""
    cfg = config_for("bandera")
    assert cfg.character_banner_deg > 0
    on = _read(name)[cell]
    assert (on.kind, on.colour, on.character_colour) == ("royal_tower", colour, colour), on
    off = _read(name, replace(cfg, character_banner_deg=0.0))[cell]
    assert (off.kind, off.colour, off.character_colour) == ("royal_tower", colour, None), off
