"""Gridopolis, session 7 (docs/boards_vision.md, "Session 7: Gridopolis speed and accuracy"): a pad's own
colour read clear of the piece standing on it, pads of one kind (hyper-pads, a player's kingerizers) made
alike, and box face points that show the site's own pad -- on the committed fixtures (rendered photographs,
simulated).  Each reading test also reads with its mechanism turned off and fails then."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from calibration.boards import board_spec
from engine.gridopolis.layout import HYPER_PADS, SEATS
from tests.boardread.test_board_round5 import _fixture, scene_with_pose
from vision.board_classify import ClassifyBoardConfig, config_for
from vision.board_pipeline import read_board, sites_for, structure_groups

Key = tuple[int, ...]
DEV = Path(__file__).resolve().parent / "data" / "gridopolis_dev"


def _read(n: int, cfg: ClassifyBoardConfig | None = None) -> dict[Key, tuple[str, str | None]]:
    img, cam, _, pose = _fixture(n)
    cells = read_board([("s", img)], "gridopolis", spec=pose.spec, camera=cam, classify_config=cfg).cells
    return {c.key: (c.kind, c.colour) for c in cells}


def test_structure_groups_name_the_hyper_pads_and_each_players_kingerizers() -> None:
    sites, structure = sites_for(board_spec("gridopolis"))
    assert structure is not None
    groups = structure_groups(sites, len(structure))
    assert len(groups) == len(structure) and (groups[len(sites):] == -1).all()  # links and posts: none
    by_key = {s.key: int(g) for s, g in zip(sites, groups, strict=False)}
    assert {k for k, g in by_key.items() if g == 0} == {(p.x, p.y, p.level) for p in HYPER_PADS}
    for k, seat in enumerate(SEATS.values()):
        assert {key for key, g in by_key.items() if g == 1 + k} == {(p.x, p.y, p.level) for p in seat.start_row}
    assert by_key[(3, 3, 0)] == -1 and by_key[(2, 1, 0)] == -1
    assert np.unique(groups).tolist() == [-1, 0, 1, 2, 3, 4]


def test_the_hyper_pad_under_level_2_takes_the_hyper_pads_colour() -> None:
    """The hyper-pad in the middle of level 1, (3, 3, 1), lies under level 2: its rim is hidden, and the
    points of its ring show level 2's grey.  Its purple top was then taken for a blue blocker box (fixtures
    6 and 9, both empty there).  It now takes the colour the four hyper-pads of level 2 show in the open: no
    piece is read there.  With the groups off (``group_own_points`` 0, ``group_pool`` off) the blue box
    comes back -- when the later colour tests of "Session 7: a piece's colour in its local light" are off too
    (``pad_hue_split``: a blue nearer the hyper-pads' own hue than the blue plastic's is theirs, and
    ``local_light_mm``): they keep these two empty by themselves (fixture 6 either, fixture 9 the hue test), and
    session 8's rule that no box stands on a hyper-pad (``part_rules``) is off."""
    off = replace(config_for("gridopolis"), group_own_points=0, group_pool=False, pad_hue_split=(),
                  local_light_mm=0.0, part_rules=False, marker_saturation_under=())  # (session 9's floor under a pad)
    for n in (6, 9):
        _, _, doc, _ = _fixture(n)
        assert not any((e["x"], e["y"], e.get("level", 0)) == (3, 3, 1) for e in doc["cells"])
        assert _read(n)[(3, 3, 1)][0] in ("empty", "unseen")
        assert _read(n, off)[(3, 3, 1)] == ("blocker", "blue")


def test_a_pads_colour_is_read_where_a_piece_on_it_would_not_hide_its_ring() -> None:
    """Fixture 8's two green blocker boxes (1, 3, 0) and (5, 3, 0) and fixture 3's blue box (3, 2, 0): the
    pad's ring points behind the box, from the camera, show the box's colour, which then counted as the
    pad's own; the box's faces looked like the pad and the boxes read as pawns (or the site as empty).  With
    those points left out (``ring_clear_of_piece``) they read as boxes; with it off they do not."""
    # (the session-9 box fit rule off too: with it the boxes read as boxes either way)
    off = replace(config_for("gridopolis"), ring_clear_of_piece=False, box_fit_share=0.2, box_fit_margin=0.1)
    for n, key, colour in ((8, (1, 3, 0), "green"), (8, (5, 3, 0), "green"), (3, (3, 2, 0), "blue")):
        _, _, doc, _ = _fixture(n)
        assert any((e["x"], e["y"], e.get("level", 0), e["piece"]) == (*key, "blocker") for e in doc["cells"])
        assert _read(n)[key] == ("blocker", colour)
        assert _read(n, off)[key] != ("blocker", colour)


def test_box_face_points_showing_the_sites_own_kingerizer_are_no_box() -> None:
    """dev_s7_005 (a development render, tests/boardread/data/gridopolis_dev/README.md): the blue pawn on
    the blue kingerizer (3, 6, 0).  Box face points whose rays, by the pose, pass beside the kingerizer land
    on it in the picture and show its blue tint: with them counted the pawn reads as a blue box.  A point
    that looks like the site's own pad (its colour on its own ring or as its group shows it) is no box
    (``box_own_pad``): it reads as a pawn.  (Its neighbour (2, 6, 0), a pawn too, read as a box either way until
    session 8: no box is read on a kingerizer at all since (``part_rules``), so the counterfactual turns that off.)"""
    img, cam, doc, pose = scene_with_pose(DEV / "dev_s7_005", "render truth (simulated camera)")
    off = replace(config_for("gridopolis"), box_own_pad=False, part_rules=False)
    now = {c.key: (c.kind, c.colour) for c in read_board([("s", img)], "gridopolis", spec=pose.spec,
                                                           camera=cam).cells}
    before = {c.key: (c.kind, c.colour) for c in read_board([("s", img)], "gridopolis", spec=pose.spec,
                                                              camera=cam, classify_config=off).cells}
    for key in ((3, 6, 0),):
        assert any((e["x"], e["y"], e["piece"], e["colour"]) == (key[0], key[1], "pawn", "blue") for e in doc["cells"])
        assert now[key] == ("pawn", "blue")
        assert before[key] == ("blocker", "blue")
