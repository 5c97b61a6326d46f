"""Flat-board reading benchmark over the rendered board fixtures (issue 9, item 5).

For every scene under fixtures/boards/<game>/ (``scene_NNN.jpg`` + ``scene_NNN.json``, rendered
photographs), runs the board reader (``vision.board_pipeline.read_board``: locate, classify,
reconstruct + the engine's validator) and compares each cell with the recorded truth:

* per-cell error: cells whose reading (empty, or the piece kind with its colour, cube count and
  character) differs from the truth, over every cell of every scene.  A cell the reader declines
  to read (``occluded``: something covers it; ``unseen``: outside the picture or behind the
  grid-set) is not a wrong reading -- it is reported as a warning -- and is counted apart
  (``abstained_cells``, and ``abstained_on_visible_pieces`` when the truth shows a piece there -- the
  truth calls a piece visible from 30 pixels; ``abstained_on_visible_pieces_by_size`` splits them by
  the pixels the cell's most visible piece shows, 30-150 and over 150, so declines of clearly visible
  pieces stand apart).  Quirky: the robot's own cell is read ``robot`` (its body hides any token
  under it, docs/rules/quirky.md section 1 "Tokens para compartir espacios"): a decline too, counted
  apart (``robot_cells_declined``; a token there the truth calls visible counts as a declined visible
  piece; until session 15 the robot's cell was scored as read empty);
* whole-board exact: scenes where no cell is read wrong and no visible piece is declined;
* the set-up check (``validate GAME --images``, issue 9 item 3): of the tables whose truth breaks no
  rule, how many the reading reports a rule *error* on (``legal_tables_called_wrong``), and of the
  tables made to break a rule, how many get an error (``breaking_tables_with_an_error``; an error of
  any code: the reading may name the break differently, or -- a weakness of the figure -- find an
  unrelated one); and the tables with no error but a ``check-cell`` warning (a rule error resting on
  a reading the camera is unsure of, session 12): ``legal_tables_check_only``, ``breaking_tables_check_only``;
* time per frame (locate + classify of one 1280x720 picture) and per stage, median and 95th
  percentile, per game (each picture is read twice: the first read of a board also draws its
  printed appearance, which later frames reuse; it is reported apart); also the CPU time per
  frame (``time.process_time``: less sensitive to other jobs on a shared machine) and the load
  average while it ran.

``--save FILE`` records every site's reading per scene (kind, colour, cubes, character, confidence
and hypothesis scores as ``repr``, notes) and the reconstructed state; ``--compare FILE`` reads the
same scenes and lists every scene whose readings differ from that saved run (speed work must leave
them identical; as ``benchmarks/ctrl_vision_regress.py`` does for CTRL).

By default the camera intrinsics come from each scene's truth (a user with a calibration file);
``--self-calibrate`` estimates them from the board's markers instead.  The robot pose error is
measured by the robot-tracking benchmark (its module is not part of this reader).  Last line: one
JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2
import numpy as np

from boardside.fixtures_render.camera import truth_calibration
from calibration.boards import BoardSpec
from calibration.camera import CameraCalibration, read_image
from engine.quirky import builtin_ids, builtin_scenario, parse_scenario
from vision.board_classify import CellReading
from vision.board_pipeline import read_board
from vision.board_reconstruct import ReconstructOptions
from vision.board_setupcheck import CHECK_CODE
from vision.locate import ImageRejectedError

GAMES = ("bandera", "quirky", "gridopolis")


def truth_camera(doc: dict[str, Any]) -> CameraCalibration:
    """The camera a rendered board scene was taken with (its truth file's intrinsics)."""
    return truth_calibration(doc["camera"], "scene truth")


def truth_labels(doc: dict[str, Any]) -> tuple[dict[tuple[int, ...], str], set[tuple[int, ...]]]:
    """Per-site label from a scene's truth, and the sites the truth marks hidden (a piece showing fewer
    than the renderer's 30 pixels)."""
    game = doc["board"]["game"]
    per: dict[tuple[int, ...], list[dict[str, Any]]] = {}
    for c in doc.get("cells", []):
        key = (int(c["x"]), int(c["y"]), int(c.get("level", 0))) if game == "gridopolis" else (int(c["x"]), int(c["y"]))
        per.setdefault(key, []).append(c)
    labels: dict[tuple[int, ...], str] = {}
    hidden: set[tuple[int, ...]] = set()
    for key, entries in per.items():
        labels[key] = label_of_entries(game, entries)
        if any(not e.get("visible", True) for e in entries):
            hidden.add(key)
    return labels, hidden


def truth_pixels(doc: dict[str, Any]) -> dict[tuple[int, ...], int]:
    """Per site, how many pixels its most visible piece shows in the picture (the truth's ``pixels``;
    0 where a truth file does not record them)."""
    game = doc["board"]["game"]
    out: dict[tuple[int, ...], int] = {}
    for c in doc.get("cells", []):
        key = (int(c["x"]), int(c["y"]), int(c.get("level", 0))) if game == "gridopolis" else (int(c["x"]), int(c["y"]))
        out[key] = max(out.get(key, 0), int(c.get("pixels", 0)))
    return out


#: size bands of a declined visible piece (its most visible piece's pixels; the truth calls a piece
#: visible from 30 pixels, and most declined ones show under 150): (name, lowest pixels)
DECLINE_BANDS: tuple[tuple[str, int], ...] = (("30-150px", 0), (">150px", 150))


def decline_band(pixels: int) -> str:
    """The size band (``DECLINE_BANDS``) a declined visible piece of ``pixels`` pixels falls in."""
    return [name for name, lo in DECLINE_BANDS if pixels >= lo][-1]


def label_of_entries(game: str, entries: list[dict[str, Any]]) -> str:
    kinds = {e["piece"]: e.get("colour") for e in entries}
    if game == "bandera":
        base = ""
        if "royal_tower" in kinds:
            base = f"royal:{kinds['royal_tower']}"
        elif "tower2" in kinds:
            base = "tower2"
        elif "cube" in kinds:
            base = "cube"
        if "flag" in kinds and not base.startswith("royal"):
            base = f"royal:{kinds['flag']}"
        if "character" in kinds:
            base += f"+char:{kinds['character']}"
        return base or "empty"
    if game == "gridopolis":
        for k in ("king", "pawn", "blocker"):
            if k in kinds:
                return f"{k}:{kinds[k]}"
        return "empty"
    return "+".join(sorted(e["piece"] for e in entries))


def reading_label(game: str, c: CellReading) -> str:
    if c.kind in ("empty", "occluded", "unseen"):
        return c.kind
    if game == "bandera":
        base = {1: "cube", 2: "tower2"}.get(c.cubes, "")
        if c.kind == "royal_tower":
            base = f"royal:{c.colour}"
        if c.character:
            base += f"+char:{c.character_colour}"
        return base
    if game == "gridopolis":
        return f"{c.kind}:{c.colour}"
    if c.kind == "robot":
        return "robot"  # the robot's cell: what lies under the robot is not read (a decline, session 15)
    return "+".join(sorted(QUIRKY_PIECES.get(k, f"token:{k}") for k in c.kind.split("+")))


#: Quirky scenario token kinds -> the fixtures' piece names (docs/boards.md, "Piece kinds")
QUIRKY_PIECES = {"dust": "dust_bunny", "vase": "vase", "seed": "seed", "fossil": "fossil", "flag": "quirky_flag"}


def readings_record(res: Any) -> dict[str, Any]:
    """Everything a speed change must leave as it was: every site's reading, floats as ``repr``
    (bit-exact), and the reconstructed state."""
    return {
        "cells": [[list(c.key), c.kind, c.colour, c.cubes, c.character, c.character_colour, repr(c.confidence),
                   {k: repr(v) for k, v in sorted(c.scores.items())}, list(c.notes)] for c in res.cells],
        "state": json.loads(json.dumps(res.reconstruction.doc, sort_keys=True, default=str)),
        "problems": sorted(f"{p.code}|{p.message}" for p in res.reconstruction.problems),
    }


def compare_records(base: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """Scenes (``game/scene``) whose record differs between two saved runs, with the first site that
    differs; scenes missing from either run are listed too."""
    out = []
    for k in sorted(set(base) | set(now)):
        a, b = base.get(k), now.get(k)
        if a == b:
            continue
        if a is None or b is None:
            out.append(f"{k}: only in the {'new' if a is None else 'saved'} run")
            continue
        what = [f for f in ("cells", "state", "problems") if a.get(f) != b.get(f)]
        first = next((f"{x[0]}: {x} -> {y}" for x, y in zip(a.get("cells", []), b.get("cells", []), strict=False)
                      if x != y), "")
        out.append(f"{k}: {what} {first}".rstrip())
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--fixtures", default=str(Path(__file__).resolve().parent.parent / "fixtures" / "boards"))
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--scenes", type=int, default=0, help="only the first N scenes per game (0 = all)")
    ap.add_argument("--self-calibrate", action="store_true")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--standard-pads", action="store_true",
                    help="Gridopolis: read the standard grid-set's pads only (no pad detection; for comparison)")
    ap.add_argument("--save", help="write every scene's site readings here (JSON)")
    ap.add_argument("--compare", help="compare every scene's site readings with this saved run")
    args = ap.parse_args()
    records: dict[str, Any] = {}
    root = Path(args.fixtures)
    out: dict[str, Any] = {"simulated": "rendered photographs", "intrinsics":
                           "self-estimated" if args.self_calibrate else "calibration (scene truth)",
                           "pads": "standard grid-set only" if args.standard_pads else "detected"}
    all_frames: list[float] = []
    all_cpu: list[float] = []
    tot_cells = tot_wrong = tot_scenes = tot_exact = 0
    per_game: dict[str, Any] = {}
    for game in [g for g in args.games.split(",") if g]:
        scenes = sorted((root / game).glob("scene_*.json"))
        if args.scenes:
            scenes = scenes[: args.scenes]
        if not scenes:
            continue
        frames: list[float] = []
        cpu: list[float] = []
        first: list[float] = []
        stages: dict[str, list[float]] = {}
        cells = wrong = exact = rejected = abstain = missed = under_robot = 0
        missed_by_size = {name: 0 for name, _ in DECLINE_BANDS}
        legal = legal_wrong = breaking = breaking_caught = legal_check = breaking_check = 0
        confusions: dict[str, int] = {}
        for sj in scenes:
            doc = json.loads(sj.read_text())
            img = read_image(sj.with_suffix(".jpg"))
            if img.shape[:2] != (720, 1280):
                img = np.asarray(cv2.resize(img, (1280, 720), interpolation=cv2.INTER_AREA), np.uint8)
            spec = BoardSpec.from_json(doc["board"])
            cam = None if args.self_calibrate else truth_camera(doc)
            labels, hidden = truth_labels(doc)
            pixels = truth_pixels(doc)
            finds = not args.standard_pads
            opt = ReconstructOptions()
            if game == "quirky":
                ref = doc.get("scenario") or spec.name.split(":", 1)[1]
                opt = ReconstructOptions(scenario=builtin_scenario(ref) if ref in builtin_ids() else
                                         parse_scenario((root / ref).read_text(encoding="utf-8"), ref))
            try:
                # the first picture of a board also draws the board's printed appearance (cached for
                # every later frame of that board): timed apart, frames are timed as in a session
                c0 = time.perf_counter()
                read_board([(sj.stem, img)], game, spec=spec, camera=cam, options=opt, find_pads=finds)
                first.append(time.perf_counter() - c0)
                c0 = time.process_time()
                res = read_board([(sj.stem, img)], game, spec=spec, camera=cam, options=opt, find_pads=finds)
                cpu.append(time.process_time() - c0)
            except ImageRejectedError as exc:
                rejected += 1
                records[f"{game}/{sj.stem}"] = {"rejected": str(exc)}
                n = spec.cols * spec.rows if game != "gridopolis" else len(labels)
                cells += n
                wrong += n
                tot_scenes += 1
                if args.verbose:
                    print(f"{game} {sj.stem}: rejected: {exc}", file=sys.stderr)
                continue
            records[f"{game}/{sj.stem}"] = readings_record(res)
            has_error = not res.reconstruction.trusted
            # a rule error resting on an unsure reading is a "check this cell" warning (session 12)
            to_check = not has_error and any(p.code == CHECK_CODE for p in res.reconstruction.problems)
            if doc.get("breaks_rules"):
                breaking += 1
                breaking_caught += has_error
                breaking_check += to_check
            else:
                legal += 1
                legal_wrong += has_error
                legal_check += to_check
            r = res.images[0]
            frames.append(r.timings["locate_s"] + r.timings["classify_s"])
            for k, v in r.timings.items():
                stages.setdefault(k, []).append(v)
            scene_wrong = 0
            for cr in res.cells:
                key = cr.key if game == "gridopolis" else cr.key[:2]
                want = labels.get(key, "empty")
                got = reading_label(game, cr)
                cells += 1
                if got in ("occluded", "unseen", "robot"):
                    # the reader declines to read this cell (and says so): not a wrong reading, but the
                    # board is only exact if nothing visible was declined.  The robot's own cell (Quirky) is
                    # counted apart: a token under the robot is hidden by its body (session 15)
                    if got == "robot":
                        under_robot += 1
                    else:
                        abstain += 1
                    if want != "empty" and key not in hidden:
                        scene_wrong += 1
                        missed += 1
                        missed_by_size[decline_band(pixels.get(key, 0))] += 1
                        if args.verbose:
                            print(f"{game} {sj.stem} {key}: truth {want}, declined ({got}; visible, "
                                  f"{pixels.get(key, 0)} px)", file=sys.stderr)
                    continue
                if got != want:
                    wrong += 1
                    scene_wrong += 1
                    confusions[f"{want} -> {got}"] = confusions.get(f"{want} -> {got}", 0) + 1
                    if args.verbose:
                        print(f"{game} {sj.stem} {key}: truth {want}, read {got} ({cr.confidence:.2f})",
                              file=sys.stderr)
            read_keys = {cr.key if game == "gridopolis" else cr.key[:2] for cr in res.cells}
            for key, want in labels.items():  # pieces where the reader has no site (pads added in play)
                if key not in read_keys:
                    cells += 1
                    wrong += 1
                    scene_wrong += 1
                    confusions[f"{want} -> (no site)"] = confusions.get(f"{want} -> (no site)", 0) + 1
                    if args.verbose:
                        print(f"{game} {sj.stem} {key}: truth {want}, no site (pad not found)", file=sys.stderr)
            exact += scene_wrong == 0
            tot_scenes += 1
        tot_cells += cells
        tot_wrong += wrong
        tot_exact += exact
        all_frames += frames
        all_cpu += cpu
        per_game[game] = {
            "scenes": len(scenes),
            "rejected": rejected,
            "cells": cells,
            "cell_errors": wrong,
            "cell_error_rate": round(wrong / max(cells, 1), 5),
            "abstained_cells": abstain,
            "abstained_on_visible_pieces": missed,
            "abstained_on_visible_pieces_by_size": missed_by_size,
            "robot_cells_declined": under_robot,
            "whole_board_exact": round(exact / len(scenes), 4),
            "legal_tables": legal,
            "legal_tables_called_wrong": legal_wrong,
            "breaking_tables": breaking,
            "breaking_tables_with_an_error": breaking_caught,
            "legal_tables_check_only": legal_check,
            "breaking_tables_check_only": breaking_check,
            "frame_ms_median": round(1000 * statistics.median(frames), 1) if frames else None,
            "frame_ms_p95": round(1000 * float(np.percentile(frames, 95)), 1) if frames else None,
            "frame_cpu_ms_median": round(1000 * statistics.median(cpu), 1) if cpu else None,
            "first_frame_of_a_board_ms_median": round(1000 * statistics.median(first), 1) if first else None,
            "stage_ms_median": {k: round(1000 * statistics.median(v), 2) for k, v in sorted(stages.items())},
            "confusions": dict(sorted(confusions.items(), key=lambda kv: -kv[1])[:8]),
        }
    out |= {
        "cell_error_rate": round(tot_wrong / max(tot_cells, 1), 5),
        "cell_error_target": 0.001,
        "whole_board_exact": round(tot_exact / max(tot_scenes, 1), 4),
        "whole_board_target": 0.98,
        "frame_ms_median": round(1000 * statistics.median(all_frames), 1) if all_frames else None,
        "frame_ms_p95": round(1000 * float(np.percentile(all_frames, 95)), 1) if all_frames else None,
        "frame_ms_target": 50.0,
        "frame_cpu_ms_median": round(1000 * statistics.median(all_cpu), 1) if all_cpu else None,
        "load_average_1min": round(os.getloadavg()[0], 2),
        "cores": os.cpu_count(),
        "scenes": tot_scenes,
        "cells": tot_cells,
        "robot_pose": "not measured here (robot-tracking module)",
        **{k: sum(int(g[k]) for g in per_game.values()) for k in
           ("legal_tables", "legal_tables_called_wrong", "breaking_tables", "breaking_tables_with_an_error",
            "legal_tables_check_only", "breaking_tables_check_only", "abstained_on_visible_pieces",
            "robot_cells_declined")},
        "abstained_on_visible_pieces_by_size": {name: sum(int(g["abstained_on_visible_pieces_by_size"][name])
                                                          for g in per_game.values()) for name, _ in DECLINE_BANDS},
        "per_game": per_game,
    }
    if args.save:
        Path(args.save).write_text(json.dumps(records, indent=0, sort_keys=True))
    if args.compare:
        diffs = compare_records(json.loads(Path(args.compare).read_text()), records)
        for d in diffs:
            print("DIFF", d, file=sys.stderr)
        out["compared_with"] = args.compare
        out["scenes_different"] = len(diffs)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
