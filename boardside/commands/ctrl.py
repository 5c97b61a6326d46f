"""``boardside ctrl ...``: the CTRL engine from the command line."""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from statistics import mean
from typing import TYPE_CHECKING, Any

import typer
from rich.columns import Columns
from rich.console import Console

from boardside.commands._ctrl_follow import follow_app
from boardside.ctrl_text import score_sheet, side_view, winner_line
from boardside.io import emit_json, read_json, write_json
from engine.core import BoardsideInputError, GameError, IllegalMoveError, InvalidMoveError
from engine.ctrl import SIDES, GameRecord, State, Turn, check_setup, new_state, validate_state
from engine.ctrl.moves import FlagSpot, NoFlag, Pass, Placement
from engine.ctrl.record import random_turn
from engine.ctrl.search import hint as search_hint

if TYPE_CHECKING:
    from vision.pipeline import SceneResult

NAME = "ctrl"
app = typer.Typer(
    help="CTRL: 3D blocks on a 3x3x3 Central Cube -- legal moves, scoring, rule checks, play, render.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
out = Console()
err = Console(stderr=True)

JSON_OPT = typer.Option(False, "--json", help="Print machine-readable JSON on stdout.")
STATE_ARG = typer.Argument(..., help="A CTRL state file (interchange JSON).", show_default=False)


def load_state(path: Path) -> State:
    return State.from_json(read_json(path, "state file"))


def score_json(state: State) -> dict[str, Any]:
    sides = state.side_scores()
    return {"sides": sides, "totals": state.totals(), "winners": state.winners()}


def print_score(state: State, title: str = "CTRL score sheet", uncertain_sides: Sequence[str] = (),
                trusted: bool = True) -> None:
    """The score sheet and the winner; a sheet read from pictures passes the sides whose counts may be off and
    whether the reading is trusted, and the winner line then says it is not certain."""
    s = score_json(state)
    out.print(score_sheet(s["sides"], s["totals"], s["winners"], state.colors, title=title))
    if state.scoring is None and any(state.owners[c] != c for c in state.colors):
        out.print("(2-player variant: the secret scoring colours are not recorded; every colour is shown)")
    out.print(winner_line(s["winners"], s["totals"], uncertain_sides, trusted), soft_wrap=True)


@app.command()
def new(
    players: int = typer.Option(4, "--players", "-p", help="2 (variant), 3 or 4 players."),
    scoring: str = typer.Option("", "--scoring", help="2-player variant only: the secret choices, "
                                "e.g. 'player1=blue,player2=green'."),
    output: Path | None = typer.Option(None, "-o", "--output", help="Write the state file here."),
    json_out: bool = JSON_OPT,
) -> None:
    """Print (or write) the set-up position."""
    sc = _parse_scoring(scoring) if scoring else None
    state = new_state(players, scoring=sc)
    doc = state.to_json()
    if output:
        write_json(output, doc)
        if not json_out:
            out.print(f"wrote {output}")
    if json_out or not output:
        emit_json(doc)


def _parse_scoring(text: str) -> dict[str, str]:
    result = {}
    for part in text.split(","):
        if "=" not in part:
            raise BoardsideInputError(f"--scoring {text!r}: expected 'player1=COLOUR,player2=COLOUR'")
        p, c = part.split("=", 1)
        result[p.strip()] = c.strip().lower()
    return result


@app.command()
def moves(state_file: Path = STATE_ARG, json_out: bool = JSON_OPT) -> None:
    """List every distinct legal placement for the player to move (flags aside)."""
    state = load_state(state_file)
    if state.is_terminal():
        raise GameError("the game is over: no colour is to move")
    if state.phase != "place":
        raise GameError(f"{state.to_move} has already placed this turn (phase 'flag')")
    pls = state.placements()
    if json_out:
        emit_json({"to_move": state.to_move, "moves": [p.to_json() for p in pls]})
        return
    out.print(f"{state.to_move} to move: {len(pls)} legal placement(s)"
              + (" (first turn)" if state.to_move in state.first_turn_pending else ""))
    for i, p in enumerate(pls, 1):
        out.print(f"{i:4d}. {p}")
    if not pls:
        out.print("no path exists: the player passes (and re-plugs the flag if possible)")


@app.command()
def score(state_file: Path = STATE_ARG, json_out: bool = JSON_OPT) -> None:
    """Score a position and print the rulebook's score sheet and the winner."""
    state = load_state(state_file)
    problems = [p for p in validate_state(state) if p.severity == "error"]
    if json_out:
        doc = score_json(state)
        if problems:
            doc["problems"] = [p.to_json() for p in problems]
        emit_json(doc)
        return
    print_score(state)
    if problems:
        err.print(f"[yellow]warning:[/] this position breaks {len(problems)} rule(s); "
                  "run 'boardside ctrl validate' to see them")


@app.command()
def validate(
    state_file: Path = STATE_ARG,
    setup: bool = typer.Option(False, "--setup", help="Also check it is a correct set-up (start of game)."),
    json_out: bool = JSON_OPT,
) -> None:
    """List every rule problem of a position in words.  Exit 0 when fine, 1 when not."""
    doc = read_json(state_file, "state file")
    problems = check_setup(doc) if setup else validate_state(doc)
    errors = [p for p in problems if p.severity == "error"]
    if json_out:
        emit_json({"valid": not errors, "problems": [p.to_json() for p in problems]})
    else:
        if not problems:
            out.print("OK: no rule problems found")
        for p in problems:
            out.print(f"{p.severity}: {p}")
    if errors:
        raise typer.Exit(1)


@app.command()
def hint(
    state_file: Path = STATE_ARG,
    budget: float = typer.Option(2.0, "--budget", help="Search time in seconds."),
    seed: int = typer.Option(0, "--seed", help="Random seed of the playouts."),
    json_out: bool = JSON_OPT,
) -> None:
    """Suggest the best placement and flag spot for the player to move (Monte Carlo search)."""
    if budget <= 0:
        raise BoardsideInputError(f"--budget must be positive, got {budget!r}")
    state = load_state(state_file)
    with err.status(f"searching for {budget:g} s ..."):
        h = search_hint(state, budget_s=budget, seed=seed)
    if json_out:
        emit_json({"turn": str(h.turn), "placement": h.turn.placement.to_json() if h.turn.placement else None,
                   "flag": h.turn.flag.to_json() if h.turn.flag else None, "playouts": h.playouts,
                   "seconds": round(h.seconds, 3),
                   "candidates": [{"move": c.move, "playouts": c.playouts, "mean_margin": round(c.mean, 3)}
                                  for c in h.placements[:10]]})
        return
    out.print(f"{state.to_move}: place {h.turn.placement or 'nothing (pass)'}")
    out.print(f"then plug the flag: {h.turn.flag or 'no free face'}")
    out.print(f"({h.playouts} playouts in {h.seconds:.1f} s; best placements by mean score margin:)")
    for c in h.placements[:5]:
        out.print(f"  {c.mean:+6.2f}  {c.move}  ({c.playouts} playouts)")


@app.command()
def selfplay(
    games: int = typer.Option(10, "--games", "-n", help="Number of games."),
    seed: int = typer.Option(0, "--seed", help="Random seed."),
    players: int = typer.Option(4, "--players", "-p", help="2, 3 or 4."),
    records: Path | None = typer.Option(None, "--records", help="Save every game record in this folder."),
    json_out: bool = JSON_OPT,
) -> None:
    """Play random legal games and report figures (validating every position on the way)."""
    if games < 1:
        raise BoardsideInputError(f"--games must be at least 1, got {games!r}")
    rng = random.Random(seed)
    figs: dict[str, Any] = {"games": 0, "seed": seed, "players": players}
    turns: list[int] = []
    passes = 0
    wins: dict[str, float] = {}
    totals: dict[str, list[int]] = {}
    ended_stuck = 0
    problems = 0
    t0 = time.perf_counter()
    from rich.progress import Progress

    try:
        with Progress(console=err, transient=True, disable=json_out and not sys.stderr.isatty()) as prog:
            task = prog.add_task("self-play", total=games)
            for g in range(games):
                sc = None
                if players == 2:
                    sc = {"player1": rng.choice(["blue", "yellow"]), "player2": rng.choice(["pink", "green"])}
                state = new_state(players, scoring=sc)
                rec = GameRecord(state)
                n = 0
                while not state.is_terminal():
                    turn, state = random_turn(state, rng)
                    rec.turns.append(turn)
                    passes += turn.placement is None
                    n += 1
                    problems += sum(1 for p in validate_state(state) if p.severity == "error")
                turns.append(n)
                for p, r in state.returns().items():
                    wins[p] = wins.get(p, 0.0) + r
                for c, t in state.totals().items():
                    totals.setdefault(c, []).append(t)
                ended_stuck += any(state.remaining(c) > 0 for c in state.colors)
                if records:
                    write_json(records / f"ctrl-{seed}-{g:04d}.json", rec.to_json())
                figs["games"] = g + 1
                prog.advance(task)
    except KeyboardInterrupt:
        err.print(f"interrupted after {figs['games']} game(s); reporting those")
    elapsed = time.perf_counter() - t0
    figs.update({
        "turns_mean": round(mean(turns), 2) if turns else 0,
        "passes": passes,
        "ended_by_no_moves": ended_stuck,
        "rule_problems": problems,
        "wins": {k: round(v, 3) for k, v in wins.items()},
        "totals_mean": {c: round(mean(v), 2) for c, v in totals.items()},
        "seconds": round(elapsed, 3),
        "games_per_s": round(figs["games"] / elapsed, 2) if elapsed > 0 else None,
    })
    if json_out:
        emit_json(figs)
    else:
        for k, v in figs.items():
            out.print(f"{k}: {v}")


@app.command()
def render(
    state_file: Path = STATE_ARG,
    output: Path = typer.Option(..., "-o", "--output", help="PNG (or JPEG) file to write."),
    corner: str = typer.Option("+x-y", "--corner", help="Viewing corner: +x-y, +x+y, -x+y or -x-y."),
    width: int = typer.Option(900, "--width"),
    height: int = typer.Option(700, "--height"),
) -> None:
    """Draw the position as an isometric picture."""
    import cv2

    from vision.preview import CORNERS, render_state

    if corner not in CORNERS:
        raise BoardsideInputError(f"--corner {corner!r} is not one of {', '.join(CORNERS)}")
    if width < 100 or height < 100:
        raise BoardsideInputError(f"picture size {width}x{height} is too small (at least 100x100)")
    state = load_state(state_file)
    t = state.totals()
    title = "  ".join(f"{c} {t.get(c, 0)}" for c in state.colors)
    img = render_state(state.blocks, state.flags, (width, height), corner, title=title)
    output.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(output), img):
        raise BoardsideInputError(f"cannot write picture {str(output)!r} (use a .png or .jpg name)")
    out.print(f"wrote {output}")


