"""The closed loop end to end: a drifting simulated robot, the simulated camera, the vision code, jogs.

The simulated robot's body has a true pose the host never sees; only the simulated camera's pixels
reach the loop.  These tests check the TRUE pose at the end, not what the loop believes.
"""

from __future__ import annotations

import asyncio
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardside.camerafeed import SimulatedFrames, Watcher
from boardside.cli import main
from boardside.closedloop import (
    CellSizeMismatchError,
    LoopLog,
    LoopSettings,
    expected_mm,
    plan_correction,
    run_closed_loop,
)
from boardside.commands.quirky import run_program
from boardside.watchrun import run_watched
from calibration.boards import RobotTag, board_spec
from calibration.camera import CameraCalibration
from engine.errors import BoardsideInputError
from engine.motion import Pose
from hardware.executor import LinkTiming, execute
from hardware.link import Command
from hardware.sim import SimBody, SimTransport, SimulatedRobot
from hardware.transport import RobotURL
from vision.sim_camera import SimCameraSettings, SimulatedCamera

FAST = LinkTiming(heartbeat=0.02, ack_timeout=0.2, dead_after=1.0, connect_timeout=2.0, reconnect_for=5, backoff=0.01)
SCN = "first-dance"
PROG = "F1 F2 RR F2 F2 RL"
CELL = 50.0


def drifting_robot(slip: float = 0.08, drift: float = 4.0) -> SimulatedRobot:
    robot = SimulatedRobot(time_factor=0.003, body=SimBody(slip=slip, drift=drift))
    robot.core.config["c"] = CELL
    return robot


def true_error(robot: SimulatedRobot, pose: Pose) -> tuple[float, float]:
    ex, ey, eh = expected_mm(pose, CELL)
    b = robot.body
    return math.hypot(b.x_mm - ex, b.y_mm - ey), abs((b.heading_deg - eh + 180) % 360 - 180)


def test_open_loop_drift_ends_off_target(tmp_path: Path) -> None:
    _scn, result = run_program(SCN, PROG)
    robot = drifting_robot()
    start = result.start.pose
    robot.body.place_on_cell(start.x, start.y, start.heading.name, CELL)
    execute(result.motions, "sim://", tmp_path / "r.db", start=start, inject={"sim_robot": robot}, timing=FAST)
    assert robot.core.pose == (5, 4, 0)  # the robot believes it made it
    mm, _deg = true_error(robot, result.final.pose)
    assert mm > 15.0  # ... but it is well off the spotlight's centre


def test_closed_loop_corrects_the_same_drift(tmp_path: Path) -> None:
    _scn, result = run_program(SCN, PROG)
    robot = drifting_robot()
    log = tmp_path / "loop.jsonl"
    report = run_watched(result, SCN, "sim://?time=0.003", camera="sim", sim_robot=robot, loop_log=log,
                         robot_log=tmp_path / "r.db", quiet=True, timing=FAST)
    assert report.status == "finished", report.message
    assert report.corrections >= 1
    mm, deg = true_error(robot, result.final.pose)
    assert mm <= 15.0 and deg <= 10.0, (mm, deg)
    # what the camera saw at the end is where the robot truly is
    last = report.checks[-1]
    assert last.seen_mm is not None
    b = robot.body
    assert math.hypot(last.seen_mm[0] - b.x_mm, last.seen_mm[1] - b.y_mm) < 3.0
    # the log: one check per card (plus start and re-looks), expected vs seen, and the corrections
    events = LoopLog.read(log)
    kinds = [e["event"] for e in events]
    assert kinds[0] == "setup" and kinds[-1] == "end" and "correction" in kinds
    checks = [e for e in events if e["event"] == "check"]
    assert {c["card"] for c in checks} == {None, 1, 2, 3, 4, 5, 6}
    for c in checks:
        assert c["expected"] and c["seen_mm"] and c["error_mm"] is not None
    corrected = [c for c in checks if c["verdict"] == "correct"]
    assert corrected and all(c["correction"] for c in corrected)
    assert events[-1]["status"] == "finished"


