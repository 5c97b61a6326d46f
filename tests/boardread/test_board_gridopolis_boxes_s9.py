"""Gridopolis blocker boxes, session 9 (docs/boards_vision.md, "Session 9: Gridopolis blocker boxes on their pads'
rings and in dim light"): a pad's colour is not read on ring points a box may cover, and a box's grey rims in dim
light.  Fixture 4 and development renders (tests/boardread/data/gridopolis_dev/README.md); each reading test also
runs with its rule off and fails then."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tests.boardread.test_board_round5 import _fixture, scene_with_pose
from vision.board_classify import config_for
from vision.board_pipeline import read_board

DEV = Path(__file__).resolve().parent / "data" / "gridopolis_dev"


def _read(img, cam, pose, cfg=None):  # type: ignore[no-untyped-def]
    res = read_board([("s", img)], "gridopolis", spec=pose.spec, camera=cam, classify_config=cfg)
    return {c.key: (c.kind, c.colour) for c in res.cells}


def test_a_pads_colour_is_not_read_on_the_ring_points_a_box_covers() -> None:
    """Fixture 4's blue box (5, 4, 0), dev_s9_g003's green box (4, 1, 0) and dev_s9_bp002's red box (4, 1, 0): a pad
    in front or the box itself hides all but 1-2 of the ring points clear of the box, so the pad's colour was read
    on all its ring points -- most of them showing the box -- and the box looked like its pad (read as a pawn or
    the site as empty).  Where the points a box may cover show a colour that the points clear of it and the
    neighbouring plain pads do not, the pad takes its neighbours' colour (``ring_short_neighbours``; off: wrong)."""
    # (session 10's ``box_fit_alone`` also reads fixture 4's box, the probes preferring a box by 0.23: off too)
    off = replace(config_for("gridopolis"), ring_short_neighbours=0, box_fit_alone=0.0)
    cases = [(_fixture(4), (5, 4, 0), "blue"),
             (scene_with_pose(DEV / "dev_s9_g003", "development render truth (simulated camera)"), (4, 1, 0), "green"),
             (scene_with_pose(DEV / "dev_s9_bp002", "development render truth (simulated camera)"), (4, 1, 0), "red")]
    for (img, cam, doc, pose), key, colour in cases:
        assert any((e["x"], e["y"], e.get("level", 0), e["piece"], e["colour"]) == (*key, "blocker", colour)
                   for e in doc["cells"])
        assert _read(img, cam, pose)[key] == ("blocker", colour), key
        assert _read(img, cam, pose, off)[key] != ("blocker", colour), key


def test_a_box_whose_rims_show_its_colour_little_is_a_box_when_the_probes_prefer_one() -> None:
    """dev_s8_gs004 (dim light): the red box on (5, 3, 1).  The points of a box's faces clear of a marker lie on its
    rounded rims, which dim light shows grey: 5 % of them show its red (a box needed 30 %, or 20 % with the probes
    preferring a box by 0.1).  With any of them showing it and the probes preferring a box by 0.05 it is a box
    (``box_fit_share`` 0.01, ``box_fit_margin`` 0.05); with the old values a pawn."""
    img, cam, doc, pose = scene_with_pose(DEV / "dev_s8_gs004", "development render truth (simulated camera)")
    key = (5, 3, 1)
    assert any((e["x"], e["y"], e.get("level", 0), e["piece"]) == (*key, "blocker") for e in doc["cells"])
    old = replace(config_for("gridopolis"), box_fit_share=0.2, box_fit_margin=0.1)
    assert _read(img, cam, pose)[key] == ("blocker", "red")
    assert _read(img, cam, pose, old)[key] == ("pawn", "red")


def test_a_blue_no_more_saturated_than_the_shade_under_a_pad_is_declined() -> None:
    """dev_s9_bp000: the empty core pads (3, 4, 0) and (4, 4, 0), under level 1, in its shade lit by the sky's fill
    light, looked blue (chroma / L* about 0.5: above the 0.45 a blue marker needs in the open) and read as a blue box
    and a blue pawn.  On a site with a pad above it a blue marker needs 0.6 (``marker_saturation_under``): they are
    declined with the reason (off: blue pieces)."""
    img, cam, doc, pose = scene_with_pose(DEV / "dev_s9_bp000", "development render truth (simulated camera)")
    keys = ((3, 4, 0), (4, 4, 0))
    truth = {(e["x"], e["y"], e.get("level", 0)) for e in doc["cells"]}
    assert not any(k in truth for k in keys)
    off = replace(config_for("gridopolis"), marker_saturation_under=())
    before = _read(img, cam, pose, off)
    assert all(before[k][1] == "blue" and before[k][0] in ("pawn", "blocker") for k in keys)
    cells = {c.key: c for c in read_board([("s", img)], "gridopolis", spec=pose.spec, camera=cam).cells}
    for k in keys:
        assert cells[k].kind == "unseen" and "under the pad above it the shade" in cells[k].notes[0]


def test_a_pad_added_above_the_table_needs_clearer_votes_and_outline() -> None:
    """dev_s9_gc013 (dim light): a pad at (5, 4, 2), not on the table, was found with ring votes and outline both just
    over 0.5, and the yellow pawn on the kingerizer (6, 3, 0) behind it was declined (its probes hidden).  A pad
    added above the table (level 1 up, not the core) needs 0.55 of both (``present_up``, ``edge_min_up``): the pad is
    not found and the pawn reads (with both 0: the pad and the decline again)."""
    from vision.board_pads import PadDetectConfig, detect_pads

    img, cam, doc, pose = scene_with_pose(DEV / "dev_s9_gc013", "development render truth (simulated camera)")
    assert [5, 4, 2] not in doc["state"]["pads"]
    off = PadDetectConfig(present_up=0.0, edge_min_up=0.0)
    assert (5, 4, 2) in detect_pads(img, pose, off).pads
    assert (5, 4, 2) not in detect_pads(img, pose).pads
    on = {c.key: (c.kind, c.colour) for c in read_board([("s", img)], "gridopolis", spec=pose.spec, camera=cam).cells}
    before = {c.key: (c.kind, c.colour) for c in read_board([("s", img)], "gridopolis", spec=pose.spec, camera=cam,
                                                           pad_config=off).cells}
    assert on[(6, 3, 0)] == ("pawn", "yellow")
    assert before[(6, 3, 0)][0] == "unseen"


def test_a_piece_beating_empty_by_0_4_on_a_place_shows_its_pad() -> None:
    """dev_s9_h004 (dim light): the red pawn on the pad on a post above the core's corner (4, 3, 3), whose ring votes
    missed it, reads as a red pawn where no pad was found, beating "empty" by 0.44; the place reading needed 0.5 and
    the piece had no site.  With ``piece_pad_margin`` 0.4 its pad is added and it reads (0.5: no site)."""
    from vision.board_pads import PadDetectConfig

    img, cam, doc, pose = scene_with_pose(DEV / "dev_s9_h004", "development render truth (simulated camera)")
    key = (4, 3, 3)
    assert list(key) in doc["state"]["pads"]
    assert any((e["x"], e["y"], e.get("level", 0), e["piece"], e["colour"]) == (*key, "pawn", "red")
               for e in doc["cells"])
    assert _read(img, cam, pose)[key] == ("pawn", "red")
    before = {c.key: (c.kind, c.colour) for c in read_board([("s", img)], "gridopolis", spec=pose.spec, camera=cam,
                                                           pad_config=PadDetectConfig(piece_pad_margin=0.5)).cells}
    assert key not in before
