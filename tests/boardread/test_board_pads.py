"""Gridopolis pad detection (``vision.board_pads``): pads added during play and arms left out.

A synthetic (simulated) picture of the bare level guide, then the same picture with grey pad tops
painted where added pads would stand; and a rendered-photograph fixture (simulated) with pads
added during its game."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from boardside.fixtures_render.camera import truth_calibration
from calibration.boards import board_spec, gridopolis_pad_centre_mm, gridopolis_pads
from calibration.camera import CameraCalibration
from tests.boardread.synthetic import SIM_CAM, synthetic_view
from vision.board_locate import BoardPose, locate_board
from vision.board_pads import PadDetectConfig, candidate_pads, detect_pads
from vision.board_pipeline import read_board

CAM = CameraCalibration(SIM_CAM.camera_matrix, SIM_CAM.dist_coeffs, SIM_CAM.size, 0.0, source="synthetic")
ROOT = Path(__file__).resolve().parents[2] / "fixtures" / "boards" / "gridopolis"
STANDARD = set(gridopolis_pads(4))


def _paint_pad(img: npt.NDArray[np.uint8], pose: BoardPose, key: tuple[int, int, int],
               bgr: tuple[int, int, int], sides: bool = False) -> None:
    spec = pose.spec
    cx, cy, top = gridopolis_pad_centre_mm(spec, *key)
    h = 20.0
    if sides:  # first the shadow it casts round it on the print and its four sides (its thickness down to
        # the print) in its shade: its outline
        dark = (int(bgr[0] * 0.7), int(bgr[1] * 0.7), int(bgr[2] * 0.7))
        s = h + 7.0
        ring = np.array([[cx - s, cy - s, 0.0], [cx + s, cy - s, 0.0], [cx + s, cy + s, 0.0], [cx - s, cy + s, 0.0]])
        cv2.fillConvexPoly(img, np.round(pose.project(ring)).astype(np.int32), dark)
        for (ax, ay), (bx, by) in (((-h, -h), (h, -h)), ((h, -h), (h, h)), ((h, h), (-h, h)), ((-h, h), (-h, -h))):
            quad = np.array([[cx + ax, cy + ay, top], [cx + bx, cy + by, top], [cx + bx, cy + by, top - 6.0],
                             [cx + ax, cy + ay, top - 6.0]])
            cv2.fillConvexPoly(img, np.round(pose.project(quad)).astype(np.int32), dark)
    corners = np.array([[cx - h, cy - h, top], [cx + h, cy - h, top], [cx + h, cy + h, top], [cx - h, cy + h, top]])
    px = pose.project(corners)
    cv2.fillConvexPoly(img, np.round(px).astype(np.int32), bgr)


def test_candidates_cover_the_guide_on_every_level_but_the_core() -> None:
    cands = candidate_pads(4)
    assert len(cands) == 5 * 49 - 27
    assert (3, 3, 3) in cands and (0, 0, 0) in cands and (3, 3, 1) not in cands


def test_bare_guide_shows_no_added_pad_and_painted_pads_are_found() -> None:
    """On the bare printed guide (no grid-set at all: the core's printed grey squares stand in for
    the core pads' colour) no pad outside the standard grid-set is found and the arms read as left
    out; grey pads painted where level-0 pads (5,0,0) and (1,5,0) would stand (their tops, and their
    sides and the shadow round them: since accuracy round 4 a pad on the table needs its outline seen)
    are found."""
    spec = board_spec("gridopolis")
    v = synthetic_view(spec, 60, -80, 800, seed=3)
    pose = locate_board(v.image, spec, CAM)
    bare = detect_pads(v.image, pose)
    assert not set(bare.pads) - STANDARD
    assert bare.absent  # the printed arms show through: no pads there
    ref_px = pose.project(np.array([gridopolis_pad_centre_mm(spec, 3, 2, 0)]))[0]
    grey = tuple(int(c) for c in v.image[int(ref_px[1]), int(ref_px[0])])
    img = v.image.copy()
    for key in ((5, 0, 0), (1, 5, 0)):  # (a pad on the table shows its outline: its sides are painted too)
        _paint_pad(img, pose, key, (grey[0], grey[1], grey[2]), sides=True)
    found = detect_pads(img, pose)
    assert {(5, 0, 0), (1, 5, 0)} <= set(found.pads)
    assert not set(found.pads) - STANDARD - {(5, 0, 0), (1, 5, 0)}
    strict = detect_pads(img, pose, PadDetectConfig(present=1.01))  # nothing can pass: the prior only
    assert not set(strict.pads) - STANDARD


def test_fixture_with_added_pads_reads_the_marker_on_one() -> None:
    """Scene 2 (simulated) was played with pads added: at least some are found, each found pad is a
    site of the reading and is in the state built, and the pieces standing on found added pads are
    read there (the standard reading had no site for them)."""
    doc = json.loads((ROOT / "scene_002.json").read_text())
    img = np.asarray(cv2.imread(str(ROOT / "scene_002.jpg")), np.uint8)
    c = doc["camera"]
    cam = truth_calibration(c, "fixture truth (simulated camera)")
    truth = {tuple(p) for p in doc["state"]["pads"]}
    res = read_board([("scene_002", img)], "gridopolis", camera=cam)
    old = read_board([("scene_002", img)], "gridopolis", camera=cam, find_pads=False)
    added = {tuple(p) for p in res.reconstruction.doc["pads"]} - STANDARD
    assert added & (truth - STANDARD)
    assert {c.key for c in res.cells} >= added
    assert not {c.key for c in old.cells} & added
    on_added = [e for e in doc["cells"] if (e["x"], e["y"], e["level"]) in added & truth and e["visible"]]
    by_key = {c.key: c for c in res.cells}
    right = [e for e in on_added if by_key[(e["x"], e["y"], e["level"])].kind == e["piece"]]
    assert on_added and right
