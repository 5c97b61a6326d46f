"""Quirky round 7 (docs/boards_vision.md, "Quirky round 7"): a token a hand partly covers is read
from what is seen past the hand, and a printed token decoded as a robot tag is not the robot.

Both are checked on a rendered fixture photograph (SIMULATED) with something painted on it: a
flat skin-coloured hand over part of a token's cell, a grey tag-like print on an empty cell."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import numpy.typing as npt

from calibration.boards import BoardSpec
from tests.boardread.test_board_reading import ROOT, _camera, _doc, _options
from vision.board_classify import _dot_probes, _partner_hidden, config_for, flat_sites
from vision.board_locate import locate_board
from vision.board_pipeline import read_board
from vision.board_robot import TAG_BORDER_MAX_RATIO, border_ratio, robot_from_tag

TAG_SCENE = 3  # fixtures/boards/quirky/scene_003: the robot (tag 231) on (3, 0)
HAND_SCENE = 12  # scene_012: a vase alone on (4, 5)
SKIN_BGR = (110, 150, 200)  # a tanned hand in this light (a paler one reads as the white paper's tint)


def _picture(scene: int) -> npt.NDArray[np.uint8]:
    img = cv2.imread(str(ROOT / "quirky" / f"scene_{scene:03d}.jpg"))
    assert img is not None
    return np.asarray(img, np.uint8)


def _paint(scene: int, corners_mm: list[tuple[float, float, float]], what: npt.NDArray[np.uint8] | None,
           colour: tuple[int, int, int] = SKIN_BGR) -> npt.NDArray[np.uint8]:
    """Paint a board quadrilateral (mm) on a fixture's picture with a colour, or with the picture
    ``what`` warped onto it."""
    img = _picture(scene)
    doc = _doc("quirky", scene)
    pose = locate_board(img, BoardSpec.from_json(doc["board"]), _camera(doc))
    quad = pose.project(np.array(corners_mm, np.float64)).astype(np.float32)
    out = img.copy()
    if what is None:
        cv2.fillConvexPoly(out, np.round(quad).astype(np.int32), colour)
        return out
    h, w = what.shape[:2]
    m = cv2.getPerspectiveTransform(np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32), quad)
    warped = cv2.warpPerspective(what, m, (img.shape[1], img.shape[0]), flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.full((h, w), 255, np.uint8), m, (img.shape[1], img.shape[0])) > 0
    out[mask] = warped[mask]
    return out


def _cells(img: npt.NDArray[np.uint8], past_hand: float | None = None) -> dict[tuple[int, ...], str]:
    doc = _doc("quirky", HAND_SCENE)
    cfg = config_for("quirky")
    if past_hand is not None:
        cfg = replace(cfg, token_past_hand=past_hand)
    r = read_board([("painted", img)], "quirky", spec=BoardSpec.from_json(doc["board"]), camera=_camera(doc),
                   options=_options("quirky", doc), classify_config=cfg)
    return {c.key[:2]: c.kind for c in r.images[0].cells}


def test_a_token_partly_under_a_hand_is_read_from_what_is_seen_past_it() -> None:
    truth = {(e["x"], e["y"]): e["piece"] for e in _doc("quirky", HAND_SCENE)["cells"]}
    assert truth[(4, 5)] == "vase" and (5, 5) not in truth
    # a flat skin-coloured hand 15 mm up over cell (5, 5), its neighbours, and (4, 5) from a tenth of a
    # cell past its middle (to +x): the vase there is partly covered
    spec = BoardSpec.from_json(_doc("quirky", HAND_SCENE)["board"])
    site = next(s for s in flat_sites(spec) if s.key[:2] == (4, 5))
    c, x, y = spec.cell_mm, site.x_mm, site.y_mm
    img = _paint(HAND_SCENE, [(x + 0.1 * c, y - c, 15.0), (x + 2 * c, y - c, 15.0), (x + 2 * c, y + 0.5 * c, 15.0),
                              (x + 0.1 * c, y + 0.5 * c, 15.0)], None)
    on, off = _cells(img), _cells(img, past_hand=0.0)
    assert off[(4, 5)] == "occluded"  # the reading without the mechanism: the visible vase is declined
    assert on[(4, 5)] == "vase"
    assert on[(5, 5)] == "occluded"  # nothing seen past the hand: it may hide a token, still declined


def test_a_token_to_one_side_with_the_other_side_hidden_may_have_a_partner() -> None:
    side = np.zeros((9, 9), bool)
    side[2:7, 5:8] = True  # a token on the cell's east side (two tokens share a cell side by side)
    seen = np.ones((9, 9), bool)
    assert not _partner_hidden(side.ravel(), seen.ravel(), 9)  # its partner's place is seen (empty)
    seen[:, :4] = False  # the west side is under the hand: a partner may be there
    assert _partner_hidden(side.ravel(), seen.ravel(), 9)
    single = np.zeros((9, 9), bool)
    single[2:7, 3:7] = True  # a single token in the middle, its west edge hidden: reaches across the middle
    assert not _partner_hidden(single.ravel(), seen.ravel(), 9)


def test_a_dark_patch_at_the_hands_edge_is_not_a_dust_bunnys_dot() -> None:
    dark = np.zeros((9, 9), bool)
    dark[3:5, 5] = True  # a small dark patch inside the grid ...
    hidden = np.zeros((9, 9), bool)
    hidden[:, 6:] = True  # ... next to the probes a hand covers (its shadow, a gap between fingers)
    assert _dot_probes(dark.ravel(), 9, 6) == 2  # without the hand: a dot
    assert _dot_probes(dark.ravel(), 9, 6, hidden.ravel()) == 0
    hidden[:] = False
    hidden[:, 8:] = True  # a hand two probes away: the patch is a dot again
    assert _dot_probes(dark.ravel(), 9, 6, hidden.ravel()) == 2


def _marker(tag_id: int, dark: int, light: int = 235) -> npt.NDArray[np.uint8]:
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_250)
    m = cv2.aruco.generateImageMarker(d, tag_id, 60)  # 6 modules of 10 px, border included
    m = cv2.copyMakeBorder(m, 10, 10, 10, 10, cv2.BORDER_CONSTANT, value=255)  # the white quiet zone
    grey = np.where(m > 127, light, dark).astype(np.uint8)
    return np.asarray(cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR), np.uint8)


def test_a_grey_print_decoded_as_a_tag_is_not_the_robot() -> None:
    doc = _doc("quirky", TAG_SCENE)
    assert doc["robot"]["cell"] == [3, 0] and doc["robot"]["tag"]["id"] == 231
    # a grey print (like a dust bunny's, 0.7 of the paper's brightness) decoding as tag 230, lower than
    # the robot's 231 (the lowest id in view is read), 40 mm wide (with its white zone) flat on the
    # empty cell (2, 2) (corners from the board's +y side: the print is not mirrored)
    cx, cy = 125.0, 125.0
    img = _paint(TAG_SCENE, [(cx - 20, cy + 20, 0.0), (cx + 20, cy + 20, 0.0), (cx + 20, cy - 20, 0.0),
                         (cx - 20, cy - 20, 0.0)], _marker(230, 165))
    pose = locate_board(img, BoardSpec.from_json(doc["board"]), _camera(doc))
    others = getattr(pose, "other_markers", None) or {}
    assert 230 in others and 231 in others  # the print is decoded as a robot tag
    assert border_ratio(img, np.asarray(others[230], np.float64), 6) > TAG_BORDER_MAX_RATIO
    assert border_ratio(img, np.asarray(others[231], np.float64), 6) < TAG_BORDER_MAX_RATIO
    fooled = robot_from_tag(pose)  # without the check: the print is read as the robot
    assert fooled is not None and fooled.tag_id == 230 and fooled.cell != (3, 0)
    seen = robot_from_tag(pose, image=img)
    assert seen is not None and seen.tag_id == 231 and seen.cell == (3, 0)
