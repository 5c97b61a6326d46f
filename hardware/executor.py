"""Execute a motion program on a robot exactly once, surviving disconnects and host crashes.

The host keeps an execution log in SQLite (WAL, ``synchronous=FULL``): the run id, every
command, which were sent and which the robot reported done (with the pose it reported).
The robot de-duplicates by sequence number and keeps its own journal of the last
completed command.  On every (re)connection the robot's ``hello`` says what it has
acknowledged and completed, and streaming resumes right after the last acknowledged
command; a resent command the robot already has is acknowledged again, never re-run.

Use :func:`execute` (blocking) or :func:`execute_async`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import secrets
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from engine.motion import Heading, Motion, MotionKind, Pose
from hardware.errors import (
    ExecutionLogError,
    HardwareError,
    LinkLostError,
    PoseMismatchError,
    RobotBusyError,
    RobotHoldFailedError,
    RobotInterruptedError,
    RobotRejectedError,
    RobotUnreachableError,
)
from hardware.link import Acked, Command, Done, Driver, Hello, Rejected, RobotState, Status, make_driver, within
from hardware.transport import Transport, make_transport

#: hellos in a row that must name another run before the executor decides the robot lost ours (a damaged
#: hello can pass the CRC-8: one in 256 damaged lines)
RUN_MISMATCH_HELLOS = 3


@dataclass(frozen=True)
class LinkTiming:
    """Timeouts of the link (seconds)."""

    heartbeat: float = 0.25  # send a status request after this much silence
    ack_timeout: float = 1.0  # resend unacknowledged commands after this long without progress
    dead_after: float = 3.0  # no byte at all for this long: the link is dead, reconnect
    connect_timeout: float = 5.0  # one connection attempt (open + hello)
    reconnect_for: float = 60.0  # keep trying to reconnect this long before giving up
    backoff: float = 0.5  # wait between reconnection attempts


@dataclass(frozen=True)
class Progress:
    """One progress report: ``kind`` is connect, reconnect, done, hold, resume or finished."""

    kind: str
    done: int
    total: int
    seq: int = 0
    label: str = ""
    expected: Pose | None = None
    reported: Pose | None = None
    message: str = ""


@dataclass
class RunReport:
    run_id: str
    total: int
    done: int
    reconnects: int = 0
    resumed_from: int = 0
    seconds: float = 0.0
    bad_lines: int = 0
    mismatches: list[tuple[int, str, str]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "total": self.total,
            "done": self.done,
            "reconnects": self.reconnects,
            "resumed_from": self.resumed_from,
            "seconds": round(self.seconds, 3),
            "bad_lines": self.bad_lines,
            "mismatches": [list(m) for m in self.mismatches],
        }


def start_pose_of(motions: Sequence[Motion]) -> Pose:
    """The pose before the first motion, worked back from its expected pose."""
    if not motions:
        raise ExecutionLogError("empty motion program: nothing to execute")
    m = motions[0]
    p = m.expected
    if m.kind is MotionKind.FORWARD:
        return Pose(p.x - p.heading.dx, p.y - p.heading.dy, p.heading)
    if m.kind is MotionKind.BACKWARD:
        return Pose(p.x + p.heading.dx, p.y + p.heading.dy, p.heading)
    if m.kind is MotionKind.TURN_LEFT:
        return Pose(p.x, p.y, p.heading.right())
    if m.kind is MotionKind.TURN_RIGHT:
        return Pose(p.x, p.y, p.heading.left())
    if m.kind.value == "J" and m.arg.isdigit():
        n = int(m.arg)
        return Pose(p.x - p.heading.dx * n, p.y - p.heading.dy * n, p.heading)
    if m.kind.value == "S":
        d = Heading.parse(m.arg)
        return Pose(p.x - d.dx, p.y - d.dy, p.heading)
    return p


def program_commands(motions: Sequence[Motion], start: Pose | None = None) -> list[Command]:
    """Sequence 1 sets the robot's pose to the start pose; then one command per motion."""
    first = start if start is not None else start_pose_of(motions)
    return [Command.set_pose(first), *(Command.from_motion(m) for m in motions)]


