"""Following a CTRL game from the camera, end to end (issue 5: score a physical game from pictures).

For every followed game under ``--games`` (rendered, SIMULATED photographs:
``boardside fixtures render-followed``; layout in ``boardside.fixtures_render.followed``), plays the
part of a player using ``boardside ctrl follow``:

* the set-up pictures are read and checked (``boardside.ctrl_follow.read_setup``); a set-up with
  problems is not started from: the player starts from the set-up written down (``--state``);
* then each later position's pictures (``--views``: the five, or ``all`` nine with the four low ones of
  ``render-followed --low-views``) are read against the RECORDED position (not the truth:
  a wrong reading recorded stays wrong for the readings after it, as it would at the table); a
  trusted reading's turns are recorded (``turns_read``) -- once the player confirmed the flags it
  could not make out for sure (``flags_to_confirm``; here: the truth's spots, so a confirmation can
  correct a flag: counted apart); a reading not trusted only because of where
  some flags stand is recorded once the player says where (``follow turn`` asks; here: the truth's
  spots); any other reading not trusted is not recorded, and the player types the turns instead
  (``follow play``; here: the truth's turns, possible only while the record is right).

Reported per reading: trusted and right, trusted but wrong (recorded wrong: the dangerous case),
not trusted (the player had to type), and whether the final record gives the game's score sheet.
Camera intrinsics from the truth files (as a user with a calibration file).  Last line: one JSON
object.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.ctrl_scenes import VIEWS, parse_views
from boardside.ctrl_follow import (
    defer_flags,
    deferrable_flags,
    flags_to_confirm,
    judge,
    read_setup,
    settle_flags,
    setup_position,
    turn_movers,
    unsettled_flags,
)
from boardside.fixtures_render.camera import truth_calibration
from calibration.camera import read_image
from calibration.mat import MatSpec
from engine.ctrl import GameRecord, State
from engine.errors import BoardsideInputError
from vision.flag_recheck import recheck_flags
from vision.locate import ImageRejectedError
from vision.pipeline import score_images


def _same(a: State, b: State) -> bool:
    return a.blocks == b.blocks and dict(a.flags) == dict(b.flags)


def _defer_candidates(mode: str, res: Any, unsettled: list[str] | None, confirm: list[str]) -> list[str]:
    """The flags ``follow turn`` would record provisionally (``--defer``): none; a trusted reading's flags to
    confirm; or those and the flags of a reading NOT TRUSTED only because of them (:func:`deferrable_flags`)."""
    if mode == "none":
        return []
    if mode == "confirm":
        return list(confirm)
    return deferrable_flags(res.problems, unsettled, confirm, res.state)


def _ask_pending(colors: list[str], previous: State, before: State, info: dict[str, Any],
                 history: list[State]) -> State:
    """The player is asked where each of ``colors``' provisional flags stands (here: the truth's, ``before``);
    a wrong one is corrected in the record (``history[-1]``, the position recorded last).  Returns it."""
    for c in colors:
        info["pending_asked"].append(c)
        if previous.flags.get(c) != before.flags.get(c):
            info["pending_corrected"].append(c)
            flags = {x: f for x, f in previous.flags.items() if x != c}
            if c in before.flags:
                flags[c] = before.flags[c]
            previous = replace(previous, flags=flags)
            history[-1] = previous
    return previous


def _missing_flags(problems: Any) -> list[str]:
    """The colours of a reading's ``flag-missing`` errors (no picture shows the flag at a legal spot)."""
    return sorted({p.where.split()[0] for p in problems if p.severity == "error" and p.code == "flag-missing"})


def _probe_missing(res: Any, pics: Any, probe: dict[str, Any], previous: State, before: State) -> dict[str, Any]:
    """``--probe-missing``: would these pictures have settled the flags the last reading could not find at all
    (``flag-missing``; the player said where -- the truth's spot -- so these pictures were read against the right
    position: an upper bound)?  Each is read again as a mover's flag (:func:`recheck_flags` with its spot as
    recorded): "settled" only with no doubt at all -- a rival that changes a side keeps it unsure (no earlier
    reading agrees, so ``RIVALS_AGREE`` cannot apply); "contradicted": the pictures put it elsewhere."""
    checks = recheck_flags(res, pics, sorted(probe), previous)
    out: dict[str, Any] = {}
    for c in sorted(probe):
        ch = checks.get(c)
        if ch is None:
            out[c] = ["unsure", "no-flag", False]
            continue
        verdict = "unsure" if ch.verdict == "settled" and ch.check == "rival" else ch.verdict
        out[c] = [verdict, ch.check, ch.spot is not None and ch.spot == before.flags.get(c)]
    return out


