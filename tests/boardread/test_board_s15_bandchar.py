"""Session 15, Captura la Bandera: characters missed on plain stacks and put on their royal towers instead
(docs/boards_vision.md, "Session 15: Bandera characters"). Rendered pictures (SIMULATED photographs, development renders
committed in tests/boardread/data/bandera_dev/, README there), each read with its rule on and off; each test fails
with that rule off in ``config_for`` (its first assertions). A character stands only on cubes and each player has
one (docs/rules/bandera.md, sections 1 and 6)."""

from __future__ import annotations

from dataclasses import replace

from tests.boardread.test_board_round7_bandera import _read
from vision.board_classify import config_for


def _char(cells: dict, key: tuple[int, int]) -> tuple[str, int, str | None]:  # type: ignore[type-arg]
    c = cells[key]
    return (c.kind, c.cubes, c.character_colour)


def test_a_character_on_a_cube_whose_face_is_hidden_by_a_royal_tower_behind_it() -> None:
    """Render s15_gchk_006 (dim light): red's character stands on the orange cube (8, 3), diagonally beside red's
    royal tower (9, 2). The rays through the cube's face probes went on past the cube to the tower behind it and
    beyond the board's edge, so no face probe counted and no character was looked for; a face probe is hidden only by
    what stands in front of it (``character_face_to_point``). Off, the character is put on the royal tower."""
    cfg = config_for("bandera")
    assert cfg.character_face_to_point
    on = _read("s15_gchk_006")
    assert _char(on, (8, 3)) == ("cube", 1, "red"), on[(8, 3)]
    assert (on[(9, 2)].kind, on[(9, 2)].character) == ("royal_tower", False), on[(9, 2)]
    off = _read("s15_gchk_006", replace(cfg, character_face_to_point=False))
    assert _char(off, (8, 3)) == ("cube", 1, None), off[(8, 3)]
    assert off[(9, 2)].character_colour == "red", off[(9, 2)]


def test_a_green_character_on_a_teal_cube_whose_face_is_in_shade() -> None:
    """Render s15_hchk_007 (warm, hard light): green's character stands on the teal cube (8, 5) beside green's royal
    tower (9, 5). The cube's face is grey in shade, so every probe over the top differed from it, the teal top was
    named green, and the top-face test then dropped the whole reading. Probes of another hue than the top's, enough of
    them, still show a character (``character_top_rest``). Off, it is put on the royal tower."""
    cfg = config_for("bandera")
    assert cfg.character_top_rest
    on = _read("s15_hchk_007")
    assert _char(on, (8, 5)) == ("cube", 1, "green"), on[(8, 5)]
    assert (on[(9, 5)].kind, on[(9, 5)].character) == ("royal_tower", False), on[(9, 5)]
    off = _read("s15_hchk_007", replace(cfg, character_top_rest=False))
    assert _char(off, (8, 5)) == ("cube", 1, None), off[(8, 5)]
    assert off[(9, 5)].character_colour == "green", off[(9, 5)]


def test_a_centred_character_on_an_orange_cube_wins_over_its_royal_towers_banner() -> None:
    """Render s15_gdev_003 (cold light): blue's character stands in the middle of the orange cube (0, 2); blue's royal
    tower (0, 4), two squares away, carries only its blue banner, read as a character too. One character per player:
    the plain stack's, seen centred over a top whose own colour (orange, far from blue) shows round it, wins
    (``character_own_plain_mm``). Off, the royal tower's is kept and the cube's dropped."""
    cfg = config_for("bandera")
    assert cfg.character_own_plain_mm > 0
    on = _read("s15_gdev_003")
    assert _char(on, (0, 2)) == ("cube", 1, "blue"), on[(0, 2)]
    assert (on[(0, 4)].kind, on[(0, 4)].character) == ("royal_tower", False), on[(0, 4)]
    assert any("banner" in n for n in on[(0, 4)].notes), on[(0, 4)].notes
    off = _read("s15_gdev_003", replace(cfg, character_own_plain_mm=0.0))
    assert _char(off, (0, 2)) == ("cube", 1, None), off[(0, 2)]
    assert off[(0, 4)].character_colour == "blue", off[(0, 4)]
