"""Bandera round 8 (docs/boards_vision.md): mechanisms chosen on the development renders, tested on
development renders committed in tests/boardread/data/bandera_dev/ (rendered photographs, SIMULATED;
README there).  Checked: each test fails with its mechanism off."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from tests.boardread.test_board_round7_bandera import ROOT, _read
from vision.board_classify import ClassifyBoardConfig, config_for


@pytest.mark.parametrize(("name", "cell", "colour"), [("dev_311", (9, 0), "red"), ("dev_011", (0, 1), "blue")])
def test_a_banner_in_front_of_the_top_cube_does_not_hide_the_royal_towers_character(
        name: str, cell: tuple[int, int], colour: str) -> None:
    """Renders dev_311 (red's royal tower at (9, 0), two wood cubes) and dev_011 (blue's at (0, 1), an
    ivory cube on top), both in dim light, each with its character of the flag's colour beside the
    pole.  The banner and pole are seen in front of the top cube's face as a stripe of the flag's colour,
    which made the cube itself look red (blue): the character's probes then differed too little from
    "the cube's" hue.  Read without the face probes showing a player's plastic
    (``character_banner_deg``), the cube is wood (ivory) and the character is found; without it, not (with
    session 7's one-character-per-player rule off too: it puts the character there as well)."""
    cfg = config_for("bandera")
    assert cfg.character_banner_deg > 0
    on = _read(name)[cell]
    assert (on.kind, on.colour, on.character_colour) == ("royal_tower", colour, colour), on
    off = _read(name, replace(cfg, character_banner_deg=0.0, character_by_flag=False))[cell]
    assert (off.kind, off.colour, off.character_colour) == ("royal_tower", colour, None), off


def test_a_black_cube_in_warm_light_is_found_by_its_outline() -> None:
    """Render dev_207 (warm light): black cubes at (4, 1) and (6, 3).  Their faces are a mid grey (L* about
    50), no darker than a shadow on the paper, so no probe sees a piece and both read empty.  Around the
    outline a single cube would have there (from the pose: its top's far edges, its upright edges, the
    bottom edges of the sides seen), the picture is darker just inside than just outside on about half
    the points or more (``black_outline``); on empty cells, shadows included, on under a tenth (the
    development renders' 95th percentile).  With the mechanism off both read empty."""
    cfg = config_for("bandera")
    assert cfg.black_outline > 0
    on = _read("dev_207")
    off = _read("dev_207", replace(cfg, black_outline=0.0))
    for cell in ((4, 1), (6, 3)):
        assert (on[cell].kind, on[cell].cubes) == ("cube", 1), on[cell]
        assert off[cell].kind == "empty", off[cell]
    # no other cell changes
    assert {k: (v.kind, v.cubes) for k, v in on.items() if k not in ((4, 1), (6, 3))} == \
        {k: (v.kind, v.cubes) for k, v in off.items() if k not in ((4, 1), (6, 3))}


def test_the_outline_of_an_empty_cell_in_shade_is_not_a_cube() -> None:
    """dev_207 and dev_011 (dim light): no empty cell, shaded or not, reads a piece with the outline test
    on.  The test can fail: asking for a dark outline on only a tenth of the points
    (``black_outline_share`` 0.1) reads a cube on the empty (9, 4) of dev_011."""
    cfg = config_for("bandera")

    def false_pieces(name: str, c: ClassifyBoardConfig) -> list[tuple[int, ...]]:
        doc = json.loads((ROOT / f"{name}.json").read_text())
        pieces = {(b["x"], b["y"]) for b in doc["state"]["board"]}
        pieces |= {(p["x"], p["y"]) for p in doc["state"]["characters"].values()}
        on = _read(name, c)
        return [k for k, v in on.items() if k not in pieces and v.kind not in ("empty", "occluded", "unseen")]

    for name in ("dev_207", "dev_011"):
        assert false_pieces(name, cfg) == [], name
    assert false_pieces("dev_011", replace(cfg, black_outline_share=0.1)) == [(9, 4)]
