"""The camera-watched closed loop: drive a Quirky Circuits program card by card and correct the robot.

After every card that moves the robot, a frame is captured and the robot's pose is read from its
printed tag (:mod:`vision.robot_tag`).  The seen pose is compared with the pose the engine expects
(the centre of the expected cell, facing the expected heading):

* within the tolerance (default 15 mm, 10 degrees): carry on;
* off by more, but not more than the loop is allowed to correct (default 0.6 cell, 35 degrees): send a
  few *jog* moves (protocol ``T`` turn by degrees, ``J`` drive millimetres: turn toward the cell
  centre, drive, turn to the expected heading), look again, up to ``attempts`` times;
* off by more than that, or still off after the attempts, or not seen at all: stop with a message
  that says where the robot is and where it should be.

Each card (and each correction) is one run of the exactly-once executor (:mod:`hardware.executor`)
over a link kept open between them (:class:`KeptOpen`); every observation goes to a JSON-lines run
log (expected vs seen, the corrections sent).  Rules for the error: docs/robot_tracking.md.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from engine.errors import BoardsideError, BoardsideInputError
from engine.motion import Pose
from hardware.executor import LinkTiming, execute_async
from hardware.link import BoardsideDriver, Command, make_driver
from hardware.transport import Transport

__all__ = [
    "Check",
    "KeptOpen",
    "LoopLog",
    "LoopReport",
    "LoopSettings",
    "RobotNotSeenError",
    "Sighting",
    "expected_mm",
    "plan_correction",
    "pose_error",
    "run_closed_loop",
]


class RobotNotSeenError(BoardsideError):
    """The camera could not see the robot's tag (or the board) in a frame."""

    exit_code = 1


class Sighting(Protocol):
    """What the camera saw of the robot (``vision.robot_tag.RobotReading`` is one)."""

    @property
    def x_mm(self) -> float: ...
    @property
    def y_mm(self) -> float: ...
    @property
    def heading_deg(self) -> float: ...
    @property
    def confidence(self) -> float: ...


Watch = Callable[[str, Pose], Sighting]  # (moment, expected pose) -> what the camera sees (RobotNotSeenError)


@dataclass(frozen=True)
class LoopSettings:
    """Tolerances of the closed loop (mm, degrees)."""

    tolerance_mm: float = 15.0
    tolerance_deg: float = 10.0
    max_correction_mm: float | None = None  # farther off than this: stop (None: 0.6 x the cell)
    max_correction_deg: float = 35.0
    attempts: int = 3  # corrections per check before giving up
    correct: bool = True  # False: only watch, stop when off
    cell_mm: float = 150.0

    def __post_init__(self) -> None:
        for name in ("tolerance_mm", "tolerance_deg", "max_correction_mm", "max_correction_deg", "cell_mm"):
            v = getattr(self, name)
            if v is None and name == "max_correction_mm":
                continue
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
                raise BoardsideInputError(f"{name.replace('_', '-')} must be a positive number, got {v!r}")
        if (self.max_correction_mm is not None and self.max_correction_mm < self.tolerance_mm) \
                or self.max_correction_deg < self.tolerance_deg:
            raise BoardsideInputError(
                f"the correction limits ({self.max_correction_mm!r} mm, {self.max_correction_deg!r} deg) "
                f"must not be below the tolerance ({self.tolerance_mm!r} mm, {self.tolerance_deg!r} deg)"
            )
        if self.attempts < 0:
            raise BoardsideInputError(f"attempts must be >= 0, got {self.attempts!r}")

    @property
    def correction_limit_mm(self) -> float:
        """``max_correction_mm``, by default 0.6 x the cell (never below the tolerance)."""
        if self.max_correction_mm is not None:
            return self.max_correction_mm
        return max(0.6 * self.cell_mm, self.tolerance_mm)

    def to_json(self) -> dict[str, Any]:
        return {
            "tolerance_mm": self.tolerance_mm, "tolerance_deg": self.tolerance_deg,
            "max_correction_mm": self.correction_limit_mm, "max_correction_deg": self.max_correction_deg,
            "attempts": self.attempts, "correct": self.correct, "cell_mm": self.cell_mm,
        }


