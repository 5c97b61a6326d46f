"""Session 17, Captura la Bandera: two-cube towers with no taller neighbour read as one cube (docs/boards_vision.md,
"Session 17: Bandera stacks alone"). Rendered pictures (SIMULATED photographs, development renders committed in
tests/boardread/data/bandera_dev/, README there), each read with ``tower_outline_rise`` on and off; each test
fails with it 0 in ``config_for``. A two-cube tower's top stands one cube (22 mm) above a single cube's
(docs/rules/bandera.md, section 2: the cubes are stacked; section 3: two cubes, one on the other), so the four edges
of its top face show an outline at 44 mm and hardly any at 22 mm; a single cube's the other way round."""

from __future__ import annotations

from dataclasses import replace

from tests.boardread.test_board_round7_bandera import _read, _truth
from vision.board_classify import config_for


def test_a_tower_seen_from_the_side_read_as_one_cube_is_two() -> None:
    """Render s17_gchk_003 (cold, hard shadows, camera 48 degrees up): a plain two-cube tower stands on (5, 0), on
    the board's near edge, with no stack beside it. The probes read it as one cube (confidence under 1); its top
    face's edges are sharper at two cubes' height than at one cube's by far more than 12: two cubes, with a note (a
    rule's reading: unsure)."""
    cfg = config_for("bandera")
    assert cfg.tower_outline_rise > 0
    assert _truth("s17_gchk_003")[(5, 0)] == 2
    on = _read("s17_gchk_003")
    assert (on[(5, 0)].kind, on[(5, 0)].cubes) == ("tower2", 2), on[(5, 0)]
    assert any("outline" in n and "two cubes" in n for n in on[(5, 0)].notes), on[(5, 0)].notes
    off = _read("s17_gchk_003", replace(cfg, tower_outline_rise=0.0))
    assert (off[(5, 0)].kind, off[(5, 0)].cubes) == ("cube", 1), off[(5, 0)]
    # the rest of the board reads as it did
    assert {k: (c.kind, c.cubes) for k, c in on.items() if k != (5, 0)} \
        == {k: (c.kind, c.cubes) for k, c in off.items() if k != (5, 0)}


def test_a_tower_seen_from_above_read_as_one_cube_is_two() -> None:
    """Render s17_h15b_007 (warm, hard shadows, a hand over the board, camera 79 degrees up): a plain two-cube tower
    stands on (5, 1). Seen almost from above, its sides hardly show and no probe tells one cube from two (confidence
    0.03: one cube); its top's outline is sharp at 44 mm and not at 22 mm: two cubes, with a note. True single
    cubes elsewhere on the board stay single cubes."""
    truth = _truth("s17_h15b_007")
    assert truth[(5, 1)] == 2
    on = _read("s17_h15b_007")
    assert (on[(5, 1)].kind, on[(5, 1)].cubes) == ("tower2", 2), on[(5, 1)]
    assert on[(5, 1)].notes, on[(5, 1)]
    singles = [k for k, n in truth.items() if n == 1 and on[k].kind == "cube"]
    assert singles, truth
    off = _read("s17_h15b_007", replace(config_for("bandera"), tower_outline_rise=0.0))
    assert (off[(5, 1)].kind, off[(5, 1)].cubes) == ("cube", 1), off[(5, 1)]
    assert all(off[k].kind == "cube" for k in singles)
