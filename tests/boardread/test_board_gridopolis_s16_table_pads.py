"""Gridopolis, session 16 (docs/boards_vision.md, "Session 16: Gridopolis pieces on pads added on the table"): a pad
added on the table beside an arm (rulebook "Agregar un pad": next to a playable pad of the same level) with a piece on
it shows little of its top; the ring votes miss it, and until session 16 the places on the table were never read for a
piece (``PadDetectConfig.piece_pad_from_level`` 1).  Now they are (0): the piece seen there adds its pad.
Development renders (tests/boardread/data/gridopolis_dev/README.md); each reading test also runs with the switch at
its old value and fails then."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.boardread.test_board_round5 import read_gridopolis, truth_pieces
from vision.board_classify import CellReading, config_for
from vision.board_pads import PadDetectConfig

DEV = Path(__file__).resolve().parent / "data" / "gridopolis_dev"
TRUTH = "development render truth (simulated camera)"


def _read(name: str, pads: PadDetectConfig | None = None) -> tuple[dict[tuple[int, ...], CellReading], dict]:
    # (session 19: without ``part_counts`` -- a piece read on the added pad changes its player's counts, and with them
    # what the counts read elsewhere: dev_s16_h12005's green box on (1, 0, 0) makes green's two boxes, and the green
    # piece declined on (3, 2, 2) is then read a (right) pawn; these tests compare the pad finding alone)
    return read_gridopolis(DEV / name, TRUTH, replace(config_for("gridopolis"), part_counts=False), pad_config=pads)


@pytest.mark.parametrize(("name", "key", "want"), [
    ("dev_s16_h12005", (1, 0, 0), ("blocker", "green")),
    ("dev_s16_h11b003", (5, 6, 0), ("pawn", "green")),
])
def test_a_piece_on_a_pad_added_on_the_table_is_read(name: str, key: tuple[int, int, int],
                                                     want: tuple[str, str]) -> None:
    """A piece of 1,200-1,950 pixels on a pad added on the table beside an arm: read, its pad in place; with the
    places on the table not read (``piece_pad_from_level`` 1) it has no site at all."""
    on, doc = _read(name)
    off, _ = _read(name, PadDetectConfig(piece_pad_from_level=1))
    truth = truth_pieces(doc)
    assert truth[key] == want
    assert key in on and (on[key].kind, on[key].colour) == want
    assert key not in off
    # no other site added, and nothing else read differently
    assert set(on) - set(off) == {key}
    for k, r in off.items():
        assert k in on and (on[k].kind, on[k].colour) == (r.kind, r.colour), k
