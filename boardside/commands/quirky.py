"""``boardside quirky ...``: Quirky Circuits scenarios, programs, a hot-seat game, solver and self-play.

SCENARIO is the id of a shipped scenario (``boardside quirky scenarios``) or a path to a scenario
TOML file (format: docs/rules/quirky.md, "Scenario format").
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from boardside.io import emit_json, read_json
from boardside.quirky_view import ascii_board, render_png
from engine.core import InvalidMoveError, random_playout
from engine.errors import BoardsideInputError
from engine.quirky import (
    ExecutionResult,
    Go,
    Play,
    QuirkyState,
    Scenario,
    ScenarioError,
    Table,
    Take,
    builtin_scenario,
    builtin_scenarios,
    builtin_text,
    new_state,
    parse_queue,
    parse_scenario,
    resolve_program,
    shuffled,
    validate_state,
)
from engine.quirky.solver import hint, solve

NAME = "quirky"
app = typer.Typer(
    help="Quirky Circuits: scenarios, robot programs and their motion traces, a hot-seat game, solver.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)

SCENARIO_ARG = typer.Argument(
    ..., metavar="SCENARIO", help="shipped scenario id or path to a scenario .toml file"
)


def load_scenario(ref: str) -> Scenario:
    """A shipped scenario by id, or a scenario TOML file (errors name line and column)."""
    p = Path(ref)
    if ref.endswith(".toml") or p.exists():
        try:
            text = p.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise BoardsideInputError(f"scenario file not found: {ref!r}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise BoardsideInputError(f"cannot read scenario file {ref!r}: {exc}") from None
        return parse_scenario(text, ref)
    return builtin_scenario(ref)


def run_program(
    scenario: str | Scenario, program: str, table: Table | None = None
) -> tuple[Scenario, ExecutionResult]:
    """Resolve a program text on a scenario's set-up (or ``table``): the motion trace a robot executes.

    The function behind ``boardside quirky run``; a robot driver calls it and sends
    ``result.motions`` (or ``result.by_card``) to the robot.
    """
    scn = load_scenario(scenario) if isinstance(scenario, str) else scenario
    cards, choices = parse_queue(program)
    return scn, resolve_program(scn, table or Table.initial(scn), cards, choices)


def _check_players(scn: Scenario, players: int) -> None:
    if players not in scn.hands:
        raise BoardsideInputError(
            f"--players {players!r} not supported by {scn.id!r} "
            f"(choose {', '.join(map(str, sorted(scn.hands)))})"
        )


@app.command("scenarios")
def scenarios_cmd(json_out: bool = typer.Option(False, "--json", help="machine-readable output")) -> None:
    """List the shipped scenarios, easiest first."""
    items: list[dict[str, Any]] = [
        {
            "id": s.id,
            "robot": s.robot,
            "title": s.title,
            "difficulty": s.difficulty,
            "battery": s.battery,
            "objective": s.objective.text,
        }
        for s in builtin_scenarios()
    ]
    if json_out:
        emit_json({"scenarios": items})
        return
    for it in items:
        typer.echo(
            f"{it['id']:18s} {it['robot']:6s} {'*' * int(it['difficulty']):4s} "
            f"{it['title']}: {it['objective']}"
        )


@app.command("show")
def show_cmd(
    scenario: str = SCENARIO_ARG,
    output: Path | None = typer.Option(None, "-o", "--output", help="also draw the board to this PNG file"),
    json_out: bool = typer.Option(False, "--json", help="machine-readable output"),
    toml_out: bool = typer.Option(False, "--toml", help="print the scenario's TOML (a start for your own)"),
) -> None:
    """Show a scenario's board (ASCII; -o draws a picture), battery, hands, deck and objective."""
    scn = load_scenario(scenario)
    if toml_out:
        text = (
            builtin_text(scn.id)
            if not Path(scenario).exists()
            else Path(scenario).read_text(encoding="utf-8")
        )
        typer.echo(text, nl=False)
        return
    if output is not None:
        render_png(scn, output)
    if json_out:
        emit_json(_scenario_json(scn) | ({"picture": str(output)} if output else {}))
        return
    typer.echo(f"{scn.title} [{scn.id}] -- robot {scn.robot}, difficulty {scn.difficulty}")
    if scn.description:
        typer.echo(scn.description)
    typer.echo(ascii_board(scn))
    typer.echo(f"objective: {scn.objective.text}")
    typer.echo(f"battery: {scn.battery} (green >= {scn.green}, yellow >= {scn.yellow})")
    typer.echo("hands: " + ", ".join(f"{n} players {h} cards" for n, h in sorted(scn.hands.items())))
    deck = Counter(scn.deck)
    typer.echo(f"deck ({sum(deck.values())}): " + " ".join(f"{n}x{c}" for c, n in sorted(deck.items())))
    if scn.first:
        typer.echo("quirk cards played first: " + ", ".join(sorted(scn.first)))
    if output is not None:
        typer.echo(f"picture written to {output}")


