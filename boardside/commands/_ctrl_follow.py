"""``boardside ctrl follow ...``: follow a CTRL game from the camera, turn by turn (boardside.ctrl_follow)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from boardside.ctrl_follow import (
    EVERY,
    FollowedGame,
    FollowFileError,
    Reading,
    deferrable_flags,
    flags_to_confirm,
    judge,
    parse_flag_answer,
    settle_flags,
    setup_position,
    start,
    turn_movers,
    unsettled_flags,
)
from boardside.io import read_json
from engine.core import BoardsideInputError
from engine.ctrl import Turn, validate_state

# (``boardside.commands.ctrl`` imports this module; its helpers are imported where they are used)
JSON_OPT = typer.Option(False, "--json", help="Print machine-readable JSON on stdout.")
follow_app = typer.Typer(
    help="Follow a game from the camera turn by turn: start from the set-up, then after each turn (or "
    "round) read the new pictures against the recorded position -- the reading the camera gets right most "
    "often -- and keep the game record.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

GAME_ARG = typer.Argument(..., help="The followed game's file (JSON; a CTRL game record `ctrl replay` reads).")
CALIB_OPT = typer.Option(None, "--calibration", "-c", help="Camera calibration (cam.json); default: the one "
                         "given to 'follow start', else estimated from the pictures.")
MAT_OPT = typer.Option(None, "--mat", help="Mat specification (mat.json); default: the one given to 'follow "
                       "start', else the A3 CTRL mat with 22 mm blocks.")
ACCEPT_OPT = typer.Option(False, "--accept", help="Record the reading even when it is NOT TRUSTED, or without "
                          "confirming its unsure flags (after checking the annotated pictures yourself).")


def _camera_and_mat(game: FollowedGame | None, calibration: Path | None, mat: Path | None) -> tuple[Any, Any]:
    from calibration.camera import CameraCalibration
    from calibration.mat import MatSpec

    cal = calibration or (Path(game.calibration) if game and game.calibration else None)
    mat_path = mat or (Path(game.mat) if game and game.mat else None)
    for given, remembered, what, option in ((calibration, cal, "camera calibration", "-c"),
                                            (mat, mat_path, "mat specification", "--mat")):
        if given is None and remembered is not None and not remembered.exists():
            raise FollowFileError(f"the {what} remembered from 'follow start' is gone: {str(remembered)!r}; "
                                  f"give another with {option}")
    spec = MatSpec.from_json(read_json(mat_path, "mat file")) if mat_path else MatSpec()
    return (CameraCalibration.load(cal) if cal else None), spec


def _pictures(images: list[Path]) -> list[tuple[str, Any]]:
    from calibration.camera import read_image

    return [(str(p), read_image(p)) for p in images]


@follow_app.command("start")
def start_cmd(
    game: Path = GAME_ARG,
    images: list[Path] = typer.Argument(None, help="Pictures of the set-up table on the mat (as for "
                                        "'check-setup'); or give --state.", show_default=False),
    state_file: Path | None = typer.Option(None, "--state", help="Start from this state file instead of "
                                           "pictures (e.g. a position written down, or 'ctrl new -o')."),
    calibration: Path | None = typer.Option(None, "--calibration", "-c", help="Camera calibration (cam.json), "
                                            "remembered for the game's later readings."),
    mat: Path | None = typer.Option(None, "--mat", help="Mat specification (mat.json), remembered for the "
                                    "game's later readings; default: the A3 CTRL mat with 22 mm blocks."),
    every: str = typer.Option("turn", "--every", help="When the players take the pictures: after every 'turn', "
                              "every 'round' (one turn per colour), or 'any' number of turns (each reading "
                              "then finds how many; a reflection read as blocks can pass for a turn)."),
    two_player: bool = typer.Option(False, "--two-player", help="Four colours are the 2-player variant "
                                    "(player1 blue + yellow, player2 pink + green)."),
    accept: bool = ACCEPT_OPT,
    json_out: bool = JSON_OPT,
) -> None:
    """Start following a game in GAME from pictures of the set-up table (or a state file).

    The set-up is read and checked as 'check-setup' does; a set-up with problems is not recorded
    (exit 1) unless --accept.  GAME must not exist yet: a followed game is never overwritten."""
    from boardside.commands.ctrl import load_state, out, read_setup

    if bool(images) == (state_file is not None):
        raise BoardsideInputError("give the set-up pictures or --state FILE (one of the two)")
    if every not in EVERY:
        raise BoardsideInputError(f"--every {every!r}: expected one of {', '.join(EVERY)}")
    if game.exists():
        raise FollowFileError(f"{str(game)!r} already exists: follow the game in it with 'ctrl follow turn', "
                              "or choose another file")
    if state_file is not None:
        initial = load_state(state_file)
        problems = [p for p in validate_state(initial.to_json()) if p.severity == "error"]
        if problems:
            raise BoardsideInputError(f"state file {str(state_file)!r} breaks the rules: {problems[0]}")
        reading = Reading(0, (), True, "state file")
        problems_all: list[Any] = []
        _camera_and_mat(None, calibration, mat)  # the files to remember must load now
    else:
        cam, spec = _camera_and_mat(None, calibration, mat)
        read, problems_all = read_setup(_pictures(images), spec, cam)
        errors = [p for p in problems_all if p.severity == "error"]
        if errors and not accept:
            _print_problems(problems_all, json_out, read, recorded=False)
            if not json_out:
                out.print(f"[red]not started: the set-up has {len(errors)} problem(s)[/] -- put them right and "
                          "take the pictures again, or run again with --accept to start from this reading")
            raise typer.Exit(1)
        initial = setup_position(read, two_player)
        reading = Reading(0, tuple(str(p) for p in images), not errors,
                          "set-up" if not errors else "by the player (--accept)",
                          tuple(sorted({p.code for p in errors})))
    start(game, initial, reading, calibration, mat, every)
    if json_out:
        _print_problems(problems_all, json_out, initial, recorded=True)
        return
    for p in problems_all:
        out.print(f"{p.severity}: {p}")
    out.print(f"following the game in {game}: colours {', '.join(initial.colors)}; next to play: {initial.to_move}")
    when = {"turn": "after each turn", "round": "after each round", "any": "after any turns"}[every]
    out.print(f"{when} take the pictures and run: boardside ctrl follow turn {game} "
              "px.jpg mx.jpg py.jpg my.jpg top.jpg (better: also each side again from low down, px_low.jpg ..., "
              "or capture them with --camera 0 --low-views)")


def _print_problems(problems: list[Any], json_out: bool, state: Any, recorded: bool) -> None:
    from boardside.commands.ctrl import out
    from boardside.io import emit_json

    if json_out:
        emit_json({"recorded": recorded, "state": state.to_json(), "problems": [p.to_json() for p in problems]})
    else:
        for p in problems:
            out.print(f"{p.severity}: {p}")


@follow_app.command("turn")
def turn_cmd(
    game: Path = GAME_ARG,
    images: list[Path] = typer.Argument(None, help="Pictures of the battlefield on the mat: four sides and the "
                                        "top (or --camera / --video).", show_default=False),
    camera_index: int | None = typer.Option(None, "--camera", help="Capture the sides live from this camera, as "
                                            "'ctrl watch' does (0 = the first webcam)."),
    video: Path | None = typer.Option(None, "--video", help="Capture the sides from this video file."),
    out_dir: Path | None = typer.Option(None, "--out", help="With --camera/--video: save each captured picture here."),
    no_window: bool = typer.Option(False, "--no-window", help="With --camera/--video: no live window."),
    low_views: bool = typer.Option(False, "--low-views", help="With --camera/--video: also capture each side "
                                   "again from low down (camera looking down 8-22 degrees, straight at the "
                                   "side, the mat's near edge in view), as 'ctrl watch --low-views': nine "
                                   "pictures read together (given pictures: just give the nine). Recommended: "
                                   "on 7 rendered followed games 79 % of readings were trusted instead of 57 %, "
                                   "with fewer questions and turns typed."),
    calibration: Path | None = CALIB_OPT,
    mat: Path | None = MAT_OPT,
    annotate: Path | None = typer.Option(None, "--annotate", help="Write annotated pictures and a 3D preview here."),
    flag: list[str] = typer.Option(None, "--flag", help="Where a flag stands, said by the player: 'pink=3,2,1 +y' "
                                   "(repeat for more colours; COLOUR=none for no flag). Settles a reading NOT "
                                   "TRUSTED only because of its flags, or confirms a flag a trusted reading could "
                                   "not make out for sure; in a terminal you are asked instead.",
                                   show_default=False),
    turns_played: int | None = typer.Option(None, "--turns", min=0, help="How many turns were played since the "
                                            "last reading (default: as 'follow start --every' said)."),
    ask_now: bool = typer.Option(False, "--ask-now", help="Ask about the reading's unsure flags now instead of "
                                 "recording them provisionally for the next reading's pictures to check."),
    accept: bool = ACCEPT_OPT,
    json_out: bool = JSON_OPT,
) -> None:
    """Read the turns played since the last recorded position from new pictures and record them.

    The pictures must show legal turns played from the recorded position (as 'score-images
    --previous').  A trusted reading is recorded (exit 0); when it could not make out for sure where a
    flag of a colour that played stands, and the sheet depends on it, the player confirms that flag
    first (asked in a terminal, or --flag).  A reading NOT TRUSTED only because the
    camera could not settle where some flags stand is recorded once the player says where they are
    (asked in a terminal, or --flag).  When the game is photographed after every turn and another
    colour plays next, such a flag read at some spot is instead recorded PROVISIONALLY (unless
    --ask-now): it cannot move before its owner plays again, so the next reading's pictures check it
    and the player is asked only if they do not settle it (or contradict it: the record is then
    corrected); 'follow confirm' settles it without pictures.  A game never ends on a provisional flag.
    Any other reading NOT TRUSTED is printed with its problems and not recorded (exit 1) unless
    --accept.  The file is replaced only after a reading is recorded, so
    Ctrl-C or a bad picture (exit 2) never loses a recorded turn.  A reading showing more or fewer turns
    than were played (see --every, --turns) is not recorded either."""
    import sys

    from boardside.commands.ctrl import capture_sides, err, out, print_score, report_scene
    from vision.pipeline import score_images

    followed = FollowedGame.load(game)
    previous = followed.state
    if previous.is_terminal():
        raise FollowFileError(f"the game in {str(game)!r} is over ({len(followed.record.turns)} turns): "
                              "'ctrl follow show' prints its score sheet")
    answers = dict(parse_flag_answer(t) for t in flag or [])
    if bool(images) == (camera_index is not None or video is not None):
        raise BoardsideInputError("give the pictures, or --camera N / --video FILE to capture them (one of the two)")
    if low_views and images:
        raise BoardsideInputError("--low-views is for capturing with --camera N / --video FILE; with pictures "
                                  "given, give the low ones too (px_low.jpg ...): every picture given is read")
    cam, spec = _camera_and_mat(followed, calibration, mat)
    pics = (_pictures(images) if images
            else capture_sides(camera_index, video, spec, cam, out_dir, no_window, low_views))
    expected = turns_played if turns_played is not None else followed.expected_turns()
    with err.status(f"reading {len(pics)} picture(s) against the recorded position ..."):
        res = score_images(pics, spec, cam, previous, turns_played=expected)
    interactive = not json_out and not accept and sys.stdin.isatty()
    # the flags the last reading recorded provisionally: these pictures show them again (unmoved: their
    # owners have not played since), else the player says where they stand
    pending = followed.provisional
    resolved: dict[str, str] = {}
    checks: dict[str, Any] = {}
    if pending:
        from vision.flag_recheck import recheck_flags

        moved = sorted(set(pending) & set(turn_movers(previous, res.turns)))
        if moved:
            _stop(json_out, game, f"the {', '.join(moved)} flag(s) recorded provisionally at the last reading "
                  "were moved by the turns these pictures show before they could be checked: say where they stood "
                  f"with 'boardside ctrl follow confirm {game}' first, then run this again", res)
        checks = recheck_flags(res, pics, sorted(pending), previous)
        resolved = {c: "pictures" for c, ch in checks.items() if ch.verdict == "settled"}
        left = []
        for color in sorted(pending):
            if color in resolved:
                continue
            if color in answers:
                spot = answers[color]
            elif interactive:
                got = _ask_flag(previous, color, confirming=True, note=_pending_note(checks.get(color), pending[color]))
                if got is None:
                    left.append(color)
                    continue
                spot = got[0]
            elif accept:
                resolved[color] = "accepted by the player (--accept)"
                continue
            else:
                left.append(color)
                continue
            if spot == pending[color]:
                resolved[color] = "player"
            else:
                followed.correct_flag(color, spot)
                resolved[color] = f"corrected by the player (was {str(pending[color])[5:]})"
        if left:
            _keep_resolved(followed, game, resolved)
            notes = "; ".join(_pending_note(checks.get(c), pending[c], c) for c in left)
            options = " ".join(f"--flag {c}='{str(pending[c])[5:]}'" for c in left)
            _stop(json_out, game, f"the last reading recorded the {', '.join(left)} flag(s) provisionally, and these "
                  f"pictures do not settle them -- {notes}: confirm ({options}) or give the spot with --flag "
                  "COLOUR='X,Y,Z DIR' (or run this in a terminal to be asked)", res, {"provisional_unsettled": left})
        if any(v.startswith("corrected") for v in resolved.values()):
            previous = followed.state  # the record corrected: the pictures are read again against it
            with err.status("reading the pictures again against the corrected position ..."):
                res = score_images(pics, spec, cam, previous, turns_played=expected)
    unsettled = None if res.trusted else unsettled_flags(res.problems, res.uncertain_flags)
    confirm = flags_to_confirm(res.trusted, [*res.uncertain_flags, *res.uncertain_flag_spots], previous, res.state)
    deferrable = [] if ask_now else deferrable_flags(res.problems, unsettled, confirm, res.state)
    read = settle_flags(res.state, answers) if answers else res.state
    if not json_out:
        report_scene(res, pics, annotate, json_out, previous)
        for color, ch in checks.items():
            out.print(f"the {color} flag recorded provisionally at {str(pending[color])[5:]}: "
                      + ("these pictures settle it" if ch.verdict == "settled" else _pending_note(ch, pending[color])))
    first = judge(previous, res.turns, read, res.trusted, unsettled, list(answers), expected, accept, confirm,
                  deferrable)
    ask = ([c for c in unsettled or confirm if c not in answers and c not in first.provisional]
           if interactive else [])
    for color in ask:
        answer = _ask_flag(read, color, confirming=color in confirm)
        if answer is None:
            break
        answers[color] = answer[0]
        read = settle_flags(read, {color: answer[0]})
    verdict = judge(previous, res.turns, read, res.trusted, unsettled, list(answers), expected, accept, confirm,
                    deferrable)
    turns, why, miscount, record = verdict.turns, verdict.why, verdict.miscount, verdict.recordable
    unpictured = sides_not_pictured(res.problems)
    said_now = [c for c in answers if c not in pending or c in (unsettled or confirm)]
    parts = ([("flags confirmed" if res.trusted else "flags settled") + " by the player"] if said_now else []) + (
        ["flags recorded provisionally"] if verdict.provisional else [])
    how = (", ".join(["trusted", *parts]) if res.trusted else " and ".join(parts) if parts
           else "by the player (--accept)")
    if record:
        after = followed.add(turns, Reading(len(turns), tuple(name for name, _ in pics), res.trusted, how,
                                            tuple(sorted({p.code for p in res.problems if p.severity == "error"})),
                                            provisional=verdict.provisional, resolved=tuple(sorted(resolved.items()))))
        followed.save(game)
    else:
        _keep_resolved(followed, game, resolved)
    code = 0 if record or (not turns and res.trusted) else 1
    if json_out:
        report_scene(res, pics, annotate, json_out, previous, {
            "recorded": record, "game": str(game), "turns_recorded": [str(t) for t in turns] if record else [],
            "turns_in_record": len(followed.record.turns), "flags_settled_by_player": sorted(said_now),
            "unsettled_flags": unsettled or [], "flags_to_confirm": confirm,
            "flags_unconfirmed": list(verdict.unconfirmed), "turns_expected": expected,
            "turns_count_problem": miscount, "sides_not_pictured": unpictured,
            "flags_provisional": {c: str(read.flags[c])[5:] for c in verdict.provisional} if record else {},
            "provisional_checked": {c: {"verdict": ch.verdict, "recorded": str(ch.recorded)[5:],
                                        "read": str(ch.spot)[5:] if ch.spot else None, "why": ch.why}
                                    for c, ch in checks.items()},
            "provisional_resolved": resolved})
        raise typer.Exit(code)
    if record:
        if said_now:
            print_score(after, "CTRL score sheet with the flags as you said")
        elif any(v.startswith("corrected") for v in resolved.values()):
            print_score(after, "CTRL score sheet with the corrected flags")
        out.print(f"recorded {len(turns)} turn(s) in {game} ({len(followed.record.turns)} in all)")
        for color in verdict.provisional:
            out.print(f"[yellow]provisional:[/] the {color} flag is recorded at {str(after.flags[color])[5:]}, but the "
                      "camera could not make it out for sure; the next reading's pictures check it again (it cannot "
                      f"move before {color} plays), or say where it stands now: boardside ctrl follow confirm {game}")
        out.print("the game is over: the score sheet above is the final one" if after.is_terminal()
                  else f"next to play: {after.to_move}")
    elif unpictured:
        out.print(f"[red]not recorded:[/] {retake_sides_note(unpictured, game)}")
    elif not turns:
        out.print("no turn since the recorded position: nothing recorded")
    elif why is not None:
        out.print(f"[red]not recorded:[/] the flags read cannot be plugged by these turns ({why}); take the "
                  "pictures again")
    elif miscount is not None:
        out.print(f"[red]not recorded:[/] {miscount}. Take the pictures again, or type the turns with 'ctrl follow "
                  "play'")
    elif verdict.unconfirmed:
        said = " ".join(f"--flag {c}='{str(read.flags[c])[5:]}'" for c in verdict.unconfirmed if c in read.flags)
        out.print(f"[red]not recorded:[/] the reading is trusted, but where the {', '.join(verdict.unconfirmed)} "
                  "flag(s) stand was not made out for sure, and the score sheet depends on it: confirm the "
                  f"reading's choice ({said}) or give the spot with --flag COLOUR='X,Y,Z DIR' (or run this in a "
                  "terminal to be asked)")
    elif unsettled:
        out.print(f"[red]not recorded:[/] only the flags ({', '.join(unsettled)}) are unsettled: say where each "
                  "stands with --flag COLOUR='X,Y,Z DIR' (or run this in a terminal to be asked)")
    else:
        out.print("[red]not recorded:[/] the reading is NOT TRUSTED (see the problems above). Take the pictures "
                  "the problems name again, or check the reading and run again with --accept to record it")
    raise typer.Exit(code)


def sides_not_pictured(problems: list[Any]) -> list[str]:
    """The sides no picture of a reading shows (its ``side-not-pictured`` errors), in the mat's order."""
    return [p.where.removeprefix("side ") for p in problems if p.code == "side-not-pictured" and p.severity == "error"]


def retake_sides_note(sides: list[str], game: Path) -> str:
    """What the player does about a reading no picture of ``sides`` shows: the flags and blocks only those
    sides would show were neither read nor questioned, so the reading cannot be recorded (nor should it be
    accepted); a picture of each such side, given with the others, reads it."""
    many = len(sides) > 1
    which = f"sides {', '.join(sides[:-1])} and {sides[-1]}" if many else f"side {sides[0]}"
    return (f"no picture shows {which}, so what stands on {'them' if many else 'it'} was not read. Photograph "
            f"{which} (the camera facing {'each' if many else 'that'} side, as for the usual side pictures) and "
            f"run 'boardside ctrl follow turn {game}' again with all the pictures, the new one"
            f"{'s' if many else ''} included")


def _pending_note(check: Any, recorded: Any, color: str = "") -> str:
    """Why a provisional flag is asked about again (``check``: its :class:`vision.flag_recheck.FlagRecheck`),
    led by its colour when ``color`` is given (a note that lists several flags)."""
    who = f"{color}: " if color else ""
    if check is None:
        return f"{who}recorded at {str(recorded)[5:]}"
    if check.verdict == "contradicted":
        return f"{who}these pictures put it at {str(check.spot)[5:]} instead ({check.why})"
    if check.verdict == "settled":
        return f"{who}these pictures settle it"
    return f"{who}still not made out for sure ({check.why})"


def _keep_resolved(followed: FollowedGame, game: Path, resolved: dict[str, str]) -> None:
    """Provisional flags the player confirmed or corrected, while the reading itself is not recorded: kept as
    a reading of no turn (so the player is not asked again; 'follow undo' takes it back)."""
    said = {c: how for c, how in resolved.items() if how != "pictures"}
    if said:
        followed.note_confirmed(said)
        followed.save(game)


def _stop(json_out: bool, game: Path, message: str, res: Any, extra: dict[str, Any] | None = None) -> None:
    """Nothing recorded: say why (exit 1)."""
    from boardside.commands.ctrl import out
    from boardside.io import emit_json

    if json_out:
        emit_json({"recorded": False, "game": str(game), "turns_read": list(res.turns), "why": message,
                   **(extra or {})})
    else:
        out.print(f"[red]not recorded:[/] {message}")
    raise typer.Exit(1)


def _ask_flag(state: Any, color: str, confirming: bool = False, note: str | None = None) -> tuple[Any] | None:
    """Ask the player where ``color``'s flag stands among its legal spots (``None``: no answer);
    ``confirming``: the reading is trusted and put it somewhere, but not for sure; ``note``: the flag was
    recorded provisionally at the last reading, and why it is asked about now."""
    from boardside.commands.ctrl import out

    spots = state.flag_spots(color)
    current = state.flags.get(color)
    spots.sort(key=lambda s: s != current)
    if note is not None and current is not None:
        out.print(f"the last reading recorded the {color} flag provisionally at {str(current)[5:]}; {note}. "
                  "Please check the table. Its legal spots:")
    elif confirming and current is not None:
        out.print(f"the reading put the {color} flag at {str(current)[5:]} but could not make it out for sure, and "
                  "the score sheet depends on it; please check the table. Its legal spots:")
    else:
        out.print(f"the camera could not settle where the {color} flag stands; its legal spots:")
    for i, spot in enumerate(spots, 1):
        out.print(f"  {i:2d}. {str(spot)[5:]}" + ("   (the reading's choice)" if spot == current else ""))
    yes = confirming and current is not None
    prompt = (f"{color} flag: 'y' if it stands there, else a number or 'X,Y,Z DIR'; Enter to leave the reading "
              "unrecorded: " if yes else
              f"{color} flag: a number, 'X,Y,Z DIR', or Enter to leave the reading unrecorded: ")
    while True:
        try:
            text = out.input(prompt)
        except EOFError:
            return None
        text = text.strip()
        if not text:
            return None
        if yes and text.lower() in ("y", "yes"):
            return (current,)
        if text.isdigit() and 1 <= int(text) <= len(spots):
            return (spots[int(text) - 1],)
        try:
            _, spot = parse_flag_answer(f"{color}={text}")
        except BoardsideInputError as exc:
            out.print(f"[red]{exc}[/]")
            continue
        if spot in spots or (spot is None and not spots):
            return (spot,)
        out.print(f"[red]{text!r} is not one of the {color} flag's legal spots[/]")


@follow_app.command("play", context_settings={"ignore_unknown_options": True})
def play_cmd(
    game: Path = GAME_ARG,
    turns: list[str] = typer.Argument(..., help="Whole turns as 'ctrl moves' prints them, e.g. "
                                      "'1,-1,1 1,-1,2 1,-1,3 flag 1,-1,4 +z' (or 'pass noflag').",
                                      show_default=False),
) -> None:
    """Record turns typed in, when the camera cannot settle them (each checked against the rules).

    A turn may start with a minus sign ('-1,2,0 ...'): it is taken as a turn, not an option."""
    from boardside.commands.ctrl import out

    followed = FollowedGame.load(game)
    if followed.provisional:
        raise FollowFileError(f"the {', '.join(followed.provisional)} flag(s) of the last reading are recorded "
                              "provisionally: say where they stand first with "
                              f"'boardside ctrl follow confirm {game}' (typed turns may depend on them)")
    parsed = [Turn.parse(t) for t in turns]
    after = followed.add(parsed, Reading(len(parsed), (), False, "typed by the player"))
    followed.save(game)
    out.print(f"recorded {len(parsed)} typed turn(s) in {game} ({len(followed.record.turns)} in all); "
              + ("the game is over" if after.is_terminal() else f"next to play: {after.to_move}"))


@follow_app.command("confirm")
def confirm_cmd(
    game: Path = GAME_ARG,
    flag: list[str] = typer.Option(None, "--flag", help="Where a provisional flag stands: 'pink=3,2,1 +y' (repeat "
                                   "for more colours); in a terminal you are asked instead.", show_default=False),
    json_out: bool = JSON_OPT,
) -> None:
    """Say where the flags the last reading recorded provisionally stand, without new pictures.

    A reading may record a flag the camera could not make out for sure provisionally: the next reading's
    pictures check it again.  Confirm (or correct) it here instead -- before typing turns with 'follow
    play', or whenever you like.  A correction changes the last reading's turns (checked against the rules)."""
    import sys

    from boardside.commands.ctrl import out, print_score
    from boardside.io import emit_json

    followed = FollowedGame.load(game)
    pending = followed.provisional
    answers = dict(parse_flag_answer(t) for t in flag or [])
    stray = sorted(set(answers) - set(pending))
    if stray:
        raise BoardsideInputError(f"--flag {stray[0]}: the {stray[0]} flag is not provisional (provisional: "
                                  f"{', '.join(pending) or 'none'})")
    if not pending:
        if json_out:
            emit_json({"provisional": {}, "resolved": {}})
        else:
            out.print("no flag is recorded provisionally: nothing to confirm")
        return
    interactive = not json_out and sys.stdin.isatty()
    resolved: dict[str, str] = {}
    for color, spot in pending.items():
        if color not in answers and interactive:
            got = _ask_flag(followed.state, color, confirming=True, note="the camera could not make it out for sure")
            if got is not None:
                answers[color] = got[0]
        if color not in answers:
            continue
        if answers[color] == spot:
            resolved[color] = "player"
        else:
            followed.correct_flag(color, answers[color])
            resolved[color] = f"corrected by the player (was {str(spot)[5:]})"
    left = [c for c in pending if c not in resolved]
    if left:
        if json_out:
            emit_json({"provisional": {c: str(s)[5:] for c, s in pending.items()}, "resolved": {},
                       "unanswered": left})
        else:
            out.print(f"[red]nothing recorded:[/] say where the {', '.join(left)} flag(s) stand with --flag "
                      "COLOUR='X,Y,Z DIR' (or run this in a terminal to be asked)")
        raise typer.Exit(1)
    followed.note_confirmed(resolved)
    followed.save(game)
    if json_out:
        emit_json({"provisional": {c: str(s)[5:] for c, s in pending.items()}, "resolved": resolved,
                   "state": followed.state.to_json()})
        return
    for color, how in resolved.items():
        out.print(f"the {color} flag: " + ("confirmed" if how == "player" else how))
    if any(v.startswith("corrected") for v in resolved.values()):
        print_score(followed.state, "CTRL score sheet with the corrected flags")


@follow_app.command("show")
def show_cmd(game: Path = GAME_ARG, json_out: bool = JSON_OPT) -> None:
    """Print the followed game's readings and the score sheet of its recorded position."""
    from boardside.commands.ctrl import out, print_score, score_json
    from boardside.io import emit_json

    followed = FollowedGame.load(game)
    state = followed.state
    if json_out:
        emit_json({**score_json(state), "state": state.to_json(), "terminal": state.is_terminal(),
                   "turns": [str(t) for t in followed.record.turns],
                   "provisional_flags": {c: str(s)[5:] for c, s in followed.provisional.items()},
                   "readings": [r.to_json() for r in followed.readings]})
        return
    table = Table(title=f"readings of {game}")
    for col in ("#", "turns", "pictures", "trusted", "recorded", "problems", "flags", "at"):
        table.add_column(col)
    for i, r in enumerate(followed.readings):
        flags = [f"{c} provisional" for c in r.provisional] + [
            f"{c} {'settled by the next pictures' if how == 'pictures' else 'confirmed' if how == 'player' else how}"
            for c, how in r.resolved]
        table.add_row(str(i), str(r.turns), str(len(r.pictures)), "yes" if r.trusted else "no", r.accepted,
                      ", ".join(r.problems), "; ".join(flags), r.at.replace("T", " ")[:16])
    out.print(table)
    pending = followed.provisional
    print_score(state, "CTRL score sheet (recorded position)" + ("" if state.is_terminal() else
                                                                 " (game not finished)")
                + (" (PROVISIONAL flags)" if pending else ""))
    for color, spot in pending.items():
        out.print(f"[yellow]provisional:[/] the {color} flag at {str(spot)[5:]} is not confirmed yet: the next "
                  f"reading's pictures check it, or 'boardside ctrl follow confirm {game}'")
    if not state.is_terminal():
        out.print(f"next to play: {state.to_move}")


@follow_app.command("undo")
def undo_cmd(game: Path = GAME_ARG) -> None:
    """Take back the last reading's turns (kept in the file under 'undone', never deleted)."""
    from boardside.commands.ctrl import out

    followed = FollowedGame.load(game)
    last = followed.undo()
    followed.save(game)
    out.print(f"took back the last reading ({last.turns} turn(s) from {len(last.pictures)} picture(s), kept under "
              f"'undone' in {game}); {len(followed.record.turns)} turn(s) recorded, next to play: "
              f"{followed.state.to_move}")


__all__ = ["follow_app"]
