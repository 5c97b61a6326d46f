"""Session 19: the board's pose between planar PnP's two solutions (``BoardLocateConfig.pose_refine_both``,
docs/boards_vision.md "Session 19: board pose between two solutions").  A rendered (SIMULATED) picture, camera
intrinsics from the render's truth: last session's held-out Gridopolis table 003 (second picture), a development
picture since -- motion blur 6.9 px, markers 40 and 41 read, 39 and 42 added by the second look, nearly on one
line; ``cv2.solvePnP`` keeps IPPE's solution fitting best *before* refinement, which after refinement is the worse
one and 700 mm from the truth's camera."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from boardside.fixtures_render.camera import truth_calibration
from calibration.boards import BoardSpec
from calibration.camera import read_image
from vision.board_locate import BoardLocateConfig, BoardPose, PoseTieError, locate_board

DATA = Path(__file__).resolve().parent / "data" / "gridopolis_dev"
STEM = "dev_s19_h18b003"


def _scene() -> tuple[np.ndarray, dict[str, Any]]:
    return read_image(DATA / f"{STEM}.jpg"), json.loads((DATA / f"{STEM}.json").read_text())


def _truth_px(doc: dict[str, Any], pose: BoardPose) -> tuple[np.ndarray, np.ndarray]:
    """Every printed marker's corners as the pose and as the truth's camera put them (px)."""
    pts = np.array([[x, y, 0.0] for f in pose.spec.fiducials for x, y in f.corners_mm], np.float64)
    cam = doc["camera"]
    truth, _ = cv2.projectPoints(pts, np.array(cam["rvec"], np.float64), np.array(cam["t"], np.float64),
                                 pose.K, pose.dist)
    got, _ = cv2.projectPoints(pts, pose.rvec, pose.tvec, pose.K, pose.dist)
    return np.asarray(got).reshape(-1, 2), np.asarray(truth).reshape(-1, 2)


def _board_error_px(doc: dict[str, Any], pose: BoardPose) -> float:
    got, truth = _truth_px(doc, pose)
    return float(np.median(np.linalg.norm(got - truth, axis=1)))


def _locate(img: np.ndarray, doc: dict[str, Any], cfg: BoardLocateConfig) -> BoardPose:
    return locate_board(img, BoardSpec.from_json(doc["board"]), truth_calibration(doc["camera"], "render truth"),
                        name=STEM, config=cfg)


def test_both_solutions_refined_put_the_board_where_it_is() -> None:
    img, doc = _scene()
    pose = _locate(img, doc, BoardLocateConfig(pose_refine_both=True))
    assert _board_error_px(doc, pose) < 3.0
    assert {40, 41} <= set(pose.markers_seen) and len(pose.markers_seen) > 4  # (more matched under the right pose)
    # without the switch: the solution fitting best before refinement, off by well over a hundred pixels on the board
    old = _locate(img, doc, BoardLocateConfig(pose_refine_both=False))
    assert _board_error_px(doc, old) > 50.0


def test_the_look_of_the_markers_not_read_decides_between_near_ties() -> None:
    """Every solve of this picture between two poses within 3x each other's fit is decided by the markers the
    poses put in view and not read, matched by their printed look: still the right pose."""
    img, doc = _scene()
    pose = _locate(img, doc, BoardLocateConfig(pose_refine_both=True, pose_tie_ratio=3.0))
    assert _board_error_px(doc, pose) < 3.0


def test_two_poses_nothing_tells_apart_refuse_the_picture() -> None:
    """The same picture with every marker but 39-42 painted over (nothing else to match): the two poses of the four
    markers nearly in a row cannot be told apart once their fits count as a tie -- the picture is refused, saying
    why, rather than read under either."""
    img, doc = _scene()
    spec = BoardSpec.from_json(doc["board"])
    cam = doc["camera"]
    painted = img.copy()
    for f in spec.fiducials:
        if f.id in (39, 40, 41, 42):
            continue
        c = np.array([[x, y, 0.0] for x, y in f.corners_mm], np.float64)
        mid = c.mean(axis=0)
        q, _ = cv2.projectPoints(mid + 1.6 * (c - mid), np.array(cam["rvec"], np.float64),
                                 np.array(cam["t"], np.float64), np.array(cam["K"], np.float64),
                                 np.array(cam["dist"], np.float64))
        cv2.fillConvexPoly(painted, np.round(np.asarray(q).reshape(-1, 2)).astype(np.int32), (150, 150, 150))
    cfg = BoardLocateConfig(pose_refine_both=True, pose_tie_ratio=3.0, pose_refuse_ratio=3.0)
    with pytest.raises(PoseTieError, match="two poses fit them nearly alike"):
        _locate(painted, doc, cfg)
    # with the fits told apart (the default ratios) the better refined fit is kept: the right pose
    assert _board_error_px(doc, _locate(painted, doc, BoardLocateConfig(pose_refine_both=True))) < 3.0
