"""The executor against the simulated robot: exactly once, resume, hold, pose checks, the log."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from pathlib import Path

import pytest

from engine.motion import Motion, Pose
from hardware.errors import (
    ExecutionLogError,
    PoseMismatchError,
    RobotHoldFailedError,
    RobotInterruptedError,
    RobotUnreachableError,
)
from hardware.executor import ExecutionLog, LinkTiming, Progress, execute, execute_async, program_commands
from hardware.programs import parse_motions, random_walk
from hardware.sim import SimFlash, SimTransport, SimulatedRobot
from hardware.transport import RobotURL

FAST = LinkTiming(heartbeat=0.02, ack_timeout=0.1, dead_after=0.5, connect_timeout=1.0, reconnect_for=5, backoff=0.01)
PROGRAM = parse_motions("F>0,1,N R>0,1,E F>1,1,E XF>1,1,E P:vase>1,1,E L>1,1,N B>1,0,N D:vase>1,0,N")


def seqs(robot: SimulatedRobot) -> list[int]:
    return [e[0] for e in robot.executed]


def sim(robot: SimulatedRobot) -> SimTransport:
    return SimTransport(RobotURL.parse("sim://"), robot=robot)


def test_runs_every_motion_once_and_logs_reported_poses(tmp_path: Path) -> None:
    robot = SimulatedRobot(time_factor=0.002)
    seen: list[Progress] = []
    report = execute(PROGRAM, "sim://", tmp_path / "log.db", inject={"sim_robot": robot}, progress=seen.append,
                     timing=FAST)
    n = len(PROGRAM) + 1
    assert report.done == report.total == n
    assert seqs(robot) == list(range(1, n + 1))
    assert [op for _, op, _ in robot.executed] == ["O", "F", "R", "F", "XF", "P", "L", "B", "D"]
    assert [p.seq for p in seen if p.kind == "done"] == list(range(1, n + 1))
    log = ExecutionLog(tmp_path / "log.db")
    steps = log.steps(report.run_id)
    assert [s["reported"] for s in steps[-2:]] == ["1,0,N", "1,0,N"]
    assert log.runs()[0]["status"] == "finished"
    mode = sqlite3.connect(tmp_path / "log.db").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_pose_mismatch_holds_the_robot(tmp_path: Path) -> None:
    robot = SimulatedRobot(time_factor=0.002)
    # started at 0,0,N, one step forward cannot end at 5,6,N
    with pytest.raises(PoseMismatchError, match="reports pose '0,1,N', expected '5,6,N'"):
        execute([Motion.parse("F>5,6,N")], "sim://", tmp_path / "l.db", start=Pose.parse("0,0,N"),
                inject={"sim_robot": robot}, timing=FAST)
    assert robot.core.held
    # a consistent program with a different start is fine
    robot2 = SimulatedRobot(time_factor=0.002)
    report = execute([Motion.parse("F>5,6,N")], "sim://", tmp_path / "l2.db", inject={"sim_robot": robot2},
                     timing=FAST)
    assert report.done == 2


def test_pose_mismatch_detected_when_robot_disagrees(tmp_path: Path) -> None:
    robot = SimulatedRobot(time_factor=0.002)
    cmds = program_commands(PROGRAM)
    # tamper with the robot, not with our code: it was knocked a cell sideways before starting
    robot.core.pose = (3, 3, 0)
    bad = [cmds[1], *cmds[2:]]  # no set-pose command: the robot keeps its own (wrong) pose
    with pytest.raises(PoseMismatchError):
        asyncio.run(execute_async(PROGRAM, None, tmp_path / "l.db", transport=sim(robot), commands=bad, timing=FAST))
    assert robot.core.held


async def _stop_after(robot: SimulatedRobot, db: Path, done: int) -> None:
    """Run PROGRAM on ``robot`` (log ``db``) and cancel it, as Ctrl-C does to the running command, once the
    robot has done ``done`` commands."""
    task = asyncio.ensure_future(execute_async(PROGRAM, None, db, transport=sim(robot), timing=FAST))
    while robot.core.done < done:
        await asyncio.sleep(0.001)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def test_ctrl_c_holds_and_resume_finishes_exactly_once(tmp_path: Path) -> None:
    robot = SimulatedRobot(time_factor=0.02)
    db = tmp_path / "log.db"

    async def scenario() -> None:
        await _stop_after(robot, db, 3)  # Ctrl-C while the run goes on
        assert robot.core.held  # the out-of-band stop reached the robot
        log = ExecutionLog(db)
        assert log.runs()[0]["status"] == "stopped"
        log.close()
        report = await execute_async(PROGRAM, None, db, transport=sim(robot), timing=FAST)
        assert report.resumed_from >= 2  # the log may be one "done" behind the robot: hello fills it in
        await robot.stop()

    asyncio.run(scenario())
    assert seqs(robot) == list(range(1, len(PROGRAM) + 2))


def test_ctrl_c_with_the_link_down_never_claims_the_robot_is_held(tmp_path: Path) -> None:
    """The cable is pulled at the moment the user presses Ctrl-C: the hold cannot leave, so the run must not end
    as "held" (the robot may still run its queued moves); a typed error says so and the log keeps the progress."""
    robot = SimulatedRobot(time_factor=0.02)
    db = tmp_path / "log.db"

    async def scenario() -> None:
        link = sim(robot)
        task = asyncio.ensure_future(execute_async(PROGRAM, None, db, transport=link, timing=FAST))
        while robot.core.done < 3:
            await asyncio.sleep(0.001)
        link.sever()  # (simulated) cable pulled ...
        task.cancel()  # ... as Ctrl-C arrives
        with pytest.raises(RobotHoldFailedError, match="hold could not be sent") as err:
            await task
        assert "may still be carrying out queued moves" in str(err.value)
        assert not robot.core.held  # nothing reached the robot
        log = ExecutionLog(db)
        run = log.runs()[0]
        assert run["status"] == "stopped"
        events = log.db.execute("SELECT kind, detail FROM events WHERE run_id=?", (run["run_id"],)).fetchall()
        assert ("stopped", "interrupted by the user; robot held") not in events
        assert any(kind == "stopped" and "could not be sent" in detail for kind, detail in events)
        log.close()
        await robot.stop()

    asyncio.run(scenario())


def test_host_crash_between_sends_never_repeats(tmp_path: Path) -> None:
    """Cancel the executor at random points (as a crash would) and restart it from the log."""
    rng = random.Random(7)
    program = random_walk(rng, 40)
    robot = SimulatedRobot(time_factor=0.002)
    db = tmp_path / "log.db"

    async def scenario() -> None:
        finished = False
        for _ in range(15):
            task = asyncio.ensure_future(execute_async(program, None, db, transport=sim(robot), timing=FAST))
            await asyncio.sleep(rng.random() * 0.03)
            if task.done():
                finished = True
                break
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        if not finished:
            await execute_async(program, None, db, transport=sim(robot), timing=FAST)
        await robot.stop()

    asyncio.run(scenario())
    assert seqs(robot) == list(range(1, len(program) + 2))


def test_robot_reset_mid_move_is_reported_not_guessed(tmp_path: Path) -> None:
    flash = SimFlash()
    robot = SimulatedRobot(time_factor=0.05, flash=flash)
    db = tmp_path / "log.db"

    async def scenario() -> None:
        transport = sim(robot)
        task = asyncio.ensure_future(execute_async(PROGRAM, None, db, transport=transport, timing=FAST))
        while robot.core.done < 2 or robot.core.current is None:
            await asyncio.sleep(0.001)
        moving = robot.core.current[0]
        robot.reset()  # power glitch: RAM lost, journal kept
        transport.sever()
        with pytest.raises(RobotInterruptedError) as err:
            await task
        assert err.value.seq == moving
        # the user put the robot back at the pose before that move: redo it and finish
        await execute_async(PROGRAM, None, db, transport=sim(robot), timing=FAST, on_interrupted="redo")
        await robot.stop()

    asyncio.run(scenario())
    done = seqs(robot)
    assert sorted(set(done)) == list(range(1, len(PROGRAM) + 2))
    assert len(done) == len(set(done)) + 1  # exactly the interrupted move was started twice, by request


def test_robot_that_forgot_the_run_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "log.db"
    robot = SimulatedRobot(time_factor=0.002)

    async def scenario() -> None:
        await _stop_after(robot, db, 3)
        other = SimulatedRobot(time_factor=0.002)  # a different robot (or erased flash)
        with pytest.raises(ExecutionLogError, match="no longer knows run"):
            await execute_async(PROGRAM, None, db, transport=sim(other), timing=FAST)
        await robot.stop()
        await other.stop()

    asyncio.run(scenario())


class _DamagedHello(SimTransport):
    """SIMULATED damage the CRC-8 cannot catch (1 in 256 damaged lines): the first ``times`` hellos naming a
    run lose that run id's first character and are framed again with a matching checksum."""

    def __init__(self, robot: SimulatedRobot, times: int) -> None:
        super().__init__(RobotURL.parse("sim://"), robot=robot)
        self.times = times
        self._held = b""

    async def read(self) -> bytes:
        from hardware.firmware import bsproto

        while True:
            self._held += await super().read()
            if b"\n" in self._held:
                break
        done, _, self._held = self._held.rpartition(b"\n")
        lines = []
        for line in done.split(b"\n"):
            body = bsproto.unframe(line)
            parts = body.split(" ") if body else []
            if parts[:1] == ["h"] and len(parts) >= 8 and len(parts[2]) > 1 and self.times > 0:
                self.times -= 1
                parts[2] = parts[2][1:]
                line = bsproto.frame(" ".join(parts))[:-1]
            lines.append(line)
        return b"\n".join(lines) + b"\n"


