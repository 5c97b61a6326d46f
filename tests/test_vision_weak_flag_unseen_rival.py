"""A flag read on little evidence while a legal spot no picture shows could hold it is ``flag-ambiguous``
(``vision.flag_margin.WEAK_READ_UNSEEN_RIVAL``; docs/vision.md, "Session 12 (lead)").

Checked on a rendered (SIMULATED) fixture: scene_006 one turn back reads the pink flag at its true spot
3,0,0 -y, but on 8 banner rays and no second pole picture, while 2,4,3 +z -- a legal pink spot that changes a
side and that no picture shows -- could hold it.  With the rule the reading is not trusted and says why;
without it the reading was trusted (the flag happens to be right here; in a session-12 held-out scene the same
kind of reading was trusted with the flag wrong).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import vision.flag_margin as flag_margin
from benchmarks.ctrl_scenes import load_scene
from engine.ctrl.record import turns_back
from vision.pipeline import score_images

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"


@pytest.mark.parametrize("on", [True, False])
def test_a_weak_flag_with_an_unseen_rival_is_not_trusted(monkeypatch: pytest.MonkeyPatch, on: bool) -> None:
    monkeypatch.setattr(flag_margin, "WEAK_READ_UNSEEN_RIVAL", on)
    scene = load_scene(FIXTURES / "scene_006", with_camera=True)
    res = score_images(scene.pics, scene.spec, scene.camera, turns_back(scene.truth, 1))
    assert res.state.blocks == scene.truth.blocks and res.state.flags == scene.truth.flags
    notes = [p for p in res.problems if p.code == "flag-ambiguous" and p.where == "pink flag"]
    if on:
        assert not res.trusted and len(notes) == 1
        assert "which no picture shows" in notes[0].message and "3,0,0 -y" in notes[0].message
        assert "pink" in res.uncertain_flags
    else:
        assert res.trusted and not notes


def test_the_cli_hints_at_the_low_pictures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A reading with a flag problem, from the five usual pictures only, ends with a hint to add the four low
    pictures (which settle most such flags); with them given, no hint."""
    import json

    from boardside.cli import main

    scene = load_scene(FIXTURES / "scene_006", with_camera=True)
    (tmp_path / "prev.json").write_text(json.dumps(turns_back(scene.truth, 1).to_json()))
    five = [str(FIXTURES / "scene_006" / f"{v}.jpg") for v in ("px", "mx", "py", "my", "top")]
    low = [str(FIXTURES / "scene_006" / f"{v}_low.jpg") for v in ("px", "mx", "py", "my")]
    assert main(["ctrl", "score-images", *five, "--previous", str(tmp_path / "prev.json")]) == 1
    out = capsys.readouterr().out
    assert "hint:" in out and "low down" in out and "--low-views" in out
    main(["ctrl", "score-images", *five, *low, "--previous", str(tmp_path / "prev.json")])
    assert "hint:" not in capsys.readouterr().out
