"""``boardside ctrl watch`` (issue 5, item 4) on SIMULATED hand-held videos built from the rendered
fixture views (``vision.simulated_video``): the watcher captures exactly one frame per side, never
during a transition, names the sides right, and scores like ``score-images``; a video without a
mat or without a side ends with a clear one-line message (exit 2)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from boardside.cli import main
from boardside.fixtures_render.camera import truth_calibration
from calibration.camera import CameraCalibration, read_image
from calibration.mat import MatSpec
from calibration.pose import MatPose
from vision.simulated_video import SimulatedVideo, simulated_handheld_video, write_video
from vision.watch import IncompleteCaptureError, NoMatInVideoError, WatchConfig, Watcher, draw_overlay

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"
U8 = npt.NDArray[np.uint8]
ORDER = ("top", "px", "py", "mx", "my")  # a player looks down first, then walks round the mat


def _scene(name: str) -> tuple[MatSpec, CameraCalibration, dict[str, str]]:
    d = FIXTURES / name
    spec = MatSpec.from_json(json.loads((d / "scene.json").read_text())["mat"])
    truth = {v: json.loads((d / f"{v}.json").read_text()) for v in ORDER}
    cam = truth["top"]["camera"]
    calib = truth_calibration(cam, "fixture truth (rendered camera)")
    return spec, calib, {v: t["side"] for v, t in truth.items()}


@cache
def _video(name: str, views: tuple[str, ...] = ORDER, seed: int = 0) -> SimulatedVideo:
    d = FIXTURES / name
    return simulated_handheld_video([(v, read_image(d / f"{v}.jpg")) for v in views], fps=10.0,
                                    lead_in_frames=3, seed=seed)


@pytest.mark.parametrize("scene,calibrated", [("scene_003", True), ("scene_002", True), ("scene_020", True),
                                              ("scene_003", False), ("scene_002", False)])
def test_one_capture_per_side_never_in_a_transition(scene: str, calibrated: bool) -> None:
    spec, calib, sides = _scene(scene)
    video = _video(scene)
    w = Watcher(spec, calib if calibrated else None, WatchConfig.for_fps(video.fps))
    statuses = [w.feed(f) for f in video.frames]
    assert w.done and w.missing == []
    caps = w.captures
    assert sorted(c.side for c in caps) == sorted(sides.values())  # exactly one per side
    segments = video.segments()
    for c in caps:
        label = video.labels[c.frame_index]
        assert label is not None, f"captured frame {c.frame_index} is a transition frame"
        assert sides[label] == c.side, f"frame {c.frame_index} shows {label} but was captured as {c.side}"
        # held still long enough first: never the first frames after a movement
        assert c.frame_index - segments[label].start >= w.config.steady_frames - 1
        assert np.array_equal(c.image, video.frames[c.frame_index])
    assert [s.index for s in statuses if s.captured is not None] == [c.frame_index for c in caps]
    assert w.camera_estimated is not calibrated
    # the overlay draws on every kind of frame (no mat, moving, captured) without failing
    for s in (statuses[0], statuses[caps[0].frame_index], statuses[-1]):
        pic = draw_overlay(video.frames[s.index], s)
        assert pic.shape == video.frames[0].shape and not np.array_equal(pic, video.frames[s.index])


def _shift(img: U8, dx: float) -> U8:
    m = np.array([[1.0, 0.0, dx], [0.0, 1.0, 0.0]])
    return np.asarray(cv2.warpAffine(img, m, (img.shape[1], img.shape[0]), borderMode=cv2.BORDER_REFLECT), np.uint8)


def test_a_moving_mat_is_never_captured_and_a_blurred_one_neither() -> None:
    spec, calib, _ = _scene("scene_003")
    img = read_image(FIXTURES / "scene_003" / "my.jpg")
    w = Watcher(spec, calib, WatchConfig(steady_frames=4))
    # a slow pan: 8 px per frame, sharp, the mat found in every frame
    for k in range(12):
        s = w.feed(_shift(img, 8 * k - 48))
        assert s.pose is not None and s.captured is None and s.steady_count <= 1
    # held still but out of focus (the mat is still found): never captured, the reason is given
    blurred = np.asarray(cv2.GaussianBlur(img, (0, 0), 4), np.uint8)
    for _ in range(8):
        s = w.feed(blurred)
        assert s.pose is not None and s.captured is None
    assert w.captures == [] and "blurred" in s.message
    # held still and sharp, but the frame due for capture is slightly blurred: the next one is taken
    # (after a movement, so that a new steady run starts)
    moved = _shift(img, 30)
    frames = [moved, img, img, img, np.asarray(cv2.GaussianBlur(img, (0, 0), 1.5), np.uint8), img, img, img]
    got = [w.feed(f) for f in frames]
    assert [g.steady_count for g in got[1:5]] == [1, 2, 3, 4]
    assert [g.index for g in got if g.captured is not None] == [got[5].index]
    assert "blurred frame" in got[4].message
    assert w.captures[0].side == "-y" and np.array_equal(w.captures[0].image, img)


def test_oblique_views_count_for_the_top() -> None:
    """Four oblique sides (the +x view is 48 degrees up) and no view from above: done, the top
    counted from the oblique views, four captures."""
    spec, calib, _ = _scene("scene_003")
    video = _video("scene_003", ("px", "py", "mx", "my"))
    w = Watcher(spec, calib, WatchConfig.for_fps(video.fps))
    for f in video.frames:
        w.feed(f)
    assert w.done and len(w.captures) == 4
    assert w.covered["top"] == "oblique"
    assert w.captures[0].covers == ("+x", "top")


def test_end_of_video_messages() -> None:
    spec, calib, _ = _scene("scene_003")
    w = Watcher(spec, calib)
    rng = np.random.default_rng(1)
    for _ in range(5):
        w.feed(rng.integers(0, 255, (360, 640, 3), dtype=np.uint8))
    with pytest.raises(NoMatInVideoError, match="mat was not found in any of the 5 frame"):
        w.finish("table.avi")
    video = _video("scene_003", ("top", "px", "py", "mx"))
    w = Watcher(spec, calib, WatchConfig.for_fps(video.fps))
    for f in video.frames:
        w.feed(f)
    assert w.missing == ["-y"]
    with pytest.raises(IncompleteCaptureError, match=r"before side\(s\) -y could be captured"):
        w.finish("game.avi")


def _cam_file(tmp_path: Path, calib: CameraCalibration) -> Path:
    p = tmp_path / "cam.json"
    p.write_text(json.dumps(calib.to_json()))
    return p


def test_cli_video_without_a_mat_or_missing_a_side(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(2)
    table = [np.asarray(cv2.GaussianBlur(rng.integers(60, 200, (360, 640, 3), dtype=np.uint8), (0, 0), 1.0), np.uint8)
             for _ in range(12)]
    empty = write_video(tmp_path / "no_mat.avi", table, 10.0)
    assert main(["ctrl", "watch", "--video", str(empty), "--no-window"]) == 2
    err = capsys.readouterr().err
    assert "boardside: error: the mat was not found in any of the 12 frame(s)" in err and "no_mat.avi" in err
    assert "Traceback" not in err

    _spec, calib, _ = _scene("scene_003")
    video = _video("scene_003", ("top", "px", "py", "mx"))
    path = write_video(tmp_path / "three_sides_and_top.avi", video.frames, video.fps)
    out = tmp_path / "captured"
    code = main(["ctrl", "watch", "--video", str(path), "--no-window", "-c", str(_cam_file(tmp_path, calib)),
                 "--out", str(out)])
    assert code == 2
    err = capsys.readouterr().err
    assert "side(s) -y could be captured" in err and "show -y to the camera" in err
    # what was captured is kept, named like the fixtures
    assert sorted(p.name for p in out.iterdir()) == ["mx.png", "px.png", "py.png", "top.png"]


def test_cli_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ctrl", "watch", "--no-window"]) == 2
    assert "exactly one of --camera N or --video FILE" in capsys.readouterr().err
    bad = tmp_path / "notes.avi"
    bad.write_text("not a video")
    assert main(["ctrl", "watch", "--video", str(bad), "--no-window"]) == 2
    assert "cannot read video" in capsys.readouterr().err
    assert main(["ctrl", "watch", "--video", str(tmp_path / "missing.avi"), "--no-window"]) == 2
    assert "no such video file" in capsys.readouterr().err


@pytest.mark.slow
def test_cli_watch_scores_like_score_images(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The full command on a SIMULATED video (Motion-JPEG file): the five captured sides are scored
    exactly as ``score-images`` scores the five fixture pictures, and the saved captures re-score
    to the same document."""
    scene = "scene_003"
    _spec, calib, _ = _scene(scene)
    cam = _cam_file(tmp_path, calib)
    video = _video(scene)
    path = write_video(tmp_path / "simulated_scene_003.avi", video.frames, video.fps)
    out = tmp_path / "captured"
    # followed turn by turn (the state one turn earlier given), as a game at the table would be: the
    # reading is then the legal turn the pictures show, stable against the video's re-encoding (a free
    # reading of this mid-game is untrusted and may flip a cell between the JPEGs and the video frames)
    from engine.ctrl import State
    from engine.ctrl.record import one_turn_back

    before = one_turn_back(State.from_json(json.loads((FIXTURES / scene / "scene.json").read_text())["state"]))
    assert before is not None
    prev = tmp_path / "before.json"
    prev.write_text(json.dumps(before.to_json()))
    code = main(["ctrl", "watch", "--video", str(path), "--no-window", "-c", str(cam), "--out", str(out), "--json",
                 "--previous", str(prev)])
    assert code in (0, 1)  # the reading's verdict (trusted or not): the same for both commands
    watched = json.loads(capsys.readouterr().out)
    d = FIXTURES / scene
    assert main(["ctrl", "score-images", *[str(d / f"{v}.jpg") for v in ORDER], "-c", str(cam), "--json",
                 "--previous", str(prev)]) == code
    direct = json.loads(capsys.readouterr().out)
    for key in ("sides", "totals", "winners", "state"):
        assert watched[key] == direct[key], key
    assert [v["side"] for v in watched["views"]] == [v["side"] for v in direct["views"]]
    assert main(["ctrl", "score-images", *[str(out / f"{v}.png") for v in ORDER], "-c", str(cam), "--json",
                 "--previous", str(prev)]) == code
    rescored = json.loads(capsys.readouterr().out)
    for key in ("sides", "totals", "winners", "state", "problems"):
        assert rescored[key] == watched[key], key
    # the printed text is score-images' own, line for line (the views are named by the saved files)
    out2 = tmp_path / "again"
    assert main(["ctrl", "watch", "--video", str(path), "--no-window", "-c", str(cam), "--out", str(out2),
                 "--previous", str(prev)]) == code
    text = capsys.readouterr().out
    assert main(["ctrl", "score-images", *[str(out2 / f"{v}.png") for v in ORDER], "-c", str(cam),
                 "--previous", str(prev)]) == code
    assert capsys.readouterr().out == text
    assert "CTRL score sheet (from pictures)" in text and "Winner:" in text


