"""Why readings with history fail: every reading of a saved ``ctrl_vision_regress.py --previous`` run that is not
both exact and trusted, put in one cause class (issue 5; docs/vision.md, "Session 16: one turn back").

    python benchmarks/ctrl_vision_regress.py --fixtures DIR --previous [--turns-back round] --save run.json
    python benchmarks/ctrl_history_failures.py --fixtures DIR run.json [run2.json ...]

The classes (one per reading, the first that applies):

* ``rejected``: a picture was rejected and the scene not read;
* ``trust-withheld:<codes>``: the state is exact but an error (``<codes>``: the error problems' codes) keeps it
  from being trusted;
* ``turn-count:hidden-turn`` / ``turn-count:extra-turn`` / ``turn-count:missing-turn``: the blocks are wrong and
  the reading played another number of turns than were played -- fewer because the true turn's blocks are hidden
  from every picture read (the renderer shows under ``HIDDEN_BLOCK_PIXELS`` pixels of each), more, or fewer
  although they show;
* ``block-hidden``: as many turns, but the true blocks the reading misses are hidden from every picture read;
* ``wrong-move``: as many turns, other legal blocks chosen although the true ones show;
* ``flag:<kinds>``: the blocks are right and some flag is wrong; per wrong flag ``hidden`` (the renderer shows
  under ``HIDDEN_FLAG_PIXELS`` pixels of that flag in all the pictures read together), ``not-found`` (shown, but
  the reading has no flag of that colour), ``same-cell`` (the same cell, the pole another way) or ``other-spot``.

"Hidden" is the renderer's count (each view's ``visibility`` record: ``flag_pixels``, ``block_faces``), so it
exists only for rendered scenes.  The set-ups (no earlier state) are left out, as the regress run reads them
free.  Last line: one JSON object (counts per class and per wrong flag's kind, per run).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.ctrl_scenes import load_scene
from engine.ctrl import State
from engine.ctrl.geometry import Cell
from engine.ctrl.record import turns_back_chain

#: a block whose faces the renderer shows in fewer pixels than this (all pictures read) counts as hidden
HIDDEN_BLOCK_PIXELS = 100
#: a flag the renderer shows in fewer pixels than this (all pictures read together) counts as hidden
HIDDEN_FLAG_PIXELS = 200


def _cell(text: str) -> Cell:
    x, y, z = (int(v) for v in text.split(","))
    return (x, y, z)


def rendered_pixels(scene_dir: Path, views: Sequence[str]) -> tuple[dict[str, int], dict[Cell, int]]:
    """Per colour the flag's pixels, per cell the block's visible face pixels, summed over ``views`` (the
    renderer's ``visibility`` record in each view's JSON; views without one are skipped)."""
    flags: dict[str, int] = {}
    blocks: dict[Cell, int] = {}
    for view in views:
        path = scene_dir / f"{view}.json"
        if not path.exists():
            continue
        vis = json.loads(path.read_text()).get("visibility")
        if not vis:
            continue
        for colour, n in vis.get("flag_pixels", {}).items():
            flags[colour] = flags.get(colour, 0) + int(n)
        for x, y, z, _face, n in vis.get("block_faces", []):
            blocks[(int(x), int(y), int(z))] = blocks.get((int(x), int(y), int(z)), 0) + int(n)
    return flags, blocks


def classify_reading(rec: Mapping[str, Any], truth: State, previous: State, turns_played: int,
                     flag_pixels: Mapping[str, int], block_pixels: Mapping[Cell, int]) -> tuple[str, list[str], str]:
    """One reading's class, the kinds of its wrong flags (one per wrong flag) and a line of detail."""
    if "error" in rec:
        return "rejected", [], str(rec["error"])[:80]
    fig = rec["figures"]
    errors = sorted({p.split("|")[0] for p in rec["problems"] if p.endswith("|error")})
    if fig["state_exact"]:
        return ("ok", [], "") if fig["trusted"] else ("trust-withheld:" + ",".join(errors), [], "")
    read_blocks = {_cell(k): v for k, v in rec["state_blocks"].items()}
    n_read = len(rec["turns"])
    detail = f"turns {n_read}/{turns_played}; wrong sides {fig['wrong_sides']} silent {fig['silent_sides']}; " \
             f"errors {errors}"
    if read_blocks != dict(truth.blocks):
        added = {c: v for c, v in truth.blocks.items() if c not in previous.blocks}
        missing = [c for c, v in added.items() if read_blocks.get(c) != v]
        extra = [c for c, v in read_blocks.items() if c not in previous.blocks and truth.blocks.get(c) != v]
        hidden = [c for c in missing if block_pixels.get(c, 0) < HIDDEN_BLOCK_PIXELS]
        detail += f"; missing {missing} (hidden {hidden}), extra {extra}"
        if n_read != turns_played:
            if n_read > turns_played:
                return "turn-count:extra-turn", [], detail
            return ("turn-count:hidden-turn" if missing and len(hidden) == len(missing)
                    else "turn-count:missing-turn"), [], detail
        if missing and len(hidden) == len(missing):
            return "block-hidden", [], detail
        return "wrong-move", [], detail
    read_flags: Mapping[str, str] = rec["state_flags"]
    kinds: list[str] = []
    for colour in fig["flags_wrong"]:
        true_spot = truth.flags.get(colour)
        read = read_flags.get(colour)
        if flag_pixels.get(colour, 0) < HIDDEN_FLAG_PIXELS:
            kinds.append("hidden")
        elif read is None:
            kinds.append("not-found")
        elif true_spot is not None and read.split(" ")[1] == str(true_spot).split(" ")[1]:
            kinds.append("same-cell")
        else:
            kinds.append("other-spot")
        detail += f"; {colour} read {read} truth {true_spot} ({flag_pixels.get(colour, 0)} px)"
    return "flag:" + ",".join(sorted(set(kinds))), kinds, detail


