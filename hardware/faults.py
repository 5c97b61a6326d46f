"""Fault injection for any transport: dropped, corrupted and duplicated bytes, disconnects.

Used by the tests and ``benchmarks/robot_link.py`` to prove the exactly-once guarantee;
it damages real bytes on their way through a real transport (nothing of ours is faked).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hardware.errors import LinkLostError, RobotHoldFailedError
from hardware.transport import Transport


@dataclass(frozen=True)
class FaultPlan:
    drop: float = 0.0  # probability that a byte is lost
    corrupt: float = 0.0  # probability that a byte is replaced by a random one
    duplicate: float = 0.0  # probability that a byte arrives twice
    disconnect_bytes: float = 0.0  # mean bytes between disconnects (0: never)


class FaultyTransport(Transport):
    """Wraps ``inner`` and damages the byte stream both ways according to ``plan``."""

    def __init__(self, inner: Transport, plan: FaultPlan, seed: int = 0) -> None:
        super().__init__(inner.url)
        self.inner = inner
        self.plan = plan
        self.rng = random.Random(seed)
        self.disconnects = 0
        self.damaged = 0
        self._budget = self._next_budget()
        self._open = False
        self._lost = asyncio.Event()
        # the inner read in progress: kept when the caller stops waiting (a time limit), so a chunk
        # that arrives then is handed to the next read instead of being dropped
        self._reading: asyncio.Future[bytes] | None = None

    @property
    def max_write(self) -> int:
        return self.inner.max_write

    def _next_budget(self) -> float:
        if self.plan.disconnect_bytes <= 0:
            return float("inf")
        return self.rng.expovariate(1.0 / self.plan.disconnect_bytes)

    def _damage(self, data: bytes) -> bytes:
        p = self.plan
        if not (p.drop or p.corrupt or p.duplicate):
            return data
        out = bytearray()
        for b in data:
            r = self.rng.random()
            if r < p.drop:
                self.damaged += 1
                continue
            if r < p.drop + p.corrupt:
                self.damaged += 1
                out.append(self.rng.randrange(256))
                continue
            out.append(b)
            if r < p.drop + p.corrupt + p.duplicate:
                self.damaged += 1
                out.append(b)
        return bytes(out)

    async def _maybe_disconnect(self, n: int) -> int:
        """Spend ``n`` bytes of the budget; returns how many pass before a disconnect (or n)."""
        if n < self._budget:
            self._budget -= n
            return n
        passed = int(self._budget)
        self._budget = self._next_budget()
        return passed

    async def _sever(self) -> None:
        self.disconnects += 1
        self._open = False
        self._stop_reading()
        sever = getattr(self.inner, "sever", None)
        if sever is not None:
            sever()
        else:
            await self.inner.close()

    async def pull_cable(self) -> None:
        """Disconnect now (the next read or write fails; the executor reconnects)."""
        if self._open:
            await self._sever()
            self._lost.set()

    async def open(self) -> None:
        self._stop_reading()
        self._lost = asyncio.Event()
        await self.inner.open()
        self._open = True

    async def close(self) -> None:
        self._open = False
        self._stop_reading()
        await self.inner.close()

    async def write(self, data: bytes) -> None:
        if not self._open:
            raise LinkLostError("link down (injected)")
        passed = await self._maybe_disconnect(len(data))
        if passed < len(data):
            if passed:
                await self.inner.write(self._damage(data[:passed]))
            await self._sever()
            raise LinkLostError("injected disconnect while writing")
        await self.inner.write(self._damage(data))

    async def _read_or_lost(self) -> bytes:
        if self._reading is None:
            self._reading = asyncio.ensure_future(self.inner.read())
        reader = self._reading
        lost = asyncio.ensure_future(self._lost.wait())
        waiting: set[asyncio.Future[Any]] = {reader, lost}
        try:
            await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        finally:
            lost.cancel()
        self._reading = None
        if reader.done() and not reader.cancelled():
            return reader.result()
        reader.cancel()
        raise LinkLostError("cable pulled (injected)")

    def _stop_reading(self) -> None:
        if self._reading is not None:
            self._reading.cancel()
            self._reading = None

    async def read(self) -> bytes:
        if not self._open:
            raise LinkLostError("link down (injected)")
        while True:
            data = await self._read_or_lost()
            passed = await self._maybe_disconnect(len(data))
            if passed < len(data):
                await self._sever()
                raise LinkLostError("injected disconnect while reading")
            damaged = self._damage(data)
            if damaged:
                return damaged


async def fault_campaign(
    workdir: str | os.PathLike[str],
    target_disconnects: int,
    seed: int = 0,
    plan: FaultPlan = FaultPlan(drop=0.003, corrupt=0.003, duplicate=0.003, disconnect_bytes=120),
    program_length: int = 60,
    crash_probability: float = 0.2,
) -> dict[str, int]:
    """Run random programs on simulated robots through ``plan`` until ``target_disconnects``.

    Host crashes (the executor cancelled at a random moment and started again from its log)
    are mixed in.  Every robot records the moves it starts; ``lost`` counts commands never
    started, ``duplicated`` commands started more than once, ``out_of_order`` runs whose
    moves did not start in program order.
    """
    from hardware.executor import LinkTiming, execute_async, program_commands
    from hardware.programs import random_walk
    from hardware.sim import SimTransport, SimulatedRobot
    from hardware.transport import RobotURL

    timing = LinkTiming(heartbeat=0.01, ack_timeout=0.03, dead_after=0.2, connect_timeout=0.5, reconnect_for=10,
                        backoff=0.0)
    rng = random.Random(seed)
    totals = {"disconnects": 0, "lost": 0, "duplicated": 0, "out_of_order": 0, "runs": 0, "moves": 0,
              "host_crashes": 0, "damaged_bytes": 0}
    while totals["disconnects"] < target_disconnects:
        program = random_walk(rng, program_length)
        robot = SimulatedRobot(time_factor=0.002, tick_s=0.0005)
        link = FaultyTransport(SimTransport(RobotURL.parse("sim://"), robot=robot), plan, seed=rng.randrange(1 << 30))
        db = Path(workdir) / f"fault-run-{seed}-{totals['runs']}.db"
        while True:
            task = asyncio.ensure_future(execute_async(program, None, db, transport=link, timing=timing))
            if rng.random() < crash_probability:
                await asyncio.sleep(rng.random() * 0.05)
                if not task.done():
                    task.cancel()
                    try:
                        await task
                    except (asyncio.CancelledError, RobotHoldFailedError):
                        # (the hold cannot leave while the link is down: the executor says so instead of
                        # claiming the robot is held; for the campaign either is a host that stopped)
                        totals["host_crashes"] += 1
                        continue
            await task
            break
        await robot.stop()
        n = len(program_commands(program))
        started = [seq for seq, _, _ in robot.executed]
        totals["lost"] += n - len(set(started))
        totals["duplicated"] += len(started) - len(set(started))
        totals["out_of_order"] += int(started != sorted(started))
        totals["disconnects"] += link.disconnects
        totals["damaged_bytes"] += link.damaged
        totals["runs"] += 1
        totals["moves"] += n
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                os.remove(str(db) + suffix)
    return totals
