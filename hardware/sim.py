"""The *simulated* robot behind ``sim://`` and the tests.

It runs the very protocol state machine the MicroPython firmware runs
(:mod:`hardware.firmware.bsproto`), with a simulated two-wheeled drive whose moves take
the time a real one takes (distance / speed; ``time`` factor to speed tests up), and a
simulated flash (``SimFlash``) that survives resets.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hardware.errors import LinkLostError
from hardware.firmware import bsproto
from hardware.transport import QueueReader, RobotURL, Transport


class SimDrive(bsproto.Drive):
    """A simulated differential drive: a segment lasts ``max(|left|, |right|) / speed`` (+ dwell)."""

    def __init__(self, config: Callable[[], dict[str, float]], time_factor: float = 1.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.time_factor = time_factor
        self.clock = clock
        self.end: float | None = None  # when the current segment ends (None: idle)
        self.remaining: float | None = None  # seconds left while held
        self.odometer_mm = 0.0

    def start(self, left_mm: float, right_mm: float, dwell_ms: int) -> None:
        speed = self.config().get("v", 100.0)
        seconds = (max(abs(left_mm), abs(right_mm)) / speed + dwell_ms / 1000.0) * self.time_factor
        self.odometer_mm += max(abs(left_mm), abs(right_mm))
        self.end = self.clock() + seconds

    def busy(self) -> bool:
        if self.remaining is not None:
            return True
        return self.end is not None and self.clock() < self.end

    def hold(self) -> None:
        if self.end is not None and self.remaining is None:
            self.remaining = max(0.0, self.end - self.clock())

    def resume(self) -> None:
        if self.remaining is not None:
            self.end = self.clock() + self.remaining
            self.remaining = None

    def abort(self) -> None:
        self.end = None
        self.remaining = None


class SimFlash(bsproto.MemoryStore):
    """Simulated flash for the journal; kept in a JSON file when ``path`` is given."""

    def __init__(self, path: str | None = None) -> None:
        super().__init__()
        self.path = path
        if path and os.path.exists(path):
            try:
                self.data = json.loads(Path(path).read_text())
            except (OSError, ValueError):
                self.data = {}

    def save(self, data: dict[str, object]) -> None:
        super().save(data)
        if self.path:
            tmp = self.path + ".tmp"
            Path(tmp).write_text(json.dumps(data))
            os.replace(tmp, self.path)


class SimulatedRobot:
    """A simulated robot running :class:`bsproto.RobotCore`; ``attach`` a host to talk to it."""

    def __init__(self, time_factor: float = 1.0, queue_size: int = 8, flash: SimFlash | None = None,
                 tick_s: float = 0.002) -> None:
        self.time_factor = time_factor
        self.queue_size = queue_size
        self.flash = flash or SimFlash()
        self.tick_s = tick_s
        self._emit: Callable[[bytes], None] | None = None
        self.executed: list[tuple[int, str, str]] = []  # every move started, across resets
        self.boots = 0
        self.core = self._boot()
        self._task: asyncio.Task[None] | None = None

    def _boot(self) -> bsproto.RobotCore:
        self.boots += 1
        self.drive = SimDrive(lambda: self.core.config, self.time_factor)
        core = bsproto.RobotCore(self._out, self.drive, self.flash, random.randrange(1, 1 << 30), self.queue_size)
        core.executed = self.executed
        return core

    def _out(self, data: bytes) -> None:
        if self._emit is not None:
            self._emit(data)

    def reset(self) -> None:
        """Reboot: RAM (queue, move in progress) lost, journal kept, new epoch."""
        self.drive.abort()
        self.core = self._boot()

    def attach(self, emit: Callable[[bytes], None]) -> None:
        self._emit = emit

    def detach(self) -> None:
        self._emit = None

    def receive(self, data: bytes) -> None:
        self.core.feed(data)
        self.core.tick()

    def ensure_running(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while True:
            self.core.tick()
            await asyncio.sleep(self.tick_s)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def idle(self) -> bool:
        return self.core.current is None and not self.core.queue


class SimTransport(Transport):
    """``sim://``: bytes go straight into a :class:`SimulatedRobot` in this process."""

    _max_write = 20

    def __init__(self, url: RobotURL, robot: Any = None) -> None:
        super().__init__(url)
        if robot is None:
            tf = float(url.options.get("time", "1"))
            if url.dialect == "root":
                from hardware.root import SimulatedRoot

                robot = SimulatedRoot(time_factor=tf)
            else:
                robot = SimulatedRobot(
                    time_factor=tf,
                    queue_size=int(float(url.options.get("queue", "8"))),
                    flash=SimFlash(url.options.get("state")),
                )
        self.robot = robot
        self._reader = QueueReader()
        self._open = False

    async def open(self) -> None:
        self._reader = QueueReader()
        self.robot.attach(self._reader.put)
        self.robot.ensure_running()
        self._open = True

    async def close(self) -> None:
        if self._open:
            self.robot.detach()
            self._reader.drop()
        self._open = False

    def sever(self) -> None:
        """Simulate the link dropping (cable pulled / BLE out of range)."""
        self.robot.detach()
        self._reader.drop()
        self._open = False

    async def write(self, data: bytes) -> None:
        if not self._open:
            raise LinkLostError("link to the simulated robot is down")
        self.robot.receive(data)

    async def read(self) -> bytes:
        return await self._reader.get("the simulated robot")
