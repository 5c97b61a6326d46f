"""The iRobot Root dialect against a simulator of its public BLE protocol."""

from __future__ import annotations

import asyncio
import struct
from pathlib import Path

import pytest

from engine.motion import Pose
from hardware.blesim import BleRadio
from hardware.errors import HardwareError, RobotInterruptedError
from hardware.executor import LinkTiming, execute_async
from hardware.faults import FaultPlan, FaultyTransport
from hardware.programs import parse_motions
from hardware.root import DEV_MOTORS, DRIVE_DISTANCE, GET_POSITION, ROTATE_ANGLE, RootPacket, SimulatedRoot, grid_pose
from hardware.transport import BleTransport, RobotURL, make_transport

TIMING = LinkTiming(heartbeat=0.05, ack_timeout=0.5, dead_after=2.0, connect_timeout=10.0, reconnect_for=10,
                    backoff=0.05)
PROGRAM = parse_motions("F>0,1,N R>0,1,E F>1,1,E XF>1,1,E P:vase>1,1,E L>1,1,N B>1,0,N")


@pytest.mark.parametrize(
    ("left", "right", "crc"),
    # the pre-computed motor packets (id 0) in iRobot's examples/robot-driver.sh
    [(100, 100, 0xD1), (-100, -100, 0x71), (0, 100, 0x8A), (100, 0, 0x25), (0, 0, 0x7E)],
)
def test_packets_match_irobots_published_checksums(left: int, right: int, crc: int) -> None:
    raw = bytes(RootPacket(1, 4, 0, struct.pack(">ii", left, right)))
    assert len(raw) == 20 and raw[19] == crc
    assert RootPacket.decode(raw) == RootPacket(1, 4, 0, struct.pack(">ii", left, right).ljust(16, b"\0"))


def test_bad_checksum_rejected_zero_accepted() -> None:
    raw = bytearray(bytes(RootPacket(1, 8, 3, struct.pack(">i", 150))))
    raw[5] ^= 1
    assert RootPacket.decode(bytes(raw)) is None
    raw[19] = 0  # "A checksum value of zero is always accepted"
    assert RootPacket.decode(bytes(raw)) is not None


def test_grid_pose_from_odometry() -> None:
    east = Pose.parse("2,2,E")
    assert grid_pose(east, 0, 300, 0, 150) == Pose.parse("4,2,E")  # 300 mm forward facing east
    assert grid_pose(east, 150, 0, 900, 150) == Pose.parse("2,1,S")  # right of east is south


def test_program_on_simulated_root(tmp_path: Path) -> None:
    async def scenario() -> None:
        root = SimulatedRoot(time_factor=0.01)
        report = await execute_async(PROGRAM, None, tmp_path / "l.db",
                                     transport=make_transport("sim://?dialect=root", sim_robot=root), timing=TIMING)
        assert report.done == len(PROGRAM) + 1 and not report.mismatches
        moves = [(d, c, v) for d, c, v in root.executed]
        assert moves[:2] == [(DEV_MOTORS, DRIVE_DISTANCE, 150), (DEV_MOTORS, ROTATE_ANGLE, 900)]
        assert moves[3:5] == [(DEV_MOTORS, DRIVE_DISTANCE, 50), (DEV_MOTORS, DRIVE_DISTANCE, -50)]  # the bump
        assert moves[-1] == (DEV_MOTORS, DRIVE_DISTANCE, -150)
        await root.stop()

    asyncio.run(scenario())


def test_a_slow_link_never_loses_a_moves_position_request(tmp_path: Path) -> None:
    """Every write takes longer than the executor waits for an event (a slow, SIMULATED link): the
    wait for the next event is cut short while the driver is writing its "where are you?" after a
    move.  That request must still go out, or the move's completion is never heard and the run
    waits forever (seen once in a CI run under load, with the first move done and no second)."""

    async def scenario() -> None:
        root = SimulatedRoot(time_factor=0.01)
        transport = make_transport("sim://?dialect=root", sim_robot=root)
        fast_write = transport.write

        async def slow_write(data: bytes) -> None:
            await asyncio.sleep(3 * TIMING.heartbeat)
            await fast_write(data)

        transport.write = slow_write  # type: ignore[method-assign]
        report = await asyncio.wait_for(
            execute_async(PROGRAM[:3], None, tmp_path / "l.db", transport=transport, timing=TIMING), 30.0)
        assert report.done == 4
        assert len(root.executed) == 3
        await root.stop()

    asyncio.run(scenario())


