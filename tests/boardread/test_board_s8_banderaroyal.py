"""Session 8, Captura la Bandera: royal towers and characters (docs/boards_vision.md, "Session 8: Bandera royal
towers and characters"). Rendered pictures (SIMULATED photographs, development renders committed in
tests/boardread/data/bandera_dev/, README there), each read with its mechanism on and off; each test fails with it
off (checked)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from tests.boardread.test_board_round7_bandera import _read
from vision.board_classify import config_for

DATA = Path(__file__).resolve().parent / "data" / "bandera_dev"


def _characters(name: str) -> dict[str, tuple[int, int]]:
    doc = json.loads((DATA / f"{name}.json").read_text())
    return {c: (int(p["x"]), int(p["y"])) for c, p in doc["state"]["characters"].items()}


def test_a_royal_towers_character_in_another_players_colour_read_twice_is_its_owners() -> None:
    """Renders s8r_dev_021 (9, 6) and s8r_b4_014 (0, 1): a royal tower carrying its owner's character (green on
    green's tower, blue on blue's), whose character reads as the colour of another player whose character is read
    on another stack too (red, whose character stands on (9, 0)), while the flag's owner's character is read
    nowhere. One character per player (docs/rules/bandera.md, section 1), each starting on its own royal tower
    (section 3): it is the flag's owner's (``character_flag_twin``), with a note."""
    cfg = config_for("bandera")
    assert cfg.character_flag_twin
    for name, cell, owner, misread in (("s8r_dev_021", (9, 6), "green", "red"), ("s8r_b4_014", (0, 1), "blue", "red")):
        assert _characters(name)[owner] == cell
        on = _read(name)
        off = _read(name, replace(cfg, character_flag_twin=False))
        assert on[cell].kind == off[cell].kind == "royal_tower"
        assert on[cell].colour == owner
        assert off[cell].character_colour == misread, off[cell]
        assert on[cell].character and on[cell].character_colour == owner, on[cell]
        assert any("one character per player" in n for n in on[cell].notes)
        # the misread colour's character stays where it was read
        assert [k for k, r in on.items() if r.character_colour == misread] \
            == [k for k, r in off.items() if r.character_colour == misread and k != cell]
