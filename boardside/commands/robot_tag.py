"""``boardside board print-tag``: print the robot's ArUco tag (docs/robot_tracking.md).

The ``board`` group lives in ``boardside/commands/board.py``; this module adds its ``print-tag``
command there (``register`` runs after the group is built, modules load in name order), so the
robot tracker's command stays next to the robot tracker.
"""

from __future__ import annotations

from pathlib import Path

import typer

from boardside.io import emit_json


def print_tag(
    tag_id: int = typer.Option(230, "--id", help="Tag id, 230-249 (one per robot on the table)."),
    tag_mm: float = typer.Option(30.0, "--tag-mm", help="Side of the tag's black square in mm."),
    height_mm: float = typer.Option(45.0, "--height-mm", help="Height of the tag above the board once mounted."),
    paper: str = typer.Option("A4", "--paper", help="Paper: A4, A3 or Letter."),
    output: Path | None = typer.Option(None, "-o", "--output", help="Output .pdf or .png (default robot-tag-ID.pdf)."),
    dpi: float = typer.Option(300.0, "--dpi", help="Resolution of the printed page."),
    as_json: bool = typer.Option(False, "--json", help="Print what was written as JSON."),
) -> None:
    """Write the robot's tag as a true-scale page: cut it out, glue it flat on top of the robot, arrow forward."""
    from calibration.boards import RobotTag
    from calibration.tag_print import write_tag_sheet

    tag = RobotTag(tag_id, tag_mm, height_mm)
    path = write_tag_sheet(output or Path(f"robot-tag-{tag.id}.pdf"), tag, paper, dpi)
    if as_json:
        emit_json({"output": str(path), "tag": {"id": tag.id, "tag_mm": tag.tag_mm, "height_mm": tag.height_mm,
                                                 "dictionary": tag.dictionary}})
        return
    typer.echo(f"wrote {path}: robot tag {tag.dictionary} id {tag.id}, {tag.tag_mm:g} mm; print at 100 %, "
               f"mount it flat {tag.height_mm:g} mm above the board, arrow to the robot's front")


def register(root: typer.Typer) -> None:
    from boardside.commands.board import app as board_app

    board_app.command("print-tag")(print_tag)
