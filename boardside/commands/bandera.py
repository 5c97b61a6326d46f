"""``boardside bandera``: Captura la Bandera -- set up, list moves, play at one keyboard,
check a position, replay a record, and play random games for figures.

Rules as implemented: docs/rules/bandera.md.  Moves are written ``place 3,4``, ``stack 3,4``,
``pass``, ``cube 3,4 E``, ``tower 3,4 E``, ``lower 3,4 E``, ``royal 0,3 N``, ``char 1,3 E``,
``end``; dice are ``start:PLAYER``, ``place:N``, ``move:N``.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path
from typing import Any

import typer

from boardside.io import emit_json, read_json, write_json
from engine.bandera import Move, State, new_state, parse_step, validate_state
from engine.bandera import render as render_text
from engine.bandera.moves import parse_event
from engine.bandera.record import new_record, replay
from engine.bandera.state import BanderaOptionError, parse_level
from engine.bandera.text import status
from engine.core import ChanceEvent, GameError

NAME = "bandera"

app = typer.Typer(
    help="Captura la Bandera: capture the other flags walking your character over cubes "
    "(rules: docs/rules/bandera.md).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

PLAYERS_OPT = typer.Option(2, "--players", "-p", help="Number of players, 2 to 4.")
LEVEL_OPT = typer.Option(
    "easy", "--level", "-l", help="Difficulty: easy (22 cubes), medium (18), hard (14; for 2 players)."
)


def _load_state(path: Path) -> State:
    return State.from_json(read_json(path, "state file"))


def _outcomes_json(state: State) -> list[dict[str, Any]]:
    return [{"event": str(e), "probability": str(p), "p": float(p)} for e, p in state.chance_outcomes()]



def _print_state(state: State, output: Path | None, as_json: bool) -> None:
    """Write the state to ``output`` if given, then print it as JSON or as the text board."""
    if output is not None:
        write_json(output, state.to_json())
    if as_json:
        emit_json(state.to_json())
    else:
        typer.echo(render_text(state))

@app.command()
def new(
    players: int = PLAYERS_OPT,
    level: str = LEVEL_OPT,
    first: str | None = typer.Option(None, "--first", help="Who begins (skips the roll-off)."),
    output: Path | None = typer.Option(None, "--output", "-o", help="Also write the state to this file."),
    as_json: bool = typer.Option(False, "--json", help="Print the state document as JSON."),
) -> None:
    """Print the set-up position: royal towers placed, characters on them, cubes off the board."""
    state = new_state(players, level, first=first)
    _print_state(state, output, as_json)


@app.command()
def show(state_file: Path = typer.Argument(..., help="A Captura la Bandera state file (JSON).")) -> None:
    """Draw a position as text."""
    typer.echo(render_text(_load_state(state_file)))


@app.command("render")
def render_cmd(
    state_file: Path = typer.Argument(..., help="A Captura la Bandera state file (JSON)."),
    output: Path = typer.Option(..., "--output", "-o", help="Picture to write (.png or .jpg)."),
    cell: int = typer.Option(80, "--cell", help="Size of a board square in pixels (20 to 400)."),
) -> None:
    """Draw a position as a top-down picture (zones, cubes, flags, characters)."""
    import cv2

    from boardside.bandera_picture import draw

    if not 20 <= cell <= 400:
        raise BanderaOptionError(f"--cell must be between 20 and 400 pixels, got {cell!r}")
    img = draw(_load_state(state_file), cell)
    output.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(output), img):
        raise BanderaOptionError(f"cannot write picture {str(output)!r} (use a .png or .jpg name)")
    typer.echo(f"wrote {output}")


@app.command()
def moves(
    state_file: Path = typer.Argument(..., help="A Captura la Bandera state file (JSON)."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """List the legal moves of the player to act (or the dice outcomes at a roll)."""
    state = _load_state(state_file)
    if as_json:
        emit_json(
            {
                "to_move": state.current_player(),
                "phase": state.phase,
                "chance": state.is_chance_node(),
                "terminal": state.is_terminal(),
                "moves": [str(m) for m in state.legal_moves()],
                "outcomes": _outcomes_json(state),
            }
        )
        return
    typer.echo(status(state))
    if state.is_terminal():
        return
    if state.is_chance_node():
        for e, p in state.chance_outcomes():
            typer.echo(f"  {e}  (probability {p})")
        return
    for i, m in enumerate(state.legal_moves(), start=1):
        typer.echo(f"{i:>4}. {m}")


@app.command()
def apply(
    state_file: Path = typer.Argument(..., help="A Captura la Bandera state file (JSON)."),
    steps: list[str] = typer.Argument(..., help="Moves and dice in order, e.g. 'move:3' 'char 0,3 E'."),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the new state here."),
    as_json: bool = typer.Option(False, "--json", help="Print the new state as JSON."),
) -> None:
    """Apply moves and dice to a position (each checked against the rules)."""
    state = _load_state(state_file)
    for i, text in enumerate(steps, start=1):
        try:
            state = state.apply(parse_step(text))
        except GameError as exc:
            raise type(exc)(f"step {i}: {exc}") from None
    _print_state(state, output, as_json)


@app.command()
def validate(
    state_file: Path = typer.Argument(..., help="A Captura la Bandera state file (JSON)."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Check a position against the rules; exit 0 if right, 1 if it breaks a rule, 2 if unreadable."""
    doc = read_json(state_file, "state file")
    problems = validate_state(doc)
    errors = [p for p in problems if p.severity == "error"]
    if as_json:
        emit_json({"game": "bandera", "ok": not errors, "problems": [p.to_json() for p in problems]})
    else:
        for p in problems:
            typer.echo(f"{p.severity}: {p}")
        if not errors:
            typer.echo("ok: the position follows the rules" + (" (with warnings)" if problems else ""))
        else:
            typer.echo(f"{len(errors)} problem(s) found")
    if errors:
        raise typer.Exit(1)


