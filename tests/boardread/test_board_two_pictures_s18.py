"""Reading one table from two pictures, session 18 (issue 9; docs/boards_vision.md "Session 18: two pictures"): a
site the pictures read differently is settled first by how well each picture saw it and how sure each picture's own
judgement is of its reading (``FuseConfig``).  The readings below are as read on development renders (SIMULATED
photographs, shift set 7171711 / 7171713: their scores, confidence and share seen), cut down to the site."""

from __future__ import annotations

from typing import Any, cast

from vision.board_classify import CellReading
from vision.board_pipeline import FuseConfig, ImageReading, merge_readings
from vision.board_sureness import judge_cells

Key = tuple[int, ...]


def _pic(name: str, cells: list[CellReading]) -> ImageReading:
    return ImageReading(name, cast(Any, None), cells, {})


VIEW = FuseConfig(view=True)
SURE = FuseConfig(sureness=True)
RESCUE = FuseConfig(sureness=True, rescue=True)
ALL = FuseConfig(view=True, sureness=True, abstain=True)


def test_a_pawn_seen_whole_wins_over_nothing_read_through_a_few_rays() -> None:
    """Gridopolis, a yellow pawn on a start row: one picture sees all of it (pawn 0.95 against nothing 0.1), the other
    sees 40 % of the site past a neighbour and reads nothing (0.63 against 0.53).  Session 11's signs disagree (the
    empty reading is the more confident, the pawn explains both pictures' probes better): declined.  With ``view``, the
    picture that saw the site well is believed: the pawn."""
    key = (6, 2, 0)
    pawn = CellReading(key, "pawn", "yellow", 0, False, 0.0, None,
                       {"empty": 0.1, "pawn": 0.95, "king": 0.95, "blocker": -1.0}, seen=1.0)
    empty = CellReading(key, "empty", None, 0, False, 0.53, None,
                        {"empty": 0.63, "pawn": 0.53, "king": 0.53, "blocker": -1.0}, seen=0.4)
    pics = [_pic("a.jpg", [pawn]), _pic("b.jpg", [empty])]
    old, why_old = merge_readings("gridopolis", pics)
    assert old[0].kind == "unseen" and why_old[0].startswith("not read")
    new, why = merge_readings("gridopolis", pics, fuse=VIEW)
    assert new[0] is pawn and "saw the site well" in why[0]
    # both pictures seeing the site well, or both hardly: the view settles nothing (session 11's signs decide)
    both_well = [_pic("a.jpg", [pawn]), _pic("b.jpg", [CellReading(key, "empty", None, 0, False, 0.53, None,
                                                                   empty.scores, seen=0.9)])]
    assert merge_readings("gridopolis", both_well, fuse=VIEW)[0][0].kind == "unseen"
    # the pictures that saw it well disagreeing among themselves: nothing settled by the view either
    box = CellReading(key, "blocker", "yellow", 0, False, 0.3, None, {"empty": 0.1, "pawn": 0.5, "blocker": 0.9},
                      seen=0.8)
    three = [*pics, _pic("c.jpg", [box])]
    _, why3 = merge_readings("gridopolis", three, fuse=VIEW)
    assert "saw the site well" not in why3[0]


def test_the_reading_its_own_picture_is_sure_of_wins() -> None:
    """Bandera, an empty square: one picture reads blue's royal tower with its character there by a rule (its banner's
    colour; confidence 0.22), the other sees the square empty (confidence 1.0, nothing about it in doubt).  Session 11:
    the tower's shape explains the first picture's probes, the empty square the second's -- the signs disagree,
    declined.  Each picture's own judgement (``judge_cells`` of that picture alone) calls the empty reading sure (99.6 %
    of readings like it right) and the tower not (83 %): together (the empty square right where the tower reading is
    wrong, against the other way round) 98 % for the empty square, over ``P_SURE``: with ``sureness`` (and with
    ``rescue``, as session 11 declines it) the empty square is kept."""
    key = (0, 2)
    tower = CellReading(key, "royal_tower", "blue", 2, True, 0.22, "blue", {"empty": 0.0, "cube": 0.97, "tower2": 1.0},
                        notes=("blue's royal tower stands here by the rules",), seen=1.0)
    empty = CellReading(key, "empty", None, 0, False, 1.0, None, {"empty": 0.97, "cube": 0.27, "tower2": 0.03},
                        seen=0.98)
    doubts = [judge_cells("bandera", [tower]), judge_cells("bandera", [empty])]
    d_tower, d_empty = doubts[0][0], doubts[1][0]
    assert d_tower is not None and d_empty is not None and not d_tower.sure and d_empty.sure
    pics = [_pic("a.jpg", [tower]), _pic("b.jpg", [empty])]
    old, _ = merge_readings("bandera", pics)
    assert old[0].kind == "unseen"
    new, why = merge_readings("bandera", pics, doubts, SURE)
    assert new[0] is empty and "sure of" in why[0] and "98 %" in why[0]
    assert merge_readings("bandera", pics, doubts, RESCUE)[0][0] is empty
    # without the pictures' judgements (none given) nothing changes
    assert merge_readings("bandera", pics, (), SURE)[0][0].kind == "unseen"