@app.command()
def replay(
    record_file: Path = typer.Argument(..., help="A CTRL game record (JSON)."),
    json_out: bool = JSON_OPT,
) -> None:
    """Replay a game record move by move, checking every turn, and score the final position."""
    rec = GameRecord.from_json(read_json(record_file, "game record"))
    final = rec.final()
    if json_out:
        doc = score_json(final)
        doc.update({"turns": len(rec.turns), "terminal": final.is_terminal(), "state": final.to_json()})
        emit_json(doc)
        return
    out.print(f"{len(rec.turns)} turns replayed; game {'over' if final.is_terminal() else 'in progress'}")
    print_score(final)


# ---------------------------------------------------------------------------------------------- play
def _views(state: State) -> None:
    out.print(Columns([side_view(state.blocks, state.flags, s) for s in SIDES], padding=(0, 3)))


def _ask(prompt: str) -> str:
    out.print(prompt, end="")
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line.strip()


@app.command()
def play(
    players: int = typer.Option(4, "--players", "-p", help="2 (variant), 3 or 4 people at one keyboard."),
    load: Path | None = typer.Option(None, "--load", help="Continue a saved game record."),
    save: Path | None = typer.Option(None, "--save", help="Save the game record here after every turn."),
) -> None:
    """A terminal game for 2-4 people at one keyboard: side views, numbered moves, undo."""
    rec = GameRecord.from_json(read_json(load, "game record")) if load is not None else GameRecord(new_state(players))
    state = rec.final()
    out.print("CTRL -- type a number to choose, 'u' undo the last turn, 'h' hint, 'v' views, 'q' quit.")
    try:
        while not state.is_terminal():
            _views(state)
            t = state.totals()
            out.print("score now: " + ", ".join(f"{c} {t.get(c, 0)}" for c in state.colors))
            who = state.to_move
            legal = state.legal_moves()
            out.print(f"[bold]{who}[/] to move ({state.remaining(who or '')} blocks left)"
                      + (" -- first turn" if who in state.first_turn_pending else ""))
            for i, m in enumerate(legal, 1):
                out.print(f"{i:3d}. {m}")
            choice = _ask("placement> ")
            if choice in ("q", "quit"):
                break
            if choice == "u":
                if rec.turns:
                    rec.turns.pop()
                    state = rec.final()
                    _autosave(rec, save)
                else:
                    out.print("nothing to undo")
                continue
            if choice == "v":
                continue
            if choice == "h":
                h = search_hint(state, budget_s=1.0)
                out.print(f"hint: {h.turn}")
                continue
            first = _pick(legal, choice)
            if first is None:
                continue
            mid = state.apply(first)
            spots = mid.legal_moves()
            second = None
            while second is None:
                for i, m in enumerate(spots, 1):
                    out.print(f"{i:3d}. {m}")
                second = _pick(spots, _ask("flag> "))
            state = mid.apply(second)
            rec.turns.append(Turn(first if isinstance(first, Placement) else None,
                                  second if isinstance(second, FlagSpot) else None))
            _autosave(rec, save)
    except EOFError:
        out.print("\n(end of input)")
    except KeyboardInterrupt:
        out.print("\n(interrupted)")
    _autosave(rec, save)
    _views(state)
    print_score(state, "CTRL score sheet" + ("" if state.is_terminal() else " (game not finished)"))


