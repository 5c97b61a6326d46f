"""Gridopolis, session 8: the rules about what may stand on a kingerizer or a hyper-pad, used when reading
(docs/boards_vision.md, "Session 8: Gridopolis pieces on the start rows")."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from calibration.boards import board_spec
from engine.gridopolis.layout import HYPER_PADS, SEATS
from tests.boardread.test_board_round5 import _fixture, scene_with_pose
from vision.board_classify import _part_rules, config_for
from vision.board_pieces import hypotheses_for
from vision.board_pipeline import read_board, sites_for, structure_groups

DEV = Path(__file__).resolve().parent / "data" / "gridopolis_dev"
OFF = replace(config_for("gridopolis"), part_rules=False)


def test_part_rules_forbid_boxes_on_kingerizers_and_hyper_pads_only() -> None:
    sites, structure = sites_for(board_spec("gridopolis"))
    assert structure is not None
    hyps = hypotheses_for("gridopolis")
    allowed, start_of = _part_rules(hyps, structure_groups(sites, len(structure))[: len(sites)])
    box = [h.kind for h in hyps].index("blocker")
    special = {(p.x, p.y, p.level) for p in HYPER_PADS} | {(p.x, p.y, p.level) for s in SEATS.values()
                                                            for p in s.start_row}
    for i, s in enumerate(sites):
        assert allowed[box, i] == (tuple(s.key) not in special)
    assert np.all(allowed[[h.kind != "blocker" for h in hyps]])  # markers and "empty" everywhere
    assert {tuple(sites[i].key): c for i, c in start_of.items()} == {
        (p.x, p.y, p.level): s.colour for s in SEATS.values() for p in s.start_row}


def test_no_box_is_read_on_a_kingerizer() -> None:
    """Fixture 7's blue pawn on its kingerizer (4, 6, 0) and dev_s7_005's on (2, 6, 0) (a development render,
    tests/boardread/data/gridopolis_dev/README.md) showed their kingerizer's blue tint on the box's faces and
    read as blue boxes; a box never stands on a kingerizer (docs/rules/gridopolis.md, "Caja bloqueadora"):
    they read as pawns (as boxes with ``part_rules`` off)."""
    img, cam, _, pose = _fixture(7)
    cases = [(img, cam, pose, (4, 6, 0))]
    img, cam, _, pose = scene_with_pose(DEV / "dev_s7_005", "render truth (simulated camera)")
    cases.append((img, cam, pose, (2, 6, 0)))
    for img, cam, pose, key in cases:
        now = {c.key: (c.kind, c.colour) for c in read_board([("s", img)], "gridopolis", spec=pose.spec,
                                                               camera=cam).cells}
        before = {c.key: (c.kind, c.colour) for c in read_board([("s", img)], "gridopolis", spec=pose.spec,
                                                                  camera=cam, classify_config=OFF).cells}
        assert now[key] == ("pawn", "blue")
        assert before[key] == ("blocker", "blue")


def test_a_marker_on_an_opponents_kingerizer_is_a_king() -> None:
    """dev_s8_007 (a development render): a green king on red's kingerizer (0, 2, 0) and a blue king on green's
    (3, 0, 0); their gold crowns are not seen clearly (warm light), so they read as pawns with ``part_rules``
    off.  A pawn landing on an opponent's start row is crowned (docs/rules/gridopolis.md, "Kings"): read as
    kings, with a note that becomes a ``reading-by-rule`` warning."""
    img, cam, doc, pose = scene_with_pose(DEV / "dev_s8_007", "render truth (simulated camera)")
    truth = {(e["x"], e["y"], e["level"]): (e["piece"], e["colour"]) for e in doc["cells"]}
    res = read_board([("s", img)], "gridopolis", spec=pose.spec, camera=cam)
    now = {c.key: c for c in res.cells}
    before = {c.key: (c.kind, c.colour) for c in read_board([("s", img)], "gridopolis", spec=pose.spec,
                                                              camera=cam, classify_config=OFF).cells}
    for key, colour in (((0, 2, 0), "green"), ((3, 0, 0), "blue")):
        assert truth[key] == ("king", colour)
        assert (now[key].kind, now[key].colour) == ("king", colour)
        assert before[key] == ("pawn", colour)
        assert now[key].notes and "opponent's start row" in now[key].notes[0]
    rules = [p for p in res.reconstruction.problems if p.code == "reading-by-rule"]
    assert any("(0,2,0)" in p.message for p in rules) and any("(3,0,0)" in p.message for p in rules)


def test_a_yellow_kings_gold_crown_is_told_from_the_yellow_plastic() -> None:
    """A yellow marker's gold crown is not told by its hue (both are yellow): the shape alone decided, and a
    yellow king on its own kingerizer (dev_s8_gs019, (6, 4, 0)) read as a pawn, a yellow pawn (dev_s7_d2_010,
    (6, 2, 0)) as a king.  The crown's gold has far more blue in it than the yellow plastic: the middle of the
    top, against the rim of the top in the same light, tells them (``yellow_crown``)."""
    off = replace(config_for("gridopolis"), yellow_crown=0.0)
    for name, key, truth in (("dev_s8_gs019", (6, 4, 0), "king"), ("dev_s7_d2_010", (6, 2, 0), "pawn")):
        img, cam, doc, pose = scene_with_pose(DEV / name, "render truth (simulated camera)")
        assert any((e["x"], e["y"], e["level"], e["piece"], e["colour"]) == (*key, truth, "yellow")
                   for e in doc["cells"])
        now = {c.key: (c.kind, c.colour) for c in read_board([("s", img)], "gridopolis", spec=pose.spec,
                                                               camera=cam).cells}
        before = {c.key: (c.kind, c.colour) for c in read_board([("s", img)], "gridopolis", spec=pose.spec,
                                                                  camera=cam, classify_config=off).cells}
        assert now[key] == (truth, "yellow")
        assert before[key] == ("pawn" if truth == "king" else "king", "yellow")
        # the other yellow markers of the picture read the same either way
        others = [(e["x"], e["y"], e["level"]) for e in doc["cells"] if e["colour"] == "yellow"
                  and (e["x"], e["y"], e["level"]) != key]
        assert all(now[k] == before[k] for k in others if k in now)


def test_a_box_in_dim_light_read_by_its_faces_and_the_fit_together() -> None:
    """dev_s8_gs004 (5, 4, 0): a green box in dim light; its faces, in shade, show its colour on a fifth of the
    points (under ``box_share`` 0.3), so the box/marker test made it a pawn although the probes' fit preferred a
    box by 0.13.  Both cues together (``box_fit_share`` 0.2 with the fit ahead by ``box_fit_margin``) read it as
    a box; a pawn seen as clearly has its faces' share near 0 or its fit for the pawn."""
    img, cam, doc, pose = scene_with_pose(DEV / "dev_s8_gs004", "render truth (simulated camera)")
    key = (5, 4, 0)
    assert any((e["x"], e["y"], e["level"], e["piece"], e["colour"]) == (*key, "blocker", "green")
               for e in doc["cells"])
    now = {c.key: (c.kind, c.colour) for c in read_board([("s", img)], "gridopolis", spec=pose.spec,
                                                           camera=cam).cells}
    before = {c.key: (c.kind, c.colour) for c in read_board([("s", img)], "gridopolis", spec=pose.spec, camera=cam,
                                                              classify_config=replace(config_for("gridopolis"),
                                                                                      box_fit_share=0.0)).cells}
    assert now[key] == ("blocker", "green")
    assert before[key] == ("pawn", "green")


