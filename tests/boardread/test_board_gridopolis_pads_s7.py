"""Gridopolis, session 7 (docs/boards_vision.md, "Session 7: Gridopolis pads under pieces"): a pad with
a piece standing on it is found by the piece -- on the committed fixtures (rendered photographs,
simulated).  Each test also runs with its mechanism turned off and fails then."""

from __future__ import annotations

from tests.boardread.test_board_round5 import _fixture
from vision.board_pads import PadDetectConfig, detect_pads
from vision.board_pipeline import read_board

OFF = PadDetectConfig(own_piece=False)


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