class _InterruptedFeed:
    """A frame source (the ``cv2.VideoCapture`` methods the command uses) that delivers a simulated
    video and then raises ``KeyboardInterrupt`` as Ctrl-C would, after ``stop_after`` frames."""

    def __init__(self, frames: list[U8], stop_after: int) -> None:
        self.frames, self.stop_after, self.n = frames, stop_after, 0

    def read(self) -> tuple[bool, U8 | None]:
        if self.n >= self.stop_after:
            raise KeyboardInterrupt
        self.n += 1
        return True, self.frames[self.n - 1]

    def release(self) -> None:
        pass

    def get(self, prop: int) -> float:
        return 10.0 if prop == cv2.CAP_PROP_FPS else float(len(self.frames))


def test_ctrl_c_stops_cleanly_and_keeps_the_captures(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import boardside.ctrl_watch as cw

    _spec, calib, _ = _scene("scene_003")
    video = _video("scene_003")
    stop = video.segments()["py"].stop  # after top, +x and +y were shown
    feed = _InterruptedFeed(video.frames, stop)
    monkeypatch.setattr(cw, "open_video", lambda path: (feed, 10.0, len(video.frames)))
    out = tmp_path / "captured"
    fake = tmp_path / "game.avi"
    fake.write_bytes(b"")
    code = main(["ctrl", "watch", "--video", str(fake), "--no-window", "-c", str(_cam_file(tmp_path, calib)),
                 "--out", str(out)])
    assert code == 130
    err = capsys.readouterr().err
    assert f"interrupted after {stop} frame(s): captured top, +x, +y" in err.replace("\n", " ")
    assert "Traceback" not in err
    assert sorted(p.name for p in out.iterdir()) == ["px.png", "py.png", "top.png"]
    saved = read_image(out / "px.png")
    assert saved.shape == video.frames[0].shape


@pytest.mark.hardware(device="camera")
def test_watch_a_real_camera(pytestconfig: pytest.Config) -> None:
    """With ``--camera N``: 30 live frames go through the watcher and the overlay without error."""
    from calibration.live import open_camera

    cap = open_camera(int(pytestconfig.getoption("--camera")))
    try:
        w = Watcher()
        for _ in range(30):
            ok, frame = cap.read()
            assert ok and frame is not None
            s = w.feed(np.asarray(frame, np.uint8))
            assert draw_overlay(np.asarray(frame, np.uint8), s).shape == frame.shape
    finally:
        cap.release()


def _look_at_pose(spec: MatSpec, calib: CameraCalibration, azimuth: float, elevation: float) -> MatPose:
    """A camera 600 mm from the centre of the footprint at this azimuth and elevation, looking at it."""
    centre = np.array([1.5, 1.5, 0.0]) * spec.block_mm
    a, e = np.radians(azimuth), np.radians(elevation)
    eye = centre + 600.0 * np.array([np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)])
    fwd = (centre - eye) / np.linalg.norm(centre - eye)
    right = np.cross(fwd, [0.0, 0.0, 1.0])
    right = right / np.linalg.norm(right) if np.linalg.norm(right) > 1e-9 else np.array([1.0, 0.0, 0.0])
    down = np.cross(fwd, right)
    r = np.stack([right, down, fwd])
    rvec = np.asarray(cv2.Rodrigues(r)[0], np.float64).reshape(3)
    return MatPose(spec, calib, rvec, -r @ eye, 0.2, 40, 60, 10, 20, 0, 1.0)


