"""Never guess silently (issue 5): session 12's two readings trusted with wrong sides that no warning named,
read from their nine rendered (SIMULATED) pictures (fixtures/ctrl_silent; docs/vision.md, "Session 13: never
guessing silently").  Each test also runs with its rule off and shows the failure then.  The rules were made
after seeing these scenes: the tests keep the scenes fixed, they are not evidence that the rules generalise
(the docs give the development-set figures)."""

from __future__ import annotations

from pathlib import Path

import pytest

import vision.fine_rays as fine_rays
import vision.free_rules as free_rules
import vision.pipeline as pipeline
from benchmarks.ctrl_scenes import load_scene, parse_views
from engine.ctrl.record import turns_back_chain
from vision.pipeline import SceneResult, score_images

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "ctrl_silent"


def _read(name: str, back: int) -> tuple[SceneResult, list[str]]:
    scene = load_scene(ROOT / name, views=parse_views("all"))
    previous = turns_back_chain(scene.truth, back)[-1] if back else None
    res = score_images(scene.pics, scene.spec, scene.camera, previous)  # the number of turns not given
    want, got = scene.truth.side_scores(), res.state.side_scores()
    return res, [side for side in want if got[side] != want[side]]


@pytest.mark.parametrize("on", [True, False])
def test_a_turn_one_picture_alone_shows_is_doubtful(monkeypatch: pytest.MonkeyPatch, on: bool) -> None:
    monkeypatch.setattr(pipeline, "ONE_PICTURE_TURN_GAIN", 100 if on else 0)
    res, wrong = _read("fresh12c_scene_001", back=1)
    assert len(res.turns) == 2 and len(wrong) == 4  # the documented misreading: an extra yellow turn (3 were silent)
    doubtful = [p for p in res.problems if p.code == "doubtful-turn"]
    if on:
        assert not res.trusted and len(doubtful) == 1 and "px_low" in doubtful[0].message
        assert set(wrong) <= set(res.uncertain_sides)
    else:
        assert res.trusted and not doubtful and set(wrong) - set(res.uncertain_sides)


@pytest.mark.parametrize(("reach", "error"), [("all", False), ("all", True), ("", False)])
def test_a_block_next_to_a_hidden_cell_may_stand_in_it(monkeypatch: pytest.MonkeyPatch, reach: str,
                                                        error: bool) -> None:
    monkeypatch.setattr(free_rules, "HIDDEN_MOVE_NEIGHBOURS", reach)
    monkeypatch.setattr(pipeline, "HIDDEN_MOVE_ERROR", error)
    res, wrong = _read("fresh12c_scene_021", back=0)
    assert sorted(wrong) == ["+y", "-x"]  # the documented misreading: a yellow block one cell up
    assert [p.where for p in res.problems if p.code == "unobserved"] == ["cell -1,2,0"]
    ambiguous = [p.where for p in res.problems if p.code == "hidden-block-ambiguous"]
    if reach:
        assert set(wrong) <= set(res.uncertain_sides)  # named, trusted or not
        assert (ambiguous == ["cell -1,2,0"] and not res.trusted) if error else (not ambiguous and res.trusted)
    else:
        assert not set(wrong) & set(res.uncertain_sides) and not ambiguous and res.trusted


@pytest.mark.parametrize("on", [True, False])
def test_blocks_on_the_mat_one_picture_alone_shows_are_doubtful(monkeypatch: pytest.MonkeyPatch, on: bool) -> None:
    monkeypatch.setattr(pipeline, "ONE_PICTURE_BLOCK_CHECK", on)
    # the flat-patch rule (session 13, merged after this rule was made) now leaves out one of the blocks itself;
    # off here, so that the reading this rule was made for is read again
    monkeypatch.setattr(free_rules, "DROP_FLAT_PATCH_BLOCKS", False)
    # so do the finer rays (session 14): without the flat patch they add a (wrong) yellow block at 3,2,0, whose count
    # then breaks a rule (not trusted)
    monkeypatch.setattr(fine_rays, "FINE_BLOCKS", False)
    # and the smooth-on-mat rule (session 16) leaves out bled blocks itself
    monkeypatch.setattr(free_rules, "DROP_SMOOTH_MAT_BLOCKS", False)
    res, wrong = _read("fresh12c_scene_001", back=0)
    assert len(wrong) == 4  # the documented misreading: yellow bled onto the mat read as blocks
    doubtful = sorted(p.where for p in res.problems if p.code == "doubtful-block")
    if on:
        # (since session 14 the search runs again once floating colour is left out, and reads a third yellow block
        # of the bled colour at 4,1,0, shown by the same picture alone)
        assert not res.trusted and doubtful == ["cell 4,1,0", "cell 4,2,0", "cell 4,3,0"]
        assert set(wrong) <= set(res.uncertain_sides)
    else:
        # before session 14 trusted with four wrong sides (named by other warnings); with the third yellow block the
        # search now reads (see above) the colours' counts are impossible, and that error alone withholds trust
        assert not doubtful
        assert not res.trusted and any(p.code == "count-not-turns" for p in res.problems)


@pytest.mark.parametrize("smooth", [False, True])
def test_blocks_on_the_mat_with_the_flat_patch_rule(monkeypatch: pytest.MonkeyPatch, smooth: bool) -> None:
    """With every rule on (the flat patch too; and with session 16's smooth-on-mat switch, off by default) the free
    reading of that scene is still not trusted, and its wrong sides are named."""
    monkeypatch.setattr(free_rules, "DROP_SMOOTH_MAT_BLOCKS", smooth)
    res, wrong = _read("fresh12c_scene_001", back=0)
    assert wrong and not res.trusted
    if not smooth:
        # (before session 14 the flat patch left out the block at 4,3,0; with the third bled block at 4,1,0 that
        # the search now reads it leaves out none, and the one-picture check names all three)
        assert [p.where for p in res.problems if p.code == "doubtful-block"] == [
            "cell 4,1,0", "cell 4,2,0", "cell 4,3,0"]
    else:
        # the smooth-on-mat rule leaves out bled blocks at 4,1,0 and 5,2,0 (both empty in the truth: the paper there
        # is smooth), the reading no longer has 4,2,0, and the one-picture check names the one left, 4,3,0
        assert sorted(p.where for p in res.problems if p.code == "smooth-on-mat") == ["cell 4,1,0", "cell 5,2,0"]
        assert [p.where for p in res.problems if p.code == "doubtful-block"] == ["cell 4,3,0"]
    assert set(wrong) <= set(res.uncertain_sides)
