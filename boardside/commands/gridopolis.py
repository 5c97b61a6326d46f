"""``boardside gridopolis``: the Gridopolis "Matrix" game at the table.

Commands: ``new`` (the set-up), ``show`` (ASCII levels of a state file), ``moves`` (legal
moves), ``play`` (hot-seat terminal game), ``validate`` (check a state or set-up against
the rules) and ``selfplay`` (random games with figures).  Rules: docs/rules/gridopolis.md.
"""

from __future__ import annotations

import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from boardside.io import emit_json, read_json, write_json
from engine.core import GameError
from engine.errors import BoardsideInputError
from engine.gridopolis import Move, Pad, State, new_state, validate_state

NAME = "gridopolis"

app = typer.Typer(
    name=NAME,
    help="Gridopolis (Matrix): set up, list moves, play hot-seat, validate a table, self-play.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)

PLAYERS_HELP = "Number of players: 2, 3 or 4."
TURN_LIMIT_HELP = (
    "Timed game (ending option 2): stop after this many rounds, every player having had the same "
    "number of turns; the most markers left plus captured wins. Default: last marker standing."
)


def _check_players(players: int) -> int:
    if players not in (2, 3, 4):
        raise BoardsideInputError(f"--players must be 2, 3 or 4, got {players!r}")
    return players


def _check_limit(turn_limit: int | None) -> int | None:
    if turn_limit is not None and turn_limit < 1:
        raise BoardsideInputError(f"--turn-limit must be at least 1 round, got {turn_limit!r}")
    return turn_limit


def _load(path: Path) -> State:
    return State.from_json(read_json(path, "Gridopolis state file"))


@app.command()
def new(
    players: int = typer.Option(2, "--players", "-n", help=PLAYERS_HELP),
    turn_limit: int | None = typer.Option(None, "--turn-limit", help=TURN_LIMIT_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the set-up as a JSON state file."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Also write the state file here."),
) -> None:
    """Print the set-up of a Matrix game (the standard layout, docs/rules/gridopolis.md)."""
    state = new_state(_check_players(players), turn_limit=_check_limit(turn_limit))
    if out is not None:
        write_json(out, state.to_json())
    if as_json:
        emit_json(state.to_json())
    else:
        typer.echo(state.render(), nl=False)


@app.command()
def show(
    state_file: Path = typer.Argument(..., metavar="STATE.json", help="A Gridopolis state file."),
) -> None:
    """Draw a state file's grid-set, one ASCII grid per level."""
    typer.echo(_load(state_file).render(), nl=False)


@app.command()
def moves(
    state_file: Path = typer.Argument(..., metavar="STATE.json", help="A Gridopolis state file."),
    from_pad: str | None = typer.Option(
        None, "--from", help="Only moves of the marker on this pad (x,y,level)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the moves as JSON."),
) -> None:
    """List the legal moves of the player to move."""
    state = _load(state_file)
    legal = list(state.legal_moves())
    if from_pad is not None:
        pad = Pad.parse(from_pad)
        legal = [m for m in legal if getattr(m, "frm", None) == pad]
    if as_json:
        emit_json(
            {
                "to_move": state.current_player(),
                "king_move": str(state.king_move) if state.king_move else None,
                "ending": state.ending(),
                "count": len(legal),
                "moves": [str(m) for m in legal],
            }
        )
        return
    if state.is_terminal():
        typer.echo(f"game over ({state.ending()}): no moves")
        return
    typer.echo(f"{state.current_player()} to move: {len(legal)} legal moves")
    for m in legal:
        typer.echo(f"  {m}")


@app.command()
def validate(
    state_file: Path = typer.Argument(..., metavar="STATE.json", help="A Gridopolis state file."),
    as_json: bool = typer.Option(False, "--json", help="Print the problems as JSON."),
) -> None:
    """Check a state or table set-up against the rules.

    Exit 0 when it is right (warnings allowed), 1 when it breaks a rule, 2 when the file
    cannot be read as a Gridopolis state.
    """
    problems = validate_state(read_json(state_file, "Gridopolis state file"))
    errors = [p for p in problems if p.severity == "error"]
    if as_json:
        emit_json({"ok": not errors, "problems": [p.to_json() for p in problems]})
    else:
        for p in problems:
            typer.echo(f"{p.severity}: {p}")
        if errors:
            typer.echo(f"{len(errors)} problem{'s' if len(errors) != 1 else ''} found")
        else:
            typer.echo("set-up OK" + (f" ({len(problems)} warnings)" if problems else ""))
    if errors:
        raise typer.Exit(1)


PLAY_HELP = """\
Type a move, or one of:
  3,1,0          show the moves of the marker on that pad (destinations marked < >)
  moves          list every legal move
  show           draw the grid-set again
  undo           take back the last move
  help           this text
  quit           stop (the game so far is kept in --save FILE if given)
Moves:  3,1,0-3,2,0 step   3,1,0-3,3,1>2,2,2 step onto a hyper-pad and transmit
        3,0,0~3,2,0 jump own marker   3,2,0x3,4,0x5,4,0 capture(s)   3,2,0*3,3,0 kamikaze
        block 3,3,0   add 5,3,0   add 3,3,3 post   end (no king second move)   pass
"""


@app.command()
def play(
    players: int = typer.Option(2, "--players", "-n", help=PLAYERS_HELP),
    turn_limit: int | None = typer.Option(None, "--turn-limit", help=TURN_LIMIT_HELP),
    state_file: Path | None = typer.Option(None, "--state", help="Resume from this state file."),
    save: Path | None = typer.Option(None, "--save", help="Write the state here after every move."),
) -> None:
    """Play a hot-seat game in the terminal (moves typed on standard input)."""
    if state_file is not None:
        state = _load(state_file)
    else:
        state = new_state(_check_players(players), turn_limit=_check_limit(turn_limit))
    typer.echo("Gridopolis -- Matrix. Type 'help' for the move notation.")
    typer.echo(state.render(), nl=False)
    history: list[State] = []
    while not state.is_terminal():
        who = state.current_player()
        try:
            line = input(f"{who}> ")
        except EOFError:
            typer.echo("\nend of input: game stopped" + (f"; state saved in {str(save)!r}" if save else ""))
            return
        text = line.strip()
        if not text:
            continue
        word = text.lower()
        if word in ("quit", "exit", "q"):
            typer.echo("game stopped" + (f"; state saved in {str(save)!r}" if save else ""))
            return
        if word in ("help", "?"):
            typer.echo(PLAY_HELP, nl=False)
            continue
        if word == "show":
            typer.echo(state.render(), nl=False)
            continue
        if word == "undo":
            if not history:
                typer.echo("nothing to undo")
                continue
            state = history.pop()
            if save is not None:
                write_json(save, state.to_json())
            typer.echo(state.render(), nl=False)
            continue
        if word == "moves":
            typer.echo(" ".join(str(m) for m in state.legal_moves()))
            continue
        try:
            pad = Pad.parse(text)
        except GameError:
            pad = None
        if pad is not None:
            own = [m for m in state.legal_moves() if getattr(m, "frm", None) == pad]
            if not own:
                typer.echo(f"no legal move for a marker at {pad}")
                continue
            targets = [getattr(m, "final", getattr(m, "landing", pad)) for m in own]
            typer.echo(state.render(highlight=targets), nl=False)
            typer.echo(" ".join(str(m) for m in own))
            continue
        try:
            after = state.apply(Move.parse(text))
        except GameError as exc:
            typer.echo(f"not played: {exc}")
            continue
        history.append(state)
        state = after
        if save is not None:
            write_json(save, state.to_json())
        typer.echo(state.render(), nl=False)
    res = state.returns()
    typer.echo("final points: " + ", ".join(f"{p.name} {state.points(p.name)}" for p in state.players))
    winners = [n for n, v in res.items() if v > 0]
    typer.echo(f"winner: {' and '.join(winners)}")


@app.command()
def selfplay(
    games: int = typer.Option(100, "--games", help="Number of random games."),
    seed: int = typer.Option(0, "--seed", help="Random seed (same seed, same games)."),
    players: int = typer.Option(2, "--players", "-n", help=PLAYERS_HELP),
    turn_limit: int | None = typer.Option(None, "--turn-limit", help=TURN_LIMIT_HELP),
    max_moves: int = typer.Option(
        100_000,
        "--max-moves",
        help="Stop a game after this many moves (counted as ending 'move-cap', no winner).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as JSON."),
) -> None:
    """Play random games (uniform over legal moves) and report figures."""
    if games < 1:
        raise BoardsideInputError(f"--games must be at least 1, got {games!r}")
    if max_moves < 1:
        raise BoardsideInputError(f"--max-moves must be at least 1, got {max_moves!r}")
    _check_players(players)
    _check_limit(turn_limit)
    rng = random.Random(seed)
    figures = _selfplay(games, rng, players, turn_limit, max_moves)
    figures.update({"seed": seed, "players": players, "turn_limit": turn_limit})
    if as_json:
        emit_json(figures)
        return
    typer.echo(
        f"{figures['games']} games, {figures['moves']} moves "
        f"({figures['moves_per_game']:.1f} per game, {figures['games_per_s']:.1f} games/s)"
    )
    typer.echo("wins: " + ", ".join(f"{k} {v:g}" for k, v in figures["winners"].items()))
    typer.echo("endings: " + ", ".join(f"{k} {v}" for k, v in figures["endings"].items()))
    if figures["interrupted"]:
        typer.echo("interrupted: figures cover the games finished so far")


def _random_game(state: State, rng: random.Random, max_moves: int) -> tuple[State, int]:
    """Uniformly random legal moves until the game ends or ``max_moves`` were played."""
    moves = 0
    while not state.is_terminal() and moves < max_moves:
        state = state.apply(rng.choice(list(state.legal_moves())))
        moves += 1
    return state, moves


def _selfplay(
    games: int, rng: random.Random, players: int, turn_limit: int | None, max_moves: int
) -> dict[str, Any]:
    start = time.perf_counter()
    wins: dict[str, float] = {}
    endings: Counter[str] = Counter()
    lengths: list[int] = []
    interrupted = False
    console = Console(stderr=True)
    with Progress(
        TextColumn("self-play"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=not sys.stderr.isatty(),
    ) as progress:
        task = progress.add_task("games", total=games)
        try:
            for _ in range(games):
                final, n = _random_game(new_state(players, turn_limit=turn_limit), rng, max_moves)
                lengths.append(n)
                endings[final.ending() or "move-cap"] += 1
                if final.is_terminal():
                    for name, v in final.returns().items():
                        wins[name] = wins.get(name, 0.0) + v
                progress.advance(task)
        except KeyboardInterrupt:
            interrupted = True
    seconds = time.perf_counter() - start
    done = len(lengths)
    moves_total = sum(lengths)
    names = [p.name for p in new_state(players).players]
    return {
        "games": done,
        "moves": moves_total,
        "moves_per_game": moves_total / done if done else 0.0,
        "min_moves": min(lengths) if lengths else 0,
        "max_moves": max(lengths) if lengths else 0,
        "winners": {n: round(wins.get(n, 0.0), 6) for n in names},
        "endings": dict(sorted(endings.items())),
        "seconds": round(seconds, 4),
        "games_per_s": done / seconds if seconds > 0 else 0.0,
        "moves_per_s": moves_total / seconds if seconds > 0 else 0.0,
        "interrupted": interrupted,
    }
