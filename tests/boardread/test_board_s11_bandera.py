"""Session 11, Captura la Bandera: a blue character on a purple cube (docs/boards_vision.md, "Session 11: Bandera on
fresh pictures"). Rendered pictures (SIMULATED photographs, development renders committed in
tests/boardread/data/bandera_dev/, README there), each read with ``character_toward_deg`` on and off; each test fails
with it 0 in ``config_for`` (its first assertions)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from tests.boardread.test_board_round7_bandera import _read
from vision.board_classify import config_for

DATA = Path(__file__).resolve().parent / "data" / "bandera_dev"


def _characters(name: str) -> dict[tuple[int, int], str]:
    doc = json.loads((DATA / f"{name}.json").read_text())
    return {(int(c["x"]), int(c["y"])): str(c["colour"]) for c in doc["cells"] if c["piece"] == "character"}


def _check(name: str, on_cube: tuple[int, int], royal: tuple[int, int]) -> None:
    cfg = config_for("bandera")
    assert cfg.character_toward_deg > 0
    truth = _characters(name)
    assert truth.get(on_cube) == "blue" and royal not in truth
    on = _read(name)
    assert (on[on_cube].character, on[on_cube].character_colour) == (True, "blue"), on[on_cube]
    assert (on[royal].kind, on[royal].colour, on[royal].character) == ("royal_tower", "blue", False), on[royal]
    off = _read(name, replace(cfg, character_toward_deg=0.0))
    # off: the character is not seen on the purple cube, and blue's is put on its royal tower by the rule that
    # a player's unseen character stands there (``character_by_flag``)
    assert not off[on_cube].character, off[on_cube]
    assert (off[royal].kind, off[royal].character_colour) == ("royal_tower", "blue"), off[royal]
    rest = [k for k in on if k[:2] not in (on_cube, royal)]
    assert {k: (on[k].kind, on[k].cubes, on[k].colour, on[k].character_colour) for k in rest} == \
        {k: (off[k].kind, off[k].cubes, off[k].colour, off[k].character_colour) for k in rest}


def test_a_blue_character_on_a_purple_cube_next_to_its_royal_tower() -> None:
    """Render s11_rchk_008 (cold light): blue's character stands on the purple cube (1, 1), next to blue's royal tower
    (0, 1). Its probes show a hue some 20 degrees from the cube's face, bluer; the fixed margins (35 degrees, or 8
    and nearer a player's prototype than the cube's hue) took it for the cube. Turned from the cube's hue towards
    blue by 15 degrees or more, and as much nearer blue's plastic: a character."""
    _check("s11_rchk_008", (1, 1), (0, 1))


def test_a_blue_character_on_a_purple_cube_in_another_scene() -> None:
    """Render s11_hchk_003 (cold light, another table): the same on the purple cube (0, 2), beside blue's royal tower
    (0, 3)."""
    _check("s11_hchk_003", (0, 2), (0, 3))
