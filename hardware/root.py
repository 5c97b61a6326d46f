"""The iRobot Root BLE protocol as a second robot dialect, and a *simulated* Root.

Implemented from iRobot's public "Root Robot Bluetooth Low Energy Protocol
Documentation" (github.com/iRobotEducation/root-robot-ble-protocol, protocol 1.3):

* every packet is 20 bytes: device, command, packet id, 16-byte payload, CRC-8
  (polynomial 0x07, init 0 -- the same CRC as our protocol; a CRC of 0 is always accepted);
* the host's packet id increments per packet (0 resets the count); responses repeat the id;
* Device 0 (General): 0 Get Versions, 3 Stop and Reset;
* Device 1 (Motors): 8 Drive Distance (int32 mm), 12 Rotate Angle (int32 decidegrees,
  clockwise positive), 15 Reset Position, 16 Get Position (response: uint32 timestamp,
  int16 x mm (right), int16 y mm (forward), int16 heading decidegrees clockwise); 8 and 12
  send a "finished" response with the request's id when the move finishes *or is
  interrupted* by a new movement command;
* Device 5 (Sound): 0 Play Note (uint32 Hz, uint16 ms), finished response when done.

The Root keeps no sequence numbers, so it cannot de-duplicate a resent command: this
driver sends one move at a time, and a move whose "finished" response was lost to a
disconnect is reported as *interrupted* (at most once, never silently repeated).  After
each move the driver reads the Root's own position estimate and converts it to a grid
pose, which the executor compares with the expected one.  The Root resets its position
on every new connection; the driver re-anchors it to the last confirmed pose.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass

from engine.motion import Heading, Pose
from hardware.errors import RobotProtocolError, RobotUnreachableError
from hardware.firmware.bsproto import crc8
from hardware.link import Acked, Command, Done, Driver, Event, RobotState, Status, within
from hardware.transport import Transport

DEV_GENERAL, DEV_MOTORS, DEV_SOUND = 0, 1, 5
GET_VERSIONS, STOP_AND_RESET = 0, 3
DRIVE_DISTANCE, ROTATE_ANGLE, RESET_POSITION, GET_POSITION = 8, 12, 15, 16
PLAY_NOTE = 0
BOARD_MAIN = 0xA5
ROOT_IDENTIFIER_SERVICE = "48c5d828-ac2a-442d-97a3-0c9822b04979"  # advertised by every Root


@dataclass(frozen=True)
class RootPacket:
    """One 20-byte Root packet; ``bytes(p)`` encodes it with its CRC."""

    device: int
    command: int
    id: int
    payload: bytes = b""

    def __bytes__(self) -> bytes:
        if len(self.payload) > 16:
            raise RobotProtocolError(f"Root payload too long: {self.payload!r}")
        body = bytes((self.device, self.command, self.id & 0xFF)) + self.payload.ljust(16, b"\0")
        return body + bytes((crc8(body),))

    @classmethod
    def decode(cls, data: bytes) -> RootPacket | None:
        """None if ``data`` is not 20 bytes or its CRC is wrong (0 is accepted, per the spec)."""
        if len(data) != 20:
            return None
        if data[19] != 0 and crc8(data[:19]) != data[19]:
            return None
        return cls(data[0], data[1], data[2], bytes(data[3:19]))


def grid_pose(origin: Pose, x_mm: float, y_mm: float, heading_dd: int, cell_mm: float) -> Pose:
    """The Root's odometry (x right, y forward of where it started; heading clockwise) -> grid pose."""
    f = origin.heading
    r = f.right()
    dx = (y_mm * f.dx + x_mm * r.dx) / cell_mm
    dy = (y_mm * f.dy + x_mm * r.dy) / cell_mm
    quarter = round(heading_dd / 900.0) % 4
    h = f
    for _ in range(quarter):
        h = h.right()
    return Pose(origin.x + round(dx), origin.y + round(dy), h)


