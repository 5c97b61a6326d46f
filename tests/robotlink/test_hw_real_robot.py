"""Against a real robot: only with ``pytest --robot URL`` (e.g. serial:///dev/ttyUSB0).

Put the robot on a free cell with at least one free cell in front of it; it drives one cell
forward, turns left and right, bumps, and comes back.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hardware.executor import execute
from hardware.link import make_driver
from hardware.programs import parse_motions
from hardware.transport import make_transport


@pytest.fixture
def robot_url(request: pytest.FixtureRequest) -> str:
    return str(request.config.getoption("--robot"))


@pytest.mark.hardware(device="robot")
def test_real_robot_hello(robot_url: str) -> None:
    import asyncio

    async def hello() -> None:
        driver = make_driver(make_transport(robot_url))
        state = await driver.connect("", 0, 0, 10.0)
        await driver.close()
        assert state.size >= 1

    asyncio.run(hello())


@pytest.mark.hardware(device="robot")
def test_real_robot_short_program(robot_url: str, tmp_path: Path) -> None:
    program = parse_motions("F>0,1,N L>0,1,W R>0,1,N XF>0,1,N B>0,0,N")
    report = execute(program, robot_url, tmp_path / "log.db")
    assert report.done == report.total == len(program) + 1
    assert not report.mismatches