def _pick(legal: Any, choice: str) -> Any:
    try:
        i = int(choice)
    except ValueError:
        try:
            from engine.ctrl.moves import parse_move

            m = parse_move(choice)
        except InvalidMoveError as exc:
            out.print(f"[red]{exc}[/]")
            return None
        if m in legal or (isinstance(m, (Pass, NoFlag)) and any(isinstance(x, type(m)) for x in legal)):
            return m
        out.print(f"[red]illegal: {choice!r}[/]")
        return None
    if 1 <= i <= len(legal):
        return legal[i - 1]
    out.print(f"[red]choose 1..{len(legal)}[/]")
    return None


def _autosave(rec: GameRecord, save: Path | None) -> None:
    if save is not None:
        write_json(save, rec.to_json())


__all__ = ["IllegalMoveError", "app"]


@app.command("score-images")
def score_images_cmd(
    images: list[Path] = typer.Argument(..., help="Pictures of the battlefield on the mat: four sides and the "
                                        "top (and, best, each side again from low down)."),
    calibration: Path | None = typer.Option(None, "--calibration", "-c", help="Camera calibration (cam.json); "
                                            "without it the camera is estimated from the pictures."),
    mat: Path | None = typer.Option(None, "--mat", help="Mat specification (mat.json from 'mat print'); "
                                    "default: the A3 CTRL mat with 22 mm blocks."),
    previous: Path | None = typer.Option(None, "--previous", help="The last known state (a state file): the "
                                         "pictures must then show legal turns played from it, which are printed."),
    turns: int | None = typer.Option(None, "--turns", min=0, help="With --previous: how many turns were played "
                                     "since it (the reading then looks for exactly that many; without it, any "
                                     "number, and a colour on the mat can be read as an extra turn)."),
    annotate: Path | None = typer.Option(None, "--annotate", help="Write annotated pictures and a 3D preview here."),
    json_out: bool = JSON_OPT,
) -> None:
    """Score a physical game from pictures of the battlefield on the mat (four sides and the top).

    Best: nine pictures -- the four sides and the top, and each side again from low down (about 15
    degrees above the table, the mat's near edge in the picture): on rendered test scenes they make the
    reading with --previous exact far more often (docs/vision.md).  Accuracy is below the project's
    targets without --previous; cells no picture shows are reported, never guessed silently.
    Exit code 0 when the reconstruction passes the rule checks, 1 when it does not (the sheet is then
    printed as NOT TRUSTED), 2 for unusable input.
    """
    from calibration.camera import CameraCalibration, read_image
    from calibration.mat import MatSpec
    from vision.pipeline import score_images

    spec = MatSpec.from_json(read_json(mat, "mat file")) if mat else MatSpec()
    cam = CameraCalibration.load(calibration) if calibration else None
    if turns is not None and previous is None:
        raise typer.BadParameter(f"--turns {turns!r} needs --previous (the turns are counted from that state)")
    prev = load_state(previous) if previous else None
    pics = [(str(p), read_image(p)) for p in images]
    with err.status(f"reading {len(pics)} picture(s) ..."):
        res = score_images(pics, spec, cam, prev, turns_played=turns)
    report_scene(res, pics, annotate, json_out, prev)
    if not res.trusted:
        raise typer.Exit(1)


