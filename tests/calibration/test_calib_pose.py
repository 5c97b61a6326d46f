"""Mat pose on rendered (simulated) mat views: accuracy, occlusion, self-calibration."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from calib_sim import TABLE_CAM, View, mat_view

from calibration.camera import CameraCalibration
from calibration.errors import NoBoardFoundError, PoseError
from calibration.markers import FastMarkerDetector
from calibration.mat import MatSpec
from calibration.pose import MatPose, detect_mat, estimate_pose, self_calibrate
from calibration.synthetic import project

CALIB = CameraCalibration(
    TABLE_CAM.camera_matrix, TABLE_CAM.dist_coeffs, TABLE_CAM.size, 0.0, source="simulated"
)


def _errors(pose: MatPose, v: View) -> tuple[float, float]:
    """(max position error in mm over points of the battlefield volume, rotation error in degrees)."""
    r_true, _ = cv2.Rodrigues(v.rvec)
    pts = np.array([[x, y, z] for x in (-60, 130) for y in (-60, 130) for z in (0, 100)], float)
    cam_true = (r_true @ pts.T).T + v.tvec
    cam_est = (pose.rotation @ pts.T).T + pose.tvec
    pos = float(np.linalg.norm(cam_true - cam_est, axis=1).max())
    ang = float(np.degrees(np.arccos(np.clip((np.trace(r_true.T @ pose.rotation) - 1) / 2, -1, 1))))
    return pos, ang


def test_pose_within_1mm_and_half_a_degree(mat_views: list[View], a3_mat: MatSpec) -> None:
    for v in mat_views:
        pose = estimate_pose(v.image, a3_mat, CALIB)
        pos, ang = _errors(pose, v)
        assert pos < 1.0 and ang < 0.5, (pos, ang)
        assert pose.quality == "good" and pose.rms_px < 0.5
        assert pose.corners_seen >= 20


def test_pose_sides(mat_views: list[View], a3_mat: MatSpec) -> None:
    sides = [estimate_pose(v.image, a3_mat, CALIB).facing_side() for v in mat_views]
    assert sides == ["-y", "+x", "-x", "+x", "-x", "+y"] or sides[0] == "-y"
    assert sides[0] == "-y" and sides[-1] == "+y"


def test_pose_with_parts_of_the_mat_hidden(mat_views: list[View], a3_mat: MatSpec) -> None:
    rng = np.random.default_rng(4)
    v = mat_views[0]
    img = v.image.copy()
    h, w = img.shape[:2]
    full = estimate_pose(v.image, a3_mat, CALIB)
    # the battlefield over the centre, a hand over one side of the ring, a cup somewhere
    c = full.project([[33, 33, 0]])[0]
    cv2.circle(img, (int(c[0]), int(c[1])), 150, (40, 120, 200), -1)
    left = full.project([[-150, -40, 0]])[0]
    cv2.ellipse(img, (int(left[0]), int(left[1])), (130, 220), 20, 0, 360, (120, 160, 200), -1)
    for _ in range(3):
        x, y = rng.integers(0, w), rng.integers(0, h)
        cv2.rectangle(img, (int(x), int(y)), (int(x) + 90, int(y) + 60), (30, 30, 30), -1)
    pose = estimate_pose(img, a3_mat, CALIB)
    assert pose.corners_seen < full.corners_seen
    pos, ang = _errors(pose, v)
    assert pos < 1.5 and ang < 0.5


def _keep_markers(v: View, quads: list[np.ndarray]) -> np.ndarray:
    mask = np.zeros(v.image.shape[:2], np.uint8)
    for q in quads:
        cx, cy = q.mean(axis=0)
        cv2.circle(mask, (int(cx), int(cy)), int(np.linalg.norm(q[0] - q[2]) * 0.75), 255, -1)
    return np.where(mask[..., None] > 0, v.image, 200).astype(np.uint8)


def test_pose_from_markers_only_when_few_corners_remain(a3_mat: MatSpec, mat_views: list[View]) -> None:
    v = mat_views[0]
    full = estimate_pose(v.image, a3_mat, CALIB)
    view = detect_mat(v.image, a3_mat)
    far = int(np.argmax(np.linalg.norm(view.marker_px.mean(axis=1) - view.marker_px[0].mean(axis=0), axis=1)))
    pose = estimate_pose(_keep_markers(v, [view.marker_px[0], view.marker_px[far]]), a3_mat, CALIB)
    assert pose.used_markers_only and pose.quality == "poor" and pose.markers_seen == 2
    assert (
        np.linalg.norm(pose.camera_position - full.camera_position) < 30
    )  # rough, but usable to start tracking
    with pytest.raises(PoseError, match="too little of the mat"):
        estimate_pose(_keep_markers(v, [view.marker_px[0]]), a3_mat, CALIB)


def test_no_mat_is_a_clear_error(a3_mat: MatSpec) -> None:
    with pytest.raises(NoBoardFoundError, match="not found"):
        estimate_pose(np.full((720, 1280, 3), 150, np.uint8), a3_mat, CALIB)


def test_cell_to_pixel_matches_projection(mat_views: list[View], a3_mat: MatSpec) -> None:
    pose = estimate_pose(mat_views[0].image, a3_mat, CALIB)
    s = a3_mat.block_mm
    assert np.allclose(pose.cell_to_pixel((1, 2, 0)), pose.project([[1.5 * s, 2.5 * s, 0.5 * s]])[0])
    corners = pose.cell_corners_to_pixel((0, 0, 0))
    assert np.allclose(corners[0], pose.project([[0, 0, 0]])[0]) and np.allclose(
        corners[7], pose.project([[s, s, s]])[0]
    )
    # pixel -> table plane inverts projection
    world = np.array([[10.0, -40.0, 0.0], [120.0, 80.0, 0.0]])
    assert np.allclose(pose.pixel_to_table(pose.project(world)), world, atol=1e-3)
    assert MatPose.from_json(pose.to_json()).to_json() == pose.to_json()


def test_self_calibration_from_mat_views(mat_views: list[View], a3_mat: MatSpec) -> None:
    cal = self_calibrate([v.image for v in mat_views], a3_mat)
    assert abs(cal.fx - TABLE_CAM.fx) / TABLE_CAM.fx < 0.01
    assert abs(cal.fy - TABLE_CAM.fy) / TABLE_CAM.fy < 0.01
    assert cal.mat == a3_mat and "self-calibration" in cal.source
    # what scoring needs: lattice cells land on the right pixels
    v = mat_views[0]
    pose = estimate_pose(v.image, a3_mat, cal)
    s = a3_mat.block_mm
    pts = np.array(
        [[x, y, z] for x in (0, 3 * s) for y in (0, 3 * s) for z in (0, 3 * s)]
        + [[-100, -50, 0], [150, 120, 0]]
    )
    err = np.linalg.norm(pose.project(pts) - project(pts, TABLE_CAM, v.rvec, v.tvec), axis=1)
    assert err.max() < 1.5, err
    assert _errors(pose, v)[1] < 0.5


def test_single_view_focal_estimate(mat_views: list[View], a3_mat: MatSpec) -> None:
    pose = estimate_pose(mat_views[1].image, a3_mat)  # no calibration at all
    assert abs(pose.camera.fx - TABLE_CAM.fx) / TABLE_CAM.fx < 0.05
    assert pose.quality in ("good", "fair")


def test_fast_marker_detector_agrees_with_opencv(mat_views: list[View], a3_mat: MatSpec) -> None:
    """Same markers as OpenCV's own detector, corners at least as close to the truth."""
    fast = FastMarkerDetector(a3_mat.aruco_dictionary, a3_mat.printed_marker_ids())
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    ref = cv2.aruco.ArucoDetector(a3_mat.aruco_dictionary, params)
    truth_world = a3_mat.marker_corners_world()
    for v in mat_views[:2]:
        gray = cv2.cvtColor(v.image, cv2.COLOR_BGR2GRAY)
        corners, ids = fast.detect(gray)
        rc, rids, _ = ref.detectMarkers(gray)
        theirs = {
            int(i): np.asarray(c).reshape(4, 2) for c, i in zip(rc, np.asarray(rids).reshape(-1), strict=True)
        }
        assert set(theirs) <= set(ids.tolist())
        ours_err = [
            np.abs(c.reshape(4, 2) - project(truth_world[int(i)], TABLE_CAM, v.rvec, v.tvec)).max()
            for c, i in zip(corners, ids, strict=True)
        ]
        their_err = [
            np.abs(c - project(truth_world[i], TABLE_CAM, v.rvec, v.tvec)).max() for i, c in theirs.items()
        ]
        assert np.median(ours_err) <= np.median(their_err) and max(ours_err) < 1.0


