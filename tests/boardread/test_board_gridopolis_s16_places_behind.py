"""Gridopolis, session 16 (docs/boards_vision.md, "Session 16: Gridopolis pieces read where none is"): a place read
for a piece (``PadDetectConfig.piece_pads``) right above a piece on a pad found added above the table read that piece
as its own -- the pieces being checked (``check_added``) were no obstacles for the places -- added a pad that is not
there, and the pad hid the true piece below.  Now a place's piece is read again with the checked pieces as obstacles
(``PadDetectConfig.places_behind_checked``) and kept only when that reading shows it too.  Development renders
(tests/boardread/data/gridopolis_dev/README.md); each test also runs with the switch off and fails then."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.boardread.test_board_round5 import read_gridopolis, truth_pieces
from vision.board_classify import CellReading
from vision.board_pads import PadDetectConfig

DEV = Path(__file__).resolve().parent / "data" / "gridopolis_dev"
TRUTH = "development render truth (simulated camera)"


def _read(name: str, pads: PadDetectConfig | None = None) -> tuple[dict[tuple[int, ...], CellReading], dict]:
    return read_gridopolis(DEV / name, TRUTH, pad_config=pads)


@pytest.mark.parametrize(("name", "below", "want"), [
    ("dev_s16_h14004", (6, 2, 1), ("blocker", "red")),
    ("dev_s16_h13b002", (1, 4, 1), ("blocker", "blue")),
])
def test_a_place_above_a_checked_piece_does_not_take_it(name: str, below: tuple[int, int, int],
                                                        want: tuple[str, str]) -> None:
    """The piece on the pad found added is read, and no pad is added above it; with the switch off the place above
    reads the piece, its pad is added and the true piece is declined (unseen)."""
    on, doc = _read(name)
    off, _ = _read(name, PadDetectConfig(places_behind_checked=False))
    truth = truth_pieces(doc)
    above = (below[0], below[1], below[2] + 1)
    assert truth[below] == want and above not in truth
    assert above not in {tuple(p) for p in doc["state"]["pads"]}  # (no pad there: the piece read on it is false)
    assert (on[below].kind, on[below].colour) == want
    assert above not in on
    assert above in off and (off[above].kind, off[above].colour) == want
    assert off[below].kind == "unseen"
    # nothing else read differently
    assert set(off) - set(on) == {above}
    for k, r in on.items():
        if k != below:
            assert k in off and (off[k].kind, off[k].colour) == (r.kind, r.colour), k
