"""Session 14, Captura la Bandera: a character seen over a square read empty (docs/boards_vision.md, "Session 14:
Bandera cells by cause"). Rendered pictures (SIMULATED photographs, development renders committed in
tests/boardread/data/bandera_dev/, README there), each read with ``character_on_empty`` on and off; each test fails
with it 0 in ``config_for`` (its first assertions)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from tests.boardread.test_board_round7_bandera import _read
from vision.board_classify import config_for

DATA = Path(__file__).resolve().parent / "data" / "bandera_dev"


def _check(name: str, cell: tuple[int, int], royal: tuple[int, int], colour: str) -> None:
    cfg = config_for("bandera")
    assert cfg.character_on_empty > 0
    doc = json.loads((DATA / f"{name}.json").read_text())
    truth = {(int(c["x"]), int(c["y"])): str(c["piece"]) for c in doc["cells"] if c["piece"] != "character"}
    chars = {(int(c["x"]), int(c["y"])): str(c["colour"]) for c in doc["cells"] if c["piece"] == "character"}
    assert truth.get(cell) == "cube" and chars.get(cell) == colour and royal not in chars
    on = _read(name)
    got = on[cell]
    assert (got.kind, got.cubes, got.character_colour) == ("cube", 1, colour), got
    assert any("stands only on cubes" in n for n in got.notes), got.notes
    assert (on[royal].kind, on[royal].colour, on[royal].character) == ("royal_tower", colour, False), on[royal]
    off = _read(name, replace(cfg, character_on_empty=0))
    # off: the pale cube is read empty, and the unseen character is put on its royal tower (``character_by_flag``)
    assert off[cell].kind == "empty", off[cell]
    assert (off[royal].kind, off[royal].character_colour) == ("royal_tower", colour), off[royal]
    rest = [k for k in on if k[:2] not in (cell, royal)]
    assert {k: (on[k].kind, on[k].cubes, on[k].colour, on[k].character_colour) for k in rest} == \
        {k: (off[k].kind, off[k].cubes, off[k].colour, off[k].character_colour) for k in rest}


def test_a_red_character_on_an_ivory_cube_read_empty_beside_its_royal_tower() -> None:
    """Render s14_h11_009 (warm light): red's character stands on the ivory cube (9, 4) on the pink paved column,
    next to red's royal tower (9, 3). The cube's faces match the print and no probe shows it; the character does,
    on 14 probes one cube high. A character stands only on cubes: the square holds one, carrying it."""
    _check("s14_h11_009", (9, 4), (9, 3), "red")


def test_a_red_character_on_an_ivory_cube_in_another_scene() -> None:
    """Render s14_bp_005 (warm light, another table): the same on the ivory cube (8, 0), beside red's royal tower
    (9, 0)."""
    _check("s14_bp_005", (8, 0), (9, 0), "red")


def test_a_character_read_on_its_royal_tower_is_the_one_over_the_pale_cube_next_to_it() -> None:
    """Render s14_h10b_005 (warm light): blue's character stands on the ivory cube (1, 0), read empty, next to blue's
    royal tower (0, 0); seen past the tower, it is read there too (behind its banner). Read clearly one cube high over
    the square next to the tower (``character_on_empty_royal``), it is that square's: a cube carrying it, and the
    tower bare. Off, the tower keeps the character and the cube is read empty."""
    cfg = config_for("bandera")
    assert cfg.character_on_empty > 0 and cfg.character_on_empty_royal
    on = _read("s14_h10b_005")
    assert (on[(1, 0)].kind, on[(1, 0)].cubes, on[(1, 0)].character_colour) == ("cube", 1, "blue"), on[(1, 0)]
    assert (on[(0, 0)].kind, on[(0, 0)].colour, on[(0, 0)].character) == ("royal_tower", "blue", False), on[(0, 0)]
    off = _read("s14_h10b_005", replace(cfg, character_on_empty_royal=False))
    assert off[(1, 0)].kind == "empty", off[(1, 0)]
    assert (off[(0, 0)].kind, off[(0, 0)].character_colour) == ("royal_tower", "blue"), off[(0, 0)]
