"""Robot link benchmark: round trips over the pty and over BLE, throughput, e-stop latency,
and a fault-injection run.  The last printed line is one JSON object of figures.

* serial: the simulated firmware in another process behind a pseudo-terminal at a simulated
  115200 baud (every byte takes 10/115200 s each way); command-to-ack round trip against the
  wire time of the bytes exchanged (target <= 1.5x);
* BLE: bleak (real client API) through a bumble central to a bumble peripheral serving NUS,
  link-layer packets delivered at 30 ms connection events (target <= 2 intervals);
* throughput: zero-duration commands streamed with credits over the pty;
* e-stop: from writing ``!`` to the robot's status line saying ``hold``;
* faults: random programs through dropped/corrupted/duplicated bytes and random disconnects
  (``--disconnects``, default 1000), counting lost and duplicated moves.

Run: ``python benchmarks/robot_link.py [--disconnects N] [--samples N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hardware.executor import LinkTiming, execute_async
from hardware.faults import fault_campaign
from hardware.firmware import bsproto
from hardware.link import Command
from hardware.transport import RobotURL, SerialTransport, Transport

BAUD = 115200
INTERVAL = 0.030


class LineReader:
    def __init__(self, transport: Transport) -> None:
        self.t = transport
        self.buf = b""

    async def line(self, timeout: float = 2.0) -> bytes:
        if b"\n" not in self.buf:
            async with asyncio.timeout(timeout):  # one timer per line, not one task per chunk
                while b"\n" not in self.buf:
                    self.buf += await self.t.read()
        line, self.buf = self.buf.split(b"\n", 1)
        return line + b"\n"

    async def until(self, prefix: bytes, timeout: float = 2.0) -> bytes:
        while True:
            line = await self.line(timeout)
            if line.startswith(prefix):
                return line


async def ack_round_trips(t: Transport, samples: int) -> tuple[list[float], list[int]]:
    """Hold the robot (so commands only queue), then time each command until its ack."""
    r = LineReader(t)
    await t.write(bsproto.frame("H"))
    await r.until(b"h ")
    await t.write(bsproto.frame("N bench"))
    await r.until(b"h ")
    await t.write(b"!")
    await r.until(b"s ")
    rtts: list[float] = []
    sizes: list[int] = []
    seq = 0
    while len(rtts) < samples:
        if seq == 7:  # queue nearly full: cancel it (acked falls back to done = 0) and go on
            await t.write(bsproto.frame("X"))
            await r.until(b"s ")
            await t.write(b"!")
            await r.until(b"s ")
            seq = 0
        seq += 1
        cmd = bsproto.frame(f"{seq} W 0")
        await asyncio.sleep(0.002)  # idle line, as between commands in real use
        start = time.perf_counter()
        await t.write(cmd)
        ack = await r.until(b"a ")
        rtts.append(time.perf_counter() - start)
        sizes.append(len(cmd) + len(ack))
    await t.write(bsproto.frame("X"))
    await r.until(b"s ")
    return rtts, sizes


async def estop_latency(t: Transport, samples: int = 20) -> list[float]:
    r = LineReader(t)
    out = []
    for i in range(samples):
        await t.write(bsproto.frame("X"))
        await r.until(b"s ")
        await t.write(b"~")
        await r.until(b"s ")
        await t.write(bsproto.frame(f"N e{i}"))
        await r.until(b"h ")
        await t.write(bsproto.frame("1 J 5000"))
        await r.until(b"a ")
        await asyncio.sleep(0.02)  # the robot is driving
        start = time.perf_counter()
        await t.write(b"!")
        line = await r.until(b"s ")
        out.append(time.perf_counter() - start)
        assert line.rstrip().split(b"*")[0].endswith(b"hold"), line
    await t.write(bsproto.frame("X"))
    await r.until(b"s ")
    return out


async def serial_figures(samples: int) -> dict[str, float]:
    board = subprocess.Popen([sys.executable, "-m", "hardware.simfw", "--baud", str(BAUD), "--no-reset-on-open",
                              "--time", "0.001"], stdout=subprocess.PIPE, text=True,
                             cwd=Path(__file__).resolve().parents[1])
    assert board.stdout is not None
    path = board.stdout.readline().strip()
    try:
        t = SerialTransport(RobotURL.parse(f"serial://{path}?baud={BAUD}"))
        await t.open()
        try:
            rtts, sizes = await ack_round_trips(t, samples)
            estop = await estop_latency(t)
        finally:
            await t.close()
        # throughput: stream zero-length commands through the executor (credits, logging, all)
        n = 300
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            report = await execute_async([], f"serial://{path}?baud={BAUD}", Path(tmp) / "log.db",
                                         commands=[Command("W", "0", None, "wait")] * n, check_pose=False,
                                         timing=LinkTiming())
            seconds = time.perf_counter() - start
        assert report.done == n
    finally:
        board.terminate()
        board.wait(5)
    rtt = statistics.median(rtts)
    wire = statistics.median(sizes) * 10 / BAUD
    return {
        "serial_rtt_ms": round(rtt * 1000, 3),
        "serial_rtt_p95_ms": round(sorted(rtts)[int(len(rtts) * 0.95) - 1] * 1000, 3),
        "serial_rtt_min_ms": round(min(rtts) * 1000, 3),
        "serial_ratio_min": round(min(rtts) / wire, 3),
        "serial_wire_ms": round(wire * 1000, 3),
        "serial_ratio": round(rtt / wire, 3),
        "serial_throughput_cmds_per_s": round(n / seconds, 1),
        "serial_estop_ms": round(statistics.median(estop) * 1000, 3),
    }


async def ble_figures(samples: int) -> dict[str, float]:
    from hardware.blesim import BleRadio
    from hardware.sim import SimulatedRobot
    from hardware.transport import BleTransport

    radio = BleRadio(interval=INTERVAL)
    robot = SimulatedRobot(time_factor=0.001)
    peripheral = await radio.add_peripheral(robot)
    t = BleTransport(RobotURL.parse(f"ble://{peripheral.address}"), backend=radio.bleak_backend())
    await t.open()
    try:
        rtts, _ = await ack_round_trips(t, samples)
        estop = await estop_latency(t, 10)
    finally:
        await t.close()
    n = 60
    t2 = BleTransport(RobotURL.parse(f"ble://{peripheral.address}"), backend=radio.bleak_backend())
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        report = await execute_async([], None, Path(tmp) / "log.db", transport=t2,
                                     commands=[Command("W", "0", None, "wait")] * n, check_pose=False,
                                     timing=LinkTiming(connect_timeout=20))
        seconds = time.perf_counter() - start
    assert report.done == n
    await robot.stop()
    return {
        "ble_interval_ms": INTERVAL * 1000,
        "ble_ack_ms": round(statistics.median(rtts) * 1000, 3),
        "ble_ack_intervals": round(statistics.median(rtts) / INTERVAL, 3),
        "ble_throughput_cmds_per_s": round(n / seconds, 1),
        "ble_estop_intervals": round(statistics.median(estop) / INTERVAL, 3),
    }


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--disconnects", type=int, default=1000)
    ap.add_argument("--samples", type=int, default=200)
    args = ap.parse_args()
    figures: dict[str, object] = {"load_avg_1min_before": round(os.getloadavg()[0], 2), "cpus": os.cpu_count()}
    figures.update(await serial_figures(args.samples))
    print("serial:", figures, flush=True)
    ble = await ble_figures(min(args.samples, 60))
    figures.update(ble)
    print("ble:", ble, flush=True)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        faults = await fault_campaign(tmp, args.disconnects, seed=2026)
    print("faults:", faults, flush=True)
    figures.update({
        "disconnects": faults["disconnects"], "lost": faults["lost"], "duplicated": faults["duplicated"],
        "out_of_order": faults["out_of_order"], "fault_moves": faults["moves"],
        "fault_host_crashes": faults["host_crashes"], "fault_damaged_bytes": faults["damaged_bytes"],
        "fault_seconds": round(time.perf_counter() - start, 1),
    })
    figures["load_avg_1min_after"] = round(os.getloadavg()[0], 2)
    figures["targets_met"] = {
        "serial_ratio<=1.5": figures["serial_ratio"] <= 1.5,  # type: ignore[operator]
        "ble_ack_intervals<=2": figures["ble_ack_intervals"] <= 2,  # type: ignore[operator]
        "no_lost_or_duplicated": faults["lost"] == 0 and faults["duplicated"] == 0,
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    asyncio.run(main())