class RootDriver(Driver):
    """Drives an iRobot Root (or :class:`SimulatedRoot`) through the executor interface."""

    window = 1
    deduplicates = False
    reask_after = 1.0  # seconds: a position answer not heard by then is asked for again

    def __init__(self, transport: Transport, cell_mm: float | None = None) -> None:
        super().__init__(transport)
        self.cell_mm = cell_mm if cell_mm is not None else float(transport.url.options.get("cell", "150"))
        self._id = 0
        self._buf = b""
        self._pending: list[Event] = []
        self._waiting: dict[int, tuple[int, int]] = {}  # packet id -> (seq, packets still to finish)
        self._position_for: dict[int, int] = {}  # Get Position packet id -> seq
        self._position_asked = 0.0  # loop time of the last Get Position written
        self._sent = 0
        self._done = 0
        self.origin: Pose | None = None
        self._last_pose: Pose | None = None

    def _next_id(self) -> int:
        pid = self._id
        self._id = (self._id + 1) & 0xFF
        return pid

    async def _send_packet(self, device: int, command: int, payload: bytes = b"") -> int:
        pid = self._next_id()
        await self.transport.write(bytes(RootPacket(device, command, pid, payload)))
        return pid

    async def _read_packets(self) -> None:
        self._buf += await self.transport.read()
        while len(self._buf) >= 20:
            pkt = RootPacket.decode(self._buf[:20])
            if pkt is None:
                self._buf = self._buf[1:]  # resynchronise
                self.bad_lines += 1
                continue
            self._buf = self._buf[20:]
            self._on_packet(pkt)

    def _on_packet(self, pkt: RootPacket) -> None:
        if pkt.device in (DEV_MOTORS, DEV_SOUND) and pkt.id in self._waiting and pkt.command in (
            DRIVE_DISTANCE, ROTATE_ANGLE, PLAY_NOTE,
        ):
            seq, left = self._waiting.pop(pkt.id)
            if left > 1:
                return  # first half of a bump; the second packet's response finishes it
            self._position_for[-1] = seq  # ask for the position; resolved in next_event
            return
        if pkt.device == DEV_MOTORS and pkt.command == GET_POSITION and pkt.id in self._position_for:
            seq = self._position_for.pop(pkt.id)
            # a request asked again has two ids: the first answer settles both, a late one is ignored
            for pid in [p for p, s in self._position_for.items() if p >= 0 and s <= seq]:
                del self._position_for[pid]
            _, x, y, hd = struct.unpack(">Ihhh", pkt.payload[:10])
            pose = grid_pose(self.origin, x, y, hd, self.cell_mm) if self.origin else None
            self._done = seq
            self._last_pose = pose
            self._pending.append(Done(seq, pose))
            self._pending.append(Status(self._sent, self._done, 1, pose, "idle"))
        elif pkt.device == DEV_GENERAL and pkt.command == GET_VERSIONS:
            self._pending.append(Status(self._sent, self._done, 1 if self._sent == self._done else 0, None, "hello"))

    async def next_event(self) -> Event:
        while not self._pending:
            if -1 in self._position_for:
                # the request is recorded before it is written, and the write is shielded: the caller
                # waits for an event with a time limit, and a request cut off half-way would leave the
                # move's completion unheard for ever (the run would wait with the robot idle)
                seq = self._position_for.pop(-1)
                pid = self._next_id()
                self._position_for[pid] = seq
                self._position_asked = asyncio.get_running_loop().time()
                await asyncio.shield(self.transport.write(bytes(RootPacket(DEV_MOTORS, GET_POSITION, pid, b""))))
            await self._read_packets()
        return self._pending.pop(0)

    async def connect(self, run: str, sent: int, done: int, timeout: float) -> RobotState:
        self._buf = b""
        self._pending = []
        self._waiting = {}
        self._position_for = {}
        self._id = 0
        self._sent, self._done = sent, done
        await self.transport.open()
        try:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + timeout
            while True:
                await self._send_packet(DEV_GENERAL, GET_VERSIONS, bytes((BOARD_MAIN,)))
                try:
                    event = await within(self.next_event(), min(0.5, max(0.01, deadline - loop.time())))
                except TimeoutError:
                    if loop.time() >= deadline:
                        raise RobotUnreachableError(
                            f"no answer from a Root robot at {self.transport.url} within {timeout:g} s"
                        ) from None
                    continue
                if isinstance(event, Status) and event.state == "hello":
                    break
        except BaseException:
            with contextlib.suppress(Exception):
                await self.transport.close()
            raise
        # a new connection resets the Root's position estimate: the last confirmed pose is the origin
        if self._last_pose is not None:
            self.origin = self._last_pose
        interrupted = sent if sent > done else 0
        return RobotState(0, run, done, done, 1, 1, self._last_pose, "idle", interrupted, 0)

    async def begin_run(self, run: str, timeout: float) -> RobotState:
        return RobotState(0, run, self._done, self._done, 1, 1, None, "idle")

    async def send(self, seq: int, command: Command) -> None:
        c = self.cell_mm
        op = command.op
        self._sent = seq
        if op == "O":
            # "set pose": reset the Root's odometry here and remember which grid pose it is
            await self._send_packet(DEV_MOTORS, RESET_POSITION)
            self.origin = command.expected
            self._last_pose = command.expected
            self._done = seq
            self._pending.append(Acked(seq, 0))
            self._pending.append(Done(seq, command.expected))
            self._pending.append(Status(seq, seq, 1, command.expected, "idle"))
            return
        plan: list[tuple[int, int, bytes]]
        def drive(mm: int) -> tuple[int, int, bytes]:
            return (DEV_MOTORS, DRIVE_DISTANCE, struct.pack(">i", mm))

        def rotate(dd: int) -> tuple[int, int, bytes]:
            return (DEV_MOTORS, ROTATE_ANGLE, struct.pack(">i", dd))

        if op in ("F", "B", "J", "G"):
            mm = {"F": round(c), "B": -round(c)}.get(op) or (
                int(command.arg) if op == "J" else round(c * int(command.arg)))
            plan = [drive(mm)]
        elif op in ("S", "XS") and command.expected is not None:
            # the Root cannot move sideways either: face the direction, move, face back
            turn = ("NESW".index(command.arg) - "NESW".index(command.expected.heading.name)) % 4
            third = round(c / 3)
            moves = [drive(round(c))] if op == "S" else [drive(third), drive(-third)]
            if turn == 2:
                moves = [drive(-round(c))] if op == "S" else [drive(-third), drive(third)]
            elif turn in (1, 3):
                angle = 900 if turn == 1 else -900
                moves = [rotate(angle), *moves, rotate(-angle)]
            plan = moves
        elif op in ("L", "R", "T"):
            dd = int(command.arg) * 10 if op == "T" else (-900 if op == "L" else 900)
            plan = [(DEV_MOTORS, ROTATE_ANGLE, struct.pack(">i", dd))]
        elif op in ("XF", "XB"):
            third = round(c / 3) * (1 if op == "XF" else -1)
            plan = [(DEV_MOTORS, DRIVE_DISTANCE, struct.pack(">i", third)),
                    (DEV_MOTORS, DRIVE_DISTANCE, struct.pack(">i", -third))]
        elif op in ("P", "D", "W"):
            hz = 880 if op == "P" else 440
            ms = int(command.arg) if op == "W" else 150
            plan = [(DEV_SOUND, PLAY_NOTE, struct.pack(">IH", 0 if op == "W" else hz, ms))]
        else:
            raise RobotProtocolError(f"the Root dialect cannot perform {command.label!r}")
        # a new movement command interrupts the current one on a Root, so a two-part move
        # sends its second half only when the first has finished (see _run_plan)
        self._pending.append(Acked(seq, 0))
        asyncio.get_running_loop().create_task(self._run_plan(seq, plan))

    async def _run_plan(self, seq: int, plan: list[tuple[int, int, bytes]]) -> None:
        for i, (dev, cmd, payload) in enumerate(plan):
            left = len(plan) - i
            pid = self._next_id()
            self._waiting[pid] = (seq, left)
            try:
                await self.transport.write(bytes(RootPacket(dev, cmd, pid, payload)))
            except Exception:
                return
            while pid in self._waiting:
                await asyncio.sleep(0.005)

    async def request_status(self) -> None:
        """Ask the robot itself, so that only bytes it sends count as signs of life.

        The Root has no status query, so this is a Get Versions round trip; its answer becomes a
        Status from the driver's own counts (see ``_on_packet``).  A robot that has gone silent
        therefore lets the executor's dead-link timer fire, instead of being answered for locally.
        A position answer outstanding for longer than ``reask_after`` is asked for again: Get
        Position is idempotent, and without its answer a finished move would never be reported.
        Writes are shielded for the same reason as in ``next_event``.
        """
        loop = asyncio.get_running_loop()
        asked = [pid for pid in self._position_for if pid >= 0]
        if asked and loop.time() - self._position_asked > self.reask_after:
            pid = self._next_id()
            self._position_for[pid] = self._position_for[asked[-1]]
            self._position_asked = loop.time()
            await asyncio.shield(self.transport.write(bytes(RootPacket(DEV_MOTORS, GET_POSITION, pid, b""))))
        pid = self._next_id()
        await asyncio.shield(self.transport.write(bytes(RootPacket(DEV_GENERAL, GET_VERSIONS, pid,
                                                                   bytes((BOARD_MAIN,))))))

    async def hold(self) -> None:
        await self._send_packet(DEV_GENERAL, STOP_AND_RESET)

    async def resume(self) -> None:
        return None  # a Root cannot resume a stopped move

    async def cancel(self) -> None:
        await self._send_packet(DEV_GENERAL, STOP_AND_RESET)


