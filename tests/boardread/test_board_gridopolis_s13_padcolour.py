"""Gridopolis, session 13 (docs/boards_vision.md, "Session 13: pad colour measured locally"): a pad added above the
table in the open, whose votes against the core's top-level grey (in the shade) say nothing, is found when it is asked
again with the pad colour in the open (``PadDetectConfig.open_ref``: the lightest plain pads found); the pads seen
through a place are taken in that light too, so a place above a pad found in the open is not taken for one.
Development render (tests/boardread/data/gridopolis_dev/README.md); the reading test runs with the switch off too and
fails then."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tests.boardread.test_board_round5 import scene_with_pose
from vision.board_pads import PadDetectConfig, detect_pads

DEV = Path(__file__).resolve().parent / "data" / "gridopolis_dev"
TRUTH = "development render truth (simulated camera)"


def test_a_pad_in_the_open_is_found_with_the_pad_colour_in_the_open() -> None:
    """dev_s13_h11007 (``held11`` scene 7, warm light): the core's top level is in the shade (L* 73) while the pads
    in the open are L* 85-89.  The pad on a post at (6, 4, 1) scored 0.11 against the core's grey (its points between
    that grey and the paper); against the pad colour in the open it beats ``present_up``, its outline seen: a pad.
    No pad that is not there is found with it (the places above the pads in the open, e.g. (1, 3, 2), see those
    pads in that light and are not taken)."""
    img, _cam, doc, pose = scene_with_pose(DEV / "dev_s13_h11007", TRUTH)
    truth = {(p[0], p[1], p[2]) for p in doc["state"]["pads"]}
    on = detect_pads(img, pose, replace(PadDetectConfig(), open_ref=True))
    off = detect_pads(img, pose, replace(PadDetectConfig(), open_ref=False))
    assert (6, 4, 1) in truth and (6, 4, 1) in on.pads and (6, 4, 1) not in off.pads
    assert set(on.pads) - set(off.pads) <= truth
    assert (1, 3, 2) not in on.pads and (1, 3, 2) not in truth
