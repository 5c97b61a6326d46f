"""How the next reading's pictures check a flag recorded provisionally (``vision.flag_recheck``), on followed games.

For every reading of a followed game photographed after every turn (rendered, SIMULATED photographs;
``benchmarks/ctrl_follow.py`` plays whole games), the pictures are read against the TRUE previous position
and the flags of colours that did not play (which by the rules cannot have moved: CTRL rulebook "Game
Turn" step 3) are checked again as a provisional flag would be:

* at their true spot: how often the pictures settle a right flag (fewer questions);
* moved in the previous position to another legal spot that would change a side (a wrong provisional
  flag, as a misread would leave it; ``--wrong`` per reading, the rivals nearest the true spot first):
  the pictures are read again against that position and the check must never settle it.

Reported per verdict and deciding check.  Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from boardside.fixtures_render.camera import truth_calibration
from calibration.camera import read_image
from calibration.mat import MatSpec
from engine.ctrl import FlagSpot, GameRecord, State
from vision.flag_recheck import recheck_flags
from vision.history import spots_for_flag
from vision.locate import ImageRejectedError
from vision.pipeline import FlagSideCheck, score_images

VIEWS = ("px", "mx", "py", "my", "top")


def _rivals(state: State, color: str) -> list[FlagSpot]:
    """Legal spots of ``color``'s flag other than where it stands that would change a side, nearest first."""
    true = state.flags[color]
    check = FlagSideCheck(state.blocks, state.flags, state.colors)
    spots = [s for s in spots_for_flag(state, color) if s != true and check.changed_sides(color, s)]
    return sorted(spots, key=lambda s: (sum(abs(a - b) for a, b in zip(s.cell, true.cell, strict=True)), str(s)))


def check_game(game_dir: Path, wrong: int, rng: random.Random) -> list[dict[str, Any]]:
    doc = json.loads((game_dir / "game.json").read_text())
    if str(doc["every"]) != "1":
        return []  # a round between pictures: every flag may have moved
    states = list(GameRecord.from_json(doc["record"]).states())
    shots = [int(n) for n in doc["shots"]]
    out: list[dict[str, Any]] = []
    for k in range(1, len(shots)):
        scene = game_dir / f"scene_{k:03d}"
        if not all((scene / f"{v}.jpg").exists() for v in VIEWS):
            break
        before, after = states[shots[k - 1]], states[shots[k]]
        mover = before.to_move
        colors = [c for c in before.colors
                  if c != mover and c in before.flags and before.flags[c] == after.flags.get(c)]
        if not colors:
            continue
        spec = MatSpec.from_json(json.loads((scene / "scene.json").read_text())["mat"])
        cam = truth_calibration(json.loads((scene / "px.json").read_text())["camera"])
        pics = [(f"{scene.name}/{v}.jpg", read_image(scene / f"{v}.jpg")) for v in VIEWS]
        turns = shots[k] - shots[k - 1]
        try:
            res = score_images(pics, spec, cam, before, turns_played=turns)
        except ImageRejectedError:
            continue
        for c, ch in recheck_flags(res, pics, colors, before).items():
            out.append({"game": game_dir.name, "scene": scene.name, "color": c, "flag": "right",
                        "trusted": res.trusted, "verdict": ch.verdict, "check": ch.check})
        for c in rng.sample(colors, min(len(colors), 1)) if wrong else []:
            for spot in _rivals(before, c)[:wrong]:
                moved = replace(before, flags={**before.flags, c: spot})
                try:
                    res_w = score_images(pics, spec, cam, moved, turns_played=turns)
                except ImageRejectedError:
                    continue
                ch = recheck_flags(res_w, pics, [c], moved)[c]
                out.append({"game": game_dir.name, "scene": scene.name, "color": c, "flag": "wrong",
                            "trusted": res_w.trusted, "verdict": ch.verdict, "check": ch.check,
                            "true": str(before.flags[c]), "recorded": str(spot)})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", required=True, help="directory of followed games")
    ap.add_argument("--wrong", type=int, default=1, help="wrong spots tried per reading (0: none)")
    ap.add_argument("--only", default="", help="comma-separated game names (default: all)")
    args = ap.parse_args()
    rng = random.Random(10)
    games = sorted(d for d in Path(args.games).iterdir() if (d / "game.json").exists())
    if args.only:
        games = [g for g in games if g.name in args.only.split(",")]
    rows: list[dict[str, Any]] = []
    for g in games:
        for r in check_game(g, args.wrong, rng):
            rows.append(r)
            print(json.dumps(r), flush=True)
    table = collections.Counter(f"{r['flag']} {r['verdict']} {r['check']}".strip() for r in rows)
    right = [r for r in rows if r["flag"] == "right"]
    wrong_rows = [r for r in rows if r["flag"] == "wrong"]
    print(json.dumps({
        "simulated": "rendered photographs", "games": len(games),
        "right_flags": len(right), "right_settled": sum(r["verdict"] == "settled" for r in right),
        "wrong_flags": len(wrong_rows), "wrong_settled": sum(r["verdict"] == "settled" for r in wrong_rows),
        "wrong_contradicted": sum(r["verdict"] == "contradicted" for r in wrong_rows),
        "by_verdict_and_check": dict(sorted(table.items())),
    }))


if __name__ == "__main__":
    main()