class SimulatedRoot:
    """A *simulated* iRobot Root: the packet handling and motion timing of the public spec.

    Speeds: 100 mm/s driving (the spec's maximum wheel speed), 180 degrees/s turning,
    scaled by ``time_factor``.  Same attach/detach/receive interface as SimulatedRobot.
    """

    def __init__(self, time_factor: float = 1.0, tick_s: float = 0.002) -> None:
        self.time_factor = time_factor
        self.tick_s = tick_s
        self._emit: Callable[[bytes], None] | None = None
        self._buf = b""
        self.x = 0.0
        self.y = 0.0
        self.heading_dd = 0  # decidegrees clockwise
        self.current: tuple[RootPacket, float] | None = None  # the move and when it ends
        self.executed: list[tuple[int, int, int]] = []  # (device, command, int value) started
        self.event_id = 0
        self.t0 = time.monotonic()
        self._task: asyncio.Task[None] | None = None

    def attach(self, emit: Callable[[bytes], None]) -> None:
        self._emit = emit
        self._reset_position()  # "...and when a new Bluetooth connection is made"

    def detach(self) -> None:
        self._emit = None

    def ensure_running(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        while True:
            self.tick()
            await asyncio.sleep(self.tick_s)

    def _reset_position(self) -> None:
        self.x = self.y = 0.0
        self.heading_dd = 0

    def _send(self, pkt: RootPacket) -> None:
        if self._emit is not None:
            self._emit(bytes(pkt))

    def receive(self, data: bytes) -> None:
        self._buf += data
        while len(self._buf) >= 20:
            pkt = RootPacket.decode(self._buf[:20])
            if pkt is None:
                self._buf = self._buf[1:]
                continue
            self._buf = self._buf[20:]
            self._handle(pkt)

    def _finish(self, interrupted: bool = False) -> None:
        if self.current is None:
            return
        pkt, _ = self.current
        self.current = None
        value = struct.unpack(">i", pkt.payload[:4])[0] if pkt.device == DEV_MOTORS else 0
        if pkt.device == DEV_MOTORS and pkt.command == DRIVE_DISTANCE:
            rad = math.radians(self.heading_dd / 10.0)
            self.x += value * math.sin(rad)
            self.y += value * math.cos(rad)
        elif pkt.device == DEV_MOTORS and pkt.command == ROTATE_ANGLE:
            self.heading_dd = (self.heading_dd + value) % 3600
        self._send(RootPacket(pkt.device, pkt.command, pkt.id))

    def _handle(self, pkt: RootPacket) -> None:
        if pkt.device == DEV_GENERAL and pkt.command == GET_VERSIONS:
            self._send(RootPacket(0, 0, pkt.id, bytes((pkt.payload[0], 2, 1, 1, 0, 0, 0, 1, 3))))
        elif pkt.device == DEV_GENERAL and pkt.command == STOP_AND_RESET:
            self.current = None  # stop now, cancel pending actions
            self._reset_position()
        elif pkt.device == DEV_MOTORS and pkt.command in (DRIVE_DISTANCE, ROTATE_ANGLE):
            if self.current is not None:
                self._finish(interrupted=True)  # a new movement command interrupts the current one
            value = struct.unpack(">i", pkt.payload[:4])[0]
            seconds = abs(value) / 100.0 if pkt.command == DRIVE_DISTANCE else abs(value) / 1800.0
            self.executed.append((pkt.device, pkt.command, value))
            self.current = (pkt, time.monotonic() + seconds * self.time_factor)
        elif pkt.device == DEV_SOUND and pkt.command == PLAY_NOTE:
            _, ms = struct.unpack(">IH", pkt.payload[:6])
            self.executed.append((pkt.device, pkt.command, ms))
            if self.current is not None and self.current[0].device == DEV_SOUND:
                self._finish(interrupted=True)
            self.current = (pkt, time.monotonic() + ms / 1000.0 * self.time_factor)
        elif pkt.device == DEV_MOTORS and pkt.command == RESET_POSITION:
            self._reset_position()
        elif pkt.device == DEV_MOTORS and pkt.command == GET_POSITION:
            ms = int((time.monotonic() - self.t0) * 1000) & 0xFFFFFFFF
            self._send(RootPacket(1, 16, pkt.id, struct.pack(">Ihhh", ms, round(self.x), round(self.y),
                                                               self.heading_dd % 3600)))

    def tick(self) -> None:
        if self.current is not None and time.monotonic() >= self.current[1]:
            self._finish()

    def idle(self) -> bool:
        return self.current is None


__all__ = ["Heading", "RootDriver", "RootPacket", "SimulatedRoot", "grid_pose"]