@app.command("replay")
def replay_cmd(
    record_file: Path = typer.Argument(..., help="A game record (JSON with 'steps')."),
    as_json: bool = typer.Option(False, "--json", help="Print the final state as JSON."),
) -> None:
    """Replay a recorded game step by step (dice included) and show the final position."""
    states = replay(read_json(record_file, "game record"))
    final = states[-1]
    if as_json:
        emit_json(final.to_json())
    else:
        typer.echo(render_text(final))
        typer.echo(f"{len(states) - 1} step(s) replayed")


# ---------------------------------------------------------------------------- play
class _Quit(Exception):
    pass


def _ask(prompt: str) -> str:
    typer.echo(prompt, nl=False)
    line = sys.stdin.readline()
    if line == "":
        typer.echo("")
        raise _Quit
    return line.strip()


def _columns(legal: list[Move], per_line: int = 4) -> str:
    """The numbered legal moves, several to a line."""
    cells = [f"{i:>3}. {m}" for i, m in enumerate(legal, start=1)]
    width = max(len(c) for c in cells) + 2
    return "\n".join(
        "".join(c.ljust(width) for c in cells[k : k + per_line]).rstrip() for k in range(0, len(cells), per_line)
    )


def _manual_event(state: State) -> ChanceEvent | None:
    """The roll the players type in (``None`` when they ask to undo their last move)."""
    while True:
        if state.phase == "start":
            names = "/".join(state.players)
            text = _ask(f"who won the roll-off for the first turn? ({names}): ")
            if text in state.players:
                return ChanceEvent("start", text)
        else:
            which = "placement" if state.phase == "place_roll" else "movement"
            text = _ask(f"{state.to_move}, roll the die and type the {which} roll (1-6): ")
            try:
                return parse_event(f"{'place' if state.phase == 'place_roll' else 'move'}:{text}")
            except GameError:
                pass
        if text in ("quit", "q"):
            raise _Quit
        if text == "undo":
            return None
        typer.echo(f"  not understood: {text!r}")


@app.command()
def play(
    players: int = PLAYERS_OPT,
    level: str = LEVEL_OPT,
    seed: int | None = typer.Option(None, "--seed", help="Seed for the program's dice (repeatable games)."),
    dice: str = typer.Option("auto", "--dice", help="auto: the program rolls; manual: type your real rolls."),
    record: Path | None = typer.Option(
        None, "--record", help="Write the game record (every move and die) here after each step."
    ),
    max_turns: int | None = typer.Option(None, "--max-turns", help="Stop after this many turns."),
) -> None:
    """Play at one keyboard (hot seat): numbered legal moves, 'undo', 'board', 'help', 'quit'."""
    if dice not in ("auto", "manual"):
        raise BanderaOptionError(f"--dice must be 'auto' or 'manual', got {dice!r}")
    state = new_state(players, level, max_turns=max_turns)
    rng = random.Random(seed)
    rec = new_record(state)
    history: list[tuple[State, bool]] = []  # (state before, step was a die)

    def save() -> None:
        if record is not None:
            write_json(record, rec)

    def undo() -> bool:
        nonlocal state
        if not history or history[-1][1]:
            typer.echo("  nothing to undo since the last roll of the die")
            return False
        state = history.pop()[0]
        rec["steps"].pop()
        save()
        return True

    typer.echo(render_text(state))
    shown = True
    try:
        while not state.is_terminal():
            if state.is_chance_node():
                event = state.sample_chance(rng) if dice == "auto" else _manual_event(state)
                if event is None:
                    if undo():
                        shown = False
                    continue
                history.append((state, True))
                state = state.apply(event)
                rec["steps"].append(str(event))
                save()
                if event.kind == "start":
                    typer.echo(f"roll-off: {event.value} begins")
                else:
                    typer.echo(f"{history[-1][0].to_move} rolls {event.value} for {event.kind}ment")
                shown = False
                continue
            if not shown:
                typer.echo(render_text(state, legend=False))
                shown = True
            legal = state.legal_moves()
            typer.echo(_columns(legal))
            text = _ask(f"{state.to_move}> ")
            if text in ("quit", "q"):
                raise _Quit
            if text in ("help", "?"):
                typer.echo(
                    "type a number from the list or a move ('cube 3,4 E'); 'undo' takes back your last "
                    "move (never a die); 'board' redraws; 'quit' stops (the record is kept)"
                )
                continue
            if text == "board":
                typer.echo(render_text(state))
                continue
            if text == "undo":
                if undo():
                    shown = False
                continue
            try:
                move = legal[int(text) - 1] if text.isdigit() and 1 <= int(text) <= len(legal) else Move.parse(text)
                nxt = state.apply(move)
            except GameError as exc:
                typer.echo(f"  {exc}")
                continue
            history.append((state, False))
            state = nxt
            rec["steps"].append(str(move))
            save()
            shown = False
    except _Quit:
        typer.echo("game stopped" + (f"; record saved to {str(record)!r}" if record is not None else ""))
        return
    typer.echo(render_text(state, legend=False))