# ---------------------------------------------------------------------------- the log
class ExecutionLog:
    """The host's execution log: SQLite in WAL mode, one transaction per state change."""

    SCHEMA = """
    CREATE TABLE IF NOT EXISTS runs (
        run_id TEXT PRIMARY KEY, program_key TEXT NOT NULL, url TEXT NOT NULL,
        total INTEGER NOT NULL, created REAL NOT NULL, finished REAL, status TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS steps (
        run_id TEXT NOT NULL, seq INTEGER NOT NULL, op TEXT NOT NULL, arg TEXT NOT NULL,
        label TEXT NOT NULL, expected TEXT, sent_at REAL, done_at REAL, reported TEXT,
        PRIMARY KEY (run_id, seq));
    CREATE TABLE IF NOT EXISTS events (
        run_id TEXT NOT NULL, at REAL NOT NULL, kind TEXT NOT NULL, detail TEXT NOT NULL);
    """

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, timeout=10.0)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.executescript(self.SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise ExecutionLogError(f"cannot use execution log {self.path!r}: {exc}") from None

    def close(self) -> None:
        self.db.close()

    @staticmethod
    def program_key(commands: Sequence[Command]) -> str:
        text = json.dumps([[c.op, c.arg, str(c.expected) if c.expected else ""] for c in commands])
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def find_unfinished(self, key: str) -> str | None:
        row = self.db.execute(
            "SELECT run_id FROM runs WHERE program_key=? AND status!='finished' ORDER BY created DESC LIMIT 1",
            (key,),
        ).fetchone()
        return None if row is None else str(row[0])

    def create_run(self, commands: Sequence[Command], url: str) -> str:
        run_id = secrets.token_hex(3)
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute(
                "INSERT INTO runs VALUES (?,?,?,?,?,NULL,'running')",
                (run_id, self.program_key(commands), url, len(commands), time.time()),
            )
            self.db.executemany(
                "INSERT INTO steps VALUES (?,?,?,?,?,?,NULL,NULL,NULL)",
                [
                    (run_id, i + 1, c.op, c.arg, c.label, str(c.expected) if c.expected else None)
                    for i, c in enumerate(commands)
                ],
            )
        return run_id

    def done_upto(self, run_id: str) -> int:
        row = self.db.execute(
            "SELECT COALESCE(MAX(seq), 0) FROM steps WHERE run_id=? AND done_at IS NOT NULL", (run_id,)
        ).fetchone()
        return int(row[0])

    def sent_upto(self, run_id: str) -> int:
        row = self.db.execute(
            "SELECT COALESCE(MAX(seq), 0) FROM steps WHERE run_id=? AND sent_at IS NOT NULL", (run_id,)
        ).fetchone()
        return int(row[0])

    def mark_sent(self, run_id: str, upto: int) -> None:
        """Every command up to ``upto`` is (about to be) sent."""
        self.db.execute("UPDATE steps SET sent_at=? WHERE run_id=? AND seq<=? AND sent_at IS NULL",
                        (time.time(), run_id, upto))

    def mark_done(self, run_id: str, upto: int, reported: Pose | None) -> None:
        now = time.time()
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute(
                "UPDATE steps SET done_at=?, sent_at=COALESCE(sent_at, ?) "
                "WHERE run_id=? AND seq<=? AND done_at IS NULL",
                (now, now, run_id, upto),
            )
            if reported is not None:
                self.db.execute("UPDATE steps SET reported=? WHERE run_id=? AND seq=?", (str(reported), run_id, upto))

    def note(self, run_id: str, kind: str, detail: str = "") -> None:
        self.db.execute("INSERT INTO events VALUES (?,?,?,?)", (run_id, time.time(), kind, detail))

    def set_status(self, run_id: str, status: str) -> None:
        finished = time.time() if status == "finished" else None
        self.db.execute("UPDATE runs SET status=?, finished=? WHERE run_id=?", (status, finished, run_id))

    def runs(self) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT run_id, url, total, status, created, finished FROM runs ORDER BY created"
        ).fetchall()
        return [
            {"run_id": r[0], "url": r[1], "total": r[2], "status": r[3], "created": r[4], "finished": r[5],
             "done": self.done_upto(r[0])}
            for r in rows
        ]

    def steps(self, run_id: str) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT seq, op, arg, label, expected, sent_at, done_at, reported FROM steps WHERE run_id=? ORDER BY seq",
            (run_id,),
        ).fetchall()
        keys = ("seq", "op", "arg", "label", "expected", "sent_at", "done_at", "reported")
        return [dict(zip(keys, r, strict=True)) for r in rows]


# ---------------------------------------------------------------------------- executor
InterruptedPolicy = Literal["error", "redo", "skip"]