def _scenario_json(scn: Scenario) -> dict[str, Any]:
    b = scn.board
    return {
        "id": scn.id,
        "title": scn.title,
        "robot": scn.robot,
        "difficulty": scn.difficulty,
        "board": {
            "width": b.width,
            "height": b.height,
            "start": str(b.start),
            "obstacles": sorted([list(c) for c in b.obstacles]),
            "walls": sorted(sorted([list(c) for c in w]) for w in b.walls),
            "spins": {f"{x},{y}": d for (x, y), d in sorted(b.spins.items())},
        },
        "tokens": [
            {"id": t.id, "kind": t.kind, "at": list(t.at), "long": t.long, "fixed": t.fixed}
            for t in scn.tokens
        ],
        "battery": {"track": scn.battery, "yellow": scn.yellow, "green": scn.green},
        "hands": {str(k): v for k, v in sorted(scn.hands.items())},
        "deck": {str(c): n for c, n in sorted(scn.deck.items())},
        "first": sorted(scn.first),
        "objective": scn.objective.text,
    }


@app.command("run")
def run_cmd(
    scenario: str = SCENARIO_ARG,
    program: str = typer.Option(
        ...,
        "--program",
        "-p",
        help='cards left to right, e.g. "F2 RL F1 U B1"; a Pick Up may name its token: PK[cup]',
    ),
    json_out: bool = typer.Option(False, "--json", help="machine-readable output"),
    robot: str | None = typer.Option(
        None, "--robot", "-r", metavar="URL",
        help="also drive a robot toy through the motion trace, card by card (serial://, ble://, sim://; "
             "see docs/robot.md); Ctrl-C stops it, the same command resumes",
    ),
    robot_log: Path | None = typer.Option(None, "--robot-log", metavar="PATH",
                                          help="robot execution log (default ~/.boardside/robot-log.sqlite)"),
    new_run: bool = typer.Option(False, "--new-run", help="with --robot: start over instead of resuming"),
    redo_interrupted: bool = typer.Option(False, "--redo-interrupted",
                                          help="with --robot: redo a move cut short by a robot reset"),
    skip_interrupted: bool = typer.Option(False, "--skip-interrupted",
                                          help="with --robot: count a move cut short by a robot reset as done"),
    camera: str | None = typer.Option(
        None, "--camera", metavar="N|sim",
        help="with --robot: watch the robot with camera N after each card and correct it (closed loop, "
             "docs/robot_tracking.md); 'sim' is the simulated camera over a sim:// robot",
    ),
    video: str | None = typer.Option(None, "--video", metavar="FILE",
                                     help="with --robot: the closed loop reads its frames from this video "
                                          "(or stream URL), one per look"),
    calibration: Path | None = typer.Option(None, "--calibration", "-c", metavar="cam.json",
                                            help="camera calibration for --camera N / --video "
                                                 "(default: the focal length estimated from the board)"),
    cell_mm: float | None = typer.Option(None, "--cell-mm",
                                         help="printed board's cell size = the robot's step (default 50)"),
    tag_id: int = typer.Option(230, "--tag-id", help="the robot's tag id (230-249)"),
    tag_mm: float = typer.Option(30.0, "--tag-mm", help="the robot tag's black square side, mm"),
    tag_height_mm: float = typer.Option(45.0, "--tag-height-mm", help="height of the tag above the board, mm"),
    tolerance_mm: float = typer.Option(15.0, "--tolerance-mm", help="closed loop: allowed position error"),
    tolerance_deg: float = typer.Option(10.0, "--tolerance-deg", help="closed loop: allowed heading error"),
    max_correction_mm: float | None = typer.Option(
        None, "--max-correction-mm",
        help="closed loop: farther off than this, stop instead of correcting (default 0.6 x the cell)"),
    max_correction_deg: float = typer.Option(35.0, "--max-correction-deg",
                                             help="closed loop: turned more than this, stop instead of correcting"),
    attempts: int = typer.Option(3, "--attempts", help="closed loop: corrections per card before stopping"),
    no_correct: bool = typer.Option(False, "--no-correct", help="closed loop: only watch; stop when off"),
    loop_log: Path | None = typer.Option(None, "--loop-log", metavar="PATH",
                                         help="closed loop run log, JSON lines "
                                              "(default ~/.boardside/loop-logs/<time>.jsonl)"),
    frames: Path | None = typer.Option(None, "--frames", metavar="DIR",
                                       help="closed loop: save every looked-at frame, annotated, here"),
    from_card: int = typer.Option(1, "--from-card", metavar="N",
                                  help="closed loop: go on from card N, the robot standing where it begins "
                                       "(after a stop)"),
) -> None:
    """Resolve a program from the scenario's set-up: print the motion trace and the outcome.

    With ``--robot URL`` the robot then performs the trace (progress, pose check, resume).  With
    ``--camera N`` (or ``--video FILE``) too, the camera watches it after every card and small moves
    correct it (exit 1 when it had to stop; see docs/robot_tracking.md).
    """
    scn, result = run_program(scenario, program)
    loop = None
    if camera is not None or video is not None:
        if robot is None:
            raise BoardsideInputError("--camera / --video watch a robot: give --robot URL too")
        from boardside.closedloop import LoopSettings
        from boardside.watchrun import run_watched
        from calibration.boards import BoardSpecError, RobotTag

        try:
            tag = RobotTag(tag_id, tag_mm, tag_height_mm)
        except BoardSpecError as exc:
            raise BoardsideInputError(str(exc)) from None
        settings = LoopSettings(tolerance_mm, tolerance_deg, max_correction_mm, max_correction_deg, attempts,
                                not no_correct)
        loop = run_watched(result, scenario, robot, camera=camera, video=video, calibration=calibration,
                           cell_mm=cell_mm, tag=tag, settings=settings, loop_log=loop_log, robot_log=robot_log,
                           frames_dir=frames, quiet=json_out, from_card=from_card)
        _print_loop(scn, result, loop, json_out)
        return
    if robot is not None:  # the robot run (issue 7): hardware/executor.py through boardside/robotrun.py
        from boardside.commands.robot import interrupted_policy
        from boardside.robotrun import drive_trace

        report = drive_trace(result, robot, robot_log, resume=not new_run, quiet=json_out,
                             on_interrupted=interrupted_policy(redo_interrupted, skip_interrupted),
                             resume_hint="run the same quirky command again (it resumes)")
    if json_out:
        extra = {"robot": report.to_json() if report else None} if robot is not None else {}
        emit_json({"scenario": scn.id} | result.to_json() | extra)
        return
    for tr in result.cards:
        flags = [
            f for f, on in (("collided", tr.collided), ("stopped", tr.stopped), ("ignored", tr.ignored)) if on
        ]
        typer.echo(
            f"{tr.index + 1:2d}. {tr.card!s:6s} {' '.join(str(m) for m in tr.motions) or '(no motion)'}"
            + (f"  [{', '.join(flags)}]" if flags else "")
        )
        for note in tr.notes:
            typer.echo(f"      {note}")
    skipped = len(result.program) - result.resolved
    if skipped:
        typer.echo(f"({skipped} card(s) not resolved: the game ended)")
    typer.echo(ascii_board(scn, result.final))
    typer.echo(f"outcome: {result.outcome}")
    if robot is not None:
        typer.echo(f"robot: {report.done - 1} motions done on {robot} (run {report.run_id})" if report
                   else "robot: nothing to do (the program moves nothing)")