@pytest.mark.parametrize("damaged", [1, 2, 3])
def test_a_hello_damaged_past_its_checksum_is_asked_again(tmp_path: Path, damaged: int) -> None:
    """A hello whose run id lost a byte but whose CRC-8 still matches (the 1000-disconnect fault campaign
    met one) is asked again: the run goes on while fewer than RUN_MISMATCH_HELLOS hellos in a row name
    another run; as many in a row is a robot that lost the run, refused as before."""
    from hardware.executor import RUN_MISMATCH_HELLOS

    db = tmp_path / "log.db"
    robot = SimulatedRobot(time_factor=0.002)

    async def scenario() -> None:
        await _stop_after(robot, db, 3)
        link = _DamagedHello(robot, damaged)
        if damaged < RUN_MISMATCH_HELLOS:
            await execute_async(PROGRAM, None, db, transport=link, timing=FAST)
        else:
            with pytest.raises(ExecutionLogError, match="no longer knows run"):
                await execute_async(PROGRAM, None, db, transport=link, timing=FAST)
        assert link.times == 0
        await robot.stop()

    asyncio.run(scenario())
    if damaged < 3:
        done = seqs(robot)
        assert sorted(set(done)) == list(range(1, len(PROGRAM) + 2)) and len(done) == len(set(done))