# ---------------------------------------------------------------------------- selfplay
@app.command()
def selfplay(
    games: int = typer.Option(10, "--games", "-n", min=1, help="How many games."),
    seed: int = typer.Option(0, "--seed", help="Random seed (same seed, same games)."),
    players: int = PLAYERS_OPT,
    level: str = LEVEL_OPT,
    max_turns: int = typer.Option(
        600, "--max-turns", min=1, help="Stop a game after this many turns (random play rarely captures)."
    ),
    check: bool = typer.Option(
        True, "--check/--no-check", help="Validate every position on the way (counted as rule_problems)."
    ),
    records: Path | None = typer.Option(None, "--records", help="Save every game record in this folder."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as one JSON object."),
) -> None:
    """Play random games (uniform legal moves, fair dice) and report figures."""
    from rich.console import Console
    from rich.progress import Progress

    new_state(players, level)  # check the options before starting
    rng = random.Random(seed)
    wins: dict[str, float] = {}
    moves_total = chances = turns_total = finished = captures = problems = 0
    lengths: list[int] = []
    started = time.perf_counter()
    interrupted = False
    err = Console(stderr=True)
    with Progress(console=err, transient=True, disable=not sys.stderr.isatty()) as progress:
        task = progress.add_task("self-play", total=games)
        try:
            for g in range(games):
                state = new_state(players, level, max_turns=max_turns)
                rec = new_record(state)
                n_moves = 0
                while not state.is_terminal():
                    if state.is_chance_node():
                        step: Move | ChanceEvent = state.sample_chance(rng)
                        chances += 1
                    else:
                        step = rng.choice(state.legal_moves())
                        n_moves += 1
                    state = state.apply(step)
                    rec["steps"].append(str(step))
                    if check:
                        problems += sum(1 for p in validate_state(state.to_json()) if p.severity == "error")
                if records is not None:
                    write_json(records / f"bandera-{seed}-{g:04d}.json", rec)
                moves_total += n_moves
                turns_total += state.turn
                lengths.append(state.turn)
                captures += len(state.captures)
                finished += 0 if state.stopped else 1
                for p, r in state.returns().items():
                    wins[p] = wins.get(p, 0.0) + r
                progress.advance(task)
        except KeyboardInterrupt:
            interrupted = True
            err.print(f"interrupted after {len(lengths)} game(s); reporting those")
    elapsed = time.perf_counter() - started
    played = len(lengths)
    figures = {
        "game": "bandera",
        "games": played,
        "requested": games,
        "interrupted": interrupted,
        "seed": seed,
        "players": players,
        "level": parse_level(level),
        "max_turns": max_turns,
        "finished_by_capture": finished,
        "stopped_by_turn_limit": played - finished,
        "captures": captures,
        "moves": moves_total,
        "chance_events": chances,
        "turns": turns_total,
        "turns_mean": round(turns_total / played, 2) if played else 0.0,
        "turns_max": max(lengths) if lengths else 0,
        "rule_problems": problems if check else None,
        "wins": {p: round(v, 3) for p, v in wins.items()},
        "seconds": round(elapsed, 3),
        "games_per_s": round(played / elapsed, 3) if elapsed > 0 else None,
        "moves_per_s": round(moves_total / elapsed, 1) if elapsed > 0 else None,
    }
    if as_json:
        emit_json(figures)
    else:
        for k, v in figures.items():
            typer.echo(f"{k}: {v}")
    if interrupted:
        raise typer.Exit(130)