def _print_loop(scn: Scenario, result: ExecutionResult, loop: Any, json_out: bool) -> None:
    """The closed loop's outcome: trace, table of expected vs seen, and exit 1 when it stopped."""
    if json_out:
        emit_json({"scenario": scn.id} | result.to_json() | {"loop": loop.to_json()})
    else:
        from rich.console import Console

        from boardside.watchrun import loop_table

        for tr in result.cards:
            typer.echo(f"{tr.index + 1:2d}. {tr.card!s:6s} {' '.join(str(m) for m in tr.motions) or '(no motion)'}")
        typer.echo(f"outcome (engine): {result.outcome}")
        console = Console()
        console.print(loop_table(loop))
        console.print(("[green]" if loop.status == "finished" else "[red]") + loop.message + "[/]",
                      highlight=False)
        typer.echo(f"run log: {loop.log_path}")
    if loop.status != "finished":
        raise typer.Exit(1)


@app.command("solve")
def solve_cmd(
    scenario: str = SCENARIO_ARG,
    players: int = typer.Option(3, "--players", "-n", help="number of players (hand size from the scenario)"),
    max_program: int = typer.Option(0, "--max-program", help="longest queue to consider (0: all hand cards)"),
    json_out: bool = typer.Option(False, "--json", help="machine-readable output"),
) -> None:
    """Prove a scenario winnable from its deck with the fewest rounds (docs/rules/quirky.md, Solver)."""
    scn = load_scenario(scenario)
    _check_players(scn, players)
    if max_program < 0:
        raise BoardsideInputError(f"--max-program must be >= 0, got {max_program!r}")
    if json_out:
        sol = solve(scn, players, max_program=max_program or None)
    else:
        from rich.console import Console

        with Console(stderr=True).status(f"solving {scn.id} ..."):
            sol = solve(scn, players, max_program=max_program or None)
    if json_out:
        emit_json(sol.to_json())
        return
    if not sol.winnable:
        proof = " (no win even with unlimited cards)" if sol.lower_bound is None else ""
        typer.echo(f"{scn.id}: no winning plan found within {scn.battery} rounds{proof}")
        raise typer.Exit(1)
    typer.echo(
        f"{scn.id}: winnable in {sol.rounds} round(s) ({sol.section} battery), "
        f"{'optimal' if sol.optimal else f'at least {sol.lower_bound}'}; "
        f"witness replayed: {'yes' if sol.verified else 'NO'}"
    )
    for i, r in enumerate(sol.to_json()["plan"], start=1):
        typer.echo(f"  round {i}: {' '.join(r)}")


