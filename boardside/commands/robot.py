"""``boardside robot ...``: find, drive, calibrate and stop a robot toy (serial, BLE or simulated).

Robot URLs: ``serial:///dev/ttyUSB0?baud=115200``, ``ble://AA:BB:CC:DD:EE:FF``, ``ble://name=MyBot``,
``sim://`` (a simulated robot), ``spy://<url>`` (log every byte); add ``?dialect=root`` for an
iRobot Root.  The wire protocol is in docs/protocol.md, the user guide in docs/robot.md.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

import typer

from boardside.io import emit_json
from boardside.robotrun import default_log_path, drive
from engine.errors import BoardsideInputError
from engine.motion import Pose
from hardware.errors import HardwareError
from hardware.executor import ExecutionLog, InterruptedPolicy, LinkTiming, execute_async
from hardware.link import BoardsideDriver, Command, make_driver
from hardware.programs import parse_motions
from hardware.transport import make_transport

NAME = "robot"
app = typer.Typer(help="Find, drive, calibrate and stop a robot toy (serial, Bluetooth LE or simulated).",
                  no_args_is_help=True)

ROBOT = typer.Option(..., "--robot", "-r", metavar="URL",
                     help="Robot URL: serial:///dev/ttyUSB0?baud=115200, ble://AA:BB:CC:DD:EE:FF, ble://name=MyBot, "
                          "sim://, spy://<url>; add ?dialect=root for an iRobot Root.")
LOG = typer.Option(None, "--log", metavar="PATH", help="Execution log (SQLite); default ~/.boardside/robot-log.sqlite "
                   "or $BOARDSIDE_ROBOT_LOG.")
JSON = typer.Option(False, "--json", help="Print machine-readable JSON on stdout.")


def interrupted_policy(redo: bool, skip: bool) -> InterruptedPolicy:
    if redo and skip:
        raise BoardsideInputError("give at most one of --redo-interrupted and --skip-interrupted")
    return "redo" if redo else "skip" if skip else "error"


@app.command()
def run(
    motions: str = typer.Option(..., "--motions", "-m", metavar="'F>0,1,N L>0,1,W ...'",
                                help="Motions with the pose expected after each (engine.motion syntax)."),
    robot: str = ROBOT,
    start: str | None = typer.Option(None, "--start", metavar="X,Y,H",
                                     help="Pose before the first motion (default: worked back from it)."),
    log: Path | None = LOG,
    new: bool = typer.Option(False, "--new", help="Start a new run even if an unfinished one of this program exists."),
    redo_interrupted: bool = typer.Option(False, "--redo-interrupted",
                                          help="A move cut short by a robot reset is done again "
                                               "(put the robot back where that move started)."),
    skip_interrupted: bool = typer.Option(False, "--skip-interrupted",
                                          help="A move cut short by a robot reset counts as done "
                                               "(put the robot where that move ends)."),
    no_pose_check: bool = typer.Option(False, "--no-pose-check", help="Do not stop when the robot's pose differs."),
    json_out: bool = JSON,
) -> None:
    """Run a motion program exactly once; resumes an interrupted run of the same program.

    Ctrl-C stops the robot at once (it is held, nothing is forgotten); running the same
    command again resumes where it stopped.
    """
    program = parse_motions(motions)
    start_pose = Pose.parse(start) if start else None
    report = drive(
        program, robot, log, resume=not new, start=start_pose,
        on_interrupted=interrupted_policy(redo_interrupted, skip_interrupted), check_pose=not no_pose_check,
        quiet=json_out,
    )
    if json_out:
        emit_json(report.to_json())
    else:
        typer.echo(f"done: {report.done - 1} motions on {robot} in {report.seconds:.1f} s "
                   f"(run {report.run_id}, {report.reconnects} reconnects)")


@app.command()
def scan(
    timeout: float = typer.Option(5.0, "--timeout", help="Seconds to listen for BLE advertisements."),
    no_ble: bool = typer.Option(False, "--no-ble", help="List serial ports only."),
    json_out: bool = JSON,
) -> None:
    """List serial ports and BLE devices (robot URLs you can pass to --robot)."""
    from serial.tools import list_ports

    ports = [
        {"url": f"serial://{p.device}?baud=115200", "device": p.device, "description": p.description or "",
         "hwid": p.hwid or ""}
        for p in sorted(list_ports.comports(), key=lambda p: p.device)
    ]
    ble: list[dict[str, Any]] = []
    ble_error = ""
    if not no_ble:
        try:
            ble = asyncio.run(_scan_ble(timeout))
        except FileNotFoundError:
            ble_error = "no Bluetooth service on this machine (BlueZ's D-Bus socket not found)"
        except Exception as exc:  # no adapter, no permission: say so, not a crash
            ble_error = f"{type(exc).__name__}: {exc}".strip()
    if json_out:
        emit_json({"serial": ports, "ble": ble, "ble_error": ble_error})
        return
    typer.echo("Serial ports:" if ports else "Serial ports: none found")
    for p in ports:
        typer.echo(f"  {p['url']:40s} {p['description']}")
    if no_ble:
        return
    if ble_error:
        typer.echo(f"Bluetooth LE: unavailable ({ble_error.splitlines()[0]})")
        return
    typer.echo("Bluetooth LE devices:" if ble else "Bluetooth LE devices: none found")
    for d in ble:
        tag = " [iRobot Root]" if d["root"] else " [UART service]" if d["uart"] else ""
        typer.echo(f"  {d['url']:40s} {d['name'] or '?':20s} {d['rssi']} dBm{tag}")


async def _scan_ble(timeout: float) -> list[dict[str, Any]]:
    from bleak import BleakScanner

    from hardware.root import ROOT_IDENTIFIER_SERVICE
    from hardware.transport import NUS_SERVICE

    found = await BleakScanner.discover(timeout=timeout, return_adv=True)
    out = []
    for device, adv in found.values():
        uuids = [u.lower() for u in adv.service_uuids]
        root = ROOT_IDENTIFIER_SERVICE in uuids
        out.append({
            "url": f"ble://{device.address}" + ("?dialect=root" if root else ""), "address": device.address,
            "name": adv.local_name or device.name or "", "rssi": adv.rssi, "uart": NUS_SERVICE in uuids,
            "root": root,
        })
    return sorted(out, key=lambda d: -int(d["rssi"] or -999))


async def _connected(robot: str, action: Any) -> Any:
    transport = make_transport(robot)
    driver = make_driver(transport)
    state = await driver.connect("", 0, 0, 5.0)
    try:
        return await action(driver, state)
    finally:
        with contextlib.suppress(Exception):
            await driver.close()


@app.command()
def status(robot: str = ROBOT, json_out: bool = JSON) -> None:
    """Connect, say hello, and show what the robot reports (run, queue, pose, state)."""

    async def act(driver: Any, state: Any) -> Any:
        return state

    state = asyncio.run(_connected(robot, act))
    doc = {"epoch": state.epoch, "run": state.run, "acked": state.acked, "done": state.done,
           "queue_free": state.free, "queue_size": state.size, "pose": str(state.pose) if state.pose else None,
           "state": state.state, "interrupted": state.interrupted}
    if json_out:
        emit_json(doc)
    else:
        for k, v in doc.items():
            typer.echo(f"{k:12s} {v}")


@app.command()
def stop(
    robot: str = ROBOT,
    cancel: bool = typer.Option(False, "--cancel", help="Also forget the queued moves (the run cannot resume)."),
) -> None:
    """Emergency stop: the robot holds at once (out-of-band); --cancel also drops its queue."""

    async def act(driver: Any, state: Any) -> None:
        await driver.hold()
        if cancel:
            await driver.cancel()
        await asyncio.sleep(0.1)

    asyncio.run(_connected(robot, act))
    typer.echo("robot stopped" + (" and its queue cancelled" if cancel else " (held; `boardside robot run` resumes)"))


@app.command()
def jog(
    steps: list[str] = typer.Argument(..., metavar="STEP...",
                                      help="f, b, l, r (one cell / quarter turn), 100mm, -50mm, 45deg, -90deg."),
    robot: str = ROBOT,
) -> None:
    """Move the robot by hand, e.g. ``boardside robot jog -r sim:// -- f f l 30mm -10deg``

    (put ``--`` before the steps when one is negative, so it is not read as an option).
    """
    commands = [_jog_command(s) for s in steps]
    report = asyncio.run(execute_async([], robot, ":memory:", commands=commands, check_pose=False,
                                       timing=LinkTiming()))
    typer.echo(f"jogged {report.done} step(s)")


def _jog_command(text: str) -> Command:
    t = text.strip().lower()
    simple = {"f": "F", "b": "B", "l": "L", "r": "R"}
    if t in simple:
        return Command(simple[t], "", None, t)
    for suffix, op in (("mm", "J"), ("deg", "T")):
        if t.endswith(suffix):
            try:
                value = int(t[: -len(suffix)])
            except ValueError:
                break
            if not -5000 <= value <= 5000:
                raise BoardsideInputError(f"jog step {text!r} out of range (-5000..5000)")
            return Command(op, str(value), None, t)
    raise BoardsideInputError(f"unknown jog step {text!r} (expected f, b, l, r, <n>mm or <n>deg)")


@app.command()
def calibrate(
    robot: str = ROBOT,
    cell_mm: float | None = typer.Option(None, "--cell-mm", help="Set the robot's cell length (mm) directly."),
    turn_trim: float | None = typer.Option(None, "--turn-trim", help="Set the turn trim factor directly (1.0 = none)."),
    wheel_base_mm: float | None = typer.Option(None, "--wheel-base-mm", help="Set the wheel base (mm)."),
    steps_per_mm: float | None = typer.Option(None, "--steps-per-mm", help="Set the motor steps per mm."),
    board_cell_mm: float | None = typer.Option(None, "--board-cell-mm",
                                               help="Guided: drive cells and ask how far the robot really went, "
                                                    "to make one cell this many mm on your board."),
    test_cells: int = typer.Option(3, "--test-cells", help="Guided: cells to drive for the measurement."),
    turns: bool = typer.Option(False, "--turns", help="Guided: make four right turns and ask how far off 360° it was."),
) -> None:
    """Tune cell length and turn trim (stored in the robot's flash)."""

    async def act(driver: Any, state: Any) -> dict[str, float]:
        if not isinstance(driver, BoardsideDriver):
            raise BoardsideInputError("calibration needs a Boardside-protocol robot (not ?dialect=root)")
        for key, value in (("c", cell_mm), ("t", turn_trim), ("w", wheel_base_mm), ("s", steps_per_mm)):
            if value is not None:
                if value <= 0:
                    raise BoardsideInputError(f"calibration value must be positive, got {value!r}")
                await driver.configure(key, value)
        return {k: await driver.configure(k) for k in ("c", "w", "s", "t")}

    settings = asyncio.run(_connected(robot, act))
    if board_cell_mm is not None:
        asyncio.run(execute_async([], robot, ":memory:", check_pose=False,
                                  commands=[Command("F", "", None, "f")] * test_cells))
        measured = typer.prompt(f"How many mm did the robot travel (commanded {test_cells} cells)?", type=float)
        if measured <= 0:
            raise BoardsideInputError(f"measured distance must be positive, got {measured!r}")
        new_c = board_cell_mm * test_cells * settings["c"] / measured
        settings = asyncio.run(_connected(robot, lambda d, s: _set(d, "c", new_c)))
    if turns:
        asyncio.run(execute_async([], robot, ":memory:", check_pose=False,
                                  commands=[Command("R", "", None, "r")] * 4))
        err = typer.prompt("By how many degrees did it overshoot a full turn (negative if short)?", type=float)
        new_t = settings["t"] * 360.0 / (360.0 + err)
        settings = asyncio.run(_connected(robot, lambda d, s: _set(d, "t", new_t)))
    typer.echo(f"cell {settings['c']:g} mm, wheel base {settings['w']:g} mm, {settings['s']:g} steps/mm, "
               f"turn trim {settings['t']:g}")


async def _set(driver: Any, key: str, value: float) -> dict[str, float]:
    await driver.configure(key, value)
    return {k: await driver.configure(k) for k in ("c", "w", "s", "t")}


@app.command("log")
def show_log(log: Path | None = LOG, run_id: str | None = typer.Option(None, "--run", help="Show one run's steps."),
             json_out: bool = JSON) -> None:
    """Show the execution log: runs, and with --run the step-by-step record."""
    path = log or default_log_path()
    if not Path(path).exists():
        raise BoardsideInputError(f"no execution log at {str(path)!r}")
    db = ExecutionLog(path)
    try:
        doc: Any = db.steps(run_id) if run_id else db.runs()
    finally:
        db.close()
    if json_out:
        emit_json(doc)
        return
    if run_id:
        for s in doc:
            state = "done" if s["done_at"] else "sent" if s["sent_at"] else "-"
            robot_pose = s["reported"] or ""
            typer.echo(f"{s['seq']:5d} {s['label']:24s} {state:5s} expected {s['expected']}  robot {robot_pose}")
    else:
        for r in doc:
            typer.echo(f"{r['run_id']}  {r['status']:8s} {r['done']}/{r['total']}  {r['url']}")


__all__ = ["HardwareError", "app"]
