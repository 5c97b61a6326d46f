"""Drive a motion program on a robot from the CLI: progress bar, pose comparison, Ctrl-C, resume.

Shared by ``boardside robot run`` and ``boardside quirky run --robot URL``.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from engine.errors import BoardsideError
from engine.motion import Motion, Pose
from hardware.executor import InterruptedPolicy, LinkTiming, RunReport, execute_async, program_commands
from hardware.executor import Progress as RunProgress
from hardware.transport import RobotURL


class RobotRunStopped(BoardsideError):
    """The user stopped a run with Ctrl-C (the robot is held; the run can be resumed)."""

    exit_code = 130


def default_log_path() -> Path:
    """``$BOARDSIDE_ROBOT_LOG`` or ``~/.boardside/robot-log.sqlite``."""
    env = os.environ.get("BOARDSIDE_ROBOT_LOG")
    return Path(env) if env else Path.home() / ".boardside" / "robot-log.sqlite"


def drive(
    motions: Sequence[Motion],
    url: str,
    log: Path | None = None,
    *,
    resume: bool = True,
    start: Pose | None = None,
    on_interrupted: InterruptedPolicy = "error",
    check_pose: bool = True,
    quiet: bool = False,
    timing: LinkTiming | None = None,
    resume_hint: str = "run the same command again (it resumes)",
    labels: Sequence[str] | None = None,
) -> RunReport:
    """Execute ``motions`` with a progress bar on stderr; Ctrl-C holds the robot.

    ``labels`` (one per motion, e.g. ``"card 3 F2: F>1,2,N"``) name the moves in the progress bar.
    """
    RobotURL.parse(url)  # a wrong URL is reported before anything is shown
    console = Console(stderr=True, quiet=quiet)
    log_path = log or default_log_path()
    with Progress(
        TextColumn("[bold]robot[/]"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=quiet,
    ) as bar:
        task = bar.add_task("connecting...", total=len(motions) + 1)

        def on_progress(p: RunProgress) -> None:
            if p.kind == "done":
                pose = f" robot at {p.reported}" if p.reported is not None else ""
                bar.update(task, completed=p.done, description=f"{p.label}{pose}")
            elif p.kind in ("connect", "reconnect", "resume"):
                if p.message:
                    bar.console.print(f"[dim]{p.kind}: {p.message}[/]")
            elif p.kind == "finished":
                bar.update(task, completed=p.total, description="finished")

        try:
            commands = None
            if labels is not None:
                if len(labels) != len(motions):
                    raise ValueError("one label per motion")
                commands = program_commands(motions, start)
                commands[1:] = [replace(c, label=lab) for c, lab in zip(commands[1:], labels, strict=True)]
            return asyncio.run(
                execute_async(
                    motions, url, log_path, start=start, progress=on_progress, resume=resume,
                    on_interrupted=on_interrupted, check_pose=check_pose, timing=timing, commands=commands,
                )
            )
        except KeyboardInterrupt:
            raise RobotRunStopped(f"stopped: the robot is held where it is; to continue, {resume_hint}") from None


def stderr_is_tty() -> bool:
    return sys.stderr.isatty()


def drive_trace(
    result: Any,
    url: str,
    log: Path | None = None,
    *,
    resume: bool = True,
    on_interrupted: InterruptedPolicy = "error",
    check_pose: bool = True,
    quiet: bool = False,
    resume_hint: str = "run the same command again (it resumes)",
) -> RunReport | None:
    """Drive a resolved Quirky Circuits program (``engine.quirky`` ``ExecutionResult``) card by card.

    The robot is first told the set-up pose (``result.start.pose``); each motion is labelled
    with its card in the progress bar.  Returns None when the program moves nothing.
    """
    motions: list[Motion] = []
    labels: list[str] = []
    for trace in result.cards:
        for m in trace.motions:
            motions.append(m)
            labels.append(f"card {trace.index + 1} {trace.card}: {m}")
    if not motions:
        return None
    return drive(motions, url, log, resume=resume, start=result.start.pose, on_interrupted=on_interrupted,
                 check_pose=check_pose, quiet=quiet, resume_hint=resume_hint, labels=labels)