@pytest.mark.parametrize("azimuth,elevation,side", [
    (0, 40, "+x"), (90, 30, "+y"), (180, 50, "-x"), (-90, 45, "-y"), (30, 45, "+x"), (120, 45, "+y"),
    (45, 40, None), (-137, 40, None), (52, 40, None), (60, 80, "top"), (45, 85, "top")])
def test_side_facing_the_camera_and_corner_views(azimuth: float, elevation: float, side: str | None) -> None:
    spec, calib, _ = _scene("scene_003")
    pose = _look_at_pose(spec, calib, azimuth, elevation)
    a = pose.angles_deg()
    assert abs(a["elevation"] - elevation) < 1e-6
    assert Watcher(spec, calib)._side_of(pose)[0] == side


def test_a_steep_side_view_asks_to_lower_the_camera() -> None:
    """scene_001's -x picture is taken 71 degrees up: it counts as the top, so once the top is
    captured the player is told to lower the camera instead of being left waiting."""
    spec, calib, _ = _scene("scene_001")
    video = _video("scene_001", ("top", "mx"))
    w = Watcher(spec, calib, WatchConfig.for_fps(video.fps))
    statuses = [w.feed(f) for f in video.frames]
    assert [c.side for c in w.captures] == ["top"]
    last = statuses[-1]
    assert last.side == "top" and last.message.startswith("too steep for side -x (71 deg)")
    assert w.missing == ["+x", "+y", "-x", "-y"]


