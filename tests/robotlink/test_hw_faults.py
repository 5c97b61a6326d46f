"""Fault injection: dropped, corrupted and duplicated bytes and random disconnects.

The bytes really are damaged on their way between the executor and the simulated robot
(running the firmware's state machine); the robot records every move it starts.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from hardware.executor import LinkTiming, execute_async, program_commands
from hardware.faults import FaultPlan, FaultyTransport
from hardware.programs import random_walk
from hardware.sim import SimTransport, SimulatedRobot
from hardware.transport import RobotURL

TIMING = LinkTiming(heartbeat=0.01, ack_timeout=0.03, dead_after=0.2, connect_timeout=0.5, reconnect_for=10,
                    backoff=0.0)
PLAN = FaultPlan(drop=0.003, corrupt=0.003, duplicate=0.003, disconnect_bytes=120)


async def fault_campaign(tmp: Path, target_disconnects: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    totals = {"disconnects": 0, "lost": 0, "duplicated": 0, "runs": 0, "moves": 0, "crashes": 0}
    while totals["disconnects"] < target_disconnects:
        program = random_walk(rng, 60)
        robot = SimulatedRobot(time_factor=0.002, tick_s=0.0005)
        link = FaultyTransport(SimTransport(RobotURL.parse("sim://"), robot=robot), PLAN, seed=rng.randrange(1 << 30))
        db = tmp / f"run{totals['runs']}.db"
        while True:
            task = asyncio.ensure_future(execute_async(program, None, db, transport=link, timing=TIMING))
            if rng.random() < 0.2:  # a host crash / Ctrl-C at a random moment, then a restart
                await asyncio.sleep(rng.random() * 0.05)
                if not task.done():
                    task.cancel()
                    try:
                        await task
                    except asyncio.CancelledError:
                        totals["crashes"] += 1
                        continue
            await task
            break
        await robot.stop()
        n = len(program_commands(program))
        started = [seq for seq, _, _ in robot.executed]
        totals["lost"] += n - len(set(started))
        totals["duplicated"] += len(started) - len(set(started))
        assert started == list(range(1, n + 1)), f"seed {seed} run {totals['runs']}: {started}"
        totals["disconnects"] += link.disconnects
        totals["runs"] += 1
        totals["moves"] += n
    return totals


def test_fault_injection_fast(tmp_path: Path) -> None:
    totals = asyncio.run(fault_campaign(tmp_path, 40, seed=3))
    assert totals["disconnects"] >= 40
    assert totals["lost"] == 0 and totals["duplicated"] == 0


@pytest.mark.slow
def test_fault_injection_1000_disconnects(tmp_path: Path) -> None:
    totals = asyncio.run(fault_campaign(tmp_path, 1000, seed=11))
    assert totals["disconnects"] >= 1000
    assert totals["lost"] == 0 and totals["duplicated"] == 0