# ---------------------------------------------------------------------------- geometry
def expected_mm(pose: Pose, cell_mm: float) -> tuple[float, float, float]:
    """The engine's grid pose as board mm: the cell centre and the heading in degrees counter-clockwise
    from east (E 0, N 90, W 180, S 270)."""
    return ((pose.x + 0.5) * cell_mm, (pose.y + 0.5) * cell_mm, 90.0 * "ENWS".index(pose.heading.name))


def wrap_deg(a: float) -> float:
    """An angle in degrees wrapped into [-180, 180)."""
    return (a + 180.0) % 360.0 - 180.0


def pose_error(seen: Sighting, expected: Pose, cell_mm: float) -> tuple[float, float]:
    """(distance in mm from the expected cell centre, heading error in degrees: seen minus expected,
    positive when the robot is turned counter-clockwise of the expected heading)."""
    ex, ey, eh = expected_mm(expected, cell_mm)
    return math.hypot(seen.x_mm - ex, seen.y_mm - ey), wrap_deg(seen.heading_deg - eh)


def plan_correction(seen: Sighting, expected: Pose, settings: LoopSettings) -> list[Command]:
    """Jog commands that bring the robot from ``seen`` to the expected cell centre and heading.

    Off the centre by more than the tolerance: turn toward the centre (or away from it and drive
    backwards, whichever turns less), drive there, turn to the expected heading.  Otherwise only
    turn.  Every command keeps the robot's idea of its grid pose (``expected``), as jogs do.  The
    protocol's ``T`` turns clockwise, headings here count counter-clockwise: hence the minus signs.
    """
    ex, ey, eh = expected_mm(expected, settings.cell_mm)
    dx, dy = ex - seen.x_mm, ey - seen.y_mm
    dist = math.hypot(dx, dy)
    heading = seen.heading_deg
    cmds: list[Command] = []
    if dist > settings.tolerance_mm:
        bearing = math.degrees(math.atan2(dy, dx))  # direction to the centre
        turn = wrap_deg(bearing - heading)  # counter-clockwise
        sign = 1
        if abs(turn) > 90.0:  # back up instead of turning round
            turn = wrap_deg(turn + 180.0)
            sign = -1
        if round(turn) != 0:
            cmds.append(Command("T", str(-round(turn)), expected, f"correct: turn {-round(turn):+d} deg clockwise"))
        heading += turn
        mm = sign * round(dist)
        if mm != 0:
            cmds.append(Command("J", str(mm), expected, f"correct: drive {mm:+d} mm"))
    last = -round(wrap_deg(eh - heading))  # clockwise
    if last != 0 and (cmds or abs(wrap_deg(eh - heading)) > settings.tolerance_deg / 2):
        cmds.append(Command("T", str(last), expected, f"correct: turn {last:+d} deg clockwise"))
    return cmds


# ---------------------------------------------------------------------------- the link
class KeptOpen(Transport):
    """A transport kept open from one executor run to the next (one card after another).

    The executor closes its link when a run ends and opens it when the next starts; reopening a
    serial port resets many boards and a BLE reconnect takes seconds, so between runs this keeps
    the link.  Within a run it behaves as the link it wraps: a reconnect after a lost link really
    closes and reopens it.  Call :meth:`next_run` before each run and :meth:`shutdown` at the end.
    """

    def __init__(self, inner: Transport) -> None:
        super().__init__(inner.url)
        self.inner = inner
        self.is_open = False
        self._fresh = False
        self.reopens = 0

    @property
    def max_write(self) -> int:
        return self.inner.max_write

    def next_run(self) -> None:
        self._fresh = True

    async def open(self) -> None:
        if self.is_open and self._fresh:
            self._fresh = False
            return
        self._fresh = False
        if self.is_open:  # a reconnect inside a run: do it for real
            await self.inner.close()
            self.reopens += 1
        await self.inner.open()
        self.is_open = True

    async def close(self) -> None:
        return None  # kept; see next_run / shutdown

    async def shutdown(self) -> None:
        if self.is_open:
            self.is_open = False
            await self.inner.close()

    async def write(self, data: bytes) -> None:
        await self.inner.write(data)

    async def read(self) -> bytes:
        return await self.inner.read()


