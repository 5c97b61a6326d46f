"""``boardside calibrate ...``: camera intrinsics, mat pose, self-calibration and the colour model."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from boardside.io import emit_json

NAME = "calibrate"
app = typer.Typer(
    help="Calibrate the camera (intrinsics), find the mat's pose, and learn the table's colours.",
    no_args_is_help=True,
    add_completion=False,
)


def _progress(total: int, label: str) -> Any:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(file=sys.stderr)
    return Progress(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[last]}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )


def _print_camera_summary(cal: Any) -> None:
    from rich.console import Console

    con = Console(file=sys.stdout, highlight=False)
    w, h = cal.image_size
    con.print(f"camera {w}x{h}: fx={cal.fx:.2f} fy={cal.fy:.2f} cx={cal.cx:.2f} cy={cal.cy:.2f} px")
    con.print("distortion k1 k2 p1 p2 k3: " + " ".join(f"{v:.5f}" for v in cal.dist_coeffs.reshape(-1)[:5]))
    con.print(f"RMS reprojection error {cal.rms:.3f} px over {len(cal.views)} views")
    for d in cal.dropped_views:
        con.print(f"  dropped {d.view}: {d.reason}")
    if cal.views_without_board:
        con.print(
            f"  board not found in {len(cal.views_without_board)}: " + ", ".join(cal.views_without_board)
        )
    if len(cal.views) < 10:
        con.print(
            f"  note: only {len(cal.views)} views used; 10-25 views from varied angles give steadier results"
        )


@app.command("camera")
def camera(
    images: list[Path] = typer.Argument(
        None, help="Image files and/or folders of images (not with --camera)."
    ),
    output: Path = typer.Option(..., "-o", "--output", help="Calibration file to write (JSON)."),
    chessboard: str | None = typer.Option(
        None, "--chessboard", help="Chessboard COLSxROWS[:SQUARE_MM], inner corners (OpenCV's convention)."
    ),
    charuco: str | None = typer.Option(
        None,
        "--charuco",
        help="ChArUco SXxSY:SQUARE_MM:MARKER_MM[:DICT[:FIRST_ID]] (squares), or 'mat[:PAPER[:BLOCK_MM]]' "
        "or a mat .json for the Boardside mat.",
    ),
    camera_index: int | None = typer.Option(
        None, "--camera", help="Capture live from camera N instead of files."
    ),
    frames: int = typer.Option(20, "--frames", help="With --camera: views to capture."),
    keep_outliers: bool = typer.Option(
        False, "--keep-outliers", help="Do not drop views with outlying error."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the calibration as JSON."),
) -> None:
    """Camera intrinsics from pictures of a chessboard, a ChArUco board or the Boardside mat.

    Views whose reprojection error is an outlier are reported and dropped; views where the board is
    not found are named.  Writes a readable JSON file with the date and the board used.
    """
    from calibration.camera import calibrate, expand_image_paths
    from calibration.errors import CalibrationError
    from calibration.targets import parse_target

    target = parse_target(chessboard, charuco)
    views: list[Any]
    if camera_index is not None:
        if images:
            raise CalibrationError("give image files or --camera N, not both")
        from calibration.live import capture_views

        views = capture_views(camera_index, target, frames)
        source = f"camera {camera_index}, {len(views)} live views"
    else:
        if not images:
            raise CalibrationError("no images given (pass image files or folders, or --camera N)")
        views = list(expand_image_paths(images))
        source = f"{len(views)} images"
    with _progress(len(views), "finding the board") as prog:
        task = prog.add_task("detect", total=len(views), last="")

        def step(name: str, det: Any) -> None:
            prog.update(
                task, advance=1, last=f"{Path(name).name}: {'found' if det is not None else 'no board'}"
            )

        cal = calibrate(views, target, source=source, progress=step, drop_outliers=not keep_outliers)
    cal.save(output)
    if as_json:
        emit_json(cal.to_json())
        return
    _print_camera_summary(cal)
    typer.echo(f"wrote {output}")