def test_watch_only_stops_when_the_robot_drifts_off(tmp_path: Path) -> None:
    _scn, result = run_program(SCN, PROG)
    robot = drifting_robot()
    report = run_watched(result, SCN, "sim://?time=0.003", camera="sim", sim_robot=robot,
                         settings=LoopSettings(correct=False), loop_log=tmp_path / "l.jsonl",
                         robot_log=tmp_path / "r.db", quiet=True, timing=FAST)
    assert report.status == "stopped"
    assert "correcting is off" in report.message
    assert "stopped where it is" in report.message
    assert report.cards_done < len(result.cards)
    assert report.checks[-1].verdict == "off"


def test_too_large_an_error_stops_with_a_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "loop.jsonl"
    # every quarter turn is 130 degrees: 40 degrees off after the first turn, more than the loop corrects
    rc = main(["quirky", "run", SCN, "-p", PROG, "--robot", "sim://?time=0.003&drift=40", "--camera", "sim",
               "--loop-log", str(log), "--robot-log", str(tmp_path / "r.db")])
    out = capsys.readouterr().out
    assert rc == 1
    out = " ".join(out.split())  # (rich wraps lines)
    assert "card 3 RR" in out and "more than the loop corrects" in out
    events = LoopLog.read(log)
    assert events[-1]["event"] == "end" and events[-1]["status"] == "stopped"
    off = [e for e in events if e["event"] == "check" and e["verdict"] == "off"]
    assert len(off) == 1 and off[0]["step"] == "card 3 RR" and abs(off[0]["error_deg"]) > 35


def test_cli_json_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["quirky", "run", SCN, "-p", "F1 F2", "--robot", "sim://?time=0.003&slip=0.05", "--camera", "sim",
               "--json", "--loop-log", str(tmp_path / "l.jsonl"), "--robot-log", str(tmp_path / "r.db"),
               "--frames", str(tmp_path / "frames")])
    assert rc == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["loop"]["status"] == "finished"
    assert [c["step"] for c in doc["loop"]["checks"]][:2] == ["start", "card 1 F1"]
    assert len(list((tmp_path / "frames").glob("*.jpg"))) == len(doc["loop"]["checks"])


@dataclass
class _Recorder:
    inner: Any
    name: str = "recorder"

    def read(self) -> Any:
        return self.inner.read()

    def close(self) -> None:
        return None


class CountingSim(SimTransport):
    opens = 0

    async def open(self) -> None:
        CountingSim.opens += 1
        await super().open()


def _loop(tmp_path: Path, robot: SimulatedRobot, truth: Any, settings: LoopSettings | None = None,
          program: str = "F1 F2") -> Any:
    spec = board_spec("quirky", scenario=SCN)
    cam = SimulatedCamera(spec, RobotTag(), SimCameraSettings(seed=5))
    st_ = settings or LoopSettings(cell_mm=spec.cell_mm)
    watcher = Watcher(SimulatedFrames(cam, truth), spec, cam.calibration, RobotTag(), st_)
    _scn, result = run_program(SCN, program)
    log = LoopLog(tmp_path / "l.jsonl")
    transport = CountingSim(RobotURL.parse("sim://"), robot=robot)
    try:
        return asyncio.run(run_closed_loop(result, transport, watcher, st_, log, tmp_path / "r.db", timing=FAST))
    finally:
        log.close()


def test_the_link_is_opened_once_for_the_whole_run(tmp_path: Path) -> None:
    robot = drifting_robot(slip=0.2, drift=0)
    robot.body.place_on_cell(0, 0, "N", CELL)
    CountingSim.opens = 0
    report = _loop(tmp_path, robot, lambda: robot.body.pose)
    assert report.status == "finished" and report.corrections >= 1
    assert CountingSim.opens == 1


def test_a_robot_out_of_sight_stops_the_loop(tmp_path: Path) -> None:
    robot = drifting_robot()
    report = _loop(tmp_path, robot, lambda: None)
    assert report.status == "stopped"
    assert "cannot see the robot" in report.message and "robot tag 230 not seen" in report.message
    assert report.checks[-1].verdict == "unseen"
    assert robot.executed == []  # nothing was driven blind


def test_a_robot_stepping_other_than_the_board_is_refused(tmp_path: Path) -> None:
    robot = SimulatedRobot(time_factor=0.003)  # 150 mm steps, the board has 50 mm cells
    with pytest.raises(CellSizeMismatchError, match="drives 150 mm per cell but the board's cells are 50 mm"):
        _loop(tmp_path, robot, lambda: robot.body.pose)


