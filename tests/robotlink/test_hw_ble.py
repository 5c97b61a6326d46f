"""BLE: bleak's real BleakClient API, with a bleak backend over bumble's in-process radio,
to a bumble peripheral serving the Nordic UART Service in front of the simulated robot."""

from __future__ import annotations

import asyncio
from pathlib import Path

from hardware.blesim import BleRadio
from hardware.executor import LinkTiming, execute_async
from hardware.programs import parse_motions
from hardware.sim import SimulatedRobot
from hardware.transport import BleTransport, RobotURL

TIMING = LinkTiming(heartbeat=0.1, ack_timeout=0.5, dead_after=2.0, connect_timeout=10.0, reconnect_for=20,
                    backoff=0.05)
PROGRAM = parse_motions("F>0,1,N R>0,1,E F>1,1,E XF>1,1,E P:vase>1,1,E L>1,1,N B>1,0,N D:vase>1,0,N")


def test_program_over_ble_nus(tmp_path: Path) -> None:
    async def scenario() -> None:
        radio = BleRadio()
        robot = SimulatedRobot(time_factor=0.005)
        peripheral = await radio.add_peripheral(robot)
        transport = BleTransport(RobotURL.parse(f"ble://{peripheral.address}"), backend=radio.bleak_backend())
        report = await execute_async(PROGRAM, None, tmp_path / "log.db", transport=transport, timing=TIMING)
        assert report.done == len(PROGRAM) + 1
        assert transport._response is False  # write-without-response, said explicitly
        assert transport.max_write == 20  # default ATT MTU 23 - 3
        assert [e[0] for e in robot.executed] == list(range(1, len(PROGRAM) + 2))
        await robot.stop()

    asyncio.run(scenario())


def test_negotiated_mtu_is_honoured(tmp_path: Path) -> None:
    async def scenario() -> None:
        radio = BleRadio(mtu=100)
        robot = SimulatedRobot(time_factor=0.005)
        peripheral = await radio.add_peripheral(robot)
        transport = BleTransport(RobotURL.parse(f"ble://{peripheral.address}"), backend=radio.bleak_backend())
        await transport.open()
        assert transport.max_write == 97
        await transport.close()
        await robot.stop()

    asyncio.run(scenario())


def test_ble_drops_mid_program_resume_exactly_once(tmp_path: Path) -> None:
    async def scenario() -> None:
        radio = BleRadio(interval=0.0075)
        robot = SimulatedRobot(time_factor=0.02, queue_size=2)  # a small queue: the host must keep streaming
        peripheral = await radio.add_peripheral(robot)
        transport = BleTransport(RobotURL.parse(f"ble://{peripheral.address}"), backend=radio.bleak_backend())
        drops: list[int] = []

        async def go_out_of_range() -> None:
            for at in (3, 6):
                while robot.core.done < at or peripheral.connection is None:
                    await asyncio.sleep(0.002)
                drops.append(robot.core.done)
                await peripheral.drop()

        dropper = asyncio.ensure_future(go_out_of_range())
        report = await execute_async(PROGRAM, None, tmp_path / "log.db", transport=transport, timing=TIMING)
        await dropper
        assert len(drops) == 2 and report.reconnects >= 2
        assert [e[0] for e in robot.executed] == list(range(1, len(PROGRAM) + 2))
        await robot.stop()

    asyncio.run(scenario())


def test_ble_with_damaged_bytes_and_disconnects(tmp_path: Path) -> None:
    import random

    from hardware.faults import FaultPlan, FaultyTransport
    from hardware.programs import random_walk

    async def scenario() -> int:
        radio = BleRadio()
        robot = SimulatedRobot(time_factor=0.002)
        peripheral = await radio.add_peripheral(robot)
        ble = BleTransport(RobotURL.parse(f"ble://{peripheral.address}"), backend=radio.bleak_backend())
        link = FaultyTransport(ble, FaultPlan(drop=0.003, corrupt=0.003, duplicate=0.003, disconnect_bytes=150),
                               seed=5)
        program = random_walk(random.Random(5), 25)
        timing = LinkTiming(heartbeat=0.02, ack_timeout=0.1, dead_after=0.5, connect_timeout=5.0, reconnect_for=20,
                            backoff=0.0)
        await execute_async(program, None, tmp_path / "log.db", transport=link, timing=timing)
        assert [e[0] for e in robot.executed] == list(range(1, len(program) + 2))
        await robot.stop()
        return link.disconnects

    assert asyncio.run(scenario()) >= 3