def classify_run(run: Mapping[str, Any], root: Path) -> list[tuple[str, str, list[str], str]]:
    """(scene, class, wrong flags' kinds, detail) for every reading with history of a saved run."""
    back_arg = str(run.get("turns_back", "1"))
    views: list[str] = list(run.get("views", []))
    out: list[tuple[str, str, list[str], str]] = []
    for name, rec in sorted(run["scenes"].items()):
        truth = load_scene(root / name, with_camera=False, views=()).truth
        back = len(truth.colors) if back_arg == "round" else int(back_arg)
        chain = turns_back_chain(truth, back)
        if len(chain) == 1:
            continue  # a set-up: read without history
        flag_px, block_px = rendered_pixels(root / name, views)
        cls, kinds, detail = classify_reading(rec, truth, chain[-1], len(chain) - 1, flag_px, block_px)
        out.append((name, cls, kinds, detail))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", help="saved ctrl_vision_regress.py --previous runs (JSON)")
    ap.add_argument("--fixtures", required=True, help="the scenes the runs read")
    args = ap.parse_args()
    summary: dict[str, Any] = {}
    for path in args.runs:
        run = json.loads(Path(path).read_text())
        if not run.get("previous"):
            raise SystemExit(f"{path!r} is not a run with --previous")
        rows = classify_run(run, Path(args.fixtures))
        classes = Counter(cls.split(":")[0] if cls.startswith("flag:") else cls for _, cls, _, _ in rows)
        flag_kinds = Counter(k for _, _, kinds, _ in rows for k in kinds)
        print(f"== {path}: {len(rows)} readings with history")
        for name, cls, _, detail in rows:
            if cls != "ok":
                print(f"  {name}: {cls} | {detail}")
        summary[path] = {"readings": len(rows), "classes": dict(sorted(classes.items())),
                         "wrong_flags": dict(sorted(flag_kinds.items())),
                         "trusted_not_exact": sum(1 for name, cls, _, _ in rows if cls != "rejected"
                                                  and not run["scenes"][name]["figures"]["state_exact"]
                                                  and run["scenes"][name]["figures"]["trusted"])}
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
