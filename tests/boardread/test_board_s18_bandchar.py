"""Session 18, Captura la Bandera: characters read where none stands, and one dropped whose royal tower's banner is
outside the picture (docs/boards_vision.md, "Session 18: Bandera pieces"). Rendered pictures (SIMULATED photographs,
development renders committed in tests/boardread/data/bandera_dev/, README there), each read with its rule on and off;
each read with the session's switches on and with them off (their default: none improved a check set, so
``config_for`` leaves them off); every test fails on the code before them (the switches did not exist). A character
stands only on cubes and each player has one (docs/rules/bandera.md, sections 1 and 6); the players sit blue, red,
green, yellow (section 3)."""

from __future__ import annotations

from dataclasses import replace

from tests.boardread.test_board_round7_bandera import _read
from vision.board_classify import (
    CHARACTER_PAST_PIECE,
    CHARACTER_PROTO_DEG,
    CHARACTER_SEATS_UNSEEN_PX,
    ClassifyBoardConfig,
    config_for,
)


def _on() -> ClassifyBoardConfig:
    """Bandera's configuration with session 18's three exclusion rules on (``CHARACTER_PROTO_DEG`` apart)."""
    return replace(config_for("bandera"), character_past_piece=CHARACTER_PAST_PIECE, character_one_colour=True,
                   character_seats_unseen_px=CHARACTER_SEATS_UNSEEN_PX)


def test_the_switches_are_off_by_default() -> None:
    cfg = config_for("bandera")
    assert cfg.character_past_piece == 0 and not cfg.character_one_colour
    assert cfg.character_seats_unseen_px == 0 and cfg.character_proto_deg == 0


def _char(cells: dict, key: tuple[int, int]) -> tuple[str, int, str | None]:  # type: ignore[type-arg]
    c = cells[key]
    return (c.kind, c.cubes, c.character_colour)


def test_the_green_table_seen_past_a_dark_royal_towers_top_is_no_character() -> None:
    """Render s18_d4_005 (warm light, camera 39 degrees up): red's royal tower (9, 0), a dark grey cube on an orange
    one, stands at the board's corner with the green table behind it. Probes over its top near the far edge, whose
    rays go on to the top, show the table's green (the top's edge a pixel or two off): on a grey cube every colour
    differs from the cube, and six such probes made a green character. They show what the ray would meet past the
    tower, so they see past the top's edge (``character_past_piece``). Off, a green character is read there."""
    cfg = _on()
    on = _read("s18_d4_005", cfg)
    assert _char(on, (9, 0)) == ("royal_tower", 2, None), on[(9, 0)]
    assert on[(9, 0)].colour == "red"
    assert _char(on, (8, 0)) == ("cube", 1, "red"), on[(8, 0)]  # red's character, beside it, is still read
    off = _read("s18_d4_005", replace(cfg, character_past_piece=0.0))
    assert _char(off, (9, 0)) == ("royal_tower", 2, "green"), off[(9, 0)]


def test_a_character_needs_enough_probes_of_its_own_colour() -> None:
    """Render s18_d4_008 (cold light): red's royal tower (9, 0), two orange cubes, against the green table. With the
    table seen past the top's edge left out, six probes still show player colours over the top -- three the table's
    green (past the tower, the table's colour varies), three the orange top's yellowish rim -- and the first colour
    seen, yellow, was read on three. A character is of one colour, seen on enough probes of it
    (``character_one_colour``). Off, a yellow character is read; both rules off, a green one."""
    cfg = _on()
    on = _read("s18_d4_008", cfg)
    assert _char(on, (9, 0)) == ("royal_tower", 2, None), on[(9, 0)]
    assert _char(on, (8, 6)) == ("cube", 1, "green"), on[(8, 6)]  # green's character is read where it stands
    off = _read("s18_d4_008", replace(cfg, character_one_colour=False))
    assert _char(off, (9, 0)) == ("royal_tower", 2, "yellow"), off[(9, 0)]
    both = _read("s18_d4_008", replace(cfg, character_one_colour=False, character_past_piece=0.0))
    assert _char(both, (9, 0)) == ("royal_tower", 2, "green"), both[(9, 0)]


def test_a_character_is_kept_when_its_royal_towers_banner_is_outside_the_picture() -> None:
    """Render s18_d2_007 (warm light, camera 78 degrees up), a game of blue, red and green: green's character stands
    on the dark cube (9, 5) in plain view; green's royal tower (9, 6) stands at the picture's bottom edge, its
    banner outside the picture, so no green flag is read. ``character_seats`` dropped the character (green sits
    after every flag read); a square of green's rail whose banner is outside the picture says nothing of whether
    green plays (``character_seats_unseen_px``). Off, the character is dropped with a note."""
    cfg = _on()
    on = _read("s18_d2_007", cfg)
    assert _char(on, (9, 5)) == ("cube", 1, "green"), on[(9, 5)]
    off = _read("s18_d2_007", replace(cfg, character_seats_unseen_px=0.0))
    assert _char(off, (9, 5)) == ("cube", 1, None), off[(9, 5)]
    assert any("taken not to play" in n for n in off[(9, 5)].notes), off[(9, 5)].notes


def test_a_teal_top_named_green_far_from_greens_hue_is_no_character() -> None:
    """Render s18_d5_005 (warm light, camera 40 degrees up): the teal cube (8, 3) carries nothing; its top, lit, is
    bluish green (hue about 195 degrees, chroma 25-27) against its face's bluer teal (235 degrees), so seven probes
    over it differ from the face and are named green, the nearest player colour -- 45 degrees from green's
    prototype (150), where the characters' plastic is seen within 12 (development, 72 tables). With
    ``character_proto_deg`` (34) it is no character; at 0 (off, the default: see docs) a green one is read."""
    cfg = _on()
    on = _read("s18_d5_005", replace(cfg, character_proto_deg=CHARACTER_PROTO_DEG))
    assert _char(on, (8, 3)) == ("cube", 1, None), on[(8, 3)]
    off = _read("s18_d5_005", replace(cfg, character_proto_deg=0.0))
    assert _char(off, (8, 3)) == ("cube", 1, "green"), off[(8, 3)]
