"""Gridopolis, session 9 (docs/boards_vision.md, "Session 9: Gridopolis pieces on pads built above other pads"):
a player's piece seen standing where pad detection found no pad shows the pad (pieces stand on pads only).
Development renders (simulated photographs, tests/boardread/data/gridopolis_dev/README.md); each reading test
also runs with the mechanism off (``PadDetectConfig.piece_pads``) and fails then."""

from __future__ import annotations

from pathlib import Path

from tests.boardread.test_board_round5 import scene_with_pose
from vision.board_pads import PadDetectConfig, piece_places
from vision.board_pipeline import read_board

DEV = Path(__file__).resolve().parent / "data" / "gridopolis_dev"
# (session 13's outline rule finds dev_s9_h007's pad (0, 4, 1) too, and the pad colour in the open its (5, 2, 2):
# off with the rule tested; the pad colour in the open is off in ``ON`` too, as it also finds two pads there that are
# not, (2, 1, 1) and (4, 1, 2): docs/boards_vision.md, "Session 13: pad colour measured locally")
OFF = PadDetectConfig(piece_pads=False, outline_sides=1.01, open_ref=False)
ON = PadDetectConfig(open_ref=False)


def _truth(doc: dict) -> dict[tuple[int, int, int], tuple[str, str]]:  # type: ignore[type-arg]
    return {(c["x"], c["y"], c["level"]): (c["piece"], c["colour"]) for c in doc["cells"]}


def test_places_are_where_the_engine_allows_a_pad_and_none_was_found() -> None:
    pads = [(3, 3, 0), (3, 3, 1), (3, 4, 0)]
    tested = [(3, 3, 2), (4, 3, 1), (3, 4, 1), (5, 5, 1), (3, 5, 0), (3, 3, 1), (2, 4, 2)]
    # above a pad, or beside one on its level; not where a pad is, nor in the air, nor on the table (level 0)
    assert piece_places(tested, pads) == [(3, 3, 2), (3, 4, 1), (4, 3, 1)]
    assert piece_places(tested, pads, from_level=0) == [(3, 3, 2), (3, 4, 1), (3, 5, 0), (4, 3, 1)]


def test_pieces_on_pads_the_votes_missed_are_read() -> None:
    """dev_s9_h007: a red pawn on a pad on a post above the red arm (0, 4, 1) and a green box on a pad beside level
    2 (5, 2, 2); dev_s9_n009: a green pawn on a pad on a post above the green arm (3, 1, 1); dev_s8_gs004: a red
    box on a pad on a post above the yellow kingerizer (6, 3, 1).  Their pads' ring votes missed them (the piece
    hides most of the ring, a pad below or a piece in front explains its colour): the pieces had no site.  Read
    as places where a pad may stand, each shows a player's piece: its pad is added, and read with it in place."""
    for stem, keys in (("dev_s9_h007", ((0, 4, 1), (5, 2, 2))), ("dev_s9_n009", ((3, 1, 1),)),
                       ("dev_s8_gs004", ((6, 3, 1),))):
        img, cam, doc, pose = scene_with_pose(DEV / stem, "development render truth (simulated camera)")
        truth = _truth(doc)
        on = read_board([("s", img)], "gridopolis", spec=pose.spec, camera=cam, pad_config=ON)
        off = read_board([("s", img)], "gridopolis", spec=pose.spec, camera=cam, pad_config=OFF)
        cells_on = {c.key: (c.kind, c.colour) for c in on.cells}
        cells_off = {c.key: (c.kind, c.colour) for c in off.cells}
        for key in keys:
            assert cells_on[key] == truth[key], (stem, key)
            assert key not in cells_off, (stem, key)
            assert list(key) in on.reconstruction.doc["pads"]
        added = {tuple(p) for p in on.reconstruction.doc["pads"]} - {tuple(p) for p in off.reconstruction.doc["pads"]}
        assert set(keys) <= added
        if stem != "dev_s8_gs004":  # (there a blue box is read on a pad that is not there: session 9, doubtful)
            assert added <= {tuple(p) for p in doc["state"]["pads"]}
        # the engine's validator ran on the state read (a pad added is a move: the game is in progress)
        assert on.reconstruction.doc["turns"] >= 1