class _Run:
    def __init__(
        self,
        commands: list[Command],
        driver: Driver,
        log: ExecutionLog,
        run_id: str,
        timing: LinkTiming,
        progress: Callable[[Progress], None] | None,
        check_pose: bool,
        on_interrupted: InterruptedPolicy,
    ) -> None:
        self.commands = commands
        self.total = len(commands)
        self.driver = driver
        self.log = log
        self.run_id = run_id
        self.timing = timing
        self.progress = progress
        self.check_pose = check_pose
        self.on_interrupted = on_interrupted
        self.done = log.done_upto(run_id)
        self.sent_ever = log.sent_upto(run_id)
        self.report = RunReport(run_id, self.total, self.done, resumed_from=self.done)
        self.connected_once = False
        self.run_mismatches = 0  # hellos in a row naming another run (see _stream)
        self.replaced: dict[int, Command] = {}  # seq -> command sent instead (a skipped interrupted move)

    def _tell(self, kind: str, seq: int = 0, reported: Pose | None = None, message: str = "") -> None:
        if self.progress is None:
            return
        cmd = self.commands[seq - 1] if 1 <= seq <= self.total else None
        self.progress(
            Progress(kind, self.done, self.total, seq, cmd.label if cmd else "", cmd.expected if cmd else None,
                     reported, message)
        )

    def _mark_done(self, upto: int, pose: Pose | None) -> None:
        upto = min(upto, self.total)
        if upto <= self.done:
            return
        self.log.mark_done(self.run_id, upto, pose)
        first = self.done + 1
        self.done = upto
        self.report.done = upto
        for seq in range(first, upto + 1):
            self._tell("done", seq, pose if seq == upto else None)
        expected = self.commands[upto - 1].expected
        if self.check_pose and pose is not None and expected is not None and pose != expected:
            self.report.mismatches.append((upto, str(expected), str(pose)))
            self.log.note(self.run_id, "pose-mismatch", f"#{upto}: expected {expected}, robot reports {pose}")
            raise PoseMismatchError(
                f"after move #{upto - 1} {self.commands[upto - 1].label!r} the robot reports pose {str(pose)!r}, "
                f"expected {str(expected)!r}; robot held (re-place it, then resume)"
            )

    async def run(self) -> RunReport:
        t0 = time.monotonic()
        loop = asyncio.get_running_loop()
        give_up_at: float | None = None
        while self.done < self.total:
            try:
                state = await self.driver.connect(self.run_id, self.sent_ever, self.done, self.timing.connect_timeout)
            except (RobotUnreachableError, LinkLostError) as exc:
                if not self.connected_once and isinstance(exc, RobotUnreachableError):
                    raise
                now = loop.time()
                give_up_at = give_up_at or now + self.timing.reconnect_for
                if now >= give_up_at:
                    raise RobotUnreachableError(
                        f"lost the robot and could not reconnect within {self.timing.reconnect_for:g} s "
                        f"({self.done}/{self.total} commands done; run again with --resume): {exc}"
                    ) from None
                self._tell("reconnect", message=str(exc))
                await asyncio.sleep(self.timing.backoff)
                continue
            give_up_at = None
            self._tell("connect" if not self.connected_once else "reconnect",
                       message=f"connected (robot epoch {state.epoch})")
            if self.connected_once:
                self.report.reconnects += 1
                self.log.note(self.run_id, "reconnect", f"epoch {state.epoch} acked {state.acked} done {state.done}")
            self.connected_once = True
            try:
                await self._session(state)
            except LinkLostError as exc:
                self.log.note(self.run_id, "link-lost", str(exc))
                self._tell("reconnect", message=str(exc))
                with contextlib.suppress(Exception):
                    await self.driver.close()
                continue
            except Exception:
                with contextlib.suppress(Exception):
                    await self.driver.close()
                raise  # (a cancellation leaves the link open: execute_async holds the robot first)
        with contextlib.suppress(Exception):
            await self.driver.close()
        self.log.set_status(self.run_id, "finished")
        self.report.seconds = time.monotonic() - t0
        self.report.bad_lines = self.driver.bad_lines
        self._tell("finished", self.total)
        return self.report

    async def _session(self, state: RobotState) -> None:
        try:
            await self._stream(state)
        except PoseMismatchError:
            with contextlib.suppress(Exception):
                await self.driver.hold()  # stop where it is: a person must look at the table
            raise

    async def _stream(self, state: RobotState) -> None:
        t = self.timing
        drv = self.driver
        loop = asyncio.get_running_loop()
        if state.run != self.run_id:
            if self.sent_ever == 0 or (not drv.deduplicates and self.done == self.sent_ever):
                state = await drv.begin_run(self.run_id, t.connect_timeout)
                if not drv.deduplicates:
                    # the Root numbers commands itself; nothing of ours is outstanding
                    pass
            elif self.run_mismatches < RUN_MISMATCH_HELLOS - 1:
                # a damaged hello can pass the CRC-8 (1 in 256 damaged lines): say hello again before
                # deciding the robot lost the run (session 12: the 1000-disconnect fault campaign stopped
                # once on a hello whose run id had lost a byte, '19378c' read as '1378c')
                self.run_mismatches += 1
                raise LinkLostError(f"the robot's hello named run {state.run!r}, not {self.run_id!r}: asking again")
            else:
                raise ExecutionLogError(
                    f"the robot no longer knows run {self.run_id!r} (it reports run {state.run!r}): "
                    f"{self.done} of {self.total} commands were done; re-place the robot at "
                    f"{self.commands[self.done - 1].expected if self.done else 'the start'} and start a new run"
                )
        self.run_mismatches = 0
        if state.interrupted:
            seq = state.interrupted
            if seq > max(self.done, state.done) and seq <= self.total:
                label = self.commands[seq - 1].label
                before = self.commands[seq - 2].expected if seq >= 2 else None
                after = self.commands[seq - 1].expected
                self.log.note(self.run_id, "interrupted", f"#{seq}")
                if self.on_interrupted == "error":
                    raise RobotInterruptedError(
                        f"move #{seq - 1} {label!r} was cut short (robot reset, cancel, or a lost link on a robot "
                        f"that cannot tell): where the robot stopped is unknown; put it back at {before} and "
                        f"resume with --redo-interrupted, or at {after} and resume with --skip-interrupted",
                        seq,
                    )
                if self.on_interrupted == "skip" and after is not None:
                    # the person put the robot where the move ends: tell the robot that pose
                    # under the same sequence number instead of repeating the move
                    self.replaced[seq] = Command.set_pose(after)
                self.log.note(self.run_id, f"interrupted-{self.on_interrupted}", f"#{seq}")
            await drv.clear_interrupted(t.connect_timeout)
        self._mark_done(state.done, state.pose if state.done else None)
        acked = max(state.acked, state.done)
        if acked < self.done and drv.deduplicates:
            # the robot was reset and its journal is older than our log: nothing can be trusted
            raise ExecutionLogError(
                f"the robot reports {state.done} commands done but the log records {self.done}: "
                "it is not the robot this run was started on, or its journal was erased"
            )
        if state.state == "hold":
            await drv.resume()
            self._tell("resume", message="robot was held; resuming")
        nxt = max(acked, self.done) + 1
        free = state.free
        last_rx = loop.time()
        last_progress = loop.time()
        while self.done < self.total:
            burst = min(self.total, nxt + free - 1, self.done + drv.window)
            if burst >= nxt:
                if burst > self.sent_ever:
                    # logged *before* the bytes leave (one transaction per burst): a robot that
                    # cannot de-duplicate (the Root) must never get a command the log does not know
                    self.log.mark_sent(self.run_id, burst)
                    self.sent_ever = burst
                for seq in range(nxt, burst + 1):
                    await drv.send(seq, self.replaced.get(seq) or self.commands[seq - 1])
                free -= burst - nxt + 1
                nxt = burst + 1
            try:
                event = await within(drv.next_event(), t.heartbeat)
            except TimeoutError:
                now = loop.time()
                if now - last_rx > t.dead_after:
                    raise LinkLostError(f"robot silent for {now - last_rx:.1f} s") from None
                if nxt - 1 > acked and now - last_progress > t.ack_timeout:
                    nxt = acked + 1  # resend what was not acknowledged; the robot de-duplicates
                    free = 0  # until a status tells the real credit
                    last_progress = now
                await drv.request_status()
                continue
            now = loop.time()
            last_rx = now
            sent_top = nxt - 1
            if isinstance(event, Acked):
                if event.seq <= sent_top and event.seq >= acked:
                    if event.seq > acked:
                        last_progress = now
                    acked = event.seq
                    free = event.free - (sent_top - acked)
            elif isinstance(event, Done):
                if event.seq <= max(sent_top, self.done):
                    if event.seq > acked:
                        acked = event.seq
                    if event.seq > self.done:
                        last_progress = now
                    self._mark_done(event.seq, event.pose)
            elif isinstance(event, Status):
                if event.acked <= sent_top:
                    if event.acked > acked:
                        last_progress = now
                    acked = max(acked, event.acked)
                    free = event.free - (sent_top - event.acked)
                    if event.done > self.done and event.done <= sent_top:
                        self._mark_done(event.done, event.pose)
                    if event.state == "hold":
                        await drv.resume()  # a hold we did not ask for (line noise): carry on
                        self._tell("resume", message="unexpected hold cleared")
                    if event.acked < sent_top and now - last_progress > t.ack_timeout:
                        nxt = event.acked + 1
                        last_progress = now
                        free = event.free
            elif isinstance(event, Rejected):
                if event.code == "GAP" and event.value >= 1:
                    nxt = min(nxt, event.value)
                    acked = max(acked, event.value - 1) if event.value - 1 <= sent_top else acked
                    free = 0
                    await drv.request_status()
                elif event.code in ("FULL", "CRC"):
                    if event.code == "FULL" and event.seq >= 1:
                        nxt = min(nxt, event.seq)
                    free = 0
                    await drv.request_status()
                elif event.code == "BUSY":
                    raise RobotBusyError("the robot is busy with another run")
                elif event.code == "INT":
                    # the robot restarted (or was cancelled) mid-move: say hello again, decide there
                    raise LinkLostError(f"the robot reports move #{event.value} interrupted")
                elif 1 <= event.seq <= self.total:
                    label = self.commands[event.seq - 1].label
                    raise RobotRejectedError(f"the robot rejected command #{event.seq} {label!r}: {event.code}")
                # a BAD/ARG for seq 0 is a line garbled into something else: the status request recovers
                else:
                    await drv.request_status()
            elif isinstance(event, Hello) and event.state.epoch != state.epoch:
                raise LinkLostError("the robot restarted")


