"""Session 9, Captura la Bandera: a stack's height against the board (docs/boards_vision.md, "Session 9: Bandera
towers' height: an upper cube the probes cannot see, and counts no probe tells"). Rendered pictures (SIMULATED
photographs, development renders committed in tests/boardread/data/bandera_dev/, README there), each read with the
session's setting on and off; each test fails with its setting off in ``config_for`` (checked)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from tests.boardread.test_board_round7_bandera import _read
from vision.board_classify import config_for

DATA = Path(__file__).resolve().parent / "data" / "bandera_dev"


def _cubes(name: str) -> dict[tuple[int, int], int]:
    doc = json.loads((DATA / f"{name}.json").read_text())
    return {(int(b["x"]), int(b["y"])): int(b["cubes"]) for b in doc["state"]["board"]}


def test_an_ivory_upper_cube_against_the_paper_is_found_by_its_sockets() -> None:
    """Render s9t_gchk_003: two towers, (5, 0) and (7, 1), each an ivory cube on a coloured one, seen against the
    white paper: the probes over the lower cube see a piece, those over the ivory one the paper, and both read as
    one cube. The ivory cube's sockets show (its top's at two cubes' height, darker than at one cube's; or its side
    faces'): with ``socket_two_seen`` both read as two cubes; nothing else changes."""
    # (the reader's former ``black_lightness`` 45, to test this rule alone.  At session 12's 47 this picture reads
    # (5, 0) as ONE cube -- a wrong cell the change adds -- while (4, 0), a two-cube stack read empty at 45, is read
    # right: docs/boards_vision.md, "Session 12: board cells across sets")
    cfg = replace(config_for("bandera"), black_lightness=45.0)
    assert cfg.socket_two_seen
    on = _read("s9t_gchk_003", cfg)
    off = _read("s9t_gchk_003", replace(cfg, socket_two_seen=False))
    truth = _cubes("s9t_gchk_003")
    for cell in ((5, 0), (7, 1)):
        assert truth[cell] == 2
        assert off[cell].kind == "cube", off[cell]
        assert on[cell].kind == "tower2" and on[cell].cubes == 2, on[cell]
    rest = [k for k in on if k[:2] not in ((5, 0), (7, 1))]
    assert {k: (on[k].kind, on[k].cubes) for k in rest} == {k: (off[k].kind, off[k].cubes) for k in rest}


def test_a_count_no_probe_tells_is_declined_when_the_outline_says_two() -> None:
    """Render s9t_r1_006 (8, 1): a tower (a teal cube on a black one) right in front of a teal cube at (8, 0); every
    probe that would tell one cube from two has its ray end on that cube behind, so one cube and two explain the
    probes equally (a tie, read as one cube). The top's far edges are sharper at two cubes' height than at one's:
    with ``count_outline`` the cell is declined, with a note saying why; nothing else changes."""
    cfg = config_for("bandera")
    assert cfg.count_outline > 0
    on = _read("s9t_r1_006")
    off = _read("s9t_r1_006", replace(cfg, count_outline=0.0))
    assert _cubes("s9t_r1_006")[(8, 1)] == 2
    assert off[(8, 1)].kind == "cube", off[(8, 1)]
    assert on[(8, 1)].kind == "unseen", on[(8, 1)]
    assert any("tells one cube from two" in n for n in on[(8, 1)].notes), on[(8, 1)].notes
    rest = [k for k in on if k[:2] != (8, 1)]
    assert {k: (on[k].kind, on[k].cubes) for k in rest} == {k: (off[k].kind, off[k].cubes) for k in rest}
