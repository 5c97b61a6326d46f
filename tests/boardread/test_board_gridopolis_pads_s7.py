"""Gridopolis, session 7 (docs/boards_vision.md, "Session 7: Gridopolis pads under pieces and in shade"): a
pad with a piece standing on it is found by the piece (committed fixtures), and an arm in shade is read in
its own light (two development renders) -- rendered photographs, simulated.  Each test also runs with its
mechanism turned off and fails then."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.boardread.test_board_round5 import _fixture, scene_with_pose
from vision.board_pads import PadDetectConfig, detect_pads
from vision.board_pipeline import read_board

OFF = PadDetectConfig(own_piece=False)
DEV = Path(__file__).resolve().parent / "data" / "gridopolis_dev"


def test_a_pad_under_a_blocker_box_is_found_by_the_box() -> None:
    """A blocker box (26 mm wide) covers the inner ring of its pad's top and, from the camera, much of the
    outer one: its coloured points voted "no pad" (a plain pad is grey) or were left out, and the pad was
    not found -- the box had no site (fixture 8's blue box on (2, 6, 1) and red box on (4, 4, 3), fixture
    3's blue box on (5, 2, 1)).  A saturated colour seen only through the room of a piece standing on the
    candidate now votes "pad" (``own_piece``); with it off the pads are missed again."""
    for n, keys in ((8, ((2, 6, 1), (4, 4, 3))), (3, ((5, 2, 1),))):
        img, cam, doc, pose = _fixture(n)
        blockers = {tuple(b["pad"]): b["player"] for b in doc["state"]["blockers"]}
        on, off = detect_pads(img, pose), detect_pads(img, pose, OFF)
        truth = {tuple(p) for p in doc["state"]["pads"]}
        for key in keys:
            assert key in blockers and key in truth
            assert key in on.pads
            assert key not in off.pads
        # the pads it adds are the table's (none made up from a neighbour's piece)
        assert set(on.pads) - set(off.pads) <= truth
        cells = {c.key: (c.kind, c.colour) for c in read_board([("s", img)], "gridopolis", spec=pose.spec,
                                                                camera=cam).cells}
        for key in keys:
            assert cells[key] == ("blocker", blockers[key])


def test_a_pieces_colour_makes_no_pad_on_few_points_nor_on_the_table() -> None:
    """The colour of a piece counts for a candidate only where the ray meets no other pad's room, on 4
    points or more (``own_piece_points``; at 1, fixture 2 gains a pad (3, 2, 3) not on the table, a stray
    ray past another piece), and from level 1 up (``own_piece_from_level``): on the table the arms' pads
    are not yet in place when it is decided, and at level 0 fixture 5's left-out arm (a seat not in play)
    is then taken to be on the table, a piece on the next arm's pad read as one on it."""
    img, _, doc, pose = _fixture(2)
    truth = {tuple(p) for p in doc["state"]["pads"]}
    base = set(detect_pads(img, pose, OFF).pads)
    assert set(detect_pads(img, pose).pads) - base <= truth
    assert (3, 2, 3) in set(detect_pads(img, pose, PadDetectConfig(own_piece_points=1)).pads) - base - truth
    img, _, doc, pose = _fixture(5)
    arm = {(x, y, 0) for x in (5, 6) for y in (2, 3, 4)}
    assert not arm & {tuple(p) for p in doc["state"]["pads"]}
    assert set(detect_pads(img, pose).absent) == arm
    assert not set(detect_pads(img, pose, PadDetectConfig(own_piece_from_level=0)).absent)


@pytest.mark.parametrize("name", ["dev_s7_000", "dev_s7_d2_010"])
def test_an_arm_in_shade_is_read_in_its_own_light(name: str) -> None:
    """Two development renders (not fixtures; ``tests/boardread/data/gridopolis_dev/README.md``): the blue
    arm, (2..4, 5..6, 0), lies in the shade of the core under a bluish light; its plain pads (L* 55-70, b*
    -1 to -10) were nearer the arm zone's blue print (L* 86, b* -16) than the plain pad colour of the open
    top level (L* 93-100): every vote said "no pad", the arm was taken to be left out and its three blue
    pawns had no site.  Read in the candidate's own light (``local_light_points``: measured where the pad
    and the white print look alike) the arm is on the table and the pawns are read; with it off they are
    not."""
    img, cam, doc, pose = scene_with_pose(DEV / name, "render truth (simulated camera)")
    arm = {(x, y, 0) for x in (2, 3, 4) for y in (5, 6)}
    pawns = {tuple(m["pad"]): m["player"] for m in doc["state"]["markers"] if tuple(m["pad"]) in arm}
    assert arm <= {tuple(p) for p in doc["state"]["pads"]} and len(pawns) == 3
    assert set(detect_pads(img, pose, PadDetectConfig(local_light_points=0)).absent) == arm
    on = detect_pads(img, pose)
    assert not on.absent and arm <= set(on.pads)
    cells = {c.key: (c.kind, c.colour) for c in read_board([("s", img)], "gridopolis", spec=pose.spec,
                                                            camera=cam).cells}
    for key, player in pawns.items():
        assert cells[key] == ("pawn", player)