def report_scene(res: SceneResult, pics: list[tuple[str, Any]], annotate: Path | None, json_out: bool,
                 previous: State | None = None, extra: dict[str, Any] | None = None) -> None:
    """Print a camera-scoring result (``vision.pipeline.SceneResult``) as ``score-images`` does: the
    views, the missing sides, the score sheet and every problem (or one JSON document, with ``extra``'s
    fields), and write the annotated pictures and the 3D preview to ``annotate``.  With the
    ``previous`` state the turns are printed as they give the position read (each colour's last flag
    plug where the reading put the flag; ``boardside.ctrl_follow.turns_read``).  Shared by
    ``score-images``, ``watch`` and ``follow turn``."""
    import cv2

    from boardside.ctrl_follow import turns_read
    from vision.annotate import annotate_view
    from vision.preview import render_state

    state = res.state
    doc = score_json(state)
    turn_texts, turns_note = res.turns, None
    if previous is not None and res.turns:
        turns, turns_note = turns_read(previous, res.turns, state)
        turn_texts = [str(t) for t in turns]
    if annotate is not None:
        annotate.mkdir(parents=True, exist_ok=True)
        faces = state.face_views()
        sides = doc["sides"]
        for (name, img), vc, rep in zip(res.pictures, res.cameras, res.views, strict=True):
            # the cells the reading reports (and the JSON lists), not the raw reconstruction's: that one
            # also holds hidden cells far from every block, which cannot hold one
            pic = annotate_view(img, vc, state.blocks, faces, rep.side, [c for c, _ in res.unobserved],
                                sides.get(rep.side, {}))
            cv2.imwrite(str(annotate / f"{Path(name).stem}_annotated.jpg"), pic)
        t = state.totals()
        cv2.imwrite(str(annotate / "preview.png"), render_state(
            state.blocks, state.flags, title="reconstructed: " + "  ".join(f"{c} {t.get(c, 0)}" for c in state.colors)))
    if json_out:
        doc.update({
            "state": state.to_json(),
            # per block of the reported state: the share of its pixels that agree with it; null for a
            # block no picture shows (assumed by a rule or by the previous state's history)
            "confidence": [{"cell": list(c), "color": col, "confidence": (
                round(res.reconstruction.confidence[c], 3) if res.reconstruction.blocks.get(c) == col
                and c in res.reconstruction.confidence else None)} for c, col in sorted(state.blocks.items())],
            "trusted": res.trusted,
            # what the text's winner line says: false when the reading is not trusted or a side may be off
            "winner_certain": bool(res.trusted and not res.uncertain_sides),
            "views": [vars(v) for v in res.views],
            "missing_sides": res.missing_sides,
            "turns": turn_texts,
            "uncertain_sides": res.uncertain_sides,
            "unobserved": [{"cell": list(c), "would_show": h} for c, h in res.unobserved],
            "problems": [p.to_json() for p in res.problems],
            "timings": {k: round(v, 3) for k, v in res.timings.items()},
        })
        doc.update(extra or {})
        emit_json(doc)
    else:
        for v in res.views:
            out.print(f"{v.name}: side {v.side}, elevation {v.elevation_deg} deg, pose {v.pose_quality} "
                      f"({v.rms_px} px), white balance from {v.white_balance}")
        if res.missing_sides:
            out.print(f"[yellow]no picture shows side(s) {', '.join(res.missing_sides)}[/]")
        if turn_texts:
            out.print("turns since the previous state (legal moves that best explain the pictures):")
            for turn_text in turn_texts:
                out.print(f"  {turn_text}")
            if turns_note is not None:
                out.print(f"  (the flags as these turns chose them; the flags read cannot be plugged by them: "
                          f"{turns_note})")
        print_score(state, "CTRL score sheet (from pictures)" + ("" if res.trusted else " -- NOT TRUSTED"),
                    uncertain_sides=list(res.uncertain_sides), trusted=res.trusted)
        for p in res.problems:
            out.print(f"{p.severity}: {p}")
        hint = low_pictures_hint(res)
        if hint:
            out.print(f"[cyan]hint:[/] {hint}")


