"""Session 15, Captura la Bandera: a stack read on the square next to the one it stands on
(docs/boards_vision.md, "Session 15: Bandera stacks"). Rendered pictures (SIMULATED photographs, development renders
committed in tests/boardread/data/bandera_dev/, README there), each read with ``foot_shift`` on and off; each test
fails with it off in ``config_for``. A cube stands on its square (docs/rules/bandera.md, section 2), so its foot on
the side towards the camera shows it."""

from __future__ import annotations

from dataclasses import replace

from tests.boardread.test_board_round7_bandera import _read
from vision.board_classify import config_for


def test_a_royal_tower_read_one_square_behind_where_it_stands() -> None:
    """Render s15s_h10_005 (warm light): blue's royal tower (teal under ivory) stands on (0, 0); the solve put it on
    (0, 1), whose probes see the tower over them, and left (0, 0) empty (its ivory top cube looks like the paper). The
    foot of (0, 1) towards the camera shows no piece, every lowest probe of (0, 0) shows one: the tower is moved."""
    cfg = config_for("bandera")
    assert cfg.foot_shift > 0
    on = _read("s15s_h10_005")
    assert (on[(0, 0)].kind, on[(0, 0)].colour) == ("royal_tower", "blue"), on[(0, 0)]
    assert on[(0, 1)].kind == "empty", on[(0, 1)]
    off = _read("s15s_h10_005", replace(cfg, foot_shift=0.0))
    assert off[(0, 0)].kind == "empty", off[(0, 0)]
    assert off[(0, 1)].kind == "royal_tower", off[(0, 1)]


def test_a_cube_read_as_a_two_cube_tower_on_the_square_beside_it() -> None:
    """Render s15s_b2_005 (warm light): a single cube stands on (7, 1) and (6, 1) is empty; the solve read a two-cube
    tower on (6, 1) and nothing on (7, 1). The bare foot of (6, 1) and the piece at every foot probe of (7, 1) move
    it: one cube on (7, 1), (6, 1) empty."""
    cfg = config_for("bandera")
    on = _read("s15s_b2_005")
    assert (on[(7, 1)].kind, on[(7, 1)].cubes) == ("cube", 1), on[(7, 1)]
    assert on[(6, 1)].kind == "empty", on[(6, 1)]
    off = _read("s15s_b2_005", replace(cfg, foot_shift=0.0))
    assert off[(7, 1)].kind == "empty", off[(7, 1)]
    assert off[(6, 1)].cubes == 2, off[(6, 1)]
