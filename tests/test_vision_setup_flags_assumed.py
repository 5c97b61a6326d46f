"""Flags of a set-up position (vision.free_rules, issue 5 free reading).

In a set-up position (every colour exactly its start block) no turn has been played, so every flag
stands on its start block pointing up (CTRL rulebook "Setup" 4).  A flag the pictures did not make
out is assumed there and reported (``flag-assumed``); before, it was left out, and the set-up's
tie-break (every total ties, the highest flag wins) dropped its colour.  Checked on the rendered
(SIMULATED) fixture scene_015, whose pink banner is not made out and whose pole shows in one
picture only.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

import vision.pipeline as pipeline_mod
from benchmarks.ctrl_scenes import load_scene
from engine.ctrl import new_state
from engine.ctrl.moves import FlagSpot
from vision.free_rules import assume_setup_flags, is_setup_position
from vision.pipeline import score_images

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"


def test_a_setup_flag_not_made_out_is_assumed_on_its_start_block() -> None:
    scene = load_scene(FIXTURES / "scene_015", with_camera=True)
    res = score_images(scene.pics, scene.spec, scene.camera, None)
    assert res.state.flags.get("pink") == FlagSpot.parse("flag 3,1,1 +z") == scene.truth.flags["pink"]
    assert [p.where for p in res.problems if p.code == "flag-assumed"] == ["pink flag"]
    assert res.state.blocks == scene.truth.blocks and res.state.flags == scene.truth.flags
    assert res.state.winners() == scene.truth.winners()


def test_without_the_rule_the_flag_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mechanism turned off: the same scene loses the pink flag and its winner."""
    monkeypatch.setattr(pipeline_mod, "assume_setup_flags", lambda state: (state, []))
    scene = load_scene(FIXTURES / "scene_015", with_camera=True)
    res = score_images(scene.pics, scene.spec, scene.camera, None)
    assert "pink" not in res.state.flags
    assert res.state.winners() != scene.truth.winners()


def test_only_a_setup_position_gets_assumed_flags() -> None:
    setup = new_state(2)
    bare = replace(setup, flags={"blue": setup.flags["blue"]})
    assert is_setup_position(bare)
    state, notes = assume_setup_flags(bare)
    assert state.flags == setup.flags and [n.where for n in notes] == ["pink flag", "yellow flag", "green flag"]
    played = setup.apply(setup.placements()[0])  # a turn's blocks placed: no longer a set-up
    played = replace(played, flags={})
    assert not is_setup_position(played)
    assert assume_setup_flags(played) == (played, [])
