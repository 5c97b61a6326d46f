"""The *simulated* robot firmware behind a pseudo-terminal, in its own process.

``python -m hardware.simfw [options]`` opens a pty, prints the path of its serial end
(e.g. ``/dev/pts/7``) on the first line of stdout, and then behaves like a robot on a USB
serial cable: bytes travel at the chosen baud rate (10 bits per byte, both ways), opening
the port resets the board and prints a banner after a boot delay (like an Arduino; bytes
sent while it boots are lost), closing the port does not stop a robot that is driving.
The protocol state machine is :mod:`hardware.firmware.bsproto`, the firmware's own.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import os
import random
import select
import sys
import termios
import time
import tty

from hardware.firmware import bsproto
from hardware.sim import SimDrive, SimFlash

BANNER = b"# Boardside robot firmware 1.0 (simulated board) ready\r\n"


class PtyBoard:
    def __init__(self, baud: int, time_factor: float, reset_on_open: bool, boot_ms: float,
                 state: str | None, record: str | None, queue: int, slow_move: tuple[int, float] | None = None) -> None:
        self.byte_s = 10.0 / baud
        self.time_factor = time_factor
        self.slow_move = slow_move  # (n, factor): the n-th move started (from 1) takes factor times as long
        self.reset_on_open = reset_on_open
        self.boot_s = boot_ms / 1000.0
        self.flash = SimFlash(state)
        self.record = open(record, "a", buffering=1) if record else None  # noqa: SIM115
        self.queue = queue
        self.tx: collections.deque[int] = collections.deque()
        self.rx: collections.deque[tuple[float, int]] = collections.deque()
        self.next_tx = 0.0
        self.last_rx = 0.0
        self.booted_at = 0.0
        self.banner_due = False
        self.recorded = 0
        self.started = 0  # moves started since power-up
        self.slowed = False  # the move under way is the slow one
        self.core = self._boot()

    def _boot(self) -> bsproto.RobotCore:
        self.drive = SimDrive(lambda: self.core.config, self.time_factor)
        core = bsproto.RobotCore(self._emit, self.drive, self.flash, random.randrange(1, 1 << 30), self.queue)
        core.executed = []
        self.recorded = 0
        return core

    def _emit(self, data: bytes) -> None:
        if not self.tx:  # the transmitter was idle: the first byte starts now
            self.next_tx = max(self.next_tx, time.monotonic())
        self.tx.extend(data)

    def on_open(self, master: int) -> None:
        termios.tcflush(master, termios.TCIOFLUSH)
        if not self.reset_on_open:  # what the last host sent arrives before anything the new one sends
            self.deliver(float("inf"))
        self.tx.clear()  # (the replies to it went to the last host)
        self.rx.clear()
        if self.reset_on_open:
            self.drive.abort()
            self.core = self._boot()
            self.booted_at = time.monotonic() + self.boot_s
            self.banner_due = True

    def deliver(self, now: float) -> None:
        """Feed the core every received byte whose last bit is on the wire by ``now``."""
        while self.rx and self.rx[0][0] <= now:
            _, b = self.rx.popleft()
            if now >= self.booted_at:  # a booting board hears nothing
                self.core.feed(bytes((b,)))

    def closed_tick(self, now: float) -> None:
        """Nobody has the port open: bytes the last host wrote before closing still arrive (they were on
        the wire: a hold sent just before the host exits must hold the robot), replies go nowhere."""
        self.deliver(now)
        self.core.tick()
        self.tx.clear()

    def pump(self, master: int, now: float) -> None:
        if self.banner_due and now >= self.booted_at:
            self.banner_due = False
            self._emit(BANNER)
        self.deliver(now)
        if self.slow_move is not None:  # (before the tick that may start the next move)
            self.drive.time_factor = self.time_factor * (self.slow_move[1] if self.started + 1 == self.slow_move[0]
                                                         else 1.0)
        self.core.tick()
        if self.core.executed is not None and len(self.core.executed) != self.started:
            self.started = len(self.core.executed)
            self.slowed = self.slow_move is not None and self.started == self.slow_move[0]
        if self.slow_move is not None and self.drive.remaining is not None:
            # held: the stall is over (the wheel is free again), the rest of the move goes at speed
            if self.slowed:
                self.drive.remaining /= self.slow_move[1]
            self.slow_move, self.slowed = None, False
            self.drive.time_factor = self.time_factor
        if self.record is not None:
            while self.core.executed is not None and self.recorded < len(self.core.executed):
                seq, op, arg = self.core.executed[self.recorded]
                self.record.write(f"{self.core.run} {seq} {op} {arg}\n")
                self.recorded += 1
        # every byte leaves no earlier than its last bit would on the wire (10 bits per byte)
        out = bytearray()
        while self.tx and self.next_tx + self.byte_s <= now:
            out.append(self.tx.popleft())
            self.next_tx += self.byte_s
        if out:
            with contextlib.suppress(OSError):
                os.write(master, bytes(out))

    def receive(self, data: bytes, now: float) -> None:
        t = max(now, self.last_rx)
        for b in data:
            t += self.byte_s
            self.rx.append((t, b))
        self.last_rx = t

    def next_wakeup(self, now: float) -> float:
        """Sleep until something observable is due: a whole line (or real-time byte) has
        arrived, or the last byte of an outgoing line is on the wire.  Bytes are never
        delivered early, only sometimes together (as a USB-serial bridge does)."""
        waits = [0.002]
        if self.tx:
            try:
                n = list(self.tx).index(0x0A) + 1
            except ValueError:
                n = len(self.tx)
            waits.append(max(0.0, self.next_tx + n * self.byte_s - now))
        if self.rx:
            due = self.rx[-1][0]
            for t, b in self.rx:
                if b in (0x0A, 0x21, 0x3F, 0x7E):
                    due = t
                    break
            waits.append(max(0.0, due - now))
        return min(waits)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baud", type=int, default=115200)
    ap.add_argument("--time", type=float, default=1.0, help="time factor of moves (0.01: 100x faster)")
    ap.add_argument("--no-reset-on-open", action="store_true", help="behave like a native-USB board")
    ap.add_argument("--boot-ms", type=float, default=50.0)
    ap.add_argument("--state", default=None, help="simulated flash file (journal survives restarts)")
    ap.add_argument("--record", default=None, help="append every move started to this file")
    ap.add_argument("--queue", type=int, default=8)
    ap.add_argument("--slow-move", default=None, metavar="N:FACTOR", help="the N-th move started takes FACTOR "
                    "times as long, until the robot is first held (a stalled wheel: tests interrupt a run there "
                    "without racing the clock)")
    args = ap.parse_args(argv)
    slow: tuple[int, float] | None = None
    if args.slow_move:
        try:
            n_text, f_text = args.slow_move.split(":")
            slow = (int(n_text), float(f_text))
        except ValueError:
            ap.error(f"--slow-move {args.slow_move!r}: expected N:FACTOR, e.g. 4:20")
    master, slave = os.openpty()
    tty.setraw(slave)
    print(os.ttyname(slave), flush=True)
    os.close(slave)
    board = PtyBoard(args.baud, args.time, not args.no_reset_on_open, args.boot_ms, args.state, args.record,
                     args.queue, slow)
    opened = False
    try:
        while True:
            now = time.monotonic()
            r, _, _ = select.select([master], [], [], board.next_wakeup(now))
            now = time.monotonic()
            if r:
                try:
                    data = os.read(master, 4096)
                except OSError:
                    opened = False  # nobody has the port open (EIO)
                    board.closed_tick(now)
                    time.sleep(0.002)
                    continue
                if not opened:
                    opened = True
                    board.on_open(master)
                board.receive(data, now)
            elif not opened:
                opened = True
                board.on_open(master)
            board.pump(master, now)
    except KeyboardInterrupt:
        return 0
    finally:
        sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