def has_views(game_dir: Path, views: tuple[str, ...]) -> bool:
    """Whether the game's set-up position holds every picture of ``views`` (a game rendered without
    ``--low-views`` has no low pictures)."""
    return all((game_dir / "scene_000" / f"{v}.jpg").exists() for v in views)


def follow_game(game_dir: Path, args_turns: bool = True, defer: str = "none",
                probe_missing: bool = False, views: tuple[str, ...] = VIEWS) -> dict[str, Any]:
    truth_doc = json.loads((game_dir / "game.json").read_text())
    record = GameRecord.from_json(truth_doc["record"])
    truth_states = list(record.states())
    shots = [int(n) for n in truth_doc["shots"]]
    readings: list[dict[str, Any]] = []
    recorded: State | None = None
    history: list[State] = []  # the recorded position after each reading (corrections included)
    pending: dict[str, Any] = {}  # colour -> the provisional spot the last reading recorded
    probe: dict[str, Any] = {}  # --probe-missing: the missing flags the last reading's player said, deferrable
    waiting: dict[str, int] = {}  # those the next pictures left unsure, until their owner plays: readings since
    for k, n in enumerate(shots):
        scene = game_dir / f"scene_{k:03d}"
        if not all((scene / f"{v}.jpg").exists() for v in views):
            break  # not rendered (yet)
        doc = json.loads((scene / "scene.json").read_text())
        spec = MatSpec.from_json(doc["mat"])
        cam = truth_calibration(json.loads((scene / "px.json").read_text())["camera"])
        pics = [(f"{scene.name}/{v}.jpg", read_image(scene / f"{v}.jpg")) for v in views]
        truth = truth_states[n]
        t0 = time.process_time()
        if recorded is None:
            read, problems = read_setup(pics, spec, cam)
            trusted = not [p for p in problems if p.severity == "error"]
            state = setup_position(read, truth.owners != {c: c for c in truth.colors}) if trusted else read
            right = state.to_json() == truth.to_json()
            recorded = state if trusted else truth  # else the player starts from the set-up written down
            history.append(recorded)
            readings.append({"scene": scene.name, "turns": 0, "trusted": trusted, "right": right,
                             "recorded_right": _same(recorded, truth), "typed": not trusted,
                             "cpu_s": round(time.process_time() - t0, 3)})
            continue
        before = truth_states[shots[k - 1]]
        previous = recorded
        info: dict[str, Any] = {"pending": sorted(pending), "pending_settled_by_pictures": [],
                                "pending_asked": [], "pending_corrected": [], "pending_settled_wrong": [],
                                "pending_checks": {}}

        try:
            res = score_images(pics, spec, cam, previous, turns_played=n - shots[k - 1] if args_turns else None)
        except ImageRejectedError as exc:  # the player would take the picture again; here: types the turns
            info["missing_probe"] = {c: ["unsure", "rejected", False] for c in probe}
            probe, waiting = {}, {}
            previous = _ask_pending(sorted(pending), previous, before, info, history)  # 'follow play' asks first
            pending = {}
            if _same(previous, before):
                recorded = truth
            history.append(recorded)
            readings.append({"scene": scene.name, "turns": n - shots[k - 1], "trusted": False, "right": False,
                             "flags_settled": False, "recorded_right": _same(recorded, truth), "typed": True,
                             "recorded_wrong_here": False, "errors": ["rejected"], "rejected": str(exc),
                             "questions": len(info["pending_asked"]), **info,
                             "cpu_s": round(time.process_time() - t0, 3)})
            continue
        if pending:
            # the provisional flags of the last reading, read again from these pictures
            checks = recheck_flags(res, pics, sorted(pending), previous)
            # each check's verdict, the test that decided it, and whether the provisional flag was right
            info["pending_checks"] = {c: [ch.verdict, ch.check, previous.flags.get(c) == before.flags.get(c)]
                                      for c, ch in checks.items()}
            settled = [c for c, ch in checks.items() if ch.verdict == "settled"]
            info["pending_settled_by_pictures"] = settled
            info["pending_settled_wrong"] = [c for c in settled if previous.flags.get(c) != before.flags.get(c)]
            previous = _ask_pending([c for c in sorted(pending) if c not in settled], previous, before, info, history)
            if info["pending_corrected"]:  # the record corrected: the pictures are read again against it
                res = score_images(pics, spec, cam, previous, turns_played=n - shots[k - 1] if args_turns else None)
            pending = {}
        movers = turn_movers(previous, res.turns)
        waiting = {c: k for c, k in waiting.items() if c not in movers}  # its owner plays: the flag moves
        if waiting:  # a flag left waiting longer (until its owner plays): do these pictures settle it?
            later = _probe_missing(res, pics, dict(waiting), previous, before)
            info["missing_probe_later"] = {c: [*v, waiting[c]] for c, v in later.items()}
            waiting = {c: waiting[c] + 1 for c, v in later.items() if v[0] == "unsure"}
        if probe:
            info["missing_probe"] = _probe_missing(res, pics, probe, previous, before)
            waiting.update({c: 2 for c, v in info["missing_probe"].items() if v[0] == "unsure" and c not in movers})
            probe = {}
        right = _same(res.state, truth)
        read, answered = res.state, []
        unsettled = None if res.trusted else unsettled_flags(res.problems, res.uncertain_flags)
        # a trusted reading's flags it could not make out for sure: the player confirms them (or corrects them)
        confirm = flags_to_confirm(res.trusted, [*res.uncertain_flags, *res.uncertain_flag_spots], previous, res.state)
        cands = _defer_candidates(defer, res, unsettled, confirm)
        expected = n - shots[k - 1]
        first = judge(previous, res.turns, read, res.trusted, unsettled, [], expected, confirm=confirm,
                      deferred=cands)
        said = [c for c in unsettled or confirm if c not in first.provisional]
        if said:  # the player says where those flags stand (follow turn asks; here: the truth's)
            # (not when the truth's spot is no legal spot in the position read: its blocks are wrong)
            with contextlib.suppress(BoardsideInputError):
                read, answered = settle_flags(res.state, {c: truth.flags.get(c) for c in said}), said
        # the player said how often the pictures are taken (follow start --every): the turns since
        verdict = judge(previous, res.turns, read, res.trusted, unsettled, answered, expected,
                        confirm=confirm, deferred=cands)
        turns, miscount, ok, settled_ = verdict.turns, verdict.miscount, verdict.recordable, verdict.settled
        typed = False
        if not ok and info["pending_settled_by_pictures"]:
            # a reading not recorded settles nothing: 'follow play' (or the next try) asks for those flags
            previous = _ask_pending(info["pending_settled_by_pictures"], previous, before, info, history)
            info["pending_settled_by_pictures"], info["pending_settled_wrong"] = [], []
        if ok:
            recorded = previous
            for t in turns:
                recorded = recorded.apply(t)
            pending = {c: recorded.flags.get(c) for c in verdict.provisional}
            if probe_missing:  # flags no picture placed, said by the player, that a deferral could wait for
                missing = [c for c in _missing_flags(res.problems) if c in answered]
                probe = {c: recorded.flags.get(c) for c in defer_flags(previous, turns, missing, expected)}
                info["missing_deferrable"] = sorted(probe)
        else:
            waiting = {}  # (a reading not recorded: the flags are asked)
            if _same(previous, before):
                recorded, typed = truth, True  # the player types the turns the camera could not settle
            else:
                recorded = previous
        history.append(recorded)
        questions = len(info["pending_asked"]) + (len(answered) if ok else 0)
        readings.append({"scene": scene.name, "turns": n - shots[k - 1], "trusted": res.trusted, "right": right,
                         "flags_settled": settled_ and ok, "recorded_right": _same(recorded, truth), "typed": typed,
                         "miscounted": miscount is not None,
                         "recorded_wrong_here": (_same(previous, before) and not _same(recorded, truth)
                                                 and not (set(_diff_flags(recorded, truth)) <= set(pending)
                                                          and recorded.blocks == truth.blocks)),
                         "errors": sorted({p.code for p in res.problems if p.severity == "error"}),
                         "where": sorted({f"{p.code}: {p.where}" for p in res.problems if p.severity == "error"}),
                         "blocks_right": res.state.blocks == truth.blocks,
                         # the flags the player was asked about, and those of them the reading had right
                         "flags_asked": [c for c in unsettled or [] if c in answered],
                         "asked_but_read_right": [c for c in unsettled or [] if c in answered
                                                  and res.state.flags.get(c) == truth.flags.get(c)],
                         # a trusted reading's flags the player confirmed, and those the reading had wrong
                         "flags_confirmed": [c for c in confirm if c in answered] if ok else [],
                         "confirmed_but_read_wrong": [c for c in confirm if ok and c in answered
                                                      and res.state.flags.get(c) != truth.flags.get(c)],
                         # flags recorded provisionally (checked at the next reading), and those read wrong
                         "provisional": sorted(pending),
                         "provisional_wrong": sorted(c for c in pending if pending[c] != truth.flags.get(c)),
                         "questions": questions + (1 if typed else 0),
                         **info,
                         "cpu_s": round(time.process_time() - t0, 3)})
    # every position recorded, as it stands once the provisional flags were settled, against the truth's
    wrong_positions = [readings[i]["scene"] for i, st in enumerate(history[:len(readings)])
                       if not _same(st, truth_states[shots[i]]) and not readings[i]["typed"]
                       and not (i + 1 == len(history) and pending)]
    final_right = (recorded is not None and len(readings) == len(shots) and _same(recorded, truth_states[-1])
                   and not pending)
    return {"game": game_dir.name, "players": truth_doc["players"], "every": truth_doc["every"],
            "positions": len(shots), "read": len(readings), "readings": readings,
            "final_record_right": final_right,
            "positions_recorded_wrong": wrong_positions,
            "final_sheet_right": final_right and recorded is not None
            and recorded.side_scores() == truth_states[-1].side_scores()}


