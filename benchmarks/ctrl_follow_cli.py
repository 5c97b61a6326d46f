"""One followed game through the real ``boardside ctrl follow`` commands (a check of benchmarks/ctrl_follow.py).

``benchmarks/ctrl_follow.py`` plays the player with the library's functions; this drives the CLI itself on one
rendered (SIMULATED) followed game: ``follow start --state`` from the set-up written down, then ``follow turn
--json`` on each position's pictures; when a reading is not recorded, the flags it asks about are answered
with ``--flag`` (the truth's spots: a provisional flag's where it stood, the others' where they stand now) and
the reading is run again; a reading still not recorded is typed (``follow confirm`` for any provisional flag,
then ``follow play`` with the truth's turns).  Prints one line per reading and, last, one JSON object: the
questions answered (flags said + 1 per typed reading), the positions the final record holds wrongly (every
reading's, after the corrections) and whether the final score sheet is right.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from boardside.cli import main as cli
from boardside.ctrl_follow import FollowedGame
from boardside.fixtures_render.camera import truth_calibration
from engine.ctrl import GameRecord, State

VIEWS = ("px", "mx", "py", "my", "top")


def _run(args: list[str]) -> tuple[int, dict[str, Any]]:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = cli(args)
    try:
        return code, json.loads(buf.getvalue())
    except json.JSONDecodeError:
        return code, {}


def _said(state: State, color: str) -> str:
    f = state.flags.get(color)
    return f"{color}={f.cell[0]},{f.cell[1]},{f.cell[2]} {f.points}" if f else f"{color}=none"


def follow(game_dir: Path, work: Path) -> dict[str, Any]:
    doc = json.loads((game_dir / "game.json").read_text())
    record = GameRecord.from_json(doc["record"])
    states, shots = list(record.states()), [int(n) for n in doc["shots"]]
    work.mkdir(parents=True, exist_ok=True)
    cam, game, setup = work / "cam.json", work / "game.json", work / "setup.json"
    truth_calibration(json.loads((game_dir / "scene_000" / "px.json").read_text())["camera"]).save(cam)
    game.unlink(missing_ok=True)
    setup.write_text(json.dumps(states[0].to_json()))
    every = "turn" if str(doc["every"]) == "1" else "round"
    assert _run(["ctrl", "follow", "start", str(game), "--state", str(setup), "-c", str(cam), "--every", every])[0] == 0
    questions = typed = 0
    for k in range(1, len(shots)):
        before, truth = states[shots[k - 1]], states[shots[k]]
        pics = [str(game_dir / f"scene_{k:03d}" / f"{v}.jpg") for v in VIEWS]
        answers: list[str] = []
        out: dict[str, Any] = {}
        while True:
            _code, out = _run(["ctrl", "follow", "turn", str(game), *pics, "--json",
                               *[a for x in answers for a in ("--flag", x)]])
            if out.get("recorded"):
                break
            asked = [_said(before, c) for c in out.get("provisional_unsettled", [])] + [
                _said(truth, c) for c in (out.get("unsettled_flags") or out.get("flags_unconfirmed") or [])]
            new = [a for a in asked if a not in answers]
            if not new:
                break
            answers += new
        questions += len(answers)
        if not out.get("recorded"):
            pending = FollowedGame.load(game).provisional
            if pending:
                said = [a for c in pending for a in ("--flag", _said(before, c))]
                _run(["ctrl", "follow", "confirm", str(game), *said])
                questions += len(pending)
            turns = [str(t) for t in record.turns[shots[k - 1]:shots[k]]]
            assert _run(["ctrl", "follow", "play", str(game), *turns])[0] == 0
            typed += 1
            questions += 1
        followed = FollowedGame.load(game)
        print(json.dumps({"game": game_dir.name, "scene": k, "flags_said": answers, "typed": not out.get("recorded"),
                          "provisional": sorted(followed.provisional)}), flush=True)
    followed = FollowedGame.load(game)
    recorded = list(followed.record.states())
    wrong = [f"scene_{i:03d}" for i, n in enumerate(shots) if recorded[n].blocks != states[n].blocks
             or dict(recorded[n].flags) != dict(states[n].flags)]
    return {"game": game_dir.name, "readings": len(shots) - 1, "questions": questions, "typed": typed,
            "positions_recorded_wrong": wrong, "provisional_left": sorted(followed.provisional),
            "final_sheet_right": followed.state.is_terminal()
            and followed.state.side_scores() == states[-1].side_scores()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("game", help="a followed game's directory (game.json, scene_NNN/)")
    ap.add_argument("work", help="a directory for the followed game's files")
    args = ap.parse_args()
    print(json.dumps(follow(Path(args.game), Path(args.work))))


if __name__ == "__main__":
    main()
