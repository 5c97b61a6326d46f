"""Wrong sides split by cause -- flags or blocks -- over saved ``ctrl_vision_regress.py`` runs (issue 5;
docs/vision.md, "Session 17: flags on the wrong face").

    python benchmarks/ctrl_vision_regress.py --fixtures DIR [--previous] [--views all] --save run.json
    python benchmarks/ctrl_flag_split.py --run DIR run.json [--run DIR2 run2.json ...] [--list]

For every reading, each side whose score row differs from the truth's is put in one class by reading it again
with half the truth swapped in:

* ``flag``: the side is wrong with the TRUE blocks and the flags read, and right with the blocks read and the
  true flags (the flags alone make it wrong);
* ``block``: the other way round (the blocks alone make it wrong);
* ``both``: wrong either way;
* ``joint``: right either way (only the blocks and flags read together make it wrong).

Each wrong flag (a colour whose flag differs from the truth's) gets one kind: ``face`` (the right cell, the pole
another way: another face of another block), ``cell`` (another cell), ``missed`` (the truth has a flag, the
reading none) or ``extra`` (the reading has a flag the truth has not); with the sides it alone changes (the truth
with just that flag swapped), whether the renderer shows it (``hidden``: under
``ctrl_history_failures.HIDDEN_FLAG_PIXELS`` pixels in all the pictures read together), whether the reading's
problems name it, whether it is silent (a side it changes is wrong and not reported uncertain) and whether the blocks
around it are right (the blocks the true and the read spot are plugged into as in the truth, the true cell free).
``--poles`` (with ``--list``) adds, for each wrong flag of the face or cell kind that changes a side, the
pictures showing a pole (``vision.flag_margin.POLE_TEST``) at the spot read and at the true spot, judged with the
truth's cameras and blocks.  With ``--previous`` runs the set-ups (no earlier state; read free) are left out, as in
``ctrl_history_failures.py``.  Last line: one JSON object (per run and in all).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.ctrl_history_failures import HIDDEN_FLAG_PIXELS, rendered_pixels
from benchmarks.ctrl_scenes import load_scene
from engine.ctrl import State
from engine.ctrl.geometry import Cell
from engine.ctrl.moves import FlagSpot
from engine.ctrl.record import turns_back_chain

SIDE_CLASSES = ("flag", "block", "both", "joint")
FLAG_KINDS = ("face", "cell", "missed", "extra")


def _cell(text: str) -> Cell:
    x, y, z = (int(v) for v in text.split(","))
    return (x, y, z)


def read_state(rec: Mapping[str, Any], truth: State) -> State:
    """The state a saved reading (``ctrl_vision_regress`` record) ended with, on the truth's colours."""
    blocks = {_cell(k): v for k, v in rec["state_blocks"].items()}
    flags = {k: FlagSpot.parse(v) for k, v in rec["state_flags"].items()}
    return replace(truth, blocks=blocks, flags=flags)


def _wrong(state: State, truth: State) -> set[str]:
    got, want = state.side_scores(), truth.side_scores()
    return {side for side in want if got.get(side) != want[side]}


def side_classes(read: State, truth: State) -> dict[str, str]:
    """Each wrong side of ``read`` and its class (``SIDE_CLASSES``)."""
    wrong = _wrong(read, truth)
    by_flags = _wrong(replace(truth, flags=dict(read.flags)), truth)
    by_blocks = _wrong(replace(truth, blocks=dict(read.blocks)), truth)
    out: dict[str, str] = {}
    for side in wrong:
        f, b = side in by_flags, side in by_blocks
        out[side] = "both" if f and b else "flag" if f else "block" if b else "joint"
    return out


@dataclass
class WrongFlag:
    colour: str
    kind: str  # FLAG_KINDS
    read: str | None
    truth: str | None
    sides: list[str]  # the sides this flag alone changes (the truth with only it swapped)
    hidden: bool
    named: bool  # a problem of the reading names the flag (``<colour> flag``)
    blocks_right: bool  # the blocks the true and the read flag are plugged into are as in the truth, its cell free
    silent: bool  # a side it changes is wrong and not reported uncertain
    poles: dict[str, list[str]] = field(default_factory=dict)  # with --poles: "read"/"truth" -> pictures showing a pole