def _diff_flags(a: State, b: State) -> list[str]:
    return sorted(c for c in set(a.flags) | set(b.flags) if a.flags.get(c) != b.flags.get(c))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", default=str(Path(__file__).resolve().parent.parent / "fixtures" / "ctrl_followed"),
                    help="directory of followed games (default: the bundled fixtures/ctrl_followed)")
    ap.add_argument("--any-turns", action="store_true", help="read each position as any number of turns (as "
                    "'follow start --every any'), not the number played")
    ap.add_argument("--defer", choices=("none", "confirm", "all"), default="all",
                    help="which unsure flags are recorded provisionally and checked at the next reading instead of "
                    "asked at once (as 'follow turn' does: 'all'; 'confirm': only a trusted reading's flags to "
                    "confirm; 'none': as before session 10)")
    ap.add_argument("--probe-missing", action="store_true",
                    help="measure only: for each flag-missing flag the player said that could wait (every-turn "
                    "game, game goes on, another colour next), whether the next reading's pictures would settle it")
    ap.add_argument("--only", default="", help="comma-separated game names to follow (default: all)")
    ap.add_argument("--views", default="five", help="which pictures of each position to read: 'five' (default), "
                    "'all' (nine: also the four low ones, 'fixtures render-followed --low-views'), 'low', or "
                    "stems such as 'five,px_low'; games without them are left out (named on stderr)")
    args = ap.parse_args()
    try:
        views = parse_views(args.views)
    except ValueError as exc:
        raise SystemExit(str(exc)) from None
    root = Path(args.games)
    games = sorted(d for d in root.iterdir() if (d / "game.json").exists()) if root.is_dir() else []
    if args.only:
        games = [g for g in games if g.name in args.only.split(",")]
    lacking = [g.name for g in games if not has_views(g, views)]
    if lacking:
        print(f"left out (no pictures {', '.join(views)} at the set-up): {', '.join(lacking)}", file=sys.stderr)
        games = [g for g in games if g.name not in lacking]
    if not games:
        raise SystemExit(f"no followed games under {str(root)!r} (render one with 'boardside fixtures "
                         "render-followed')")
    results = []
    for g in games:
        r = follow_game(g, not args.any_turns, args.defer, args.probe_missing, views)
        results.append(r)
        for x in r["readings"]:
            print(json.dumps({"game": r["game"], **x}), flush=True)
    later = [x for r in results for x in r["readings"] if x["turns"] > 0]
    setups = [x for r in results for x in r["readings"] if x["turns"] == 0]
    n = max(len(later), 1)
    summary = {
        "simulated": "rendered photographs",
        "games": len(results),
        "views": list(views),
        "games_left_out": lacking,
        "readings": len(later),
        "set_ups_trusted_and_right": sum(x["trusted"] and x["right"] for x in setups),
        "set_ups": len(setups),
        "trusted_share": round(sum(x["trusted"] for x in later) / n, 3),
        "trusted_and_right_share": round(sum(x["trusted"] and x["recorded_right"] for x in later) / n, 3),
        "trusted_but_recorded_wrong": sum(x["trusted"] and x["recorded_wrong_here"] for x in later),
        "turns_miscounted": sum(x.get("miscounted", False) for x in later),
        "settled_by_saying_where_flags_stand": sum(x["flags_settled"] for x in later),
        "settled_but_recorded_wrong": sum(x["flags_settled"] and x["recorded_wrong_here"] for x in later),
        "flag_questions": sum(len(x.get("flags_asked", [])) for x in later if x["flags_settled"]),
        "flag_questions_read_right": sum(len(x.get("asked_but_read_right", [])) for x in later
                                         if x["flags_settled"]),
        "trusted_readings_with_flags_to_confirm": sum(bool(x.get("flags_confirmed")) for x in later),
        "flag_confirmations": sum(len(x.get("flags_confirmed", [])) for x in later),
        "confirmations_that_corrected_a_flag": sum(len(x.get("confirmed_but_read_wrong", [])) for x in later),
        "recorded_without_a_question_share": round(sum(not x.get("questions") and not x["typed"]
                                                       and x["recorded_right"] for x in later) / n, 3),
        "typed_by_the_player": sum(x["typed"] for x in later),
        "defer": args.defer,
        # every question the player answered (flags said, confirmed, provisional flags asked; a typed reading 1)
        "questions": sum(x.get("questions", 0) for x in later),
        "questions_per_reading": round(sum(x.get("questions", 0) for x in later) / n, 3),
        "readings_with_a_question": sum(x.get("questions", 0) > 0 for x in later),
        "flags_recorded_provisionally": sum(len(x.get("provisional", [])) for x in later),
        "provisional_flags_read_wrong": sum(len(x.get("provisional_wrong", [])) for x in later),
        "provisional_settled_by_next_pictures": sum(len(x.get("pending_settled_by_pictures", [])) for x in later),
        "provisional_asked_at_next_reading": sum(len(x.get("pending_asked", [])) for x in later),
        "provisional_corrected": sum(len(x.get("pending_corrected", [])) for x in later),
        "provisional_settled_wrong": sum(len(x.get("pending_settled_wrong", [])) for x in later),
        "positions_recorded_wrong": sum(len(r["positions_recorded_wrong"]) for r in results),
        "flags_said": sum(len(x.get("flags_asked", [])) + len(x.get("flags_confirmed", [])) for x in later
                          if x["flags_settled"] or x.get("flags_confirmed")),
        "flag_missing_said": sum(len([c for c in x.get("flags_asked", []) if f"flag-missing: {c} flag" in
                                      x.get("where", [])]) for x in later if x["flags_settled"]),
        **({"missing_deferrable": sum(len(x.get("missing_deferrable", [])) for x in later),
            "missing_probe": {v: sum(1 for x in later for p in x.get("missing_probe", {}).values() if p[0] == v)
                              for v in ("settled", "contradicted", "unsure")},
            "missing_probe_later": {v: sum(1 for x in later for p in x.get("missing_probe_later", {}).values()
                                           if p[0] == v) for v in ("settled", "contradicted", "unsure")},
            "missing_probe_settled_wrong": sum(1 for x in later for p in x.get("missing_probe", {}).values()
                                               if p[0] == "settled" and not p[2])} if args.probe_missing else {}),
        "pictures_rejected": sum("rejected" in x for x in later),
        "read_right_share": round(sum(x["right"] for x in later) / n, 3),
        "games_with_final_sheet_right": sum(r["final_sheet_right"] for r in results),
        "games_fully_read": sum(r["read"] == r["positions"] for r in results),
        "cpu_s_per_reading_median": round(statistics.median([x["cpu_s"] for x in later]), 3) if later else None,
        "per_game": [{k: v for k, v in r.items() if k != "readings"} for r in results],
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
