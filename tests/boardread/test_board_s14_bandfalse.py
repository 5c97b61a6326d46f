"""Session 14, Captura la Bandera: false stacks beside a royal tower, seen on its banner (docs/boards_vision.md,
"Session 14: Bandera false stacks beside royal towers"). Rendered pictures (SIMULATED photographs, development renders
committed in tests/boardread/data/bandera_dev/, README there), each read with ``beside_tall`` 3 (the probes of a
royal tower's neighbour that meet the tower's banner room and show a piece of the flag's colour are left out) and 1
(before); each test fails with ``beside_tall`` 1 in ``config_for`` (its first assertions)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from tests.boardread.test_board_round7_bandera import _read
from vision.board_classify import config_for

DATA = Path(__file__).resolve().parent / "data" / "bandera_dev"


def _check(name: str, cell: tuple[int, int], royal: tuple[int, int], was: str) -> None:
    cfg = config_for("bandera")
    assert cfg.beside_tall >= 3
    doc = json.loads((DATA / f"{name}.json").read_text())
    truth = {(int(c["x"]), int(c["y"])): str(c["piece"]) for c in doc["cells"] if c["piece"] != "character"}
    assert cell not in truth and truth.get(royal) == "royal_tower"
    on = _read(name)
    assert on[cell].kind == "empty", on[cell]
    assert on[royal].kind == "royal_tower", on[royal]
    off = _read(name, replace(cfg, beside_tall=1, tower_outline_beside=False))  # (session 16 catches it too)
    assert (off[cell].kind, off[cell].cubes) == (was, {"cube": 1, "tower2": 2}[was]), off[cell]
    rest = [k for k in on if k[:2] != cell]
    assert {k: (on[k].kind, on[k].cubes, on[k].colour, on[k].character_colour) for k in rest} == \
        {k: (off[k].kind, off[k].cubes, off[k].colour, off[k].character_colour) for k in rest}


def test_a_blue_banner_over_the_square_beside_its_royal_tower_is_no_cube() -> None:
    """Render s14f_h12_001 (cold light): blue's royal tower (0, 0) stands in front of the empty square (1, 0); its
    blue banner is seen where a cube's top there would be (and its dark middle looks like a cube's socket). Without
    the banner's blue probes the square is read empty; with them, a cube."""
    _check("s14f_h12_001", (1, 0), (0, 0), "cube")


def test_a_banner_over_the_square_beside_its_royal_tower_is_no_tower() -> None:
    """Render s14f_b2_015 (dim light, another table): the empty paved square (0, 0) beside a royal tower (0, 1) is
    read as two cubes on the probes that see the tower's banner over it; without them, empty."""
    _check("s14f_b2_015", (0, 0), (0, 1), "tower2")
