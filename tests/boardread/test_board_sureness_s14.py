"""Session 14 (issue 9): a Gridopolis piece whose box and marker shapes tie is named as a guess in its warning."""

from __future__ import annotations

from vision.board_classify import CellReading
from vision.board_sureness import NAMING_SIGNS, SHAPE_TIE, doubt_signs, judge_cells, shape_tie, unsure_problems


def _piece(key: tuple[int, int, int], kind: str, box: float, marker: float, seen: float) -> CellReading:
    return CellReading(key, kind, "blue", 0, False, 0.0, None,
                       {"empty": 0.0, "pawn": marker, "king": marker, "blocker": box}, (), seen)


def test_a_tie_between_box_and_marker_is_a_sign() -> None:
    assert shape_tie(_piece((3, 3, 0), "pawn", 0.9, 0.9, 1.0))
    assert shape_tie(_piece((3, 3, 0), "pawn", 0.9 + SHAPE_TIE / 2, 0.9, 1.0))
    assert not shape_tie(_piece((3, 3, 0), "pawn", 0.9 + 2 * SHAPE_TIE, 0.9, 1.0))
    assert not shape_tie(CellReading((3, 3, 0), "empty", None, 0, False, 1.0, None, {"empty": 1.0}, (), 1.0))
    signs = doubt_signs("gridopolis", [_piece((3, 3, 0), "pawn", 0.9, 0.9, 1.0),
                                       _piece((4, 3, 0), "blocker", 1.4, 0.9, 1.0)])
    assert signs == [("tie",), ()]
    assert "tie" not in doubt_signs("bandera", [_piece((3, 3, 0), "pawn", 0.9, 0.9, 1.0)])[0]


def test_a_tie_names_the_guess_but_does_not_lower_the_share_right() -> None:
    assert "tie" in NAMING_SIGNS
    plain = _piece((3, 3, 0), "pawn", 0.5, 0.9, 1.0)
    tie = _piece((3, 3, 0), "pawn", 0.9, 0.9, 1.0)
    a, b = judge_cells("gridopolis", [plain])[0], judge_cells("gridopolis", [tie])[0]
    assert a is not None and b is not None and a.sure and b.sure and a.p_right == b.p_right
    # under a pad above it and hardly seen (through the slit): unsure, and the warning names the tie first
    cells = [_piece((3, 3, 0), "pawn", 0.9, 0.9, 0.2), CellReading((3, 3, 2), "empty", None, 0, False, 1.0, seen=1.0)]
    d = judge_cells("gridopolis", cells)[0]
    assert d is not None and not d.sure and "tie" in d.signs
    assert "blocker box and a pawn or king fit its view equally well" in d.reasons[0]
    msg = unsure_problems("gridopolis", cells, judge_cells("gridopolis", cells))[0].message
    assert "the kind is a guess" in msg and "check this cell" in msg


def test_an_empty_gridopolis_cell_with_a_plain_piece_shape_is_unsure() -> None:
    """A cell read empty whose best piece shape beats "empty" by STRONG_PRESENCE or more ("solid"): such cells were
    right 38 of 43 times on the development tables -- a check, not a sure empty."""
    from vision.board_sureness import STRONG_PRESENCE

    faint = CellReading((2, 2, 0), "empty", None, 0, False, 0.0, None, {"empty": 0.5, "pawn": 0.6, "blocker": 0.2},
                        (), 1.0)
    plain = CellReading((2, 2, 0), "empty", None, 0, False, 0.0, None,
                        {"empty": 0.0, "pawn": STRONG_PRESENCE + 0.1, "blocker": 0.2}, (), 1.0)
    assert doubt_signs("gridopolis", [faint]) == [("shape",)]
    assert doubt_signs("gridopolis", [plain]) == [("shape", "solid")]
    assert "solid" not in doubt_signs("bandera", [plain])[0]
    # (at the 0.9 limit the sign was measured with; Gridopolis's default is 0.95 since session 15, where the
    # faint shape alone, right 91 % of the time, is a check too)
    d = judge_cells("gridopolis", [plain], p_sure=0.9)[0]
    assert d is not None and not d.sure and "a piece's shape was plainly seen there" in d.reasons
    f = judge_cells("gridopolis", [faint], p_sure=0.9)[0]
    assert f is not None and f.sure
