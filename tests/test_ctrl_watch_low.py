"""``boardside ctrl watch --low-views``: each side captured again from low down.

What is simulated: the videos are SIMULATED hand-held videos (``vision.simulated_video``: each still
held 1 s with affine shake, joined by sliding, blurred transitions) built from RENDERED pictures of
one fixture scene: the five usual views of ``fixtures/ctrl/scene_003`` and its four low views
``fixtures/ctrl/scene_003/{px,py,mx,my}_low.jpg`` (the same scene rendered with
``boardside fixtures render ctrl --low-views``: camera looking down 12-20 degrees, straight
at the side).  The low pictures are real renders of the 3D blocks, not warps of the mat plane; only the
hand-held movement between them is simulated.  The band test uses exact look-at poses (no picture)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import cv2
import numpy as np
import pytest

from boardside.cli import main
from boardside.fixtures_render.camera import truth_calibration
from calibration.camera import CameraCalibration, read_image
from calibration.mat import MatSpec
from calibration.pose import MatPose
from vision.simulated_video import SimulatedVideo, simulated_handheld_video, write_video
from vision.watch import (
    IncompleteCaptureError,
    WatchConfig,
    Watcher,
    draw_overlay,
    look_down_deg,
    side_file_stem,
)

ROOT = Path(__file__).resolve().parent.parent / "fixtures"
SCENE = LOW = ROOT / "ctrl" / "scene_003"
#: a player walking round the mat: each side from the usual height, then again from low down
WALK = ("top", "px", "px_low", "py", "py_low", "mx", "mx_low", "my", "my_low")


def _scene() -> tuple[MatSpec, CameraCalibration]:
    spec = MatSpec.from_json(json.loads((SCENE / "scene.json").read_text())["mat"])
    calib = truth_calibration(json.loads((SCENE / "top.json").read_text())["camera"], "fixture truth")
    return spec, calib


@cache
def _video(views: tuple[str, ...] = WALK, seed: int = 0) -> SimulatedVideo:
    stills = [(v, read_image((LOW if v.endswith("_low") else SCENE) / f"{v}.jpg")) for v in views]
    return simulated_handheld_video(stills, fps=10.0, lead_in_frames=3, seed=seed)


def _label_of(side: str) -> str:
    return side_file_stem(side)


@pytest.mark.parametrize("calibrated", [True, False])
def test_low_views_are_captured_each_by_itself(calibrated: bool) -> None:
    spec, calib = _scene()
    video = _video()
    w = Watcher(spec, calib if calibrated else None, WatchConfig.for_fps(video.fps, low_views=True))
    statuses = [w.feed(f) for f in video.frames]
    assert w.done and w.missing == []
    caps = w.captures
    assert [c.side for c in caps] == ["top", "+x", "+x low", "+y", "+y low", "-x", "-x low", "-y", "-y low"]
    segments = video.segments()
    lo, hi = w.config.low_pitch_deg
    for c in caps:
        label = video.labels[c.frame_index]
        assert label == _label_of(c.side), f"frame {c.frame_index} shows {label} but was captured as {c.side}"
        assert c.frame_index - segments[label].start >= w.config.steady_frames - 1  # held still first
        assert c.name == f"{label}.png"
        down = look_down_deg(c.pose)
        if c.side.endswith(" low"):
            assert lo <= down <= hi and c.covers == (c.side,)  # a low view never counts for the top
        else:
            assert down > hi
    # once a side is captured from above, its usual view asks for the camera to be lowered
    px_after = [s for s in statuses if video.labels[s.index] == "px" and s.index > caps[1].frame_index]
    assert px_after and all("for +x low: lower the camera" in s.message for s in px_after)
    # the overlay names the low pictures: "show ... next" and the nine-line checklist
    s = statuses[caps[1].frame_index]
    assert s.next_side == "+x low" and s.needed == w.config.order and len(s.needed) == 9
    assert s.view == "+x" and statuses[caps[2].frame_index].view == "+x low"
    pic = draw_overlay(video.frames[s.index], s)
    plain = draw_overlay(video.frames[s.index], Watcher(spec, calib).feed(video.frames[s.index]))
    h, wd = pic.shape[:2]
    checklist = (slice(0, h // 2), slice(wd - wd // 5, wd))
    assert not np.array_equal(pic[checklist], plain[checklist])


def test_without_low_views_nothing_changes() -> None:
    """Default: the same walk gives the five usual captures (the low views come after their side,
    which is already captured), and a five-view video is not done with --low-views."""
    spec, calib = _scene()
    w = Watcher(spec, calib, WatchConfig.for_fps(10.0))
    for f in _video().frames:
        w.feed(f)
    assert [c.side for c in w.captures] == ["top", "+x", "+y", "-x", "-y"]
    five = _video(("top", "px", "py", "mx", "my"))
    w = Watcher(spec, calib, WatchConfig.for_fps(five.fps, low_views=True))
    for f in five.frames:
        w.feed(f)
    assert [c.side for c in w.captures] == ["top", "+x", "+y", "-x", "-y"]
    assert w.missing == ["+x low", "+y low", "-x low", "-y low"]
    with pytest.raises(IncompleteCaptureError, match=r"side\(s\) \+x low, \+y low, -x low, -y low could be"):
        w.finish("game.avi")


def _look_at_pose(spec: MatSpec, calib: CameraCalibration, azimuth: float, elevation: float) -> MatPose:
    """A camera 600 mm from the centre of the footprint at this azimuth and elevation, looking at it
    (so it looks down exactly ``elevation`` degrees)."""
    centre = np.array([1.5, 1.5, 0.0]) * spec.block_mm
    a, e = np.radians(azimuth), np.radians(elevation)
    eye = centre + 600.0 * np.array([np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)])
    fwd = (centre - eye) / np.linalg.norm(centre - eye)
    right = np.cross(fwd, [0.0, 0.0, 1.0])
    right = right / np.linalg.norm(right)
    down = np.cross(fwd, right)
    r = np.stack([right, down, fwd])
    rvec = np.asarray(cv2.Rodrigues(r)[0], np.float64).reshape(3)
    return MatPose(spec, calib, rvec, -r @ eye, 0.2, 40, 60, 10, 20, 0, 1.0)


@pytest.mark.parametrize("azimuth,elevation,view,refused", [
    (0, 15, "+x low", None), (90, 22, "+y low", None), (178, 12, "-x low", None), (-90, 9, "-y low", None),
    (0, 23, "+x", None), (0, 35, "+x", None), (0, 5, "+x low", "raise the camera"),
    (25, 15, "+x low", "face side +x straight"), (-115, 15, "-y low", "face side -y straight")])
def test_low_band_and_straightness(azimuth: float, elevation: float, view: str, refused: str | None) -> None:
    spec, calib = _scene()
    pose = _look_at_pose(spec, calib, azimuth, elevation)
    assert abs(look_down_deg(pose) - elevation) < 1e-6
    w = Watcher(spec, calib, WatchConfig(low_views=True))
    side = w._side_of(pose)[0]
    assert side is not None
    got, down, why = w._low_view(pose, side)
    assert got == view and abs(down - elevation) < 1e-6
    assert (why is None) if refused is None else (why is not None and refused in why)


def test_bad_low_band_is_a_typed_error() -> None:
    from engine.errors import BoardsideInputError

    with pytest.raises(BoardsideInputError, match=r"low_pitch_deg .* got \(25.0, 20.0\)"):
        WatchConfig(low_views=True, low_pitch_deg=(25.0, 20.0))


def test_cli_low_views_saves_the_low_pictures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``ctrl watch --low-views --out DIR`` on a walk without the last low view: exit 2 naming it, and the
    eight captures are kept as px.png ... px_low.png ..."""
    _spec, calib = _scene()
    cam = tmp_path / "cam.json"
    cam.write_text(json.dumps(calib.to_json()))
    video = _video(WALK[:-1])
    path = write_video(tmp_path / "walk.avi", video.frames, video.fps)
    out = tmp_path / "captured"
    code = main(["ctrl", "watch", "--video", str(path), "--no-window", "-c", str(cam), "--out", str(out),
                 "--low-views"])
    assert code == 2
    err = capsys.readouterr().err
    assert "each also from low down" in err.replace("\n", " ")
    assert "side(s) -y low could be captured" in err and "show -y low to the camera" in err
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{v}.png" for v in WALK[:-1])