def test_a_yellow_kings_crown_told_by_its_relief() -> None:
    """A yellow king's gold crown is hardly bluer than the yellow plastic in some light (dev_s9_p025: 0.20 against
    the 0.85 a king needed), and it read as a pawn.  Its points and rim are a relief: the top within the crown's
    reach spans 34 of L* there, where a pawn's flat top spans a few (``yellow_crown_relief``, 9.4; off: a pawn
    again).  A pawn whose top spans much (dev_s9_bp007 (6, 2, 0), 33: half in a shadow's edge) but is no bluer in
    the middle than on its rim stays a pawn."""
    from dataclasses import replace

    from vision.board_classify import config_for

    off = replace(config_for("gridopolis"), yellow_crown_relief=0.0)
    for stem, key in (("dev_s9_p025", (6, 4, 0)), ("dev_s9_bp007", (6, 2, 0))):
        img, cam, doc, pose = scene_with_pose(DEV / stem, "development render truth (simulated camera)")
        want = _truth(doc)[key]
        on = {c.key: (c.kind, c.colour) for c in read_board([("s", img)], "gridopolis", spec=pose.spec,
                                                              camera=cam).cells}
        assert on[key] == (want[0], want[1]) == (("king", "yellow") if stem == "dev_s9_p025" else ("pawn", "yellow"))
        if stem == "dev_s9_p025":
            was = {c.key: (c.kind, c.colour) for c in read_board([("s", img)], "gridopolis", spec=pose.spec, camera=cam,
                                                                 classify_config=off).cells}
            assert was[key] == ("pawn", "yellow")


def test_a_piece_on_a_pad_found_added_seen_only_through_other_pieces_is_not_read() -> None:
    """dev_s9_h007: pad detection finds a pad at (3, 5, 1) that is not on the table (above the yellow box on
    (3, 5, 0)), and a yellow pawn was read on it: the yellow box below, seen through it.  Read again as a place with
    the other pieces as obstacles (``check_added``), nothing of its own shows there: declined with the reason (a
    yellow piece with it off).  Fixture 3's blue box on the pad added at (5, 2, 1), seen on few rays clear of the
    others but clearly a box on those, is still read."""
    from tests.boardread.test_board_round5 import _fixture

    img, cam, doc, pose = scene_with_pose(DEV / "dev_s9_h007", "development render truth (simulated camera)")
    assert [3, 5, 1] not in doc["state"]["pads"]
    # (session 10: the pad is then left out, the box below read -- ``drop_seen_through``; off here, to see the decline)
    on = {c.key: c for c in read_board([("s", img)], "gridopolis", spec=pose.spec, camera=cam,
                                       pad_config=PadDetectConfig(drop_seen_through=False)).cells}[(3, 5, 1)]
    assert on.kind == "unseen" and "another piece stands behind it" in on.notes[0]
    now = {c.key: c for c in read_board([("s", img)], "gridopolis", spec=pose.spec, camera=cam).cells}
    assert (3, 5, 1) not in now and (now[(3, 5, 0)].kind, now[(3, 5, 0)].colour) == ("blocker", "yellow")
    off = {c.key: c for c in read_board([("s", img)], "gridopolis", spec=pose.spec, camera=cam,
                                        pad_config=PadDetectConfig(check_added=False)).cells}[(3, 5, 1)]
    # (a yellow piece read there: a pawn until the box fit rule of session 9 (gridboxes), a box since)
    assert off.kind in ("pawn", "blocker") and off.colour == "yellow"
    img, cam, doc, pose = _fixture(3)
    cells = {c.key: (c.kind, c.colour) for c in read_board([("s", img)], "gridopolis", spec=pose.spec,
                                                            camera=cam).cells}
    assert cells[(5, 2, 1)] == ("blocker", "blue")


def test_an_empty_reading_needs_the_place_of_a_piece_seen() -> None:
    """dev_s7_d2_010's green pawn on (3, 0, 0) and dev_s9_p025's red pawn on (0, 3, 0) show 31 and 26 pixels: the
    probes where a pawn standing there would itself be seen are hidden on all but one, and the site read "empty" (a
    guess).  With fewer than two such probes seen (``empty_min_inside``) it is declined, with the reason; off,
    "empty" again."""
    from dataclasses import replace

    from vision.board_classify import config_for

    off = replace(config_for("gridopolis"), empty_min_inside=0)
    for stem, key in (("dev_s7_d2_010", (3, 0, 0)), ("dev_s9_p025", (0, 3, 0))):
        img, cam, doc, pose = scene_with_pose(DEV / stem, "development render truth (simulated camera)")
        assert _truth(doc)[key][0] == "pawn"
        on = {c.key: c for c in read_board([("s", img)], "gridopolis", spec=pose.spec, camera=cam).cells}[key]
        assert on.kind == "unseen" and "whether it is empty cannot be told" in on.notes[0]
        was = {c.key: c for c in read_board([("s", img)], "gridopolis", spec=pose.spec, camera=cam,
                                             classify_config=off).cells}[key]
        assert was.kind == "empty"