@app.command("hint")
def hint_cmd(
    state_file: Path = typer.Argument(..., metavar="STATE.json", help="a game state in the Program phase"),
    json_out: bool = typer.Option(False, "--json", help="machine-readable output"),
) -> None:
    """Suggest this round's queue from a state document (it sees every hand: a teaching aid)."""
    doc = read_json(state_file, "state file")
    state = QuirkyState.from_json(doc)
    sol = hint(state)
    if json_out:
        emit_json(sol.to_json() | {"queue": sol.to_json()["plan"][0] if sol.plan else []})
        return
    if not sol.winnable:
        typer.echo("no win found from here before the battery runs out")
        raise typer.Exit(1)
    plan = sol.to_json()["plan"]
    typer.echo(f"this round: {' '.join(plan[0])}")
    typer.echo(f"wins in {sol.rounds} round(s) from here ({sol.section} battery)")


@app.command("new")
def new_cmd(
    scenario: str = SCENARIO_ARG,
    players: int = typer.Option(3, "--players", "-n", help="number of players"),
    seed: int | None = typer.Option(None, "--seed", help="shuffle seed (default: random)"),
    json_out: bool = typer.Option(False, "--json", help="print the set-up state document"),
) -> None:
    """Set up a game (robot on Q, battery full, deck shuffled, hands dealt) and print its state."""
    scn = load_scenario(scenario)
    _check_players(scn, players)
    state = shuffled(new_state(scn, players), random.Random(seed))
    if json_out:
        emit_json(state.to_json())
        return
    typer.echo(ascii_board(scn, state.table))
    for i, h in enumerate(state.hands):
        typer.echo(f"p{i + 1}: {len(h)} cards (hidden)")
    typer.echo(f"deck: {len(state.deck)} cards; battery {state.battery}")


