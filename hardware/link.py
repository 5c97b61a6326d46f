"""The host side of the Boardside robot protocol (docs/protocol.md) over any transport.

A :class:`Driver` turns a byte transport into typed events; the executor
(:mod:`hardware.executor`) drives it.  :class:`BoardsideDriver` speaks our line protocol;
:class:`hardware.root.RootDriver` speaks the iRobot Root BLE protocol behind the same
interface.
"""

from __future__ import annotations

import asyncio
import contextlib
from abc import ABC, abstractmethod
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import TypeVar

from engine.motion import Heading, Motion, Pose
from hardware.errors import LinkLostError, RobotProtocolError, RobotUnreachableError
from hardware.firmware import bsproto
from hardware.transport import Transport

T = TypeVar("T")


async def within(awaitable: Awaitable[T], seconds: float) -> T:
    """``awaitable`` with a time limit (TimeoutError).  Unlike ``asyncio.wait_for`` on Python
    3.11 this never swallows a cancellation that races with completion (Ctrl-C must stop)."""
    async with asyncio.timeout(max(0.0, seconds)):
        return await awaitable


# ---------------------------------------------------------------------------- events
@dataclass(frozen=True)
class RobotState:
    """What a robot reports in ``hello`` (and, partly, in each status line)."""

    epoch: int
    run: str
    acked: int
    done: int
    free: int
    size: int
    pose: Pose | None
    state: str  # idle | run | hold
    interrupted: int = 0  # a move cut short by a reset or cancel (0: none)
    current: int = 0  # the move being executed (0: none)


@dataclass(frozen=True)
class Acked:
    seq: int
    free: int


@dataclass(frozen=True)
class Done:
    seq: int
    pose: Pose | None


@dataclass(frozen=True)
class Rejected:
    seq: int
    code: str
    value: int = 0


@dataclass(frozen=True)
class Status:
    acked: int
    done: int
    free: int
    pose: Pose | None
    state: str


@dataclass(frozen=True)
class Hello:
    state: RobotState


@dataclass(frozen=True)
class Configured:
    key: str
    value: str


Event = Acked | Done | Rejected | Status | Hello | Configured


@dataclass(frozen=True)
class Command:
    """One sequenced robot command: protocol op, argument, and the pose expected after it."""

    op: str
    arg: str = ""
    expected: Pose | None = None
    label: str = ""

    @classmethod
    def from_motion(cls, motion: Motion) -> Command:
        """The protocol command performing ``motion`` (by its code, so newer motion kinds map too)."""
        code = motion.kind.value
        if code in ("F", "B", "L", "R", "XF", "XB", "P", "D"):
            return cls(code, "", motion.expected, str(motion))
        if code == "J" and motion.arg.isdigit() and 1 <= int(motion.arg) <= 99:
            return cls("G", motion.arg, motion.expected, str(motion))  # jump n: drive n cells straight
        if code in ("S", "XS") and motion.arg.upper() in ("N", "E", "S", "W"):
            return cls(code, motion.arg.upper(), motion.expected, str(motion))
        raise RobotProtocolError(f"the robot cannot perform motion {str(motion)!r}")

    @classmethod
    def set_pose(cls, pose: Pose) -> Command:
        return cls("O", str(pose), pose, f"set pose {pose}")


def pose_from_wire(text: str) -> Pose | None:
    p = bsproto.parse_pose(text)
    if p is None:
        return None
    return Pose(p[0], p[1], Heading[bsproto.HEADINGS[p[2]]])


def parse_event(body: str) -> Event | None:
    """A checked line body from the robot -> an event (None for something we do not know)."""
    parts = body.split(" ")
    kind = parts[0]
    try:
        if kind == "a" and len(parts) == 3:
            return Acked(int(parts[1]), int(parts[2]))
        if kind == "d" and len(parts) == 3:
            return Done(int(parts[1]), pose_from_wire(parts[2]))
        if kind == "e" and len(parts) >= 3:
            return Rejected(int(parts[1]), parts[2], int(parts[3]) if len(parts) > 3 else 0)
        if kind == "s" and len(parts) == 6:
            return Status(int(parts[1]), int(parts[2]), int(parts[3]), pose_from_wire(parts[4]), parts[5])
        if kind == "k" and len(parts) == 3:
            return Configured(parts[1], parts[2])
        if kind == "h" and len(parts) >= 8:
            free, _, size = parts[5].partition("/")
            extra = {p[0]: int(p[1:]) for p in parts[8:] if len(p) > 1 and p[0] in "ic"}
            return Hello(
                RobotState(
                    int(parts[1]), parts[2], int(parts[3]), int(parts[4]), int(free), int(size),
                    pose_from_wire(parts[6]), parts[7], extra.get("i", 0), extra.get("c", 0),
                )
            )
    except ValueError:
        return None
    return None