def test_a_kings_colour_is_read_clear_of_its_gold_crown() -> None:
    """Fixture 8's blue king on (2, 1, 0): the probes inside the marker seen from above show its gold crown on
    about half of them, its blue body on the others; the median of both is no player's colour, so the site read
    empty.  Read on the probes whose rays pass clear of where a crown would be (``colour_below_crown``) it is
    blue, and the crown makes it a king."""
    img, cam, doc, pose = _fixture(8)
    key = (2, 1, 0)
    assert any((e["x"], e["y"], e["level"], e["piece"], e["colour"]) == (*key, "king", "blue") for e in doc["cells"])
    now = {c.key: (c.kind, c.colour) for c in read_board([("s", img)], "gridopolis", spec=pose.spec,
                                                           camera=cam).cells}
    before = {c.key: (c.kind, c.colour) for c in read_board([("s", img)], "gridopolis", spec=pose.spec, camera=cam,
                                                              classify_config=replace(config_for("gridopolis"),
                                                                                      colour_below_crown=False)).cells}
    assert now[key] == ("king", "blue")
    assert before[key] == ("empty", None)


def test_a_declined_marker_says_why_not_that_it_is_hidden() -> None:
    """A site the reader declines (here: a yellow marker whose crown could not be told) reports the reader's
    reason as its ``cell-unseen`` warning -- not "outside the picture or hidden" -- and only once (its note is
    not repeated as a ``reading-by-rule`` warning)."""
    from calibration.boards import board_spec
    from vision.board_classify import CellReading
    from vision.board_reconstruct import reconstruct_board

    note = "a yellow marker stands on (1,1,0), but whether it wears a crown (king) or not (pawn) could not be told"
    cells = [CellReading((1, 1, 0), "unseen", None, 0, False, 0.0, notes=(note,))]
    rec = reconstruct_board("gridopolis", board_spec("gridopolis"), cells)
    unseen = [p for p in rec.problems if p.code == "cell-unseen"]
    assert [p.message for p in unseen] == [note]
    assert not [p for p in rec.problems if p.code == "reading-by-rule"]
