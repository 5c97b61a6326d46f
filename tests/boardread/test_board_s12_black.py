"""Bandera, session 12: a probe darker than ``black_lightness`` (47, was 45) where the print is light is a black
piece, not shade (docs/boards_vision.md, "Session 12: board cells across sets").  One committed development render
shows it: s8r_r1_013 (9, 6), green's royal tower with its character, whose faces are dark -- at 45 they were taken
for shade, the square was read faint and empty and the royal-tower rule declined it; at 47 it is read right."""

from __future__ import annotations

from dataclasses import replace

from tests.boardread.test_board_round7_bandera import _read
from vision.board_classify import BANDERA_BLACK_LIGHTNESS, config_for


def test_a_royal_tower_with_dark_faces_is_read_not_declined() -> None:
    cfg = config_for("bandera")
    assert cfg.black_lightness == BANDERA_BLACK_LIGHTNESS == 47.0
    now = _read("s8r_r1_013", cfg)[(9, 6)]
    assert (now.kind, now.colour, now.character_colour) == ("royal_tower", "green", "green"), now
    before = _read("s8r_r1_013", replace(cfg, black_lightness=45.0))[(9, 6)]
    assert before.kind == "unseen", before
