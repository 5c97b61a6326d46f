"""A whole CTRL game followed with ``boardside ctrl follow``, from the set-up pictures to the final
score sheet, on the bundled followed game ``fixtures/ctrl_followed/game_000`` (SIMULATED: a random
legal 4-player game rendered at the set-up and after every round, same pieces, light and camera;
``boardside fixtures render-followed``).

The test plays the player: it runs ``follow start`` on the set-up pictures, then ``follow turn`` on each
later position's pictures; when a reading is not recorded only because the camera could not settle
where some flags stand, or a trusted reading waits for the player to confirm a flag it could not make
out for sure, it answers with the truth's spots (``--flag``), as a player looking at the table would;
any other unrecorded reading fails the test (it would need the player to type turns)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from boardside.cli import main
from boardside.ctrl_follow import FollowedGame
from boardside.fixtures_render.camera import truth_calibration
from engine.ctrl import GameRecord

GAME = Path(__file__).resolve().parents[1] / "fixtures" / "ctrl_followed" / "game_000"
VIEWS = ("px", "mx", "py", "my", "top")


def test_the_bundled_game_is_followed_to_its_score_sheet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    truth_doc = json.loads((GAME / "game.json").read_text())
    states = list(GameRecord.from_json(truth_doc["record"]).states())
    shots = truth_doc["shots"]
    cam = tmp_path / "cam.json"
    truth_calibration(json.loads((GAME / "scene_000" / "px.json").read_text())["camera"]).save(cam)
    game = tmp_path / "game.json"

    def pics(k: int) -> list[str]:
        return [str(GAME / f"scene_{k:03d}" / f"{v}.jpg") for v in VIEWS]

    assert main(["ctrl", "follow", "start", str(game), *pics(0), "-c", str(cam), "--every", "round"]) == 0
    assert FollowedGame.load(game).state.to_json() == states[0].to_json()
    how = []
    for k in range(1, len(shots)):
        capsys.readouterr()
        code = main(["ctrl", "follow", "turn", str(game), *pics(k), "--json"])
        doc = json.loads(capsys.readouterr().out)
        if not doc["recorded"]:
            # flags the camera could not settle (not trusted), or a trusted reading's flags to confirm
            said = doc["unsettled_flags"] or doc["flags_unconfirmed"]
            assert said, f"scene_{k:03d}: not recorded for {doc['problems']}"
            truth = states[shots[k]]
            answers = [f"{c}={f.cell[0]},{f.cell[1]},{f.cell[2]} {f.points}" if (f := truth.flags.get(c))
                       else f"{c}=none" for c in said]
            code = main(["ctrl", "follow", "turn", str(game), *pics(k), "--json",
                         *[a for answer in answers for a in ("--flag", answer)]])
            assert json.loads(capsys.readouterr().out)["recorded"]
        assert code == 0
        followed = FollowedGame.load(game)
        # every reading recorded gives the position photographed, turn by turn
        assert followed.record.turns == GameRecord.from_json(truth_doc["record"]).turns[:shots[k]]
        how.append(followed.readings[-1].accepted)
    final = FollowedGame.load(game).state
    assert final.is_terminal() and final.side_scores() == states[-1].side_scores()
    assert "trusted" in how  # (on this game, session 9: 1 trusted, 3 trusted once flags were confirmed, 3 settled)
    assert main(["ctrl", "replay", str(game)]) == 0