@dataclass
class Reading:
    scene: str
    trusted: bool
    wrong_sides: dict[str, str] = field(default_factory=dict)  # side -> class
    silent: list[str] = field(default_factory=list)
    flags: list[WrongFlag] = field(default_factory=list)


def wrong_flags(read: State, truth: State, problems: list[str], flag_px: Mapping[str, int],
                silent: list[str]) -> list[WrongFlag]:
    """The reading's wrong flags, one :class:`WrongFlag` each (``silent``: the reading's wrong sides not reported
    uncertain)."""
    named = {p.split("|")[1].removesuffix(" flag") for p in problems if p.split("|")[1].endswith(" flag")}
    out: list[WrongFlag] = []
    for colour in truth.colors:
        r, t = read.flags.get(colour), truth.flags.get(colour)
        if r == t:
            continue
        if r is None:
            kind = "missed"
        elif t is None:
            kind = "extra"
        else:
            kind = "face" if r.cell == t.cell else "cell"
        swapped = dict(truth.flags)
        if r is None:
            swapped.pop(colour, None)
        else:
            swapped[colour] = r
        sides = sorted(_wrong(replace(truth, flags=swapped), truth))
        around = [sp.block for sp in (r, t) if sp is not None]
        blocks_right = all(read.blocks.get(c) == truth.blocks.get(c) for c in around) and (
            t is None or t.cell not in read.blocks)
        out.append(WrongFlag(colour, kind, None if r is None else str(r), None if t is None else str(t), sides,
                             flag_px.get(colour, 0) < HIDDEN_FLAG_PIXELS, colour in named, blocks_right,
                             any(side in silent for side in sides)))
    return out


def pole_pictures(scene_dir: Path, views: list[str], flags: list[WrongFlag], truth: State) -> None:
    """Fill each wrong flag's ``poles``: the pictures showing a pole (``vision.flag_margin.POLE_TEST``, the truth's
    blocks hiding what they hide, the truth's cameras) at the spot read and at the true spot."""
    import cv2
    import numpy as np

    from benchmarks.ctrl_flag_faces import truth_cameras
    from calibration.camera import read_image
    from vision.flag_margin import POLE_TEST
    from vision.poles import pole_evidence

    todo = [f for f in flags if f.read is not None or f.truth is not None]
    if not todo:
        return
    spec = load_scene(scene_dir, with_camera=False, views=()).spec
    names, cams = truth_cameras(scene_dir, tuple(views), spec.block_mm,
                                (spec.paper_world_rect(), spec.clear_world_rect()))
    greys = [cv2.cvtColor(read_image(scene_dir / f"{v}.jpg"), cv2.COLOR_BGR2GRAY).astype(np.float32) for v in names]
    for f in todo:
        for key, text in (("read", f.read), ("truth", f.truth)):
            if text is not None:
                ev = pole_evidence(greys, cams, FlagSpot.parse(text), cfg=POLE_TEST, occupied=set(truth.blocks))
                f.poles[key] = [names[k] for k in ev.views_seen]


def split_run(run: Mapping[str, Any], root: Path, poles: bool = False) -> list[Reading]:
    """Every reading of a saved run, its wrong sides classed and its wrong flags listed (``poles``: with the
    pictures showing a pole at the spots read and true, :func:`pole_pictures`)."""
    views: list[str] = list(run.get("views", []))
    back_arg = str(run.get("turns_back", "1"))
    out: list[Reading] = []
    for name, rec in sorted(run["scenes"].items()):
        if "error" in rec:
            continue
        truth = load_scene(root / name, with_camera=False, views=()).truth
        if run.get("previous"):
            back = len(truth.colors) if back_arg == "round" else int(back_arg)
            if len(turns_back_chain(truth, back)) == 1:
                continue  # a set-up: read without history
        read = read_state(rec, truth)
        flag_px, _ = rendered_pixels(root / name, views)
        fig = rec["figures"]
        flags = wrong_flags(read, truth, rec["problems"], flag_px, list(fig["silent_sides"]))
        if poles:
            pole_pictures(root / name, views, [f for f in flags if f.sides and f.kind in ("face", "cell")], truth)
        out.append(Reading(name, bool(fig["trusted"]), side_classes(read, truth), list(fig["silent_sides"]), flags))
    return out


