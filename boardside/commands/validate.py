"""``boardside validate GAME STATE.json``: check a table set-up against a game's rules."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from boardside.games import GAMES, validator
from boardside.io import emit_json, read_json


def register(root: typer.Typer) -> None:
    @root.command("validate")
    def validate(
        game: str = typer.Argument(..., help=f"One of: {', '.join(GAMES)}."),
        state_file: Path = typer.Argument(..., help="The game's state file (JSON)."),
        json_out: bool = typer.Option(False, "--json", help="Print machine-readable JSON."),
    ) -> None:
        """Check a table set-up (a state file) against the rules and list each problem in words.

        Exit code 0 when the set-up is right, 1 when it is not, 2 when the file is unreadable.
        """
        check = validator(game)
        doc = read_json(state_file, "state file")
        problems = check(doc)
        errors = [p for p in problems if p.severity == "error"]
        if json_out:
            emit_json({"game": game, "valid": not errors, "problems": [p.to_json() for p in problems]})
        else:
            out = Console()
            if not problems:
                out.print(f"OK: the {game} set-up follows the rules")
            for p in problems:
                out.print(f"{p.severity}: {p}")
        if errors:
            raise typer.Exit(1)