# ---------------------------------------------------------------------------- records
Verdict = Literal["ok", "corrected", "correct", "off", "unseen"]


@dataclass(frozen=True)
class Check:
    """One look at the robot: what was expected, what was seen, and what the loop did about it."""

    step: str  # "start", "card 3 F2", "card 3 F2, after correction 1"
    card: int | None  # card number (1-based), None before the first
    expected: Pose
    expected_mm: tuple[float, float, float]
    seen_mm: tuple[float, float, float] | None
    seen_cell: tuple[int, int] | None
    seen_heading: str | None
    error_mm: float | None
    error_deg: float | None
    confidence: float | None
    verdict: str  # ok | correct (jogs sent) | off (too far: stopped) | unseen (stopped)
    correction: tuple[str, ...] = ()
    read_ms: float = 0.0
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        def r(v: float | None, n: int = 1) -> float | None:
            return None if v is None else round(float(v), n)

        return {
            "step": self.step,
            "card": self.card,
            "expected": str(self.expected),
            "expected_mm": [r(v) for v in self.expected_mm],
            "seen_mm": None if self.seen_mm is None else [r(v) for v in self.seen_mm],
            "seen_cell": None if self.seen_cell is None else list(self.seen_cell),
            "seen_heading": self.seen_heading,
            "error_mm": r(self.error_mm),
            "error_deg": r(self.error_deg),
            "confidence": r(self.confidence, 3),
            "verdict": self.verdict,
            "correction": list(self.correction),
            "read_ms": r(self.read_ms),
            "note": self.note,
        }


@dataclass
class LoopReport:
    """The closed loop's outcome: every check, the number of corrections, how it ended."""

    status: str = "running"  # finished | stopped
    message: str = ""
    checks: list[Check] = field(default_factory=list)
    corrections: int = 0
    cards_done: int = 0
    log_path: str = ""
    seconds: float = 0.0

    @property
    def final(self) -> Check | None:
        return self.checks[-1] if self.checks else None

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "message": self.message,
            "cards_done": self.cards_done,
            "corrections": self.corrections,
            "log": self.log_path,
            "seconds": round(self.seconds, 3),
            "checks": [c.to_json() for c in self.checks],
        }


class LoopLog:
    """The closed loop's run log: JSON lines, flushed line by line (nothing recorded is lost)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._f = self.path.open("a", encoding="utf-8", buffering=1)
        except OSError as exc:
            raise BoardsideInputError(f"cannot write the run log {str(path)!r}: {exc}") from None

    def write(self, event: str, **fields: Any) -> None:
        self._f.write(json.dumps({"event": event, "time": round(time.time(), 3), **fields}) + "\n")
        self._f.flush()

    def close(self) -> None:
        self._f.close()

    @staticmethod
    def read(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
        return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def default_loop_log() -> Path:
    """``$BOARDSIDE_LOOP_LOG_DIR`` (or ``~/.boardside/loop-logs``) / ``<UTC time>.jsonl``."""
    base = os.environ.get("BOARDSIDE_LOOP_LOG_DIR")
    folder = Path(base) if base else Path.home() / ".boardside" / "loop-logs"
    return folder / (time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + ".jsonl")


# ---------------------------------------------------------------------------- the loop
class _Stop(Exception):
    pass


class CellSizeMismatchError(BoardsideInputError):
    """The robot's step (its cell length setting) differs from the board's cell size."""


async def robot_cell_mm(transport: Transport, timeout: float = 5.0) -> float | None:
    """The robot's cell length setting (``K c``), None for a dialect without settings (the Root)."""
    drv = make_driver(transport)
    if not isinstance(drv, BoardsideDriver):
        return None
    await drv.connect("", 0, 0, timeout)
    return await drv.configure("c", None, timeout)


