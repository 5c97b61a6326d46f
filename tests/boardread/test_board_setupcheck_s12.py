"""The set-up check on unsure readings (issue 9 item 3, session 12; docs/boards_vision.md "Session 12: set-up
check on unsure readings"): a rule error resting on a reading the camera is unsure of is a ``check-cell``
warning naming the cell and the rule; an error resting on sure readings stays an error, and the tables made
to break a rule still get one."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import pytest

from boardside.commands.validate import verdict
from boardside.fixtures_render.camera import truth_calibration
from calibration.boards import BoardSpec, board_spec
from engine.core import Problem
from vision.board_classify import CellReading
from vision.board_pipeline import read_board
from vision.board_reconstruct import ReconstructOptions, reconstruct_board
from vision.board_setupcheck import CHECK_CODE, check_unsure_readings

ROOT = Path(__file__).resolve().parents[2] / "fixtures" / "boards"


def _royal(x: int, y: int, colour: str, conf: float = 1.0) -> CellReading:
    return CellReading((x, y), "royal_tower", colour, 2, True, conf, colour)


def _cube(x: int, y: int, conf: float = 0.9, scores: dict[str, float] | None = None) -> CellReading:
    return CellReading((x, y), "cube", None, 1, False, conf, None, scores or {})


def _check(game: str, cells: Sequence[CellReading],
           opt: ReconstructOptions | None = None) -> tuple[set[str], list[Problem]]:
    opt = opt or ReconstructOptions()
    rec = check_unsure_readings(reconstruct_board(game, board_spec(game), cells, opt), opt.min_confidence,
                                players_given=opt.players is not None)
    assert rec.cells == list(cells)  # (the check changes no reading)
    return {p.code for p in rec.problems if p.severity == "error"}, [p for p in rec.problems if p.code == CHECK_CODE]


def _over_22(first_conf: float) -> list[CellReading]:
    """Two royal towers (4 cubes) and 19 single cubes: 23 cubes, one more than the easy level's 22."""
    spots = [(x, y) for x in range(2, 8) for y in range(7) if (x, y) not in ((4, 3), (5, 3))][:19]
    return [_royal(0, 3, "blue"), _royal(9, 3, "red"),
            *(_cube(x, y, first_conf if i == 0 else 0.9) for i, (x, y) in enumerate(spots))]


def test_a_cube_count_over_the_limit_by_an_unsure_cube_is_a_check_naming_it() -> None:
    """Bandera section 1 (cube count): 23 cubes read, one of them with low confidence."""
    errors, checks = _check("bandera", _over_22(0.1))
    assert "cube-count" not in errors and len(checks) == 1
    assert "(2,0)" in checks[0].message and "cube-count" in checks[0].message
    assert "docs/rules/bandera.md, section 1" in checks[0].rule
    errors, checks = _check("bandera", _over_22(0.9))  # every cube read surely: the count is broken
    assert "cube-count" in errors and not checks


def test_a_piece_where_no_piece_may_stand_is_an_error_unless_its_presence_is_unsure() -> None:
    """Bandera section 2 (zone A): a cube surely there stays an error; a cube whose probes hardly beat "empty"
    (presence, not the cube-or-tower margin) is a check."""
    base = [_royal(0, 3, "blue"), _royal(9, 3, "red")]
    errors, checks = _check("bandera", [*base, _cube(4, 3, 0.0, {"empty": 0.1, "cube": 0.9, "tower2": 0.9})])
    assert "zone-a" in errors and not checks  # (a tie of cube and tower says nothing of whether a cube is there)
    errors, checks = _check("bandera", [*base, _cube(4, 3, 0.9, {"empty": 0.5, "cube": 0.52, "tower2": 0.4})])
    assert "zone-a" not in errors and checks and "(4,3)" in checks[0].message


def test_players_taken_from_the_colours_seen_are_unsure_when_a_paved_square_is_not_seen() -> None:
    """Bandera section 3: two players are blue and red.  Blue and green seen, red's corner covered: the table
    may have four players -- a check naming the covered square; with --players given it stays an error."""
    cells = [_royal(0, 0, "blue"), _royal(9, 6, "green"), CellReading((9, 0), "occluded", None, 0, False, 0.8)]
    errors, checks = _check("bandera", cells)
    assert "players-colours" not in errors and any("(9,0)" in p.message for p in checks)
    errors, checks = _check("bandera", cells, ReconstructOptions(players=2))
    assert "colour-not-playing" in errors


