"""Session 10, Captura la Bandera: false stacks in a royal tower's hard shadow (docs/boards_vision.md, "Session 10:
Bandera false stacks in a royal tower's shadow"). Rendered pictures (SIMULATED photographs, development renders
committed in tests/boardread/data/bandera_dev/, README there), each read with the settings on and off; each test
fails with ``cast_shadow_tall`` or ``cast_shadow_whole`` off in ``config_for`` (its first assertions)."""

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


def _same_elsewhere(a: dict, b: dict, cells: list[tuple[int, int]]) -> None:  # type: ignore[type-arg]
    rest = [k for k in a if k[:2] not in cells]
    assert {k: (a[k].kind, a[k].cubes, a[k].colour) for k in rest} == {k: (b[k].kind, b[k].cubes, b[k].colour)
                                                                      for k in rest}


def test_royal_towers_long_shadows_are_no_stacks() -> None:
    """Render s10e_b1_023, a small warm lamp low behind the board: blue's and green's royal towers, (0, 1) and (9, 6),
    throw long bluish shadows over the next squares. (9, 5) reads as a tower and (0, 5) as a cube. Their
    probes lie (80 % or more) in the shadow the found lamp gives the royal towers' character and banner, and the dark
    print round them, in that shadow's light, looks like what the probes see: empty. Off, they are stacks."""
    cfg = config_for("bandera")
    assert cfg.cast_shadow_tall > 0 and cfg.cast_shadow_whole > 0
    cells = [(9, 5), (0, 5)]
    assert not set(cells) & _stacks("s10e_b1_023")
    on = _read("s10e_b1_023")
    assert [on[c].kind for c in cells] == ["empty", "empty"], [on[c] for c in cells]
    for off_cfg in (replace(cfg, cast_shadow_tall=0), replace(cfg, cast_shadow_whole=0.0)):
        off = _read("s10e_b1_023", off_cfg)
        assert [off[c].kind for c in cells] == ["tower2", "cube"], [off[c] for c in cells]
        _same_elsewhere(on, off, cells)


def test_a_royal_towers_shadow_over_the_corner_is_no_cube() -> None:
    """Render s9s_gchk_005 (session 9's hard-lamp scene): (0, 0), next to blue's royal tower (0, 1), reads as a cube
    in its shadow. With the tower's character and banner as casters and the shadow's light measured round it, it
    is empty; off, a cube; nothing else changes (session 9's rule already empties (3, 0), (3, 2), (7, 5), (9, 5))."""
    cfg = config_for("bandera")
    assert (0, 0) not in _stacks("s9s_gchk_005")
    on = _read("s9s_gchk_005")
    assert on[(0, 0)].kind == "empty", on[(0, 0)]
    for off_cfg in (replace(cfg, cast_shadow_tall=0), replace(cfg, cast_shadow_whole=0.0)):
        off = _read("s9s_gchk_005", off_cfg)
        assert off[(0, 0)].kind == "cube", off[(0, 0)]
        _same_elsewhere(on, off, [(0, 0)])
    assert all(on[c].kind == "empty" for c in [(3, 0), (3, 2), (7, 5), (9, 5)])
