"""``boardside mat ...``: print the Boardside play mat and describe it."""

from __future__ import annotations

from pathlib import Path

import typer

from boardside.io import emit_json, write_json
from calibration.mat import MatSpec, mat_world_points_in_view

NAME = "mat"
app = typer.Typer(
    help="The printable play mat: a ChArUco ring, the Central Cube footprint, side names and colour patches.",
    no_args_is_help=True,
    add_completion=False,
)


@app.command("print")
def print_mat(
    output: Path = typer.Option(
        ..., "-o", "--output", help="Output file: .pdf (true size) or .png (at --dpi)."
    ),
    game: str = typer.Option("ctrl", "--game", help="Game the mat is for (footprint at the centre)."),
    paper: str = typer.Option("A3", "--paper", help="Paper: A4, A3 or Letter (printed landscape)."),
    block_mm: float = typer.Option(22.0, "--block-mm", help="Edge of one block in mm (measure yours)."),
    dpi: float = typer.Option(300.0, "--dpi", help="Resolution of the rendered image."),
    first_id: int = typer.Option(
        0, "--first-id", help="First ArUco marker id (use another for a second mat)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the mat specification as JSON."),
) -> None:
    """Write the mat as a true-scale PDF or a PNG, and its specification beside it (NAME.json).

    Print at 100 % / "actual size" (no "fit to page"), then check the 50 mm scale bar with a ruler.
    """
    from calibration.printing import write_mat

    spec = MatSpec.for_paper(paper, block_mm, game.lower(), first_id)
    path = write_mat(output, spec, dpi)
    spec_path = path.with_suffix(".json")
    doc = spec.to_json()
    write_json(spec_path, doc)
    if as_json:
        emit_json(
            {
                "output": str(path),
                "spec_file": str(spec_path),
                "mat": doc,
                "layout": mat_world_points_in_view(spec),
            }
        )
        return
    w, h = spec.paper_size_mm
    typer.echo(f"wrote {path} ({spec.paper} landscape, {w:g} x {h:g} mm, {dpi:g} dpi)")
    typer.echo(f"wrote {spec_path} (mat specification: {spec})")
    typer.echo("print at 100 % (actual size) and check the 50 mm scale bar with a ruler")


@app.command("show")
def show_mat(
    spec_text: str = typer.Argument(
        "ctrl:A3:22", help="Mat: PAPER[:BLOCK_MM], GAME:PAPER:BLOCK_MM or a mat .json"
    ),
    as_json: bool = typer.Option(False, "--json", help="Machine output."),
) -> None:
    """Describe a mat: sizes, where the footprint, side names and patches are in world mm."""
    from boardside.io import read_json

    if spec_text.endswith(".json"):
        spec = MatSpec.from_json(read_json(spec_text, "mat specification"))
    else:
        spec = MatSpec.parse(spec_text)
    layout = mat_world_points_in_view(spec)
    if as_json:
        emit_json({"mat": spec.to_json(), "layout": layout})
        return
    typer.echo(str(spec))
    typer.echo(f"paper in world mm (x_min, y_min, x_max, y_max): {layout['paper_world_rect']}")
    typer.echo(
        f"Central Cube footprint: {layout['footprint_world']}; clear centre: {layout['clear_world_rect']}"
    )
    typer.echo(f"{layout['charuco_corners']} ChArUco corners, {layout['printed_markers']} markers printed")
    for p in layout["patches"]:
        typer.echo(
            f"  patch {p['name']:<7} rgb={tuple(p['rgb'])} at {[round(v, 1) for v in p['rect_world']]}"
        )
