"""``ctrl score-images --previous STATE --turns N``: the reading looks for exactly N turns since STATE (as
``ctrl follow`` does when the players say how often they photograph).  Without it any number is looked for,
and on a fresh SIMULATED render (session 12) colour bled onto the mat under an overhang was read as an
extra yellow turn, trusted; with the count given the same pictures read exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.ctrl_scenes import load_scene
from boardside.cli import main
from engine.ctrl.record import turns_back

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"


def _pics(name: str) -> list[str]:
    return [str(FIXTURES / name / f"{v}.jpg") for v in ("px", "mx", "py", "my", "top")]


def test_turns_needs_previous(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ctrl", "score-images", *_pics("scene_003"), "--turns", "1"]) == 2
    assert "--turns 1 needs --previous" in capsys.readouterr().err


def test_the_reading_looks_for_the_turns_given(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    truth = load_scene(FIXTURES / "scene_003").truth
    (tmp_path / "prev.json").write_text(json.dumps(turns_back(truth, 2).to_json()))
    for n in (1, 2):
        main(["ctrl", "score-images", *_pics("scene_003"), "--previous", str(tmp_path / "prev.json"),
              "--turns", str(n), "--json"])
        doc = json.loads(capsys.readouterr().out)
        assert len(doc["turns"]) == n
        if n == 1:  # one turn cannot explain two turns' blocks: not a legal continuation, not trusted
            assert not doc["trusted"]
        else:
            assert {(b["cell"][0], b["cell"][1], b["cell"][2]) for b in doc["confidence"]} == set(truth.blocks)
