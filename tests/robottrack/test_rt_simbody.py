"""The simulated robot's body: its true pose in mm follows the wheel segments, with systematic error."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from hardware.errors import InvalidRobotURLError
from hardware.executor import LinkTiming, execute
from hardware.programs import parse_motions
from hardware.sim import SimBody, SimTransport, SimulatedRobot, body_from_url
from hardware.transport import RobotURL, make_transport

FAST = LinkTiming(heartbeat=0.02, ack_timeout=0.1, dead_after=0.5, connect_timeout=1.0, reconnect_for=5, backoff=0.01)
SQUARE = parse_motions("F>0,1,N R>0,1,E F>1,1,E R>1,1,S F>1,0,S R>1,0,W F>0,0,W R>0,0,N")


def run(robot: SimulatedRobot, tmp_path: Path, program: str = "") -> None:
    motions = parse_motions(program) if program else SQUARE
    execute(motions, "sim://", tmp_path / "log.db", inject={"sim_robot": robot}, timing=FAST)


def test_an_exact_robot_drives_a_square_back_to_its_start(tmp_path: Path) -> None:
    robot = SimulatedRobot(time_factor=0.002)
    run(robot, tmp_path)
    b = robot.body
    assert b.placed  # put down by the first set-pose command, on the start cell's centre
    # default cell 150 mm: start cell (0, 0) centre is (75, 75); facing north is 90 degrees
    assert b.path[0] == pytest.approx((75.0, 75.0, 90.0))
    assert (b.x_mm, b.y_mm) == pytest.approx((75.0, 75.0), abs=1e-6)
    assert b.heading_deg == pytest.approx(90.0, abs=1e-6)
    # after the first F it was one cell north, after the first R facing east (0 degrees)
    assert b.path[2] == pytest.approx((75.0, 225.0, 90.0), abs=1e-6)
    assert min(b.path[3][2], 360 - b.path[3][2]) == pytest.approx(0.0, abs=1e-6)


def test_slip_and_drift_leave_the_robot_off_its_start(tmp_path: Path) -> None:
    robot = SimulatedRobot(time_factor=0.002, body=SimBody(slip=0.05, drift=3.0))
    run(robot, tmp_path)
    b = robot.body
    # four clockwise quarter turns of 93 degrees each
    assert b.heading_deg == pytest.approx(90.0 - 12.0, abs=1e-6)
    # the first step: 5 % short, straight north
    assert b.path[2] == pytest.approx((75.0, 75.0 + 0.95 * 150.0, 90.0), abs=1e-6)
    assert math.hypot(b.x_mm - 75.0, b.y_mm - 75.0) > 10.0
    # the firmware's dead reckoning never sees the error
    assert robot.core.pose == (0, 0, 0)


def test_veer_bends_a_straight_drive(tmp_path: Path) -> None:
    robot = SimulatedRobot(time_factor=0.002, body=SimBody(veer=2.0))
    robot.body.place(0.0, 0.0, 90.0)
    run(robot, tmp_path, "F>0,1,N F>0,2,N")
    assert robot.body.heading_deg == pytest.approx(90.0 - 6.0, abs=1e-6)  # 300 mm at 2 deg / 100 mm clockwise
    assert robot.body.x_mm > 5.0  # curved to the east


def test_jogs_move_the_body_but_not_the_grid_pose(tmp_path: Path) -> None:
    from hardware.link import Command

    robot = SimulatedRobot(time_factor=0.002)
    robot.body.place(100.0, 100.0, 0.0)  # facing east
    from engine.motion import Pose

    p = Pose.parse("0,0,E")
    cmds = [Command.set_pose(p), Command("T", "-30", p), Command("J", "40", p)]  # T: degrees clockwise
    execute([], "sim://", tmp_path / "l.db", inject={"sim_robot": robot}, timing=FAST, commands=cmds)
    assert robot.body.heading_deg == pytest.approx(30.0, abs=1e-6)
    assert robot.body.x_mm == pytest.approx(100.0 + 40.0 * math.cos(math.radians(30)), abs=1e-6)
    assert robot.body.y_mm == pytest.approx(100.0 + 40.0 * math.sin(math.radians(30)), abs=1e-6)
    assert robot.core.pose == (0, 0, 1)


def test_a_reset_does_not_move_the_body(tmp_path: Path) -> None:
    robot = SimulatedRobot(time_factor=0.002)
    run(robot, tmp_path, "F>0,1,N")
    before = robot.body.pose
    robot.reset()
    assert robot.body.pose == before


def test_url_options_make_the_body() -> None:
    u = RobotURL.parse("sim://?time=0.1&slip=0.04&drift=-2.5&veer=1")
    b = body_from_url(u)
    assert (b.slip, b.drift, b.veer) == (0.04, -2.5, 1.0)
    t = make_transport(u)
    assert isinstance(t, SimTransport)
    assert t.robot.body.drift == -2.5


@pytest.mark.parametrize(
    ("url", "needle"),
    [
        ("sim://?slip=lots", "invalid slip='lots'"),
        ("sim://?drift=90", "invalid drift='90'"),
        ("sim://?veer=nan", "invalid veer='nan'"),
        ("sim://?slip=0.9", "from -0.5 to 0.5"),
    ],
)
def test_bad_body_options_are_rejected(url: str, needle: str) -> None:
    with pytest.raises(InvalidRobotURLError, match=needle):
        RobotURL.parse(url)