def test_cli_follow_turn_captures_from_a_video(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``ctrl follow turn GAME --video FILE``: the sides captured from a SIMULATED hand-held video are read
    against the followed game's recorded position and the turn is recorded, named by the saved pictures."""
    from boardside.ctrl_follow import FollowedGame
    from engine.ctrl import State
    from engine.ctrl.record import one_turn_back

    scene = "scene_003"
    _spec, calib, _ = _scene(scene)
    truth = State.from_json(json.loads((FIXTURES / scene / "scene.json").read_text())["state"])
    before = one_turn_back(truth)
    assert before is not None
    (tmp_path / "before.json").write_text(json.dumps(before.to_json()))
    game = tmp_path / "game.json"
    assert main(["ctrl", "follow", "start", str(game), "--state", str(tmp_path / "before.json"),
                 "-c", str(_cam_file(tmp_path, calib))]) == 0
    video = _video(scene)
    path = write_video(tmp_path / "simulated_scene_003.avi", video.frames, video.fps)
    assert main(["ctrl", "follow", "turn", str(game), "--video", str(path), "--no-window",
                 "--out", str(tmp_path / "captured")]) == 0
    followed = FollowedGame.load(game)
    assert followed.state.blocks == truth.blocks and dict(followed.state.flags) == dict(truth.flags)
    assert sorted(Path(p).name for p in followed.readings[-1].pictures) == ["mx.png", "my.png", "px.png", "py.png",
                                                                         "top.png"]
    assert main(["ctrl", "follow", "turn", str(game), "--no-window"]) == 2  # neither pictures nor a camera
    assert "give the pictures, or --camera N / --video FILE" in capsys.readouterr().err