async def run_closed_loop(
    result: Any,
    transport: Transport,
    watch: Watch,
    settings: LoopSettings,
    log: LoopLog,
    robot_log_db: str | os.PathLike[str],
    *,
    timing: LinkTiming | None = None,
    on_check: Callable[[Check], None] | None = None,
    on_card: Callable[[int, int, str], None] | None = None,
    check_cell: bool = True,
    from_card: int = 1,
) -> LoopReport:
    """Drive ``result`` (a resolved Quirky program, ``engine.quirky.ExecutionResult``) with the loop.

    ``watch(label, expected)`` captures a frame and returns the robot seen in it (or raises
    :class:`RobotNotSeenError`).  Returns the report; a stop is a report with ``status="stopped"``
    and a ``message`` (the robot is then standing still, nothing more is sent).  ``from_card``: go on
    from that card (1-based) of the program, the robot standing where the card begins (after a stop).
    """
    total = len(result.cards)
    if not 1 <= from_card <= max(1, total):
        raise BoardsideInputError(f"--from-card must be 1..{max(1, total)} (the program resolves {total} "
                                  f"card(s)), got {from_card!r}")
    report = LoopReport(log_path=str(log.path))
    kept = KeptOpen(transport)
    t0 = time.monotonic()
    cards = [t for t in result.cards if t.motions and t.index + 1 >= from_card]
    start = next((t.before.pose for t in result.cards if t.index + 1 >= from_card), result.start.pose)
    log.write("start", start=str(start), from_card=from_card, cards=[str(t.card) for t in result.cards],
              settings=settings.to_json(), url=str(transport.url))

    async def segment(commands: Sequence[Command]) -> None:
        kept.next_run()
        await execute_async([], None, Path(robot_log_db), transport=kept, commands=list(commands), resume=False,
                            timing=timing)

    def record(check: Check) -> None:
        report.checks.append(check)
        log.write("check", **check.to_json())
        if on_check is not None:
            on_check(check)

    async def check_and_correct(step: str, card: int | None, expected: Pose, go_on: int) -> None:
        """Look, correct up to ``settings.attempts`` times, or stop (``go_on``: the card to go on from)."""
        more = (f"; put it on {expected} by hand and go on with --from-card {go_on}" if go_on <= total
                else f"; put it on {expected} by hand: that was the last card")
        attempt = 0
        while True:
            label = step if attempt == 0 else f"{step}, look {attempt + 1}"
            t = time.perf_counter()
            try:
                seen = watch(label, expected)
            except RobotNotSeenError as exc:
                record(Check(label, card, expected, expected_mm(expected, settings.cell_mm), None, None, None,
                             None, None, None, "unseen", read_ms=(time.perf_counter() - t) * 1000, note=str(exc)))
                raise _Stop(f"{label}: the camera cannot see the robot ({exc}); the robot is stopped "
                            f"where it is{more}") from None
            ms = (time.perf_counter() - t) * 1000
            dist, dh = pose_error(seen, expected, settings.cell_mm)
            cell = getattr(seen, "cell", None)
            heading = getattr(seen, "heading", None)
            seen_h = heading.name if heading is not None and hasattr(heading, "name") else heading
            base = dict(step=label, card=card, expected=expected,
                        expected_mm=expected_mm(expected, settings.cell_mm),
                        seen_mm=(seen.x_mm, seen.y_mm, seen.heading_deg), seen_cell=cell, seen_heading=seen_h,
                        error_mm=dist, error_deg=dh, confidence=seen.confidence, read_ms=ms)
            where = (f"the robot is at ({seen.x_mm:.0f}, {seen.y_mm:.0f}) mm heading {seen.heading_deg:.0f} deg"
                     f"{f' (cell {cell[0]},{cell[1]})' if cell else ' (off the grid)'}, "
                     f"{dist:.0f} mm and {dh:+.0f} deg from {expected}")
            if dist <= settings.tolerance_mm and abs(dh) <= settings.tolerance_deg:
                record(Check(**base, verdict="ok"))  # type: ignore[arg-type]
                return
            too_far = dist > settings.correction_limit_mm or abs(dh) > settings.max_correction_deg
            if too_far or not settings.correct or attempt >= settings.attempts:
                why = ("more than the loop corrects "
                       f"({settings.correction_limit_mm:g} mm / {settings.max_correction_deg:g} deg)" if too_far
                       else "and correcting is off (--no-correct)" if not settings.correct
                       else f"still off after {attempt} correction(s)")
                record(Check(**base, verdict="off", note=why))  # type: ignore[arg-type]
                raise _Stop(f"{label}: {where}: {why}; the robot is stopped where it is{more}")
            cmds = plan_correction(seen, expected, settings)
            record(Check(**base, verdict="correct",  # type: ignore[arg-type]
                         correction=tuple(f"{c.op} {c.arg}" for c in cmds)))
            if not cmds:  # within rounding of the jogs: nothing a jog can do
                return
            report.corrections += 1
            log.write("correction", step=label, commands=[f"{c.op} {c.arg}" for c in cmds])
            await segment(cmds)
            attempt += 1

    try:
        if check_cell:
            kept.next_run()
            cell = await robot_cell_mm(kept, (timing or LinkTiming()).connect_timeout)
            if cell is not None and abs(cell - settings.cell_mm) > 0.01 * settings.cell_mm:
                raise CellSizeMismatchError(
                    f"the robot drives {cell:g} mm per cell but the board's cells are {settings.cell_mm:g} mm: "
                    f"print the board with --cell-mm {cell:g} (and run with --cell-mm {cell:g}), or set the "
                    f"robot's step with `boardside robot calibrate -r URL --board-cell-mm {settings.cell_mm:g}`"
                )
        try:
            await check_and_correct("start" if from_card == 1 else f"start at card {from_card}", None, start,
                                    from_card)
            for n, trace in enumerate(cards, start=1):
                name = f"card {trace.index + 1} {trace.card}"
                if on_card is not None:
                    on_card(n, len(cards), name)
                cmds = [Command.set_pose(trace.before.pose)]
                cmds += [Command.from_motion(m) for m in trace.motions]
                cmds[1:] = [Command(c.op, c.arg, c.expected, f"{name}: {c.label}") for c in cmds[1:]]
                log.write("card", step=name, motions=[str(m) for m in trace.motions])
                await segment(cmds)
                report.cards_done = n
                await check_and_correct(name, trace.index + 1, trace.after.pose, trace.index + 2)
            report.status = "finished"
            report.message = (f"{len(cards)} card(s) done, robot on {result.final.pose}; "
                              f"{report.corrections} correction(s)")
        except _Stop as stop:
            report.status = "stopped"
            report.message = str(stop)
        except (asyncio.CancelledError, KeyboardInterrupt):
            report.status = "stopped"
            report.message = "stopped by the user (Ctrl-C); the robot is held"
            log.write("end", status=report.status, message=report.message, corrections=report.corrections)
            raise
        except BoardsideError as exc:
            report.status = "stopped"
            report.message = str(exc)
            log.write("end", status="failed", message=str(exc), corrections=report.corrections)
            raise
    finally:
        await kept.shutdown()
    report.seconds = time.monotonic() - t0
    log.write("end", status=report.status, message=report.message, corrections=report.corrections,
              cards_done=report.cards_done)
    return report