def test_other_mat_ids_are_ignored(a3_mat: MatSpec) -> None:
    other = MatSpec.for_paper("A3", 22, first_id=100)
    rng = np.random.default_rng(9)
    v = mat_view(other, rng)
    with pytest.raises(NoBoardFoundError):
        estimate_pose(v.image, a3_mat, CALIB)
    assert estimate_pose(v.image, other, CALIB).quality == "good"


def test_mat_as_a_calibration_target(mat_views: list[View], a3_mat: MatSpec) -> None:
    from calibration.camera import calibrate
    from calibration.targets import MatTarget

    cal = calibrate([(f"mat{i}", v.image) for i, v in enumerate(mat_views)], MatTarget(a3_mat))
    assert abs(cal.fx - TABLE_CAM.fx) / TABLE_CAM.fx < 0.01 and cal.rms < 0.3
    assert cal.mat == a3_mat and cal.board["type"] == "mat"


def test_tracking_from_the_previous_frame(mat_views: list[View], a3_mat: MatSpec) -> None:
    from calib_sim import look_at_moved

    from calibration.pose import track_pose
    from calibration.synthetic import render_view
    from calibration.targets import MatTarget

    v = mat_views[0]
    first = estimate_pose(v.image, a3_mat, CALIB)
    # the next video frame: the camera moved 6 mm and turned 0.6 degrees
    rv, tv = look_at_moved(v.rvec, v.tvec, shift_mm=(4.0, -3.0, 3.0), turn_deg=0.6)
    frame = render_view(MatTarget(a3_mat).render(3.0), TABLE_CAM, rv, tv, np.random.default_rng(8))
    tracked = track_pose(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), first)
    assert tracked is not None and tracked.markers_seen == 0 and tracked.quality == "good"
    pos, ang = _errors(tracked, View(frame, rv, tv))
    assert pos < 1.0 and ang < 0.5
    assert estimate_pose(frame, a3_mat, CALIB, previous=first).markers_seen == 0  # the fast path was taken
    # a previous pose from elsewhere: tracking declines, full detection still finds the right pose
    far = estimate_pose(mat_views[3].image, a3_mat, CALIB)
    assert track_pose(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), far) is None
    again = estimate_pose(frame, a3_mat, CALIB, previous=far)
    assert again.markers_seen > 0 and _errors(again, View(frame, rv, tv))[0] < 1.0