@app.command("validate")
def validate_cmd(
    state_file: Path = typer.Argument(..., metavar="STATE.json", help="a Quirky Circuits state document"),
    json_out: bool = typer.Option(False, "--json", help="machine-readable output"),
) -> None:
    """Check a table state against the rules and its scenario: exit 0 right, 1 problems, 2 unreadable."""
    doc = read_json(state_file, "state file")
    problems = validate_state(doc)
    if json_out:
        emit_json({"ok": not problems, "problems": [p.to_json() for p in problems]})
    else:
        for p in problems:
            typer.echo(str(p))
        typer.echo("set-up OK" if not problems else f"{len(problems)} problem(s)")
    if problems:
        raise typer.Exit(1)


@app.command("selfplay")
def selfplay_cmd(
    games: int = typer.Option(10, "--games", help="number of games"),
    seed: int = typer.Option(0, "--seed", help="random seed"),
    scenario: str | None = typer.Option(
        None, "--scenario", help="one scenario (default: every shipped one in turn)"
    ),
    players: int = typer.Option(3, "--players", "-n", help="number of players"),
    json_out: bool = typer.Option(False, "--json", help="machine-readable output"),
) -> None:
    """Random-move games (shuffles as chance events), checking card and token invariants throughout."""
    if games < 1:
        raise BoardsideInputError(f"--games must be >= 1, got {games!r}")
    pool = [load_scenario(scenario)] if scenario else builtin_scenarios()
    for s in pool:
        _check_players(s, players)
    rng = random.Random(seed)
    stats: dict[str, Any] = {
        "games": 0,
        "won": 0,
        "lost": 0,
        "moves": 0,
        "chance_events": 0,
        "rounds": 0,
        "by_scenario": {},
    }
    from rich.progress import Progress

    with Progress(disable=json_out, transient=True) as progress:
        task = progress.add_task("self-play", total=games)
        for g in range(games):
            scn = pool[g % len(pool)]
            state, moves, chances = random_playout(new_state(scn, players), rng)
            assert isinstance(state, QuirkyState)
            _check_invariants(state)
            stats["games"] += 1
            stats[state.outcome] += 1
            stats["moves"] += moves
            stats["chance_events"] += chances
            stats["rounds"] += state.round
            per = stats["by_scenario"].setdefault(scn.id, {"games": 0, "won": 0})
            per["games"] += 1
            per["won"] += state.outcome == "won"
            progress.advance(task)
    stats["invariants"] = "ok"
    if json_out:
        emit_json(stats)
    else:
        typer.echo(
            f"{stats['games']} games: {stats['won']} won, {stats['lost']} lost; {stats['moves']} moves, "
            f"{stats['chance_events']} chance events; invariants ok"
        )


def _check_invariants(state: QuirkyState) -> None:
    from engine.core import GameError

    cards = Counter(
        [c for h in state.hands for c in h]
        + list(state.deck)
        + [c for _, c in state.queue]
        + list(state.pool)
        + list(state.placed)
    )
    if cards != Counter(state.scenario.deck):
        raise GameError(f"card conservation broken in {state.scenario.id!r}")
    if not state.is_terminal():
        raise GameError("playout ended on a non-terminal state")


# --------------------------------------------------------------------------- play