# ---------------------------------------------------------------------------- corrections
class _Seen:
    def __init__(self, x: float, y: float, h: float) -> None:
        self.x_mm, self.y_mm, self.heading_deg, self.confidence = x, y, h, 1.0


@settings(max_examples=200, deadline=None)
@given(
    dx=st.floats(-55, 55), dy=st.floats(-55, 55), dh=st.floats(-34, 34),
    heading=st.sampled_from(["N", "E", "S", "W"]),
)
def test_planned_jogs_bring_an_exact_robot_home(dx: float, dy: float, dh: float, heading: str) -> None:
    s = LoopSettings(cell_mm=CELL)
    target = Pose.parse(f"2,3,{heading}")
    ex, ey, eh = expected_mm(target, CELL)
    seen = _Seen(ex + dx, ey + dy, (eh + dh) % 360)
    body = SimBody()
    body.place(seen.x_mm, seen.y_mm, seen.heading_deg)
    cmds = plan_correction(seen, target, s)
    assert all(c.expected == target for c in cmds)
    assert len(cmds) <= 3
    for c in cmds:  # the firmware's jogs: T deg -> wheels +-pi*w*deg/360, J mm -> both wheels
        if c.op == "T":
            a = math.pi * 90.0 * int(c.arg) / 360.0
            body.move(a, -a, 90.0)
        else:
            body.move(int(c.arg), int(c.arg), 90.0)
    err = math.hypot(body.x_mm - ex, body.y_mm - ey)
    herr = abs((body.heading_deg - eh + 180) % 360 - 180)
    if math.hypot(dx, dy) > s.tolerance_mm:
        assert err < 1.5
        assert herr <= 1.0
    else:
        assert err == pytest.approx(math.hypot(dx, dy))
        assert herr <= max(1.0, s.tolerance_deg / 2)


def test_backs_up_rather_than_turning_round() -> None:
    target = Pose.parse("1,1,N")
    seen = _Seen(75.0, 75.0 + 30.0, 90.0)  # 30 mm north of the centre, facing north
    cmds = plan_correction(seen, target, LoopSettings(cell_mm=CELL))
    assert [(c.op, c.arg) for c in cmds] == [("J", "-30")]


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"tolerance_mm": -1.0}, "tolerance-mm must be a positive number"),
        ({"tolerance_mm": 50.0, "max_correction_mm": 20.0}, "must not be below the tolerance"),
        ({"attempts": -1}, "attempts must be >= 0"),
    ],
)
def test_bad_settings(kwargs: dict[str, Any], needle: str) -> None:
    with pytest.raises(BoardsideInputError, match=needle):
        LoopSettings(**kwargs)


# ---------------------------------------------------------------------------- CLI errors
@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--camera", "sim"], "give --robot URL too"),
        (["--camera", "sim", "--robot", "serial:///dev/ttyUSB0"], "needs --robot sim://"),
        (["--camera", "7", "--calibration", "CAL", "--robot", "sim://"], "cannot open camera 7"),
        (["--camera", "sim", "--video", "x.avi", "--robot", "sim://"], "one picture source"),
        (["--video", "missing.avi", "--calibration", "CAL", "--robot", "sim://"], "video file not found"),
        (["--camera", "front", "--calibration", "CAL", "--robot", "sim://"], "neither a camera number"),
        (["--camera", "sim", "--robot", "sim://", "--tag-id", "5"], "robot tag id 5 is not in the reserved range"),
        (["--camera", "sim", "--robot", "sim://", "--tolerance-mm", "0"], "tolerance-mm must be a positive"),
        (["--camera", "sim", "--robot", "sim://", "--cell-mm", "5"], "cell size must be between 30 and 300 mm"),
    ],
)
def test_cli_bad_input_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                                       needle: str) -> None:
    cal = tmp_path / "cam.json"
    CameraCalibration(np.array([[1000.0, 0, 639.5], [0, 1000.0, 359.5], [0, 0, 1]]), np.zeros(5), (1280, 720),
                      0.2).save(cal)
    args = [str(cal) if a == "CAL" else a for a in args]
    rc = main(["quirky", "run", SCN, "-p", "F1", *args, "--loop-log", str(tmp_path / "l.jsonl")])
    err = capsys.readouterr().err
    assert rc == 2
    assert needle in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_after_a_stop_the_run_goes_on_from_a_card(tmp_path: Path) -> None:
    _scn, result = run_program(SCN, PROG)
    robot = drifting_robot(slip=0.0, drift=40.0)
    report = run_watched(result, SCN, "sim://?time=0.003", camera="sim", sim_robot=robot,
                         loop_log=tmp_path / "a.jsonl", robot_log=tmp_path / "r.db", quiet=True, timing=FAST)
    assert report.status == "stopped" and report.checks[-1].step == "card 3 RR"
    assert "put it on 0,4,E by hand and go on with --from-card 4" in report.message
    # the person puts the robot right (and its turns are fixed), then goes on from card 4
    robot.body.place_on_cell(0, 4, "E", CELL)
    robot.body.drift = 0.0
    report = run_watched(result, SCN, "sim://?time=0.003", camera="sim", sim_robot=robot, from_card=4,
                         loop_log=tmp_path / "b.jsonl", robot_log=tmp_path / "r.db", quiet=True, timing=FAST)
    assert report.status == "finished", report.message
    assert [c.step for c in report.checks] == ["start at card 4", "card 4 F2", "card 5 F2", "card 6 RL"]
    mm, deg = true_error(robot, result.final.pose)
    assert mm < 5 and deg < 3


