"""``boardside quirky run SCENARIO --program ... --robot URL``: the Quirky engine's motion trace on a robot."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from boardside.cli import main
from hardware.executor import ExecutionLog

pytest.importorskip("engine.quirky")

PROGRAM = "F1 F2 RR F2 F2 RL"  # first-dance, won in one round (boardside quirky solve first-dance)



def _sigint_default() -> None:
    """Ctrl-C must reach the host: a test run started in the background by a shell without job control
    ignores SIGINT, and an ignored signal is inherited by the host (which then finished its run and
    exited 0 instead of 130: the "flaky under load" failures of sessions 7 and 8)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)

def test_quirky_program_drives_the_simulated_robot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "robot.db"
    rc = main(["quirky", "run", "first-dance", "--program", PROGRAM, "--robot", "sim://?time=0.005",
               "--robot-log", str(db), "--json"])
    assert rc == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["outcome"] == "won"
    robot = doc["robot"]
    assert robot["done"] == robot["total"] == len(doc["motions"]) + 1 and robot["mismatches"] == []
    steps = ExecutionLog(db).steps(robot["run_id"])
    assert steps[0]["op"] == "O" and steps[0]["arg"] == doc["start"]
    assert [s["label"].split(": ", 1)[1] for s in steps[1:]] == doc["motions"]
    assert steps[1]["label"].startswith("card 1 F1: ")
    final = doc["final"]["robot"]
    assert steps[-1]["reported"] == f"{final['at'][0]},{final['at'][1]},{final['facing']}"  # the robot agrees


def test_quirky_robot_bad_url_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["quirky", "run", "first-dance", "--program", PROGRAM, "--robot", "bluetooth"])
    err = capsys.readouterr().err
    assert rc == 2 and "invalid robot URL 'bluetooth'" in err and "Traceback" not in err


def test_quirky_ctrl_c_stops_robot_and_same_command_resumes(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    record = tmp_path / "record.txt"
    # the 5th move started stalls (40 times as long, until the robot is held): Ctrl-C, sent once 4 moves
    # have started, always lands before the run could end (with every move at full speed a host on a
    # loaded machine sometimes finished first: exit 0, not 130)
    board = subprocess.Popen([sys.executable, "-m", "hardware.simfw", "--time", "0.3", "--slow-move", "5:40",
                              "--no-reset-on-open",
                              "--record", str(record)], stdout=subprocess.PIPE, text=True, cwd=root)
    assert board.stdout is not None
    url = f"serial://{board.stdout.readline().strip()}"
    cmd = [sys.executable, "-m", "boardside", "quirky", "run", "first-dance", "--program", PROGRAM, "--robot", url,
           "--robot-log", str(tmp_path / "robot.db")]
    env = {**os.environ, "PYTHONPATH": str(root)}

    def started() -> list[int]:
        return [int(x.split()[1]) for x in record.read_text().splitlines()] if record.exists() else []

    try:
        host = subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=_sigint_default)
        deadline = time.monotonic() + 30
        while len(started()) < 4 and time.monotonic() < deadline:
            time.sleep(0.005)
        host.send_signal(signal.SIGINT)
        _, err = host.communicate(timeout=20)
        assert host.returncode == 130 and "run the same quirky command again" in err
        final = subprocess.run([*cmd, "--json"], cwd=root, env=env, capture_output=True, text=True, timeout=60)
        assert final.returncode == 0, final.stderr
        robot = json.loads(final.stdout)["robot"]
        assert robot["resumed_from"] >= 1 and robot["done"] == robot["total"]
        assert started() == list(range(1, robot["total"] + 1))  # every motion once, in order
    finally:
        board.terminate()
        board.wait(5)


@pytest.mark.slow
def test_every_shipped_scenario_solution_runs_on_the_simulated_robot() -> None:
    """The solver's winning program of every shipped scenario, through the robot: poses agree."""
    import asyncio

    from boardside.commands.quirky import run_program
    from engine.quirky import builtin_scenarios
    from engine.quirky.solver import solve
    from hardware.executor import LinkTiming, execute_async
    from hardware.sim import SimTransport, SimulatedRobot
    from hardware.transport import RobotURL

    for scn in builtin_scenarios():
        solution = solve(scn)
        assert solution.plan, scn.id
        # the first round's queue, from the scenario's set-up (later rounds start elsewhere)
        _, result = run_program(scn.id, " ".join(solution.to_json()["plan"][0]))
        assert result.motions, scn.id
        robot = SimulatedRobot(time_factor=0.001)
        report = asyncio.run(execute_async(
            result.motions, None, ":memory:", start=result.start.pose, timing=LinkTiming(),
            transport=SimTransport(RobotURL.parse("sim://"), robot=robot)))
        assert report.done == len(result.motions) + 1 and not report.mismatches, scn.id
        assert [seq for seq, _, _ in robot.executed] == list(range(1, report.total + 1))