def test_no_picture_sure_of_its_reading_abstains() -> None:
    """Bandera, blue's royal tower: one picture reads it with blue's character on it (by a rule, a weak margin), the
    other without (confidence 0.9, but a royal tower's class is right under nine in ten times).  Session 11 keeps the
    more confident reading (the probes cannot tell a character apart); neither picture is sure of its reading, and
    with ``abstain`` the site is declined instead of keeping a reading no picture is sure of."""
    key = (0, 3)
    scores = {"empty": 0.05, "cube": 0.85, "tower2": 0.95}
    with_char = CellReading(key, "royal_tower", "blue", 2, True, 0.29, "blue", scores,
                            notes=("a character read on its own royal tower",), seen=0.77)
    plain = CellReading(key, "royal_tower", "blue", 2, False, 0.9, None, scores, seen=1.0)
    doubts = [judge_cells("bandera", [with_char]), judge_cells("bandera", [plain])]
    assert all(d[0] is not None and not d[0].sure for d in doubts)
    pics = [_pic("a.jpg", [with_char]), _pic("b.jpg", [plain])]
    assert merge_readings("bandera", pics)[0][0] is plain
    assert merge_readings("bandera", pics, doubts, SURE)[0][0] is plain  # (abstaining is its own switch)
    merged, why = merge_readings("bandera", pics, doubts, ALL)
    assert merged[0].kind == "unseen" and why[0].startswith("not read: the pictures' own judgements")


def test_rescue_leaves_a_reading_session_11_keeps() -> None:
    """Bandera, a cube both pictures hardly see (53 % and 42 % of the view clear): one reads the cube, the other
    nothing.  The pictures' judgements together favour the empty reading (an empty square hardly seen is right 98 times
    in 100, a cube hardly seen 76), 94 % -- but the cube is there.  Session 11's signs keep the cube (the more confident
    reading, which both pictures' probes support best); ``sureness`` alone would overrule them, ``rescue`` only acts
    where session 11 declines, and keeps the cube."""
    key = (3, 1)
    cube = CellReading(key, "cube", "blue", 1, False, 1.0, None, {"empty": 0.38, "cube": 0.91, "tower2": 0.65},
                       seen=0.53)
    empty = CellReading(key, "empty", None, 0, False, 0.67, None, {"empty": 1.0, "cube": 0.88, "tower2": 0.04},
                        seen=0.42)
    doubts = [judge_cells("bandera", [cube]), judge_cells("bandera", [empty])]
    pics = [_pic("a.jpg", [cube]), _pic("b.jpg", [empty])]
    assert merge_readings("bandera", pics)[0][0] is cube
    assert merge_readings("bandera", pics, doubts, SURE)[0][0] is empty
    assert merge_readings("bandera", pics, doubts, RESCUE)[0][0] is cube


def test_fusion_switched_off_or_one_picture_reads_as_before() -> None:
    """The default (``FUSE``) and one picture alone: as session 11."""
    key = (6, 2, 0)
    pawn = CellReading(key, "pawn", "yellow", 0, False, 0.0, None, {"empty": 0.1, "pawn": 0.95}, seen=1.0)
    empty = CellReading(key, "empty", None, 0, False, 0.53, None, {"empty": 0.63, "pawn": 0.53}, seen=0.4)
    pics = [_pic("a.jpg", [pawn]), _pic("b.jpg", [empty])]
    assert merge_readings("gridopolis", pics, fuse=FuseConfig()) == merge_readings("gridopolis", pics)
    alone, why = merge_readings("gridopolis", [_pic("b.jpg", [empty])], fuse=ALL)
    assert alone == [empty] and why == {}