async def execute_async(
    motions: Sequence[Motion],
    transport_url: str | None,
    log_db: str | Path,
    *,
    start: Pose | None = None,
    progress: Callable[[Progress], None] | None = None,
    resume: bool = True,
    timing: LinkTiming | None = None,
    transport: Transport | None = None,
    check_pose: bool = True,
    on_interrupted: InterruptedPolicy = "error",
    commands: list[Command] | None = None,
    inject: dict[str, Any] | None = None,
) -> RunReport:
    """Run ``motions`` on the robot at ``transport_url`` exactly once; see module docs.

    ``resume``: continue the latest unfinished run of the same program in ``log_db``.
    On cancellation (Ctrl-C) the robot is held (out-of-band e-stop) and the run can be
    resumed later.  Raises :class:`HardwareError` subclasses for link and robot problems.
    """
    cmds = commands if commands is not None else program_commands(motions, start)
    if transport is None:
        if transport_url is None:
            raise ValueError("give transport_url or transport")
        transport = make_transport(transport_url, **(inject or {}))
    driver = make_driver(transport)
    log = ExecutionLog(log_db)
    try:
        key = log.program_key(cmds)
        run_id = log.find_unfinished(key) if resume else None
        if run_id is None:
            run_id = log.create_run(cmds, str(transport.url))
        runner = _Run(cmds, driver, log, run_id, timing or LinkTiming(), progress, check_pose, on_interrupted)
        try:
            return await runner.run()
        except (asyncio.CancelledError, KeyboardInterrupt):
            hold_failed: str | None = None
            try:
                await within(asyncio.shield(driver.hold()), 1.0)
            except BaseException as exc:  # any failure (lost link, time limit, a second Ctrl-C): not held
                hold_failed = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            # never say "held" when the stop did not leave: queued moves may still be running
            not_held = hold_failed is not None and runner.sent_ever > 0
            log.note(run_id, "stopped", f"interrupted by the user; the hold could not be sent ({hold_failed})"
                     if not_held else "interrupted by the user; robot held")
            log.set_status(run_id, "stopped")
            with contextlib.suppress(BaseException):
                await within(driver.close(), 1.0)
            if not_held:
                raise RobotHoldFailedError(
                    f"stopped by the user, but the hold could not be sent to the robot ({hold_failed}): it may "
                    f"still be carrying out queued moves -- press its stop button or switch it off; the run log "
                    f"records {runner.done} of {runner.total} commands done (run again to resume)"
                ) from None
            raise
        except HardwareError as exc:
            log.note(run_id, "error", str(exc))
            log.set_status(run_id, "failed")
            raise
    finally:
        log.close()


def execute(motions: Sequence[Motion], transport_url: str, log_db: str | Path, **kwargs: Any) -> RunReport:
    """Blocking :func:`execute_async`."""
    return asyncio.run(execute_async(motions, transport_url, log_db, **kwargs))
