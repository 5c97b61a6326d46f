"""Gridopolis, session 7 (docs/boards_vision.md, "Session 7: a piece's colour in its local light"): a piece's
colour is named after the tint of the light the plain pads near it show is undone, and a blue nearer in hue to
the hyper-pads' own colour than to the blue plastic is theirs -- on a committed fixture and a committed
development render (rendered photographs, simulated).  Each reading test also reads with its mechanism off and
fails then."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from tests.boardread.test_board_gridopolis_s7 import DEV, _read
from tests.boardread.test_board_round5 import _fixture, scene_with_pose
from vision.board_classify import ClassifyBoardConfig, Site, _in_local_light, _Scene, config_for
from vision.board_pipeline import read_board


def test_a_bluish_shade_on_empty_pads_is_no_blue_pawn() -> None:
    """Fixture 5: the pads (1, 4, 0) and (3, 4, 1) are empty, in a bluish shade; the probes over them were
    named blue (a plain pad's grey in that light) and two blue pawns were read.  In the light the plain pads
    near them show, their colour is grey: no piece.  With ``local_light_mm`` 0 the blue pawns come back."""
    _, _, doc, _ = _fixture(5)
    keys = ((1, 4, 0), (3, 4, 1))
    for key in keys:
        assert not any((e["x"], e["y"], e.get("level", 0)) == key for e in doc["cells"])
    now = _read(5)
    # (session 9's higher saturation floor under a pad off too: it declines them by itself)
    before = _read(5, replace(config_for("gridopolis"), local_light_mm=0.0, marker_saturation_under=()))
    for key in keys:
        assert now[key][0] in ("empty", "unseen")
        assert before[key] == ("pawn", "blue")


def test_the_local_light_tint_is_divided_out_and_needs_two_plain_pads() -> None:
    """The arithmetic on a made-up scene: two plain pads next to the site showing a bluish grey turn a colour
    of that tint grey; with one such pad, or pads on another level, the colour is left as it is."""
    cfg: ClassifyBoardConfig = config_for("gridopolis")
    rows = np.array([[0.0, 0.0, 0.0, 20.0, 0.0, 3.0], [0.0, 50.0, 0.0, 20.0, 0.0, 3.0],
                     [0.0, 0.0, 50.0, 20.0, 0.0, 3.0]])
    bluish = np.array([50.0, 3.0, -15.0])
    sc = _Scene(np.zeros((4, 4, 3), np.uint8), None, None, None, rows, None,  # type: ignore[arg-type]
                structure_own_lab=np.array([bluish, bluish, bluish]),
                structure_plain=np.array([False, True, True]))
    site = Site((0, 0, 0), 0.0, 0.0, 3.0)
    grey = _in_local_light(sc, site, bluish, cfg)
    assert abs(grey[0] - 50.0) < 2.0 and np.hypot(grey[1], grey[2]) < 1.0
    blue = _in_local_light(sc, site, np.array([40.0, 20.0, -55.0]), cfg)
    assert blue[2] < -35.0  # a blue plastic stays blue
    one = replace(sc, structure_plain=np.array([False, True, False]))
    assert np.allclose(_in_local_light(one, site, bluish, cfg), bluish)
    upper = Site((0, 0, 1), 0.0, 0.0, 43.0)
    assert np.allclose(_in_local_light(sc, upper, bluish, cfg), bluish)
    taken = _in_local_light(sc, site, bluish, cfg, empty=np.array([True, False, True]))  # a piece on a pad
    assert np.allclose(taken, bluish)


def test_the_hyper_pad_under_level_2_in_deep_shade_is_no_blue_piece() -> None:
    """dev_s7_009 (a development render, tests/boardread/data/gridopolis_dev/README.md): the hyper-pad (3, 3, 1)
    under level 2 is empty; its top in deep shade showed a hue of about 314 degrees, named blue (the nearest
    player colour) and read as a blue box.  The blue plastic shows about 288 degrees, the hyper-pads in this
    picture about their own purple: the colour is nearer theirs, so no piece is read.  With ``pad_hue_split``
    off the blue box comes back; the blue pieces of the picture read the same either way (three of the five
    blue; (2, 2, 0) declined and (3, 5, 0) read empty either way).  (Since session 8 no box is read on a hyper-pad,
    ``part_rules``: with the hue split off the pad's shade is then a blue pawn.)  (Session 19: both read without
    ``part_counts`` -- with the hue split off, that false third blue marker makes the counts read the blue box
    declined on (2, 2, 0), so the blue pieces would differ through the counts, not the hue split.)"""
    img, cam, doc, pose = scene_with_pose(DEV / "dev_s7_009", "render truth (simulated camera)")
    assert not any((e["x"], e["y"], e.get("level", 0)) == (3, 3, 1) for e in doc["cells"])
    base = replace(config_for("gridopolis"), part_counts=False)
    off = replace(base, pad_hue_split=())
    now = {c.key: (c.kind, c.colour) for c in read_board([("s", img)], "gridopolis", spec=pose.spec,
                                                           camera=cam, classify_config=base).cells}
    before = {c.key: (c.kind, c.colour) for c in read_board([("s", img)], "gridopolis", spec=pose.spec,
                                                              camera=cam, classify_config=off).cells}
    assert now[(3, 3, 1)][0] in ("empty", "unseen")
    assert before[(3, 3, 1)] == ("pawn", "blue")
    blue = [(e["x"], e["y"], e.get("level", 0)) for e in doc["cells"] if e.get("colour") == "blue"]
    assert blue and all(now[k] == before[k] for k in blue)
    assert sum(now[k][1] == "blue" for k in blue) >= 3