#: problems that the four low pictures (each side again from low down) settle most often: on SIMULATED
#: followed games (docs/vision.md, "Session 12: following a game with low pictures") readings with
#: flag-ambiguous fell 20 -> 10, with flag-missing 10 -> 1, with nine pictures instead of five
LOW_PICTURES_HELP = ("flag-ambiguous", "flag-missing", "side-not-pictured")
#: a picture this low (elevation above the table, degrees) is one of the low pictures
LOW_PICTURE_MAX_ELEVATION_DEG = 25.0


def low_pictures_hint(res: SceneResult) -> str | None:
    """A hint to add the four low pictures when the reading has a problem they settle most often and no
    picture given is a low one; otherwise None."""
    from vision.pipeline import LOW_DOWN

    codes = sorted({p.code for p in res.problems if p.code in LOW_PICTURES_HELP})
    if not codes or any(v.elevation_deg <= LOW_PICTURE_MAX_ELEVATION_DEG for v in res.views):
        return None
    return (f"{' and '.join(codes)} problems are most often settled by four more pictures: each side again "
            f"{LOW_DOWN} (px_low.jpg ...; taken live by 'ctrl watch' or 'ctrl follow turn' with --camera 0 "
            "--low-views)")


def read_setup(pics: list[tuple[str, Any]], spec: Any, cam: Any) -> tuple[State, list[Any]]:
    """``boardside.ctrl_follow.read_setup`` with a status line while it reads."""
    from boardside.ctrl_follow import read_setup as _read_setup

    with err.status(f"reading {len(pics)} picture(s) ..."):
        return _read_setup(pics, spec, cam)


