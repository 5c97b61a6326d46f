"""The recorded fixture sets are consistent with their truth (needs OpenCV and the engine, never the renderer).

* every listed image decodes at 1280x720 and nothing on disk is unlisted;
* every CTRL truth state validates with the engine and its stored scores equal the engine's;
* the recorded cameras are the truth of the pictures: the mat's ChArUco corners, detected by OpenCV in
  the images, land where the recorded K, distortion and pose project them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from boardside.fixtures_render.camera import CameraModel
from boardside.fixtures_render.check import check_root, load_manifests

ROOT = Path(__file__).resolve().parents[2] / "fixtures"
MANIFESTS = {m["set"]: (d, m) for d, m in load_manifests(ROOT)}

needs_fixtures = pytest.mark.skipif(not MANIFESTS, reason=f"no recorded fixture sets under {ROOT}")


@needs_fixtures
def test_check_root_finds_no_problem() -> None:
    problems, counts = check_root(ROOT)
    assert problems == []
    assert counts["images"] > 0


@needs_fixtures
def test_ctrl_set_spans_stages_players_and_five_views() -> None:
    _d, m = MANIFESTS["ctrl"]
    scenes = [s for s in m["scenes"] if len(s["views"]) == 9]
    assert len(scenes) >= 40, f"only {len(scenes)} complete CTRL scenes (five views and four low ones)"
    assert {s["stage"] for s in scenes} == {"setup", "mid", "finished"}
    assert {s["players"] for s in scenes} == {2, 3, 4}
    for s in scenes:
        five = [v for v in s["views"] if not v.get("low")]
        low = [v for v in s["views"] if v.get("low")]
        assert sorted(v["side"] for v in five) == sorted(["+x", "-x", "+y", "-y", "top"])
        assert sorted(v["side"] for v in low) == sorted(["+x", "-x", "+y", "-y"])
        for v in five:
            if v["side"] != "top":
                assert 25 - 1e-6 <= v["pose"]["elevation_deg"] <= 75 + 1e-6
        for v in low:
            assert 12 - 1e-6 <= v["pose"]["elevation_deg"] <= 20 + 1e-6
    kelvins = [s["lighting"]["kelvin"] for s in scenes]
    assert min(kelvins) < 3000 and max(kelvins) > 6000
    assert any(s["lighting"]["dim"] for s in scenes)
    assert any(s["clutter_objects"] for s in scenes)
    assert {s["device"]["kind"] for s in scenes} == {"webcam", "phone"}


@needs_fixtures
def test_stored_scores_are_the_engines() -> None:
    ctrl = pytest.importorskip("engine.ctrl")
    _d, m = MANIFESTS["ctrl"]
    for s in m["scenes"]:
        assert ctrl.validate_state(s["state"]) == [], s["dir"]
        state = ctrl.State.from_json(s["state"])
        assert s["scores"]["sides"] == state.side_scores(), s["dir"]
        assert s["scores"]["totals"] == state.totals(), s["dir"]
        assert s["scores"]["winners"] == state.winners(), s["dir"]


def _charuco_errors(set_dir: Path, view: dict[str, Any], mat: dict[str, Any]) -> np.ndarray:
    from calibration.mat import MatSpec

    spec = MatSpec.from_json(mat)
    img = cv2.imread(str(set_dir / view["file"]), cv2.IMREAD_GRAYSCALE)
    assert img is not None, view["file"]
    corners, ids, _mc, _mi = cv2.aruco.CharucoDetector(spec.charuco_board()).detectBoard(img)
    if ids is None:
        return np.zeros(0)
    ids = ids.ravel()
    keep = np.isin(ids, spec.corner_ids())
    cam = CameraModel.from_json(view["camera"])
    proj = cam.project(spec.corner_world(ids[keep]))
    return np.asarray(np.linalg.norm(proj - corners.reshape(-1, 2)[keep], axis=1))


@needs_fixtures
@pytest.mark.parametrize("set_name", ["calib_webcam", "calib_phone", "ctrl"])
def test_recorded_cameras_match_the_pictures(set_name: str) -> None:
    if set_name not in MANIFESTS:
        pytest.skip(f"set {set_name} not recorded")
    set_dir, m = MANIFESTS[set_name]
    errors = []
    views = [(s, v) for s in m["scenes"] for v in s["views"]]
    for scene, view in views[:: max(1, len(views) // 12)]:
        errors.append(_charuco_errors(set_dir, view, scene["mat"]))
    err = np.concatenate(errors)
    assert len(err) >= 40, "too few ChArUco corners detected to check the cameras"
    assert float(np.median(err)) < 0.6 and float(np.percentile(err, 95)) < 2.0


@needs_fixtures
def test_calibration_sets_have_fixed_known_intrinsics() -> None:
    for name in ("calib_webcam", "calib_phone"):
        _d, m = MANIFESTS[name]
        views = [v for s in m["scenes"] for v in s["views"]]
        assert len(views) >= 15
        Ks = {json.dumps(v["camera"]["K"]) for v in views}
        dists = {json.dumps(v["camera"]["dist"]) for v in views}
        assert len(Ks) == 1 and len(dists) == 1, f"{name}: one camera per calibration set"
        assert all(len(v["charuco_corners"]) > 0 for v in views)


BOARD = ROOT / "boards" / "sample_board.json"


@pytest.mark.skipif(not BOARD.exists(), reason="sample board not rendered")
def test_sample_board_truth_matches_the_picture() -> None:
    truth = json.loads(BOARD.read_text())
    img = cv2.imread(str(BOARD.with_name(truth["file"])), cv2.IMREAD_GRAYSCALE)
    assert img is not None
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, truth["board"]["aruco_dictionary"]))
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    corners, ids, _rej = cv2.aruco.ArucoDetector(d, params).detectMarkers(img)
    assert ids is not None and len(set(ids.ravel().tolist()) & {0, 1, 2, 3}) >= 3
    cam = CameraModel.from_json(truth["camera"])
    errs = []
    for c, i in zip(corners, ids.ravel(), strict=True):
        world = [[x, y, 0.0] for x, y in truth["board"]["marker_corners_mm"][str(int(i))]]
        errs.append(np.linalg.norm(cam.project(world) - c.reshape(4, 2), axis=1))
    err = np.concatenate(errs)
    # Outer marker corners sit ~1 px inside their true place: blur in linear light followed by the
    # camera's gamma makes black squares look smaller (as in real photos; ChArUco X-corners, being
    # symmetric, do not move), and this shot has 2.7 px of motion blur (truth["sensor"]).
    assert float(np.mean(err)) < 1.5 and float(err.max()) < 2.0, err


@needs_fixtures
@pytest.mark.parametrize("set_name", ["calib_webcam", "calib_phone"])
def test_calibrating_from_a_calibration_set_recovers_its_known_intrinsics(set_name: str) -> None:
    """OpenCV calibration on the rendered ChArUco views gives back the recorded K and distortion."""
    from calibration.mat import MatSpec

    if set_name not in MANIFESTS:
        pytest.skip(f"set {set_name} not recorded")
    set_dir, m = MANIFESTS[set_name]
    spec = MatSpec.from_json(m["scenes"][0]["mat"])
    detector = cv2.aruco.CharucoDetector(spec.charuco_board())
    obj, img = [], []
    for scene in m["scenes"]:
        for view in scene["views"]:
            gray = cv2.imread(str(set_dir / view["file"]), cv2.IMREAD_GRAYSCALE)
            assert gray is not None, view["file"]
            corners, ids, _mc, _mi = detector.detectBoard(gray)
            if ids is None or len(ids) < 8:
                continue
            keep = np.isin(ids.ravel(), spec.corner_ids())
            obj.append(spec.corner_world(ids.ravel()[keep]).astype(np.float32).reshape(-1, 1, 3))
            img.append(corners.reshape(-1, 1, 2)[keep].astype(np.float32))
    assert len(obj) >= 10, f"ChArUco found in only {len(obj)} views"
    rms, K, dist, _r, _t = cv2.calibrateCamera(obj, img, (1280, 720), None, None)
    truth = m["scenes"][0]["views"][0]["camera"]
    K0, d0 = np.asarray(truth["K"]), np.asarray(truth["dist"])
    assert rms < 0.6
    assert abs(K[0, 0] / K0[0, 0] - 1) < 0.01 and abs(K[1, 1] / K0[1, 1] - 1) < 0.01
    assert abs(K[0, 2] - K0[0, 2]) < 6 and abs(K[1, 2] - K0[1, 2]) < 6
    assert abs(dist.ravel()[0] - d0[0]) < 0.03


def test_no_picture_is_black_or_blown_out() -> None:
    """A broken render (a camera inside a light) once gave an all-black view; the pipeline would
    reject such a picture, so a fixture must never be one."""
    bad = []
    for jpg in sorted(ROOT.glob("*/scene_*/*.jpg")):
        grey = cv2.imread(str(jpg), cv2.IMREAD_GRAYSCALE)
        assert grey is not None, jpg
        if not 30.0 <= float(grey.mean()) <= 230.0:
            bad.append((str(jpg.relative_to(ROOT)), round(float(grey.mean()), 1)))
    assert not bad, bad


def test_no_camera_inside_or_behind_a_light() -> None:
    from boardside.fixtures_render.sets import LOW_VIEWS, SETS, _view_setup, mat_texture, plan_scene

    mat_spec = mat_texture()[0]
    sets = SETS.values() if isinstance(SETS, dict) else SETS
    for sdef in sets:
        for i in range(3 if sdef.kind != "ctrl" else 40):
            plan = plan_scene(sdef, i)
            # the low views (fixtures render --low-views) must not meet a light either: they are
            # rendered with the lights kept clear of the five usual cameras only
            for view in plan.views + (list(LOW_VIEWS) if sdef.kind == "ctrl" else []):
                cam = _view_setup(plan, view, mat_spec)[0]
                c = -np.asarray(cam.R).T @ np.asarray(cam.t)
                for li in plan.lighting.lights:
                    pos = np.asarray(li.position)
                    if li.kind == "sphere":
                        assert np.linalg.norm(c - pos) > li.size, (sdef.name, i, view)
                    elif c[2] > pos[2]:
                        assert max(abs(c[0] - pos[0]), abs(c[1] - pos[1])) > li.size / 2, (sdef.name, i, view)
