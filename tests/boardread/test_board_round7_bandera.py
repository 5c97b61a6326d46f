"""Bandera accuracy round 7 (docs/boards_vision.md): mechanisms chosen on the development renders,
tested on development renders committed in tests/boardread/data/bandera_dev/ (rendered photographs,
SIMULATED; README there).  Checked: each test fails with its mechanism off."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from tests.boardread.test_board_round5_bandera import read_bandera
from vision.board_classify import CellReading, ClassifyBoardConfig, config_for

ROOT = Path(__file__).resolve().parent / "data" / "bandera_dev"


def _read(name: str, cfg: ClassifyBoardConfig | None = None) -> dict[tuple[int, ...], CellReading]:
    return read_bandera(ROOT / name, cfg)


def _truth(name: str) -> dict[tuple[int, int], int]:
    doc = json.loads((ROOT / f"{name}.json").read_text())
    return {(b["x"], b["y"]): int(b["cubes"]) for b in doc["state"]["board"]}


def test_fingers_over_the_far_edge_seen_against_the_table_cover_the_cells() -> None:
    """Render held6_010: a dark hand hovers 107 mm over the board's far corner; in the picture its
    fingers lie mostly beyond the board's printed outline, against the table, and the probes of the
    empty cells (0, 5), (0, 6), (1, 6) see them.  Skin looked for over the picture of the board's volume
    (``cover_above_mm``) finds the hand: the cells are declined as covered.  Looking only inside the
    printed outline (``cover_above_mm`` 0), the fingers' blob on the board is a few pixels, and the cells
    read as towers."""
    cfg = config_for("bandera")
    assert cfg.cover_above_mm > 0
    truth = _truth("held6_010")
    cells = [(0, 5), (0, 6), (1, 6)]
    assert all(c not in truth for c in cells)
    on = _read("held6_010")
    assert [on[c].kind for c in cells] == ["occluded"] * 3, [on[c] for c in cells]
    off = _read("held6_010", replace(cfg, cover_above_mm=0.0))
    assert [off[c].kind for c in cells] == ["tower2"] * 3, [off[c] for c in cells]
    # the pieces away from the hand are read as before
    for xy, n in truth.items():
        assert on[xy].cubes == n and on[xy].kind != "occluded", (xy, on[xy])


def test_a_single_cube_seen_from_above_is_counted_by_its_top_socket() -> None:
    """Render dev_209 (camera 70 degrees up): the purple cube at (6, 4) reads as a tower on its probes
    (from so high a tower's outline is hardly larger; a tinted shadow beside it fills the difference).
    Its top face's socket is seen clearly at one cube's height, 22 mm up, not at a tower's, 44 mm
    (``socket_height``): one cube.  Without that it reads as a tower."""
    cfg = config_for("bandera")
    assert cfg.socket_height
    assert _truth("dev_209")[(6, 4)] == 1
    assert _read("dev_209")[(6, 4)].cubes == 1
    assert _read("dev_209", replace(cfg, socket_height=False))[(6, 4)].cubes == 2


def test_a_towers_upper_side_socket_is_not_taken_for_one_cubes_top_socket() -> None:
    """Render dev_001 (camera 56 degrees up): the blue royal tower at (0, 0).  Near 45 degrees up, the
    socket of a tower's upper cube's side is seen where one cube's top socket would be; its own top is
    uneven (its character and flag stand on it).  The rays through the upper side sockets pass under
    ``socket_height_sep_mm`` (5 mm) from one cube's top socket here, so the socket height says nothing
    and the tower stays a royal tower; with that gate off (0 mm) it reads as one cube."""
    cfg = config_for("bandera")
    assert _truth("dev_001")[(0, 0)] == 2
    on = _read("dev_001")[(0, 0)]
    assert (on.kind, on.cubes, on.colour) == ("royal_tower", 2, "blue"), on
    off = _read("dev_001", replace(cfg, socket_height_sep_mm=0.0))[(0, 0)]
    assert off.cubes == 1, off
