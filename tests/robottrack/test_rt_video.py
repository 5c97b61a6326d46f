"""``--video FILE``: the closed loop reading its frames from a short generated video.

The video is recorded from a closed-loop run with the simulated camera (a floor robot: 150 mm cells,
a 60 mm tag 80 mm up); the CLI then replays it against a simulated robot with the same drift.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from boardside.camerafeed import SimulatedFrames, Watcher
from boardside.cli import main
from boardside.closedloop import LoopLog, LoopSettings, run_closed_loop
from boardside.commands.quirky import run_program
from calibration.boards import RobotTag, board_spec
from hardware.executor import LinkTiming
from hardware.sim import SimBody, SimTransport, SimulatedRobot
from hardware.transport import RobotURL
from vision.sim_camera import SimCameraSettings, SimulatedCamera

FAST = LinkTiming(heartbeat=0.02, ack_timeout=0.2, dead_after=1.0, connect_timeout=2.0, reconnect_for=5, backoff=0.01)
SCN, PROG = "first-dance", "F1 F2 RR F2"
URL = "sim://?time=0.003&slip=0.07&drift=3"
TAG = RobotTag(231, 60.0, 80.0)


class Recording:
    name = "recording"

    def __init__(self, inner: SimulatedFrames) -> None:
        self.inner = inner
        self.frames: list[Any] = []

    def read(self) -> Any:
        f = self.inner.read()
        self.frames.append(f)
        return f

    def close(self) -> None:
        return None


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Any]:
    tmp = tmp_path_factory.mktemp("video")
    spec = board_spec("quirky", scenario=SCN, cell_mm=150.0)
    robot = SimulatedRobot(time_factor=0.003, body=SimBody(slip=0.07, drift=3.0))  # steps 150 mm (default)
    robot.body.place_on_cell(0, 0, "N", 150.0)
    cam = SimulatedCamera(spec, TAG, SimCameraSettings(seed=7, elevation_deg=55))
    rec = Recording(SimulatedFrames(cam, lambda: robot.body.pose))
    settings = LoopSettings(cell_mm=150.0)
    _scn, result = run_program(SCN, PROG)
    log = LoopLog(tmp / "rec.jsonl")
    report = asyncio.run(run_closed_loop(result, SimTransport(RobotURL.parse(URL), robot=robot),
                                         Watcher(rec, spec, cam.calibration, TAG, settings), settings, log,
                                         tmp / "r.db", timing=FAST))
    log.close()
    assert report.status == "finished" and report.corrections >= 1
    video = tmp / "run.avi"
    h, w = rec.frames[0].shape[:2]
    out = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"MJPG"), 2.0, (w, h))
    assert out.isOpened()
    for f in rec.frames:
        out.write(f)
    out.release()
    cal = tmp / "cam.json"
    cam.calibration.save(cal)
    return video, cal, report


def test_the_loop_replays_a_video(recorded: tuple[Path, Path, Any], tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    video, cal, original = recorded
    rc = main(["quirky", "run", SCN, "-p", PROG, "--robot", URL, "--video", str(video), "--calibration", str(cal),
               "--cell-mm", "150", "--tag-id", "231", "--tag-mm", "60", "--tag-height-mm", "80", "--json",
               "--loop-log", str(tmp_path / "l.jsonl"), "--robot-log", str(tmp_path / "r.db")])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0, doc["loop"]["message"]
    checks = doc["loop"]["checks"]
    assert [c["step"] for c in checks] == [c.step for c in original.checks]
    for got, want in zip(checks, original.checks, strict=True):
        assert want.seen_mm is not None
        assert np.allclose(got["seen_mm"][:2], want.seen_mm[:2], atol=1.0)  # JPEG-compressed frames
        assert got["verdict"] == want.verdict


def test_a_video_that_ends_early_stops_the_loop(recorded: tuple[Path, Path, Any], tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    video, cal, _ = recorded
    cap = cv2.VideoCapture(str(video))
    short = tmp_path / "short.avi"
    ok, f = cap.read()
    assert ok
    out = cv2.VideoWriter(str(short), cv2.VideoWriter.fourcc(*"MJPG"), 2.0, (f.shape[1], f.shape[0]))
    for _ in range(2):
        out.write(f)
        ok, f = cap.read()
        assert ok
    out.release()
    rc = main(["quirky", "run", SCN, "-p", PROG, "--robot", URL, "--video", str(short), "--calibration", str(cal),
               "--cell-mm", "150", "--tag-id", "231", "--tag-mm", "60", "--tag-height-mm", "80",
               "--loop-log", str(tmp_path / "l.jsonl"), "--robot-log", str(tmp_path / "r.db")])
    out_text = capsys.readouterr().out
    assert rc == 1
    assert "ended after 2 frame(s)" in " ".join(out_text.split())  # (rich wraps lines)


def test_not_a_video(tmp_path: Path, capsys: pytest.CaptureFixture[str], recorded: tuple[Path, Path, Any]) -> None:
    _, cal, _ = recorded
    bad = tmp_path / "notes.avi"
    bad.write_text("not a video")
    rc = main(["quirky", "run", SCN, "-p", "F1", "--robot", URL, "--video", str(bad), "--calibration", str(cal)])
    assert rc == 2
    assert "cannot read video" in capsys.readouterr().err