def test_root_over_ble(tmp_path: Path) -> None:
    async def scenario() -> None:
        radio = BleRadio()
        root = SimulatedRoot(time_factor=0.01)
        p = await radio.add_peripheral(root, address="F0:F0:F0:F0:F0:0A", name="Root")
        transport = BleTransport(RobotURL.parse(f"ble://{p.address}?dialect=root"), backend=radio.bleak_backend())
        report = await execute_async(PROGRAM[:3], None, tmp_path / "l.db", transport=transport, timing=TIMING)
        assert report.done == 4
        await root.stop()

    asyncio.run(scenario())


def test_disconnect_mid_move_is_reported_never_repeated(tmp_path: Path) -> None:
    """The Root cannot de-duplicate: a move whose completion was not seen is reported, not resent."""

    async def scenario() -> None:
        root = SimulatedRoot(time_factor=0.2)
        link = FaultyTransport(make_transport("sim://?dialect=root", sim_robot=root), FaultPlan())
        task = asyncio.ensure_future(execute_async(PROGRAM, None, tmp_path / "l.db", transport=link, timing=TIMING))
        waited = 0.0
        while len(root.executed) < 2:
            # a run that ends (or stalls) before its second move is a failure to report, not a hang
            assert not task.done(), f"the run ended after {len(root.executed)} move(s): {task.exception()!r}"
            assert waited < 30.0, f"no second move after 30 s ({len(root.executed)} executed)"
            await asyncio.sleep(0.001)
            waited += 0.001
        await link.pull_cable()
        with pytest.raises(RobotInterruptedError):
            await task
        assert len(root.executed) == 2
        await root.stop()

    asyncio.run(scenario())


def test_a_lost_position_answer_is_asked_for_again(tmp_path: Path) -> None:
    """A SIMULATED lossy link drops the Root's first answer to "where are you?" after a move.  The
    request is idempotent, so the driver asks again; before, the move's completion was never heard and
    the run waited with the robot idle (the status requests were answered locally, so the dead-link
    timer never fired either)."""

    async def scenario() -> None:
        root = SimulatedRoot(time_factor=0.01)
        transport = make_transport("sim://?dialect=root", sim_robot=root)
        real_read = transport.read
        dropped: list[bytes] = []

        async def lossy_read() -> bytes:
            data = await real_read()
            packets = [data[i:i + 20] for i in range(0, len(data), 20)]
            kept = []
            for pkt in packets:
                if not dropped and len(pkt) == 20 and pkt[0] == DEV_MOTORS and pkt[1] == GET_POSITION:
                    dropped.append(pkt)
                    continue
                kept.append(pkt)
            return b"".join(kept)

        transport.read = lossy_read  # type: ignore[method-assign]
        report = await asyncio.wait_for(
            execute_async(PROGRAM[:3], None, tmp_path / "l.db", transport=transport, timing=TIMING), 30.0)
        assert dropped, "the simulated link never saw a position answer to drop"
        assert report.done == 4
        assert len(root.executed) == 3  # asking again never repeats a move
        await root.stop()

    asyncio.run(scenario())


def test_a_silent_root_is_noticed_as_a_dead_link(tmp_path: Path) -> None:
    """The SIMULATED link stays open but nothing comes back after the first move (a robot switched off
    out of range, say).  Only the robot's own bytes count as signs of life, so the run stops with a
    reported error instead of waiting for ever."""

    async def scenario() -> None:
        root = SimulatedRoot(time_factor=0.01)
        transport = make_transport("sim://?dialect=root", sim_robot=root)
        real_read = transport.read
        real_write = transport.write

        async def write(data: bytes) -> None:
            if len(root.executed) < 1:
                await real_write(data)

        async def read() -> bytes:
            if len(root.executed) >= 1:
                await asyncio.Event().wait()  # silence, never an error
            return await real_read()

        transport.read = read  # type: ignore[method-assign]
        transport.write = write  # type: ignore[method-assign]
        timing = LinkTiming(heartbeat=0.05, ack_timeout=0.5, dead_after=0.5, connect_timeout=0.5,
                            reconnect_for=1.0, backoff=0.05)
        with pytest.raises(HardwareError):
            await asyncio.wait_for(
                execute_async(PROGRAM[:3], None, tmp_path / "l.db", transport=transport, timing=timing), 20.0)
        assert len(root.executed) == 1
        await root.stop()

    asyncio.run(scenario())