def test_unreachable_serial_port_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(RobotUnreachableError, match="cannot open serial port '/dev/does-not-exist'"):
        execute(PROGRAM, "serial:///dev/does-not-exist", tmp_path / "l.db", timing=FAST)


def test_spy_logs_both_directions(tmp_path: Path) -> None:
    robot = SimulatedRobot(time_factor=0.002)
    seen: list[tuple[str, bytes]] = []
    execute(PROGRAM[:2], "spy://sim://", tmp_path / "l.db", inject={"sim_robot": robot, "spy_sink":
            lambda d, b: seen.append((d, b))}, timing=FAST)
    sent = b"".join(b for d, b in seen if d == ">>")
    got = b"".join(b for d, b in seen if d == "<<")
    assert b"1 O 0,0,N*" in sent and b"2 F*" in sent
    assert b"d 2 0,1,N*" in got


def test_skip_interrupted_sets_the_pose_instead_of_repeating(tmp_path: Path) -> None:
    robot = SimulatedRobot(time_factor=0.05)
    db = tmp_path / "log.db"

    async def scenario() -> int:
        transport = sim(robot)
        task = asyncio.ensure_future(execute_async(PROGRAM, None, db, transport=transport, timing=FAST))
        while robot.core.done < 2 or robot.core.current is None:
            await asyncio.sleep(0.001)
        moving = robot.core.current[0]
        robot.reset()
        transport.sever()
        with pytest.raises(RobotInterruptedError, match="put it back at"):
            await task
        # the user put the robot where the move ends
        await execute_async(PROGRAM, None, db, transport=sim(robot), timing=FAST, on_interrupted="skip")
        await robot.stop()
        return moving

    moving = asyncio.run(scenario())
    ops = [(seq, op) for seq, op, _ in robot.executed]
    original = program_commands(PROGRAM)[moving - 1].op
    assert ops.count((moving, original)) == 1  # the cut-short move never ran again
    assert (moving, "O") in ops  # it was replaced by "you are at the end pose"
    assert sorted({seq for seq, _ in ops}) == list(range(1, len(PROGRAM) + 2))
    assert str(robot.core.pose) != "" and robot.core.done == len(PROGRAM) + 1
