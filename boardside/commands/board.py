"""``boardside board ...``: print the flat boards (Bandera 10x7, Quirky scenario boards, Gridopolis level guide)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from boardside.io import emit_json, write_json

if TYPE_CHECKING:
    from calibration.boards import BoardSpec

NAME = "board"
app = typer.Typer(
    help="Printable flat boards with ArUco markers: bandera (10x7 with its zones), quirky (a scenario's board, "
    "cell = the robot's step) and gridopolis (the level guide under the grid-set).",
    no_args_is_help=True,
    add_completion=False,
)

_GAME_HELP = "Game: bandera, quirky or gridopolis."
_SCENARIO_HELP = "Quirky scenario: a shipped id (boardside quirky list) or a scenario .toml file."
_CELL_HELP = "Cell size in mm (Quirky: the robot's step, 50 table robots, 150 floor robots; Bandera: 32)."


def _spec(game: str, scenario: str | None, cell_mm: float | None) -> BoardSpec:
    from calibration.boards import board_spec

    return board_spec(game, scenario=scenario, cell_mm=cell_mm)


@app.command("print")
def print_board(
    game: str = typer.Argument(..., help=_GAME_HELP),
    scenario: str | None = typer.Option(None, "--scenario", "-s", help=_SCENARIO_HELP),
    cell_mm: float | None = typer.Option(None, "--cell-mm", help=_CELL_HELP),
    paper: str = typer.Option("A4", "--paper", help="Paper: A4, A3 or Letter."),
    output: Path | None = typer.Option(
        None, "-o", "--output", help="Output .pdf (true size, one page per sheet); default GAME[-SCENARIO].pdf."
    ),
    png: bool = typer.Option(False, "--png", help="Also write a PNG preview of the whole board and its sheets."),
    dpi: float = typer.Option(300.0, "--dpi", help="Resolution of the printed pages (50-600)."),
    as_json: bool = typer.Option(False, "--json", help="Print the board specification and sheet layout as JSON."),
) -> None:
    """Write a board as a true-scale PDF, tiled over several sheets when it is larger than the paper,
    plus its specification (OUTPUT.json: grid, cell size, marker ids and positions).

    Print at 100 % / "actual size" (no "fit to page") and check the 50 mm scale bar with a ruler.
    Tiled boards: cut each sheet on its grey line where it joins a neighbour, line up the grid ticks
    and corner crosses, and tape the sheets together from the back.
    """
    from calibration.board_print import BoardPrintError, layout_sheets, write_board

    spec = _spec(game, scenario, cell_mm)
    layout = layout_sheets(spec, paper)
    if output is None:
        output = Path(spec.name.replace(":", "-").replace(" ", "-") + ".pdf")
    if output.suffix.lower() != ".pdf":
        raise BoardPrintError(f"output must end in .pdf, got {str(output)!r} (use --png for a preview)")

    from rich.console import Console
    from rich.progress import Progress

    err = Console(stderr=True)
    with Progress(console=err, transient=True, disable=not sys.stderr.isatty()) as progress:
        task = progress.add_task(f"rendering {len(layout.sheets)} sheet(s)", total=len(layout.sheets))
        path = write_board(output, layout, dpi, progress=lambda i, n: progress.update(task, completed=i))
    preview = write_board(output.with_suffix(".png"), layout, dpi) if png else None
    spec_path = path.with_suffix(".json")
    write_json(spec_path, {"board": spec.to_json(), "print": layout.to_json()})
    if as_json:
        emit_json(
            {
                "output": str(path),
                "preview": str(preview) if preview else None,
                "spec_file": str(spec_path),
                "board": spec.to_json(),
                "print": layout.to_json(),
            }
        )
        return
    w, h = spec.size_mm
    pw, ph = layout.page_mm
    typer.echo(
        f"wrote {path}: {spec.name}, {spec.cols} x {spec.rows} cells of {spec.cell_mm:g} mm, "
        f"{w:g} x {h:g} mm on {len(layout.sheets)} {layout.paper} sheet(s) ({layout.orientation}, "
        f"{layout.rows} x {layout.cols}; {pw:g} x {ph:g} mm)"
    )
    if preview:
        typer.echo(f"wrote {preview} (preview with the sheet layout)")
    typer.echo(
        f"wrote {spec_path} (board specification: markers {spec.dictionary} ids "
        f"{min(spec.marker_ids)}-{max(spec.marker_ids)})"
    )
    typer.echo("print at 100 % (actual size) and check the 50 mm scale bar with a ruler")


@app.command("show")
def show_board(
    game: str = typer.Argument(..., help=_GAME_HELP),
    scenario: str | None = typer.Option(None, "--scenario", "-s", help=_SCENARIO_HELP),
    cell_mm: float | None = typer.Option(None, "--cell-mm", help=_CELL_HELP),
    paper: str = typer.Option("A4", "--paper", help="Paper for the sheet layout: A4, A3 or Letter."),
    as_json: bool = typer.Option(False, "--json", help="Machine output."),
) -> None:
    """Describe a board: size, cells, markers and how it is tiled on the paper."""
    from calibration.board_print import layout_sheets

    spec = _spec(game, scenario, cell_mm)
    layout = layout_sheets(spec, paper)
    if as_json:
        emit_json({"board": spec.to_json(), "print": layout.to_json()})
        return
    w, h = spec.size_mm
    typer.echo(
        f"{spec.name}: {spec.cols} x {spec.rows} cells of {spec.cell_mm:g} mm, margin {spec.margin_mm:g} mm, "
        f"{w:g} x {h:g} mm in all"
    )
    typer.echo(f"markers: {len(spec.fiducials)} of {spec.dictionary}, ids {', '.join(map(str, spec.marker_ids))}")
    kinds: dict[str, int] = {}
    for m in spec.marks:
        kinds[m.kind] = kinds.get(m.kind, 0) + 1
    if kinds:
        typer.echo("printed: " + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())))
    typer.echo(f"on {layout.paper}: {len(layout.sheets)} sheet(s), {layout.rows} x {layout.cols}, {layout.orientation}")