def test_from_card_out_of_range(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["quirky", "run", SCN, "-p", "F1 F2", "--robot", "sim://?time=0.003", "--camera", "sim",
               "--from-card", "3", "--loop-log", str(tmp_path / "l.jsonl"), "--robot-log", str(tmp_path / "r.db")])
    assert rc == 2
    assert "--from-card must be 1..2" in capsys.readouterr().err


class SeveredOnce(CountingSim):
    """A link that drops once, in the middle of a later card."""

    writes = 0
    cut_at = 12

    async def write(self, data: bytes) -> None:
        SeveredOnce.writes += 1
        if SeveredOnce.writes == SeveredOnce.cut_at:
            self.sever()
        await super().write(data)


def test_a_link_dropped_mid_card_is_reopened_and_the_run_finishes(tmp_path: Path) -> None:
    spec = board_spec("quirky", scenario=SCN)
    cam = SimulatedCamera(spec, RobotTag(), SimCameraSettings(seed=5))
    robot = drifting_robot(slip=0.05, drift=2.0)
    robot.body.place_on_cell(0, 0, "N", CELL)
    st_ = LoopSettings(cell_mm=spec.cell_mm)
    watcher = Watcher(SimulatedFrames(cam, lambda: robot.body.pose), spec, cam.calibration, RobotTag(), st_)
    _scn, result = run_program(SCN, PROG)
    log = LoopLog(tmp_path / "l.jsonl")
    CountingSim.opens = 0
    SeveredOnce.writes = 0
    transport = SeveredOnce(RobotURL.parse("sim://"), robot=robot)
    try:
        report = asyncio.run(run_closed_loop(result, transport, watcher, st_, log, tmp_path / "r.db", timing=FAST))
    finally:
        log.close()
    assert report.status == "finished", report.message
    assert CountingSim.opens == 2  # opened once, reopened once after the drop
    # every move ran exactly once across the drop
    moves = [op for _, op, _ in robot.executed if op not in ("O", "T", "J")]
    assert moves == [Command.from_motion(m).op for m in result.motions]
    mm, deg = true_error(robot, result.final.pose)
    assert mm <= 15 and deg <= 10


def test_a_frame_without_the_robot_is_retried(tmp_path: Path) -> None:
    """A hand over the robot in one frame: the watcher takes another frame before giving up."""
    robot = drifting_robot(slip=0.0, drift=0.0)
    robot.body.place_on_cell(0, 0, "N", CELL)
    frames = {"n": 0}

    def truth() -> tuple[float, float, float] | None:
        frames["n"] += 1
        return None if frames["n"] in (2, 4, 5) else robot.body.pose  # hidden now and then

    report = _loop(tmp_path, robot, truth, program="F1 F2")
    assert report.status == "finished", report.message
    assert [c.verdict for c in report.checks] == ["ok", "ok", "ok"]
    assert frames["n"] == 6  # three looks, three frames lost to the hand
