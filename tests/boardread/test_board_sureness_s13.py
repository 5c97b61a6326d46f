"""Honest sureness per read cell (issue 9, session 13; docs/boards_vision.md "Session 13: honest confidence"):
doubt signs the reader already knows, a calibration table of counts, and the unsure cells shown to the player
(``validate --images`` text and JSON, the annotated picture) and used by the set-up check on count claims."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from boardside.fixtures_render.camera import truth_calibration
from calibration.boards import BoardSpec, board_spec
from vision.board_annotate import annotate_board
from vision.board_classify import CellReading
from vision.board_pipeline import read_board
from vision.board_reconstruct import ReconstructOptions, reconstruct_board
from vision.board_setupcheck import CHECK_CODE, check_unsure_readings
from vision.board_sureness import CALIBRATION, P_SURE, SIGNS, count_table, doubt_signs, judge_cells, unsure_problems

ROOT = Path(__file__).resolve().parents[2] / "fixtures" / "boards"
BANDERA_MM = board_spec("bandera").cell_mm
#: a camera in front of the board's y = 0 edge, above it (board mm)
CAM = np.array([5 * BANDERA_MM, -400.0, 500.0])


def _cube(x: int, y: int, conf: float = 1.0, notes: tuple[str, ...] = (), seen: float = 1.0) -> CellReading:
    return CellReading((x, y), "cube", "red", 1, False, conf, None, {"empty": 0.2, "cube": 0.9, "tower2": 0.6},
                       notes, seen)


def _tower(x: int, y: int) -> CellReading:
    return CellReading((x, y), "tower2", "red", 2, False, 1.0, None, {"empty": 0.2, "cube": 0.5, "tower2": 0.9},
                       (), 1.0)


def _royal(x: int, y: int, colour: str) -> CellReading:
    return CellReading((x, y), "royal_tower", colour, 2, True, 1.0, colour)


def test_the_calibration_table_is_counts() -> None:
    for game, entries in CALIBRATION.items():
        assert game in ("bandera", "gridopolis", "quirky")
        for key, (right, n) in entries.items():
            assert 0 <= right <= n, (game, key)
            if key.startswith("sign:"):
                assert key.split(":")[1] in ("empty", "piece") and key.split(":")[2] in SIGNS, key
    assert set(P_SURE) == {"bandera", "gridopolis", "quirky"} and all(0.5 < v < 1.0 for v in P_SURE.values())


def test_a_plain_cube_clearly_seen_is_sure_and_each_sign_is_found() -> None:
    cells = [_cube(3, 3), _cube(5, 5, notes=("taken by a rule",)), _cube(7, 5, seen=0.3), _cube(2, 1),
             _tower(2, 0), _cube(6, 0), _tower(6, 1), CellReading((8, 1), "occluded", None, 0, False, 0.9)]
    signs = doubt_signs("bandera", cells, [CAM], BANDERA_MM)
    assert signs[0] == ()
    assert "rule" in signs[1] and "seen" in signs[2]
    assert "front" in signs[3]  # (the two-cube stack at (2,0) stands between (2,1) and the camera)
    assert signs[4] == ()  # (... and (2,1) is no two-cube stack: nothing tall behind the tower)
    assert "behind" in signs[5]  # (the two-cube stack at (6,1) stands behind (6,0), seen from the camera)
    assert "hand" in doubt_signs("bandera", [_cube(7, 1), *cells[-1:]], [CAM], BANDERA_MM)[0]
    judged = judge_cells("bandera", cells, [CAM], BANDERA_MM)
    assert judged[-1] is None  # (a declined cell is not judged: it is not read)
    first = judged[0]
    assert first is not None and first.sure and first.p_right >= P_SURE["bandera"]
    for d in judged[1:4]:
        assert d is not None and not d.sure and d.reasons and d.p_right < P_SURE["bandera"]


def test_a_gridopolis_pawn_of_nil_confidence_is_sure_when_its_shape_is_clear() -> None:
    """A pawn and a king tie at nil (the crown is told by a cue of its own): the reader's confidence of 0 made
    every such pawn "cell-unsure"; its margin over "empty" says whether a piece is there."""
    pawn = CellReading((3, 0, 0), "pawn", "red", 0, False, 0.0, None, {"empty": 0.1, "pawn": 0.9, "king": 0.9,
                                                                         "blocker": 0.5}, (), 1.0)
    d = judge_cells("gridopolis", [pawn])[0]
    assert d is not None and d.sure, d
    old = reconstruct_board("gridopolis", board_spec("gridopolis"), [pawn]).problems
    assert "cell-unsure" in {p.code for p in old}  # (the reader's own limit: confidence under 0.3)
    under = [pawn, CellReading((3, 0, 2), "empty", None, 0, False, 1.0, seen=1.0)]  # a pad right above it
    assert doubt_signs("gridopolis", under)[0] == ("under",)


def test_two_pictures_that_read_a_cell_differently_make_it_unsure() -> None:
    a, b = _cube(4, 4), _tower(4, 4)
    d = judge_cells("bandera", [a], [CAM, CAM], BANDERA_MM, per_picture=[[a], [b]])[0]
    assert d is not None and "disagree" in d.signs and not d.sure


def test_the_unsure_warning_names_the_cell_what_was_read_and_why() -> None:
    cells = [_cube(7, 5, seen=0.3)]
    problems = unsure_problems("bandera", cells, judge_cells("bandera", cells, [CAM], BANDERA_MM))
    assert len(problems) == 1
    p = problems[0]
    assert p.code == "cell-unsure" and p.where == "cell (7,5)" and p.severity == "warning"
    assert "looks like one cube (red)" in p.message and "hardly seen (30 % of its view clear)" in p.message
    assert "check this cell" in p.message and "%" in p.message


def test_count_table_counts_each_sign_and_class() -> None:
    t = count_table([("bandera", _cube(1, 1), ("rule",), True), ("bandera", _cube(1, 2), ("rule",), False),
                     ("bandera", CellReading((1, 3), "unseen", None, 0, False, 0.0), (), True)])
    assert t == {"bandera": {"all": (1, 2), "cube": (1, 2), "sign:piece:rule": (1, 2)}}


def _over_22(unsure_at: tuple[int, int]) -> list[CellReading]:
    """Two royal towers (4 cubes) and 19 single cubes: 23 cubes, one more than the easy level's 22; every cube
    read with confidence 1.0, the one at ``unsure_at`` hardly seen."""
    spots = [(x, y) for x in range(2, 8) for y in range(7) if (x, y) not in ((4, 3), (5, 3))][:19]
    return [_royal(0, 3, "blue"), _royal(9, 3, "red"),
            *(_cube(x, y, seen=0.3 if (x, y) == unsure_at else 1.0) for x, y in spots)]


def test_a_count_over_the_limit_by_a_cube_judged_unsure_is_a_check_but_a_place_stays_an_error() -> None:
    """Bandera section 1 (cube count): the judgement (not the reader's confidence, 1.0 here) makes the count
    a check.  Section 2 (zone A): a cube where none may stand stays an error (the judgement is used on count
    claims only: on place claims it softened more breaking tables than legal ones, docs)."""
    spec = board_spec("bandera")
    cells = _over_22((2, 0))
    recon = reconstruct_board("bandera", spec, cells)
    assert "cube-count" in {p.code for p in check_unsure_readings(recon).problems if p.severity == "error"}
    doubts = judge_cells("bandera", cells, [CAM], BANDERA_MM)
    checked = check_unsure_readings(recon, doubts=doubts)
    checks = [p for p in checked.problems if p.code == CHECK_CODE]
    assert "cube-count" not in {p.code for p in checked.problems if p.severity == "error"}
    assert checks and "(2,0)" in checks[0].message and "hardly seen" in checks[0].message
    zone = [_royal(0, 3, "blue"), _royal(9, 3, "red"), _cube(4, 3, seen=0.3)]
    doubts = judge_cells("bandera", zone, [CAM], BANDERA_MM)
    assert doubts[2] is not None and not doubts[2].sure
    rec = check_unsure_readings(reconstruct_board("bandera", spec, zone), doubts=doubts)
    assert "zone-a" in {p.code for p in rec.problems if p.severity == "error"}
    rec = check_unsure_readings(reconstruct_board("bandera", spec, zone), doubts=doubts, judged=("count", "place"))
    assert "zone-a" not in {p.code for p in rec.problems if p.severity == "error"}


@pytest.mark.parametrize("scene", ["scene_006"])
def test_a_fixture_read_shows_its_unsure_cells_in_json_text_and_picture(scene: str) -> None:
    """Fixture Bandera scene 6: (1,3) is read as a stack on an empty square (one cube, by session 16's top-outline
    rule: two cubes before) and (9,3) gets red's character by a rule (it stands elsewhere): both wrong, both judged
    unsure; no reading changes."""
    sj = ROOT / "bandera" / f"{scene}.json"
    doc = json.loads(sj.read_text())
    img = cv2.imread(str(sj.with_suffix(".jpg")))
    res = read_board([(scene, img)], "bandera", spec=BoardSpec.from_json(doc["board"]),
                     camera=truth_calibration(doc["camera"], "fixture truth (simulated camera)"),
                     options=ReconstructOptions())
    unsure = {tuple(c.key) for c, _ in res.unsure}
    assert {(1, 3), (9, 3)} <= unsure
    out = res.to_json()
    assert {tuple(u["site"]) for u in out["unsure_cells"]} == unsure
    assert all("sure" in c and "p_right" in c for c in out["cells"] if c["kind"] not in ("occluded", "unseen"))
    texts = [p.message for p in res.reconstruction.problems if p.code == "cell-unsure" and p.where == "cell (1,3)"]
    assert texts and "one cube" in texts[0] and "check this cell" in texts[0]
    r = res.images[0]
    plain = annotate_board(img, r.pose, r.cells, [], [])
    marked = annotate_board(img, r.pose, r.cells, [], [], unsure=unsure)
    assert plain.shape[0] < marked.shape[0] or not np.array_equal(plain, marked)


def test_a_quirky_token_only_partly_matching_its_print_is_unsure() -> None:
    """Quirky: a token whose printed colours cover less of the cell than a whole token (confidence under 1) was
    wrong 7 times of 20 on the development tables; a whole one is sure."""
    whole = CellReading((2, 2), "vase", None, 0, False, 1.0, seen=1.0)
    part = CellReading((3, 2), "vase", None, 0, False, 0.6, seen=1.0)
    d_whole, d_part = judge_cells("quirky", [whole, part])
    assert d_whole is not None and d_whole.sure
    assert d_part is not None and not d_part.sure and d_part.signs == ("partial",)
    assert "only part of the cell shows the token's print" in d_part.reasons


def test_signs_combined_as_odds_add_up_where_the_weakest_alone_does_not() -> None:
    """Check set, Gridopolis: pieces read empty with three signs at once (hardly seen, a piece's shape, a pad
    above), each alone just above the limit.  ``combine="odds"`` (measured, not the default) makes them unsure."""
    # (a shape margin of 0.4: under session 14's ``solid`` sign, STRONG_PRESENCE 0.5, which alone makes it unsure)
    empty = CellReading((3, 3, 1), "empty", None, 0, False, 0.0, None, {"empty": 0.3, "pawn": 0.7, "king": 0.7,
                                                                          "blocker": 0.4}, (), 0.2)
    cells = [empty, CellReading((3, 3, 2), "empty", None, 0, False, 1.0, seen=1.0)]
    # (at the 0.9 limit the signs were measured with; Gridopolis's default is 0.95 since session 15)
    weakest = judge_cells("gridopolis", cells, p_sure=0.9)[0]
    odds = judge_cells("gridopolis", cells, combine="odds", p_sure=0.9)[0]
    assert weakest is not None and odds is not None
    assert set(weakest.signs) == {"seen", "shape", "under"}
    assert weakest.sure and not odds.sure and odds.p_right < weakest.p_right
    assert len(odds.reasons) == 3