def test_a_gridopolis_king_at_the_set_up_stays_an_error() -> None:
    """Gridopolis set-up: all markers begin as pawns.  A pawn and a king tie in the shape margin (confidence
    0.0); the king is told by its crown, which has no confidence of its own: the error stays."""
    cells = [CellReading((x, 0, 0), "pawn", "green", 0, False, 0.0, None, {"empty": 0.1, "pawn": 0.9, "king": 0.9})
             for x in (2, 3)]
    cells += [CellReading((4, 0, 0), "king", "green", 0, False, 0.0, None, {"empty": 0.1, "pawn": 0.9, "king": 0.9})]
    cells += [CellReading((x, 6, 0), "pawn", "blue", 0, False, 0.9) for x in (2, 3, 4)]
    errors, checks = _check("gridopolis", cells)
    assert "setup-king" in errors and not checks


def test_the_cli_says_which_it_is() -> None:
    err = Problem("zone-a", "a cube in zone A", "cubes at (4,3)")
    chk = Problem(CHECK_CODE, "check this cell", "cubes", "", "warning")
    assert verdict([err, chk]).startswith("RULE BROKEN")
    assert verdict([chk]).startswith("CHECK THE TABLE")
    assert verdict([]) == "no rule error"


@pytest.mark.parametrize(("game", "scene", "code"), [
    ("bandera", 10, "zone-a"), ("bandera", 11, "setup-royal"),
    ("quirky", 10, "token-on-obstacle"), ("quirky", 11, "robot-on-obstacle"),
])
def test_rule_breaking_fixtures_still_get_their_error(game: str, scene: str, code: str) -> None:
    """The fixture tables made to break a rule that got an error before still get it as an error (sure
    readings), not a check."""
    from engine.quirky import builtin_ids, builtin_scenario, parse_scenario

    doc = json.loads((ROOT / game / f"scene_{scene:03d}.json").read_text())
    assert doc["breaks_rules"]
    img = cv2.imread(str(ROOT / game / f"scene_{scene:03d}.jpg"))
    assert img is not None
    opt = ReconstructOptions()
    if game == "quirky":
        ref = doc["scenario"]
        opt = ReconstructOptions(scenario=builtin_scenario(ref) if ref in builtin_ids()
                                 else parse_scenario((ROOT / ref).read_text("utf-8"), ref))
    res = read_board([("s", np.asarray(img, np.uint8))], game, spec=BoardSpec.from_json(doc["board"]),
                     camera=truth_calibration(doc["camera"], "fixture truth (simulated camera)"), options=opt)
    assert code in {p.code for p in res.reconstruction.problems if p.severity == "error"}


def _two_player_grid(extra: Sequence[CellReading]) -> list[CellReading]:
    return [*(CellReading((x, 0, 0), "pawn", "green", 0, False, 0.9) for x in (2, 3, 4)),
            *(CellReading((x, 6, 0), "pawn", "blue", 0, False, 0.9) for x in (2, 3, 4)), *extra]


def test_a_piece_on_a_four_player_pad_of_an_arm_not_in_play_is_a_check() -> None:
    """Gridopolis "Node parts" / "Adding a pad": a blocker box read on (5,3,0), a pad of the four-player grid-set
    the two-player set does not have: a pad may have been added there (not told apart) -- a check."""
    cells = _two_player_grid([CellReading((5, 3, 0), "blocker", "blue", 0, False, 0.9)])
    errors, checks = _check("gridopolis", cells)
    assert "node-off-grid" not in errors and checks and "(5,3,0)" in checks[0].message


def test_more_pads_added_than_held_is_a_check_only_when_enough_of_them_had_a_low_vote() -> None:
    """Gridopolis "Adding a pad": 2 players hold 6 spare pads; 7 found added.  One of them with a vote just above
    the finder's limit and nothing on it: a check; every vote high: the error stays."""
    added = tuple((x, y, 3) for x, y in ((2, 2), (2, 3), (2, 4), (3, 2), (3, 4), (4, 2), (4, 3)))
    opt = ReconstructOptions(added_pads=added, players=2)
    rec = reconstruct_board("gridopolis", board_spec("gridopolis"), _two_player_grid([]), opt)
    assert "parts-added" in {p.code for p in rec.problems if p.severity == "error"}
    low = check_unsure_readings(rec, 0.3, True, {k: (0.55 if k == added[0] else 1.0) for k in added}, 0.5)
    assert "parts-added" not in {p.code for p in low.problems if p.severity == "error"}
    assert any("(2,2,3)" in p.message for p in low.problems if p.code == CHECK_CODE)
    high = check_unsure_readings(rec, 0.3, True, dict.fromkeys(added, 1.0), 0.5)
    assert "parts-added" in {p.code for p in high.problems if p.severity == "error"}
