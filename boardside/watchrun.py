"""``boardside quirky run ... --robot URL --camera N|sim / --video FILE``: the closed loop from the CLI.

Builds the board (the scenario's printed board, :func:`calibration.boards.board_spec`), the frame
source and the watcher, runs :func:`boardside.closedloop.run_closed_loop` with a progress line, and
renders the final table of expected vs seen poses.  With ``--camera sim`` the robot must be
``sim://``: the *simulated* camera then draws that simulated robot at its true pose (which drifts
with the URL's ``slip=`` / ``drift=`` / ``veer=``), placed on the start cell like a person would.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from boardside.closedloop import LoopLog, LoopReport, LoopSettings, default_loop_log, run_closed_loop
from boardside.robotrun import RobotRunStopped, default_log_path
from calibration.boards import BoardSpecError, RobotTag, board_spec
from calibration.camera import CameraCalibration
from engine.errors import BoardsideInputError
from hardware.executor import LinkTiming
from hardware.transport import RobotURL, make_transport

__all__ = ["loop_table", "run_watched"]


def _camera_index(camera: str) -> int:
    try:
        index = int(camera)
    except ValueError:
        raise BoardsideInputError(
            f"--camera {camera!r} is neither a camera number (0, 1, ...) nor 'sim' (the simulated camera)"
        ) from None
    if index < 0:
        raise BoardsideInputError(f"--camera must be >= 0 or 'sim', got {camera!r}")
    return index


def run_watched(
    result: Any,
    scenario: str,
    robot_url: str,
    *,
    camera: str | None = None,
    video: str | Path | None = None,
    calibration: Path | None = None,
    cell_mm: float | None = None,
    tag: RobotTag | None = None,
    settings: LoopSettings | None = None,
    loop_log: Path | None = None,
    robot_log: Path | None = None,
    frames_dir: Path | None = None,
    quiet: bool = False,
    sim_camera: Any = None,
    sim_robot: Any = None,
    timing: LinkTiming | None = None,
    from_card: int = 1,
) -> LoopReport:
    """Run the closed loop for a resolved program; see the module docs.  With ``--camera sim``:
    ``sim_camera`` overrides the simulated camera's settings (``vision.sim_camera.SimCameraSettings``)
    and ``sim_robot`` is the ``hardware.sim.SimulatedRobot`` to use (a test looks at its true pose)."""
    if (camera is None) == (video is None):
        raise BoardsideInputError("give the closed loop one picture source: --camera N, --camera sim or --video FILE")
    url = RobotURL.parse(robot_url)
    try:
        spec = board_spec("quirky", scenario=scenario, cell_mm=cell_mm)
    except BoardSpecError as exc:
        raise BoardsideInputError(str(exc)) from None
    base = settings or LoopSettings()
    settings = replace(base, cell_mm=spec.cell_mm)
    tag = tag or RobotTag()
    console = Console(stderr=True, quiet=quiet)
    source: Any
    cal: CameraCalibration | None
    if camera == "sim":
        from boardside.camerafeed import SimulatedFrames
        from hardware.sim import SimFlash, SimTransport, SimulatedRobot, body_from_url
        from vision.sim_camera import SimulatedCamera

        if url.scheme != "sim":
            raise BoardsideInputError(
                f"--camera sim draws the simulated robot: it needs --robot sim://..., not {robot_url!r}"
            )
        robot = sim_robot or SimulatedRobot(
            time_factor=float(url.options.get("time", "1")),
            queue_size=int(float(url.options.get("queue", "8"))),
            flash=SimFlash(url.options.get("state")),
            body=body_from_url(url),
        )
        robot.core.config["c"] = spec.cell_mm  # a simulated robot calibrated to the printed board
        start = next((t.before.pose for t in result.cards if t.index + 1 >= from_card), result.start.pose)
        if not robot.body.placed:
            robot.body.place_on_cell(start.x, start.y, start.heading.name, spec.cell_mm)
        transport: Any = SimTransport(url, robot=robot)
        with console.status("setting up the simulated camera ..."):
            simcam = SimulatedCamera(spec, tag, sim_camera)
        cal = simcam.calibration
        source = SimulatedFrames(simcam, lambda: robot.body.pose if robot.body.placed else None)
    else:
        cal = CameraCalibration.load(calibration) if calibration is not None else None
        if cal is None:
            console.print("[yellow]no --calibration: the camera's focal length is estimated from the board in "
                          "every frame (less accurate; make a calibration with `boardside calibrate`)[/]")
        transport = make_transport(url)
        if video is not None:
            from boardside.camerafeed import VideoFrames

            source = VideoFrames(video)
        else:
            from boardside.camerafeed import CameraFrames

            assert camera is not None
            source = CameraFrames(_camera_index(camera))
    from boardside.camerafeed import Watcher

    watcher = Watcher(source, spec, cal, tag, settings, frames_dir=frames_dir)
    log = LoopLog(loop_log or default_loop_log())
    log.write("setup", board=spec.name, cell_mm=spec.cell_mm, source=source.name,
              calibration=str(calibration) if calibration else ("simulated" if camera == "sim" else None),
              tag={"id": tag.id, "tag_mm": tag.tag_mm, "height_mm": tag.height_mm},
              robot={"x_mm": None} if camera != "sim" else {"simulated": True, "url": str(url)})
    try:
        with console.status("closed loop: connecting ...") as status:

            def on_card(n: int, total: int, name: str) -> None:
                status.update(f"closed loop: {name} ({n}/{total})")

            def on_check(c: Any) -> None:
                if c.seen_mm is None:
                    console.print(f"[red]{c.step}: robot not seen[/] ({c.note})")
                    return
                mark = {"ok": "[green]ok[/]", "correct": "[yellow]correcting[/]", "off": "[red]off[/]"}
                console.print(f"{c.step}: {mark.get(c.verdict, c.verdict)} {c.error_mm:.0f} mm "
                              f"{c.error_deg:+.0f} deg" + (f" -> {' '.join(c.correction)}" if c.correction else ""))

            coro = run_closed_loop(result, transport, watcher, settings, log, robot_log or default_log_path(),
                                   timing=timing, on_card=on_card, on_check=on_check, from_card=from_card)
            try:
                report = asyncio.run(coro)
            except KeyboardInterrupt:
                raise RobotRunStopped(
                    f"stopped: the robot is held where it is; the run log is {str(log.path)!r}"
                ) from None
    finally:
        log.close()
        source.close()
    return report


def loop_table(report: LoopReport) -> Table:
    """Every look at the robot: expected vs seen, the error and what the loop did."""
    t = Table(title=f"closed loop: {report.status} ({report.corrections} correction(s))", title_justify="left")
    for col, just in (("step", "left"), ("expected", "left"), ("mm", "right"), ("seen", "left"),
                      ("mm", "right"), ("error", "right"), ("conf", "right"), ("action", "left")):
        t.add_column(col, justify=just, overflow="fold")  # type: ignore[arg-type]
    for c in report.checks:
        ex, ey, eh = c.expected_mm
        expected = f"{ex:.0f},{ey:.0f} {eh % 360:.0f}°"
        if c.seen_mm is None:
            t.add_row(c.step, str(c.expected), expected, "-", "-", "-", "-", f"[red]not seen[/] {c.note}")
            continue
        sx, sy, sh = c.seen_mm
        cell = f"{c.seen_cell[0]},{c.seen_cell[1]},{c.seen_heading}" if c.seen_cell else f"off/{c.seen_heading}"
        colour = {"ok": "green", "correct": "yellow", "off": "red"}.get(c.verdict, "white")
        action = {"ok": "ok", "correct": "jog " + " ".join(c.correction), "off": "[red]stop[/]"}.get(
            c.verdict, c.verdict)
        t.add_row(c.step, str(c.expected), expected, cell, f"{sx:.0f},{sy:.0f} {round(sh) % 360:.0f}°",
                  f"[{colour}]{c.error_mm:.1f} mm {c.error_deg:+.1f}°[/]", f"{c.confidence:.2f}", action)
    return t