@app.command("check-setup")
def check_setup_images(
    images: list[Path] = typer.Argument(..., help="Pictures of the set-up table on the mat (a few sides)."),
    calibration: Path | None = typer.Option(None, "--calibration", "-c", help="Camera calibration (cam.json)."),
    mat: Path | None = typer.Option(None, "--mat", help="Mat specification (mat.json); default: A3, 22 mm."),
    json_out: bool = JSON_OPT,
) -> None:
    """Check a set-up table from pictures: the Central Cube on its footprint, one start block per
    player on distinct sides touching the table, flags plugged in pointing up.  Exit 0 when right,
    1 when not, 2 for unusable pictures."""
    from calibration.camera import CameraCalibration, read_image
    from calibration.mat import MatSpec

    spec = MatSpec.from_json(read_json(mat, "mat file")) if mat else MatSpec()
    cam = CameraCalibration.load(calibration) if calibration else None
    pics = [(str(p), read_image(p)) for p in images]
    state, problems = read_setup(pics, spec, cam)
    errors = [p for p in problems if p.severity == "error"]
    if json_out:
        emit_json({"valid": not errors, "state": state.to_json(), "problems": [p.to_json() for p in problems]})
    else:
        present = sorted(set(state.blocks.values()))
        out.print(f"colours seen: {', '.join(present) or 'none'}")
        if not errors:
            out.print("OK: the set-up follows the rules")
        for p in problems:
            out.print(f"{p.severity}: {p}")
    if errors:
        raise typer.Exit(1)