def summarise(readings: list[Reading]) -> dict[str, Any]:
    """Counts: readings, wrong sides by class, readings by cause, wrong flags by kind (and the visible ones with the
    blocks right, the ones the brief's part 2 looks at)."""
    sides = Counter(cls for r in readings for cls in r.wrong_sides.values())
    silent = Counter(r.wrong_sides[s] for r in readings for s in r.silent if s in r.wrong_sides)
    by_reading: Counter[str] = Counter()
    for r in readings:
        kinds = set(r.wrong_sides.values())
        if not kinds:
            by_reading["no wrong side"] += 1
        elif kinds <= {"flag"}:
            by_reading["flags only"] += 1
        elif kinds <= {"block"}:
            by_reading["blocks only"] += 1
        else:
            by_reading["mixed"] += 1
    flags = [f for r in readings for f in r.flags]
    return {
        "readings": len(readings),
        "wrong_sides": sum(sides.values()),
        "sides_by_class": {k: sides.get(k, 0) for k in SIDE_CLASSES},
        "silent_by_class": {k: silent.get(k, 0) for k in SIDE_CLASSES},
        "readings_by_cause": dict(sorted(by_reading.items())),
        "wrong_flags": {k: sum(f.kind == k for f in flags) for k in FLAG_KINDS},
        "wrong_flags_changing_a_side": {k: sum(f.kind == k and bool(f.sides) for f in flags) for k in FLAG_KINDS},
        "visible_blocks_right_changing_a_side": {
            k: sum(f.kind == k and bool(f.sides) and not f.hidden and f.blocks_right for f in flags)
            for k in FLAG_KINDS},
        "unnamed_changing_a_side": sum(bool(f.sides) and not f.named for f in flags),
        "silent": sum(f.silent for f in flags),
        "in_trusted_readings_changing_a_side": sum(bool(f.sides) for r in readings if r.trusted for f in r.flags),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", nargs=2, action="append", metavar=("DIR", "RUN"), required=True,
                    help="a scene folder (e.g. /tmp/held16/ctrl) and a saved ctrl_vision_regress.py run of it")
    ap.add_argument("--list", action="store_true", help="print every wrong flag that changes a side")
    ap.add_argument("--poles", action="store_true", help="with --list: the pictures showing a pole at the spot read "
                    "and at the true spot (wrong face or cell; the truth's cameras and blocks)")
    args = ap.parse_args()
    per_run: dict[str, Any] = {}
    every: list[Reading] = []
    for root, path in args.run:
        run = json.loads(Path(path).read_text())
        readings = split_run(run, Path(root), args.poles and args.list)
        every += readings
        per_run[path] = summarise(readings)
        print(f"{path}: {json.dumps(per_run[path]['sides_by_class'])} flags {json.dumps(per_run[path]['wrong_flags'])}")
        if args.list:
            for r in readings:
                for f in r.flags:
                    if f.sides:
                        print(f"  {Path(root).parent.name}/{r.scene} {f.colour} {f.kind}: read {f.read} truth "
                              f"{f.truth} sides {f.sides}{' hidden' if f.hidden else ''}"
                              f"{'' if f.blocks_right else ' blocks-wrong'}{' named' if f.named else ''}"
                              f"{' SILENT' if f.silent else ''}"
                              f"{f' poles {f.poles}' if f.poles else ''}"
                              f"{' TRUSTED' if r.trusted else ''}")
    print(json.dumps({"runs": per_run, "all": summarise(every)}))


if __name__ == "__main__":
    main()