@app.command("play")
def play_cmd(
    scenario: str = SCENARIO_ARG,
    players: int = typer.Option(3, "--players", "-n", help="number of players"),
    seed: int | None = typer.Option(None, "--seed", help="shuffle seed (default: random)"),
    practice: bool = typer.Option(False, "--practice", help="practice mode: the queue is played face up"),
) -> None:
    """A hot-seat terminal game with hidden hands.

    Commands: hand N, play N CARD, go, take TOKEN, board, help, quit.
    """
    scn = load_scenario(scenario)
    _check_players(scn, players)
    state = shuffled(new_state(scn, players, practice), random.Random(seed))
    out = typer.echo
    out(f"{scn.title} -- {scn.objective.text}")
    out("Players may not reveal their cards. Commands: hand N | play N CARD | go | board | help | quit")
    out(ascii_board(scn, state.table))
    read: Callable[[], str | None] = _reader()
    while not state.is_terminal():
        if state.is_chance_node():
            state = shuffled(state, random.Random(seed))
            continue
        if state.phase == "choose":
            out(f"Pick up which token? ({', '.join(state.candidates)}) -- type: take TOKEN")
        else:
            backs = " ".join(str(c) if practice else f"[{c.back}]" for _, c in state.queue)
            out(
                f"Round {state.round}, battery {state.battery} ({state.section}). Queue: {backs or '(empty)'}"
            )
        line = read()
        if line is None or line.strip().lower() in ("quit", "q", "exit"):
            out("game abandoned")
            return
        words = line.split()
        if not words:
            continue
        cmd = words[0].lower()
        try:
            if cmd == "help":
                out(
                    "hand N: show player N's hand (pass the terminal first) | "
                    "play N CARD: player N plays CARD "
                    "face down | go: execute the queue | take TOKEN: choose a token to pick up | board | quit"
                )
            elif cmd == "board":
                out(ascii_board(scn, state.table))
            elif cmd == "hand" and len(words) == 2:
                seat = _seat(words[1], players)
                out(f"p{seat + 1}'s hand: {' '.join(str(c) for c in state.hands[seat])}")
                out("(press Enter to hide)")
                read()
                out("\n" * 30)
            elif cmd == "play" and len(words) == 3:
                from engine.quirky import Card

                state = state.apply(Play(_seat(words[1], players), Card.parse(words[2])))
                out(f"p{_seat(words[1], players) + 1} played a card face down")
            elif cmd == "go":
                state = state.apply(Go())
                state = _report_execution(state, out)
            elif cmd == "take" and len(words) == 2:
                state = state.apply(Take(words[1]))
                state = _report_execution(state, out)
            else:
                out(f"unknown command {line.strip()!r} (type help)")
        except (InvalidMoveError, BoardsideInputError) as exc:
            out(f"not allowed: {exc}")
        except Exception as exc:  # IllegalMoveError and friends: keep the game going
            from engine.core import GameError

            if not isinstance(exc, GameError):
                raise
            out(f"not allowed: {exc}")
    if state.outcome == "won":
        out(f"You win! Battery {state.battery}: {state.section} section.")
    else:
        out("The battery ran out: you lose." if state.battery == 0 else "You lose.")


def _report_execution(state: QuirkyState, out: Callable[[str], None]) -> QuirkyState:
    if state.phase == "choose":
        for tr in state.traces:
            out(f"  {tr.card!s:6s} {' '.join(str(m) for m in tr.motions)}")
        return state
    res = state.last_execution
    if res is not None:
        for tr in res.cards:
            out(f"  {tr.card!s:6s} {' '.join(str(m) for m in tr.motions) or '(no motion)'}")
            for note in tr.notes:
                out(f"         {note}")
        out(ascii_board(state.scenario, res.final))
    return state


def _seat(text: str, players: int) -> int:
    t = text.lower().removeprefix("p")
    if not t.isdigit() or not 1 <= int(t) <= players:
        raise BoardsideInputError(f"no player {text!r} (players are 1..{players})")
    return int(t) - 1


def _reader() -> Callable[[], str | None]:
    def read() -> str | None:
        sys.stdout.write("> ")
        sys.stdout.flush()
        line = sys.stdin.readline()
        return None if line == "" else line.rstrip("\n")

    return read


__all__ = ["app", "load_scenario", "run_program"]

_ = ScenarioError  # re-exported for callers that catch scenario errors
