"""Session 9, Captura la Bandera: a hard lamp's shadows are no piece (docs/boards_vision.md, "Session 9: Bandera
false stacks in a lamp's hard shadows"). Rendered pictures (SIMULATED photographs, development renders committed
in tests/boardread/data/bandera_dev/, README there), each read with ``cast_shadow`` on and off; the test fails
with it off in ``config_for`` (checked)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from tests.boardread.test_board_round7_bandera import _read
from vision.board_classify import config_for

DATA = Path(__file__).resolve().parent / "data" / "bandera_dev"


def _stacks(name: str) -> set[tuple[int, int]]:
    doc = json.loads((DATA / f"{name}.json").read_text())
    return {(int(b["x"]), int(b["y"])) for b in doc["state"]["board"]}


def test_empty_squares_in_a_lamps_hard_shadow_read_empty() -> None:
    """Renders s9s_gchk_005 ((3, 2), (7, 5), (9, 5)) and s7_b2_009 ((3, 1), (4, 1)): one small warm lamp, a weak
    bluish room light, no hand; the stacks' shadows on the next empty squares are as dark as a black cube and
    tinted, and those squares read as cubes or towers. The lamp found from the stacks read puts those squares in
    a stack's shadow: without the probes ending there they read empty. Every true stack stays read as before."""
    cfg = config_for("bandera")
    assert cfg.cast_shadow > 0
    for name, cells in (("s9s_gchk_005", ((3, 2), (7, 5), (9, 5))), ("s7_b2_009", ((3, 1), (4, 1)))):
        on = _read(name)
        off = _read(name, replace(cfg, cast_shadow=0.0))
        truth = _stacks(name)
        for cell in cells:
            assert cell not in truth  # truly empty
            assert off[cell].kind in ("cube", "tower2"), off[cell]
            assert on[cell].kind == "empty", on[cell]
        for cell in truth:  # no true stack lost
            assert on[cell].kind != "empty" or off[cell].kind == "empty", (cell, on[cell], off[cell])



def test_a_cube_no_probe_saw_is_found_by_its_sockets() -> None:
    """Render s9s_gdev_003 (2, 4): a cube whose faces differ too little from the print round it for any probe to
    see a piece there (so the socket test, which looked only where some probe did, never looked at it): read empty
    with confidence 1.0. Its faces' sockets show: looked for on every site (``socket_all``), it reads as a cube.
    The two-cube tower at (3, 5), read empty alike, now reads as a stack (as one cube by its lower cube's sockets;
    as two since ``socket_two_seen``, session 9 banderatower).
    Nothing else changes."""
    # (the reader's former ``black_lightness`` 45, to test this rule alone: at session 12's 47 the tower at (3, 5) is
    # read as two cubes without it)
    cfg = replace(config_for("bandera"), black_lightness=45.0)
    assert cfg.socket_all
    on = _read("s9s_gdev_003", cfg)
    off = _read("s9s_gdev_003", replace(cfg, socket_all=False))
    assert (2, 4) in _stacks("s9s_gdev_003")
    assert off[(2, 4)].kind == "empty", off[(2, 4)]
    assert on[(2, 4)].kind == "cube" and on[(2, 4)].cubes == 1, on[(2, 4)]
    assert off[(3, 5)].kind == "empty" and on[(3, 5)].kind in ("cube", "tower2"), (off[(3, 5)], on[(3, 5)])
    assert {k: (r.kind, r.cubes) for k, r in on.items() if k not in ((2, 4), (3, 5))} \
        == {k: (r.kind, r.cubes) for k, r in off.items() if k not in ((2, 4), (3, 5))}