@app.command("watch")
def watch_cmd(
    camera_index: int | None = typer.Option(None, "--camera", help="Read this camera (0 = the first webcam)."),
    video: Path | None = typer.Option(None, "--video", help="Read this video file instead of a camera."),
    calibration: Path | None = typer.Option(None, "--calibration", "-c", help="Camera calibration (cam.json); "
                                            "without it the camera is estimated from the mat."),
    mat: Path | None = typer.Option(None, "--mat", help="Mat specification (mat.json from 'mat print'); "
                                    "default: the A3 CTRL mat with 22 mm blocks."),
    out_dir: Path | None = typer.Option(None, "--out", help="Save each captured picture here (px.png, mx.png, "
                                        "py.png, my.png, top.png; with --low-views also px_low.png ...) to "
                                        "re-score later with score-images."),
    low_views: bool = typer.Option(False, "--low-views", help="Also capture each side again from low down "
                                   "(camera looking down 8-22 degrees, straight at the side, the mat's near "
                                   "edge in view): nine pictures, read together; measured to halve the "
                                   "wrong sides of a free reading."),
    no_window: bool = typer.Option(False, "--no-window", help="Do not show the live picture (the default "
                                   "when there is no display)."),
    previous: Path | None = typer.Option(None, "--previous", help="The last known state (colours in play, starts)."),
    annotate: Path | None = typer.Option(None, "--annotate", help="Write annotated pictures and a 3D preview here."),
    json_out: bool = JSON_OPT,
) -> None:
    """Watch the table live and score it: turn the mat side by side; each side is captured by itself
    when the mat is still, then the score sheet is printed as 'score-images' prints it.

    The window shows the mat's lattice, the side facing the camera, which side to show next and the
    sides captured so far ('q' or Esc stops).  Exit codes as 'score-images' (0 trusted, 1 not trusted,
    2 unusable input, e.g. no mat in the video or a side never shown); Ctrl-C keeps the pictures saved
    with --out.
    """

    from calibration.camera import CameraCalibration
    from calibration.mat import MatSpec
    from vision.pipeline import score_images

    spec = MatSpec.from_json(read_json(mat, "mat file")) if mat else MatSpec()
    cam = CameraCalibration.load(calibration) if calibration else None
    prev = load_state(previous) if previous else None
    pics = capture_sides(camera_index, video, spec, cam, out_dir, no_window, low_views)
    with err.status(f"reading {len(pics)} picture(s) ..."):
        res = score_images(pics, spec, cam, prev)
    report_scene(res, pics, annotate, json_out, prev)
    if not res.trusted:
        raise typer.Exit(1)


def capture_sides(camera_index: int | None, video: Path | None, spec: Any, cam: Any, out_dir: Path | None,
                  no_window: bool, low_views: bool = False) -> list[tuple[str, Any]]:
    """Watch a camera or a video until every side of the mat was captured (``ctrl watch``, ``ctrl follow
    turn --camera``); returns the pictures captured, named by the files saved in ``out_dir`` if any."""
    import cv2

    from boardside.ctrl_watch import config_for, display_available, open_video, run
    from calibration.live import open_camera
    from vision.watch import Watcher

    if (camera_index is None) == (video is None):
        raise BoardsideInputError("give exactly one of --camera N or --video FILE")
    show = not no_window and display_available()
    if video is not None:
        source, fps, total = open_video(video)
        name, live = str(video), False
    else:
        assert camera_index is not None
        source = open_camera(camera_index)
        fps, total = float(source.get(cv2.CAP_PROP_FPS) or 0.0), 0
        name, live = f"camera {camera_index}", True
    watcher = Watcher(spec, cam, config_for(fps, low_views))
    sides = ("+x, +y, -x, -y" if not low_views else
             "+x, +y, -x, -y, each also from low down (+x low ...: the camera low, straight at the side)")
    err.print(f"watching {name}: show the top, then turn the mat to show {sides}"
              + ("" if show else " (no window)"))
    try:
        result = run(source, watcher, err, live=live, out_dir=out_dir, show=show, fps=fps, total_frames=total)
    finally:
        source.release()
    captures = watcher.finish(name)
    err.print(f"{len(captures)} picture(s) captured from {result.frames} frame(s) in {result.seconds:.1f} s; scoring")
    saved = {c.side: p for c, p in zip(captures, result.saved, strict=False)} if result.saved else {}
    return [(str(saved.get(c.side, c.name)), c.image) for c in captures]


app.add_typer(follow_app, name="follow")