def test_cli_low_views_scores_all_nine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The whole command with --low-views: nine pictures scored together, as ``score-images`` scores the
    nine saved captures."""
    _spec, calib = _scene()
    cam = tmp_path / "cam.json"
    cam.write_text(json.dumps(calib.to_json()))
    video = _video()
    path = write_video(tmp_path / "walk.avi", video.frames, video.fps)
    out = tmp_path / "captured"
    code = main(["ctrl", "watch", "--video", str(path), "--no-window", "-c", str(cam), "--out", str(out),
                 "--low-views", "--json"])
    assert code in (0, 1)
    watched = json.loads(capsys.readouterr().out)
    assert len(watched["views"]) == 9
    assert sorted(v["side"] for v in watched["views"]) == sorted(["top", "+x", "+x", "+y", "+y", "-x", "-x", "-y",
                                                                  "-y"])
    assert main(["ctrl", "score-images", *[str(out / f"{v}.png") for v in WALK], "-c", str(cam), "--json"]) == code
    rescored = json.loads(capsys.readouterr().out)
    for key in ("sides", "totals", "winners", "state"):
        assert rescored[key] == watched[key], key


def test_cli_follow_turn_low_views_reads_nine_captures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``ctrl follow turn GAME --video FILE --low-views`` (session 12): the nine sides captured from the
    SIMULATED walk are read against the recorded position (scene_003 one turn back) and the turn recorded,
    the reading naming the nine saved pictures; without --low-views the same walk gives the five."""
    from boardside.ctrl_follow import FollowedGame
    from engine.ctrl import State
    from engine.ctrl.record import one_turn_back

    _spec, calib = _scene()
    cam = tmp_path / "cam.json"
    cam.write_text(json.dumps(calib.to_json()))
    truth = State.from_json(json.loads((SCENE / "scene.json").read_text())["state"])
    before = one_turn_back(truth)
    assert before is not None
    (tmp_path / "before.json").write_text(json.dumps(before.to_json()))
    video = _video()
    path = write_video(tmp_path / "walk.avi", video.frames, video.fps)
    for low, stems in ((True, WALK), (False, ("top", "px", "py", "mx", "my"))):
        game = tmp_path / f"game_{low}.json"
        assert main(["ctrl", "follow", "start", str(game), "--state", str(tmp_path / "before.json"),
                     "-c", str(cam)]) == 0
        out = tmp_path / f"captured_{low}"
        assert main(["ctrl", "follow", "turn", str(game), "--video", str(path), "--no-window", "--out", str(out),
                     *(["--low-views"] if low else [])]) == 0
        err = capsys.readouterr().err
        assert ("each also from low down" in err.replace("\n", " ")) == low
        followed = FollowedGame.load(game)
        assert followed.state.blocks == truth.blocks and dict(followed.state.flags) == dict(truth.flags)
        assert sorted(Path(p).name for p in followed.readings[-1].pictures) == sorted(f"{v}.png" for v in stems)
    # with pictures given, --low-views has nothing to capture: a one-line error, the record untouched
    game = tmp_path / "game_True.json"
    assert main(["ctrl", "follow", "turn", str(game), str(SCENE / "px.jpg"), "--low-views"]) == 2
    assert "--low-views is for capturing with --camera N / --video FILE" in capsys.readouterr().err
