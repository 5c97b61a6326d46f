"""``boardside board print-tag`` and ``boardside board read-robot``: the robot's ArUco tag
(docs/robot_tracking.md).

The ``board`` group lives in ``boardside/commands/board.py``; this module adds these two commands
there (``register`` runs after the group is built, modules load in name order), so the robot
tracker's commands stay next to the robot tracker.
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


def read_robot(
    image: Path = typer.Argument(..., help="A picture of the Quirky board with the robot on it."),
    scenario: str = typer.Option(..., "--scenario", "-s", help="The scenario whose board is printed."),
    cell_mm: float | None = typer.Option(None, "--cell-mm", help="The printed board's cell size (default 50)."),
    calibration: Path | None = typer.Option(None, "--calibration", "-c",
                                            help="Camera calibration (default: estimated from the board)."),
    tag_id: int = typer.Option(230, "--tag-id", help="The robot's tag id (230-249)."),
    tag_mm: float = typer.Option(30.0, "--tag-mm", help="The tag's black square side, mm."),
    tag_height_mm: float = typer.Option(45.0, "--tag-height-mm", help="Height of the tag above the board, mm."),
    annotate: Path | None = typer.Option(None, "--annotate", help="Write the picture with the robot marked here."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Read the robot's cell, heading and position in mm from one picture (check a tag's mounting,
    height and the camera before a closed-loop run).  Exit 1 when the robot is not seen."""
    import cv2

    from calibration.boards import RobotTag, board_spec
    from calibration.camera import CameraCalibration, read_image
    from vision.robot_tag import RobotNotFoundError, read_robot_in_image

    spec = board_spec("quirky", scenario=scenario, cell_mm=cell_mm)
    tag = RobotTag(tag_id, tag_mm, tag_height_mm)
    cal = CameraCalibration.load(calibration) if calibration else None
    frame = read_image(image)
    try:
        reading, board = read_robot_in_image(frame, spec, cal, tag, name=str(image))
    except RobotNotFoundError as exc:
        if as_json:
            emit_json({"image": str(image), "robot": None, "problem": str(exc)})
        else:
            typer.echo(f"{image}: {exc}")
        raise typer.Exit(1) from None
    if annotate is not None:
        from boardside.camerafeed import annotate_reading

        pose = reading.pose
        pic = annotate_reading(frame, board, pose, reading, tag, str(image), spec.cell_mm) if pose else frame
        annotate.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(annotate), pic)
    if as_json:
        emit_json({"image": str(image), "robot": reading.to_json(), "board": board.to_json(),
                   "annotated": str(annotate) if annotate else None})
        return
    typer.echo(f"{image}: {reading}")
    typer.echo(f"  tag {reading.tag_id} measured {reading.side_mm:.1f} mm a side (printed {tag.tag_mm:g}; far off: "
               f"check --tag-height-mm), fit residual {reading.residual_mm:.2f} mm, board reprojection "
               f"{board.rms_px:.2f} px, intrinsics {board.intrinsics}")
    if annotate is not None:
        typer.echo(f"  annotated picture: {annotate}")


def register(root: typer.Typer) -> None:
    from boardside.commands.board import app as board_app

    board_app.command("print-tag")(print_tag)
    board_app.command("read-robot")(read_robot)
