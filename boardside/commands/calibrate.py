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
    save_views: Path | None = typer.Option(
        None, "--save-views", help="With --camera: also save the captured views as PNG files in this folder."
    ),
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
        if not views:
            raise CalibrationError(f"no views with the board were captured from camera {camera_index}")
        source = f"camera {camera_index}, {len(views)} live views"
        if save_views is not None:
            import cv2

            save_views.mkdir(parents=True, exist_ok=True)
            for name, img in views:
                cv2.imwrite(str(save_views / f"{name}.png"), img)
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


def _read_mat(mat: str) -> Any:
    from boardside.io import read_json
    from calibration.mat import MatSpec

    if mat.endswith(".json"):
        doc = read_json(mat, "mat specification")
        if isinstance(doc, dict) and isinstance(doc.get("mat"), dict):
            doc = doc["mat"]
        return MatSpec.from_json(doc)
    return MatSpec.parse(mat)


def _read_camera(path: Path | None) -> Any:
    if path is None:
        return None
    from calibration.camera import CameraCalibration

    return CameraCalibration.load(path)


_MAT_HELP = (
    "The mat: PAPER[:BLOCK_MM] (e.g. A3:22), GAME:PAPER:BLOCK_MM, or the .json written by 'mat print'."
)


@app.command("pose")
def pose_cmd(
    image: Path = typer.Argument(..., help="A picture of the mat (with or without the battlefield on it)."),
    mat: str = typer.Option("A3:22", "--mat", help=_MAT_HELP),
    camera_file: Path | None = typer.Option(
        None,
        "--camera-file",
        "-c",
        help="Camera calibration (from 'calibrate camera'); without it the "
        "intrinsics are estimated from this picture.",
    ),
    output: Path | None = typer.Option(None, "-o", "--output", help="Write the pose (JSON)."),
    annotate: Path | None = typer.Option(
        None, "--annotate", help="Write a picture with the pose drawn on it."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the pose as JSON."),
) -> None:
    """Where the camera is relative to the mat (battlefield coordinates), with a quality figure."""
    from calibration.camera import read_image
    from calibration.pose import detect_mat, pose_from_view, require_mat, self_calibrate

    spec = _read_mat(mat)
    img = read_image(image)
    cam = _read_camera(camera_file)
    view = detect_mat(img, spec)
    require_mat(view, spec)
    size = (img.shape[1], img.shape[0])
    if cam is None:
        cam = self_calibrate([view], spec, names=[str(image)])
    elif tuple(cam.image_size) != size:
        cam = cam.scaled_to(size)
    pose = pose_from_view(view, spec, cam)
    doc = pose.to_json()
    if output is not None:
        from boardside.io import write_json

        write_json(output, doc)
    if annotate is not None:
        from calibration.annotate import draw_pose
        from calibration.printing import write_png

        write_png(annotate, draw_pose(img, pose, view), 96)
    if as_json:
        emit_json(doc)
        return
    a = pose.angles_deg()
    typer.echo(
        f"pose {pose.quality}: reprojection {pose.rms_px:.2f} px, "
        f"corners {pose.corners_seen}/{pose.corners_total}, markers {pose.markers_seen}/{pose.markers_total}"
    )
    x, y, z = pose.camera_position
    typer.echo(
        f"camera at x={x:.0f} y={y:.0f} z={z:.0f} mm "
        f"(side {pose.facing_side()}, elevation {a['elevation']:.1f} deg)"
    )
    if camera_file is None:
        typer.echo(
            f"intrinsics estimated from this picture (fx={cam.fx:.0f} px); "
            "'calibrate self' or 'calibrate camera' is steadier"
        )
    for path in (output, annotate):
        if path is not None:
            typer.echo(f"wrote {path}")


@app.command("self")
def self_cmd(
    images: list[Path] = typer.Argument(..., help="Several pictures of the mat from different angles."),
    output: Path = typer.Option(..., "-o", "--output", help="Calibration file to write (JSON)."),
    mat: str = typer.Option("A3:22", "--mat", help=_MAT_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the calibration as JSON."),
) -> None:
    """Camera intrinsics from pictures of the mat alone (no separate calibration target needed)."""
    from calibration.camera import expand_image_paths, read_image
    from calibration.errors import ImageSizeMismatchError
    from calibration.pose import detect_mat, self_calibrate

    spec = _read_mat(mat)
    paths = expand_image_paths(images)
    views = []
    size: tuple[int, int] | None = None
    with _progress(len(paths), "finding the mat") as prog:
        task = prog.add_task("detect", total=len(paths), last="")
        for p in paths:
            img = read_image(p, grey=True)
            s = (img.shape[1], img.shape[0])
            if size is None:
                size = s
            elif s != size:
                raise ImageSizeMismatchError(
                    f"images differ in size: {str(p)!r} is {s[0]}x{s[1]}, the first is {size[0]}x{size[1]}"
                )
            views.append(detect_mat(img, spec))
            prog.update(task, advance=1, last=p.name)
    cal = self_calibrate(views, spec, names=[str(p) for p in paths])
    cal.save(output)
    if as_json:
        emit_json(cal.to_json())
        return
    _print_camera_summary(cal)
    typer.echo(f"wrote {output}")


@app.command("colours")
def colours_cmd(
    image: Path = typer.Argument(
        ..., help="A picture of the mat (patches visible), e.g. of the set-up position."
    ),
    output: Path = typer.Option(..., "-o", "--output", help="Colour model file to write (JSON)."),
    mat: str = typer.Option("A3:22", "--mat", help=_MAT_HELP),
    camera_file: Path | None = typer.Option(None, "--camera-file", "-c", help="Camera calibration (JSON)."),
    place: list[str] = typer.Option(
        [], "--place", help="A known block: CLASS:I,J,K[:FACE] (e.g. blue:3,1,0:top); repeat for each."
    ),
    model_file: Path | None = typer.Option(
        None, "--model", help="Start from this colour model instead of the prior."
    ),
    annotate: Path | None = typer.Option(None, "--annotate", help="Write the image beside its class map."),
    as_json: bool = typer.Option(False, "--json", help="Print the colour model as JSON."),
) -> None:
    """Learn the session's colours: white balance and mat colours from the mat, block colours from
    known places (--place)."""
    from calibration.camera import read_image
    from calibration.colour import CLASSES, ColourModel, sample_cell_face
    from calibration.errors import CalibrationError
    from calibration.pose import estimate_pose

    spec = _read_mat(mat)
    img = read_image(image)
    pose = estimate_pose(img, spec, _read_camera(camera_file))
    model = ColourModel.load(model_file) if model_file is not None else ColourModel()
    model = model.learn_from_mat(img, pose)
    places: dict[str, list[Any]] = {}
    for text in place:
        parts = text.split(":")
        try:
            cls, cell = parts[0].strip().lower(), tuple(int(v) for v in parts[1].split(","))
            face = parts[2] if len(parts) > 2 else "top"
            if len(cell) != 3 or len(parts) > 3:
                raise ValueError
        except (IndexError, ValueError):
            raise CalibrationError(
                f"cannot read --place {text!r} (expected CLASS:I,J,K[:FACE], e.g. 'blue:3,1,0:top')"
            ) from None
        if cls not in CLASSES:
            raise CalibrationError(
                f"unknown colour class {cls!r} in --place {text!r} (one of {', '.join(CLASSES)})"
            )
        places.setdefault(cls, []).append(sample_cell_face(img, pose, cell, face))
    if places:
        model = model.learn(places, source=f"places in {image.name}")
    model.save(output)
    if annotate is not None:
        from calibration.annotate import draw_colours
        from calibration.printing import write_png

        write_png(annotate, draw_colours(img, model), 96)
    if as_json:
        emit_json(model.to_json())
        return
    wb = model.white_balance
    typer.echo(f"white balance gains R,G,B = {', '.join(f'{g:.3f}' for g in wb.gain)} (pose {pose.quality})")
    for name, cm in model.classes.items():
        lab = ", ".join(f"({p[0]:.0f} {p[1]:.0f} {p[2]:.0f})" for p in cm.prototypes)
        typer.echo(f"  {name:<7} Lab {lab}  radius {cm.threshold:.1f} dE00  [{cm.source}]")
    typer.echo(f"wrote {output}")
