"""Session 8, Captura la Bandera: stacks read in a hand's shadow (docs/boards_vision.md, "Session 8: hands on
Bandera boards"). Rendered pictures (SIMULATED photographs, development renders committed in
tests/boardread/data/bandera_dev/, README there), each read with ``hand_shade`` on and off; the test fails with
it off in ``config_for`` (checked)."""

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


def test_a_stack_read_in_a_hands_soft_shadow_is_declined_with_a_note() -> None:
    """Renders s8h_dev_025 (0, 5), (1, 5) and s8h_b3_022 (8, 5), (9, 5): a hand found over the board (cells
    beside it declined as covered), its soft shadow on empty squares next to it read as cubes or towers (confidence
    up to 1.0). The board round each such stack shows the colour read there on 20-60 % of the tinted-patch ring's
    points (a cube's ring on development: mostly under 20 %): declined (``unseen``) with a note naming the hand's
    shadow, never read as a piece."""
    cfg = config_for("bandera")
    assert cfg.hand_shade > 0
    for name, cells in (("s8h_dev_025", ((0, 5), (1, 5))), ("s8h_b3_022", ((8, 5), (9, 5)))):
        on = _read(name)
        off = _read(name, replace(cfg, hand_shade=0.0))
        # (session 16's ``tower_outline_beside`` declines some of these towers too: the reading without both rules)
        bare = _read(name, replace(cfg, hand_shade=0.0, tower_outline_beside=False))
        assert any(r.kind == "occluded" for r in on.values())  # the hand is found
        for cell in cells:
            assert cell not in _stacks(name)  # truly empty
            assert bare[cell].kind in ("cube", "tower2"), bare[cell]
            assert on[cell].kind == "unseen", on[cell]
            assert any("a hand's shadow" in n for n in on[cell].notes), on[cell].notes
        # nothing else read differently
        assert {k: (r.kind, r.colour, r.cubes, r.character) for k, r in on.items() if k not in cells} \
            == {k: (r.kind, r.colour, r.cubes, r.character) for k, r in off.items() if k not in cells}
