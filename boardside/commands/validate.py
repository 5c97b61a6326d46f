"""``boardside validate GAME STATE.json`` / ``boardside validate GAME --images IMG...``: check a table
set-up against a game's rules, from a state file or from photos of the board."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from boardside.games import GAMES, validator
from boardside.io import emit_json, read_json
from engine.core import Problem
from engine.errors import BoardsideInputError
from vision.board_setupcheck import CHECK_CODE

BOARD_GAMES = ("bandera", "quirky", "gridopolis")


class ValidateUsageError(BoardsideInputError):
    """The validate command was given the wrong mix of arguments."""


def checked_as(game: str, doc: dict[str, object]) -> str:
    """How a board read from pictures was checked: the set-up or a game in progress, and the option that
    says otherwise ('' for Quirky, whose scenario says it)."""
    if game == "bandera":
        return "the set-up (--in-play to check a game in progress)" if doc.get("phase") == "start" else \
            "a game in progress (--setup to check it as the set-up)"
    if game == "gridopolis":
        return "the set-up (--in-play to check a game in progress)" if doc.get("turns") == 0 else \
            "a game in progress (--setup to check it as the set-up)"
    return ""


def verdict(problems: list[Problem]) -> str:
    """One line saying which it is: the table breaks a rule (an error resting on sure readings), or it may
    (a rule error resting on a reading the camera is unsure of: ``check`` lines), or neither."""
    errors = sum(p.severity == "error" for p in problems)
    checks = sum(p.code == CHECK_CODE for p in problems)
    if errors:
        return (f"RULE BROKEN: {errors} rule error(s) resting on sure readings"
                + (f"; and {checks} to check (a reading the camera is unsure of)" if checks else ""))
    if checks:
        return (f"CHECK THE TABLE: no rule error on sure readings, but {checks} rule(s) would be broken if "
                "the cell(s) named in the 'check' lines are as read -- the camera is unsure of them")
    return "no rule error"


def _validate_images(
    game: str, paths: list[Path], calibration: Path | None, annotate: Path | None, json_out: bool,
    scenario: str | None, level: str, players: int | None, setup: bool | None,
) -> None:
    from calibration.boards import board_spec
    from calibration.camera import CameraCalibration, read_image
    from vision.board_annotate import annotate_board
    from vision.board_pipeline import read_board
    from vision.board_reconstruct import ReconstructOptions

    if game not in BOARD_GAMES:
        raise ValidateUsageError(f"reading {game!r} from pictures is not supported here "
                                 f"(boards: {', '.join(BOARD_GAMES)}; CTRL: boardside ctrl score-images)")
    if game == "quirky" and scenario is None:
        raise ValidateUsageError("a Quirky Circuits board needs --scenario ID (or a scenario .toml file)")
    spec = board_spec(game, scenario=scenario)  # checks the scenario too
    scn = None
    if scenario is not None:
        from engine.quirky import builtin_ids, builtin_scenario, parse_scenario

        scn = builtin_scenario(scenario) if scenario in builtin_ids() else \
            parse_scenario(Path(scenario).read_text(encoding="utf-8"), scenario)
    camera = CameraCalibration.load(calibration) if calibration is not None else None
    images = [(str(p), read_image(p)) for p in paths]
    opts = ReconstructOptions(level=level, players=players, scenario=scn, setup=setup)
    if len(images) > 1 and not json_out:
        from rich.progress import Progress

        with Progress(transient=True, console=Console(stderr=True)) as bar:
            task = bar.add_task("reading the pictures", total=len(images))
            result = read_board(images, game, spec=spec, camera=camera, options=opts,
                                on_image=lambda _name: bar.advance(task))
    else:
        result = read_board(images, game, spec=spec, camera=camera, options=opts)
    recon = result.reconstruction
    if annotate is not None:
        import cv2

        annotate.mkdir(parents=True, exist_ok=True)
        for (name, img), r in zip(images, result.images, strict=True):
            pic = annotate_board(img, r.pose, r.cells, recon.problems, recon.problem_cells,
                                 f"{Path(name).name}: {spec.name}", unsure=[c.key for c, _ in result.unsure])
            cv2.imwrite(str(annotate / f"{Path(name).stem}_checked.png"), pic)
    errors = [p for p in recon.problems if p.severity == "error"]
    if json_out:
        emit_json(result.to_json())
    else:
        out = Console()
        seen = [c for c in recon.cells if c.kind not in ("empty", "occluded", "unseen", "robot")]
        declined = [c for c in recon.cells if c.kind in ("occluded", "unseen")]
        out.print(f"read {len(images)} picture(s) of the {spec.name} board: {len(seen)} occupied cell(s)"
                  + (f", {len(declined)} not visible" if declined else ""))
        mode = checked_as(game, recon.doc)
        if mode:
            out.print(f"checked as {mode}")
        if not recon.problems:
            out.print(f"OK: the {game} set-up follows the rules")
        for p in recon.problems:
            head = "check" if p.code == CHECK_CODE else "unsure" if p.code == "cell-unsure" else p.severity
            out.print(f"{head}: {p}")
        out.print(verdict(recon.problems))
        if annotate is not None:
            out.print(f"annotated pictures in {annotate}")
    if errors:
        raise typer.Exit(1)


def register(root: typer.Typer) -> None:
    @root.command("validate")
    def validate(
        game: str = typer.Argument(..., help=f"One of: {', '.join(GAMES)}."),
        files: list[Path] = typer.Argument(None, help="The game's state file (JSON), or with --images the "
                                                     "pictures of the board.", show_default=False),
        images: bool = typer.Option(False, "--images", help="FILES are photos of the board (bandera, quirky, "
                                    "gridopolis): read the pieces and check them."),
        calibration: Path = typer.Option(None, "--calibration", help="Camera calibration (JSON from "
                                         "'boardside calibrate'); without it the camera is estimated "
                                         "from the board's markers."),
        annotate: Path = typer.Option(None, "--annotate", help="Write each picture, marked with what was read "
                                      "and where each problem is, into this folder."),
        scenario: str = typer.Option(None, "--scenario", help="Quirky: the scenario id or .toml file."),
        level: str = typer.Option("easy", "--level", help="Bandera: easy (22 cubes), medium (18) or hard (14)."),
        players: int = typer.Option(None, "--players", help="Number of players (default: from the colours seen)."),
        setup: bool = typer.Option(None, "--setup/--in-play", help="Bandera, Gridopolis: check the pictures as the "
                                   "set-up, or as a game in progress (default: Bandera, a set-up when only royal "
                                   "towers stand; Gridopolis, unless a pad was added or a blocker box placed)."),
        json_out: bool = typer.Option(False, "--json", help="Print machine-readable JSON."),
    ) -> None:
        """Check a table set-up against the rules and list each problem in words.

        From a state file: ``boardside validate bandera table.json``.  From photos:
        ``boardside validate bandera --images top.jpg side.jpg --annotate checked/``.

        From photos, a rule error that rests on a reading the camera is unsure of (a cell read with low
        confidence or not seen) is printed as ``check:`` with the cell and the rule, not as an error: look
        at that cell.  Each cell the camera is unsure of is printed as ``unsure:`` with what it looks like and
        why (next to the hand, hardly seen, a taller stack in front of it, read by a rule...), marked ``?`` in
        the annotated picture and listed under ``unsure_cells`` in the JSON.  Exit code 0 when the set-up is
        right (or only has cells to check), 1 when it breaks a rule on sure readings, 2 for bad input (an unreadable
        file,
        a picture too dark or blurred, the board not in the picture, another game's board).
        """
        paths = list(files or [])
        if images:
            if not paths:
                raise ValidateUsageError("--images needs at least one picture of the board")
            _validate_images(game.strip().lower(), paths, calibration, annotate, json_out, scenario, level, players,
                             setup)
            return
        if len(paths) != 1:
            raise ValidateUsageError(f"give one state file (or --images with pictures), got {len(paths)} files")
        check = validator(game)
        doc = read_json(paths[0], "state file")
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
