"""Session 16, Captura la Bandera: a royal tower whose banner, seen edge-on, shows on a single probe
(docs/boards_vision.md, "Session 16: Bandera royal towers"). Rendered picture (SIMULATED photograph, a development
render committed in tests/boardread/data/bandera_dev/, README there), read with ``flag_by_character_tower`` on and
off; the test fails with it off in ``config_for``. One flag per player, only on its royal tower, two cubes on its
paved squares (docs/rules/bandera.md, sections 1 and 3)."""

from __future__ import annotations

from dataclasses import replace

from tests.boardread.test_board_round7_bandera import _read
from vision.board_classify import config_for


def test_a_royal_tower_whose_banner_shows_on_one_probe_is_read_royal() -> None:
    """Render s16r_h13_003 (cold light): red's royal tower stands on (9, 3) with red's character on it, a plain tower
    on (9, 0) of red's paved squares too. Red's flag is read nowhere (its thin banner, seen edge-on, shows red on one
    probe), so (9, 3) was read as a plain tower; with a two-cube stack needing one probe it is red's royal tower, with
    a note (a rule's reading: unsure), and (9, 0) stays plain."""
    cfg = config_for("bandera")
    assert cfg.flag_by_character_tower == 1
    on = _read("s16r_h13_003")
    assert (on[(9, 3)].kind, on[(9, 3)].colour) == ("royal_tower", "red"), on[(9, 3)]
    assert any("character is on the board" in n for n in on[(9, 3)].notes), on[(9, 3)].notes
    assert on[(9, 0)].kind == "tower2", on[(9, 0)]
    off = _read("s16r_h13_003", replace(cfg, flag_by_character_tower=0))
    assert off[(9, 3)].kind == "tower2", off[(9, 3)]
