"""The *simulated* robot behind ``sim://`` and the tests.

It runs the very protocol state machine the MicroPython firmware runs
(:mod:`hardware.firmware.bsproto`), with a simulated two-wheeled drive whose moves take
the time a real one takes (distance / speed; ``time`` factor to speed tests up), and a
simulated flash (``SimFlash``) that survives resets.

The simulated robot also has a *simulated body* (:class:`SimBody`): its true position on
the board in millimetres and its true heading, moved by the very wheel segments the
firmware commands.  A real robot does not drive perfectly; ``SimBody`` can be told to err
systematically (URL options ``slip=``, ``drift=``, ``veer=``, docs/robot_tracking.md) so
the camera-watched closed loop (``boardside quirky run --camera sim``) has something to
correct.  The firmware's own idea of its grid pose is dead reckoning and never sees the error.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hardware.errors import LinkLostError
from hardware.firmware import bsproto
from hardware.transport import QueueReader, RobotURL, Transport


class SimBody:
    """The *simulated* robot's true pose on the board: ``x_mm``, ``y_mm`` (board frame,
    docs/coordinates.md "Flat boards") and ``heading_deg`` (counter-clockwise from east: E 0, N 90,
    W 180, S 270, as the board fixtures' truth), moved by wheel segments with a systematic error.

    * ``slip``: fraction of every drive's distance lost (0.05: 5 % short; negative: overshoot);
    * ``drift``: degrees of extra rotation per 90 degrees turned (3: a quarter turn is 93 degrees;
      negative: under-turns);
    * ``veer``: degrees the heading creeps clockwise per 100 mm driven (one wheel a bit larger).

    ``placed`` is False until :meth:`place` (or the first set-pose command, see
    :class:`SimulatedRobot`) puts the robot on the board.
    """

    def __init__(self, slip: float = 0.0, drift: float = 0.0, veer: float = 0.0) -> None:
        self.slip = slip
        self.drift = drift
        self.veer = veer
        self.x_mm = 0.0
        self.y_mm = 0.0
        self.heading_deg = 90.0
        self.placed = False
        self.path: list[tuple[float, float, float]] = []  # every pose after a segment (for pictures)

    def __repr__(self) -> str:
        return (f"<SimBody ({self.x_mm:.1f}, {self.y_mm:.1f}) mm heading {self.heading_deg:.1f} deg "
                f"slip={self.slip:g} drift={self.drift:g} veer={self.veer:g}>")

    def place(self, x_mm: float, y_mm: float, heading_deg: float) -> None:
        """Put the robot down at a true pose (a person placing it on the board)."""
        self.x_mm, self.y_mm, self.heading_deg = float(x_mm), float(y_mm), float(heading_deg) % 360.0
        self.placed = True
        self.path.append(self.pose)

    def place_on_cell(self, x: int, y: int, heading: str, cell_mm: float) -> None:
        """Put the robot exactly on cell ``(x, y)``'s centre facing ``heading`` (N, E, S or W)."""
        self.place((x + 0.5) * cell_mm, (y + 0.5) * cell_mm, 90.0 * "ENWS".index(heading))

    @property
    def pose(self) -> tuple[float, float, float]:
        return (self.x_mm, self.y_mm, self.heading_deg)

    def move(self, left_mm: float, right_mm: float, wheel_base_mm: float) -> None:
        """One wheel segment of a differential drive (left, right wheel travel in mm)."""
        if not self.placed:
            return
        ds = (left_mm + right_mm) / 2.0 * (1.0 - self.slip)
        cw = math.degrees((left_mm - right_mm) / wheel_base_mm)  # the left wheel ahead: a clockwise turn
        cw *= 1.0 + self.drift / 90.0
        cw += self.veer * abs(ds) / 100.0
        mid = math.radians(self.heading_deg - cw / 2.0)
        self.x_mm += ds * math.cos(mid)
        self.y_mm += ds * math.sin(mid)
        self.heading_deg = (self.heading_deg - cw) % 360.0
        self.path.append(self.pose)


class SimDrive(bsproto.Drive):
    """A simulated differential drive: a segment lasts ``max(|left|, |right|) / speed`` (+ dwell).

    With a ``body`` every segment also moves the simulated robot's true pose."""

    def __init__(self, config: Callable[[], dict[str, float]], time_factor: float = 1.0,
                 clock: Callable[[], float] = time.monotonic, body: SimBody | None = None,
                 on_start: Callable[[], None] | None = None) -> None:
        self.config = config
        self.time_factor = time_factor
        self.clock = clock
        self.body = body
        self.on_start = on_start
        self.end: float | None = None  # when the current segment ends (None: idle)
        self.remaining: float | None = None  # seconds left while held
        self.odometer_mm = 0.0

    def start(self, left_mm: float, right_mm: float, dwell_ms: int) -> None:
        cfg = self.config()
        speed = cfg.get("v", 100.0)
        seconds = (max(abs(left_mm), abs(right_mm)) / speed + dwell_ms / 1000.0) * self.time_factor
        self.odometer_mm += max(abs(left_mm), abs(right_mm))
        if self.on_start is not None:
            self.on_start()
        if self.body is not None:
            self.body.move(left_mm, right_mm, cfg.get("w", 90.0))
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
                 tick_s: float = 0.002, body: SimBody | None = None) -> None:
        self.time_factor = time_factor
        self.queue_size = queue_size
        self.flash = flash or SimFlash()
        self.tick_s = tick_s
        #: the robot's true pose on the board; placed by the first set-pose command if nobody placed it
        self.body = body if body is not None else SimBody()
        self._emit: Callable[[bytes], None] | None = None
        self.executed: list[tuple[int, str, str]] = []  # every move started, across resets
        self.boots = 0
        self.core = self._boot()
        self._task: asyncio.Task[None] | None = None

    def _boot(self) -> bsproto.RobotCore:
        self.boots += 1
        self.drive = SimDrive(lambda: self.core.config, self.time_factor, body=self.body,
                              on_start=self._segment_starts)
        core = bsproto.RobotCore(self._out, self.drive, self.flash, random.randrange(1, 1 << 30), self.queue_size)
        core.executed = self.executed
        return core

    def _segment_starts(self) -> None:
        """An unplaced robot is put down where the first set-pose command says (cell centre)."""
        cur = self.core.current
        if cur is not None and cur[1] == "O" and not self.body.placed:
            p = bsproto.parse_pose(cur[2])
            if p is not None:
                self.body.place_on_cell(p[0], p[1], bsproto.HEADINGS[p[2]], self.core.config.get("c", 150.0))

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
                    body=body_from_url(url),
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


def body_from_url(url: RobotURL) -> SimBody:
    """The simulated body a ``sim://`` URL asks for: ``slip=``, ``drift=``, ``veer=`` (all default 0)."""
    return SimBody(
        slip=float(url.options.get("slip", "0")),
        drift=float(url.options.get("drift", "0")),
        veer=float(url.options.get("veer", "0")),
    )
