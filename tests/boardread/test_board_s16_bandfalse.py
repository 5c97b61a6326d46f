"""Session 16, Captura la Bandera: a two-cube tower read beside another two-cube stack where no tower's top is seen
(docs/boards_vision.md, "Session 16: Bandera false stacks"). Rendered pictures (SIMULATED photographs, development
renders committed in tests/boardread/data/bandera_dev/, README there), each read with ``tower_outline_beside`` on and
off; each test fails with it off in ``config_for``. A two-cube tower's top stands one cube (22 mm) above a single
cube's (docs/rules/bandera.md, section 2: the cubes are stacked), so its outline, its far edges against what lies
behind, is sharpest at 44 mm; a stack beside a tall one whose outline shows no such peak has no top there."""

from __future__ import annotations

from dataclasses import replace

from tests.boardread.test_board_round7_bandera import _read
from vision.board_classify import config_for


def test_a_cube_beside_a_tower_read_as_a_tower_is_one_cube() -> None:
    """Render s16_h12b_006 (dim, mixed shadows): one cube stands on (5, 2), a plain two-cube tower on (5, 1) beside
    it. The probes read (5, 2) as two cubes too (the neighbour's upper cube seen over it); its top's outline peaks at
    one cube's height and not at two: one cube, with a note (a rule's reading: unsure)."""
    cfg = config_for("bandera")
    assert cfg.tower_outline_beside
    on = _read("s16_h12b_006")
    assert (on[(5, 2)].kind, on[(5, 2)].cubes) == ("cube", 1), on[(5, 2)]
    assert any("outline" in n for n in on[(5, 2)].notes), on[(5, 2)].notes
    assert (on[(5, 1)].kind, on[(5, 1)].cubes) == ("tower2", 2), on[(5, 1)]
    off = _read("s16_h12b_006", replace(cfg, tower_outline_beside=False))
    assert (off[(5, 2)].kind, off[(5, 2)].cubes) == ("tower2", 2), off[(5, 2)]


def test_empty_squares_beside_a_royal_tower_read_as_towers_are_declined() -> None:
    """Render s16_gdev_025 (warm, soft shadows, a hand over the board): yellow's royal tower stands on (0, 6), and
    (1, 6) and (2, 6) beside it are empty; the probes read both as two-cube towers. Neither outline peaks at either
    cube height: both are declined (not read) instead of read wrong."""
    cfg = config_for("bandera")
    on = _read("s16_gdev_025")
    assert on[(0, 6)].kind == "royal_tower", on[(0, 6)]
    for k in ((1, 6), (2, 6)):
        assert on[k].kind == "unseen", on[k]
    off = _read("s16_gdev_025", replace(cfg, tower_outline_beside=False))
    for k in ((1, 6), (2, 6)):
        assert (off[k].kind, off[k].cubes) == ("tower2", 2), off[k]