# ---------------------------------------------------------------------------- drivers
class Driver(ABC):
    """A robot dialect over a transport: connect, stream commands, receive events."""

    #: how many unfinished commands may be outstanding at once (upper bound; credits decide)
    window: int = 8
    #: False when the dialect cannot de-duplicate a resent command (iRobot Root)
    deduplicates: bool = True

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        self.bad_lines = 0

    @abstractmethod
    async def connect(self, run: str, sent: int, done: int, timeout: float) -> RobotState: ...

    async def close(self) -> None:
        await self.transport.close()

    @abstractmethod
    async def begin_run(self, run: str, timeout: float) -> RobotState: ...

    @abstractmethod
    async def send(self, seq: int, command: Command) -> None: ...

    @abstractmethod
    async def next_event(self) -> Event: ...

    @abstractmethod
    async def request_status(self) -> None: ...

    @abstractmethod
    async def hold(self) -> None:
        """Out-of-band emergency stop: motors stop now, nothing is forgotten."""

    @abstractmethod
    async def resume(self) -> None: ...

    @abstractmethod
    async def cancel(self) -> None:
        """Drop everything queued (and a held remainder)."""

    async def clear_interrupted(self, timeout: float) -> None:
        """Tell the robot the interrupted move has been dealt with (no-op where not needed)."""
        return None

    async def configure(self, key: str, value: float | None = None, timeout: float = 3.0) -> float:
        """Set (or with ``value=None`` read) a robot setting; returns the robot's value."""
        raise RobotProtocolError("this robot dialect has no configuration command")


class BoardsideDriver(Driver):
    """Our line protocol (docs/protocol.md)."""

    def __init__(self, transport: Transport) -> None:
        super().__init__(transport)
        self._buf = b""
        self._pending: list[Event] = []
        self.window = 8

    async def _write(self, data: bytes) -> None:
        await self.transport.write(data)

    async def _read_events(self) -> None:
        data = await self.transport.read()
        self._buf += data
        while b"\n" in self._buf:
            line, self._buf = self._buf.split(b"\n", 1)
            line = line.rstrip(b"\r")
            if not line or line.startswith(b"#"):
                continue  # banner / comment
            body = bsproto.unframe(line)
            event = parse_event(body) if body is not None else None
            if event is None:
                self.bad_lines += 1
                continue
            self._pending.append(event)
        if len(self._buf) > 256:
            self._buf = b""
            self.bad_lines += 1

    async def next_event(self) -> Event:
        while not self._pending:
            await self._read_events()
        return self._pending.pop(0)

    async def _await_hello(self, line: bytes, timeout: float) -> RobotState:
        """Send ``line`` repeatedly until a hello arrives (the board may still be booting)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            await self._write(line)
            resend_at = min(deadline, loop.time() + min(0.3, timeout / 8))
            while loop.time() < resend_at:
                try:
                    event = await within(self.next_event(), resend_at - loop.time())
                except TimeoutError:
                    break
                if isinstance(event, Hello):
                    return event.state
                if isinstance(event, Rejected) and event.code == "BUSY":
                    from hardware.errors import RobotBusyError

                    raise RobotBusyError(
                        "the robot is busy with another run (moves queued or held); "
                        "resume that run, or cancel it with `boardside robot stop --cancel`"
                    )
            if loop.time() >= deadline:
                raise RobotUnreachableError(
                    f"no answer to hello from {self.transport.url} within {timeout:g} s "
                    "(is it a Boardside-protocol robot? wrong baud rate?)"
                )

    async def connect(self, run: str, sent: int, done: int, timeout: float) -> RobotState:
        self._buf = b""
        self._pending = []
        await self.transport.open()
        try:
            return await self._await_hello(bsproto.frame("H"), timeout)
        except BaseException:
            with contextlib.suppress(Exception):
                await self.transport.close()
            raise

    async def begin_run(self, run: str, timeout: float) -> RobotState:
        return await self._await_hello(bsproto.frame(f"N {run}"), timeout)

    async def send(self, seq: int, command: Command) -> None:
        body = f"{seq} {command.op}" + (f" {command.arg}" if command.arg else "")
        line = bsproto.frame(body)
        if len(line) > bsproto.MAX_LINE:
            raise RobotProtocolError(f"command {body!r} does not fit one {bsproto.MAX_LINE}-byte line")
        await self._write(line)

    async def request_status(self) -> None:
        await self._write(b"?")

    async def hold(self) -> None:
        await self._write(b"!")

    async def resume(self) -> None:
        await self._write(b"~")

    async def cancel(self) -> None:
        await self._write(bsproto.frame("X"))

    async def clear_interrupted(self, timeout: float) -> None:
        await self._await_hello(bsproto.frame("I"), timeout)

    async def configure(self, key: str, value: float | None = None, timeout: float = 3.0) -> float:
        body = f"K {key}" if value is None else f"K {key} {value:g}"
        await self._write(bsproto.frame(body))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            try:
                event = await within(self.next_event(), deadline - loop.time())
            except TimeoutError:
                break
            if isinstance(event, Configured) and event.key == key:
                return float(event.value)
            if isinstance(event, Rejected) and event.seq == 0 and event.code in ("BAD", "ARG"):
                raise RobotProtocolError(f"robot rejected setting {body[2:]!r} ({event.code})")
        raise LinkLostError(f"no answer to setting {body[2:]!r}")


def make_driver(transport: Transport) -> Driver:
    if transport.url.dialect == "root":
        from hardware.root import RootDriver

        return RootDriver(transport)
    return BoardsideDriver(transport)
