"""``score-images --previous``: the pictures are explained as legal turns from the previous state
(issue 5, item 1).  The search itself is checked on SYNTHETIC label maps (exact rasterized labels,
so only the search is under test); the whole pipeline on rendered fixture pictures."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from boardside.cli import main
from boardside.fixtures_render.camera import truth_calibration
from engine.ctrl import State
from engine.ctrl.geometry import Cell
from engine.ctrl.record import one_turn_back, turns_back
from vision.camera import ViewCamera
from vision.history import explain_turns
from vision.reconstruct import ViewEvidence, reconstruct
from vision.synthetic import render_labels, standard_cameras

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"


def _truth(scene: str) -> State:
    return State.from_json(json.loads((FIXTURES / scene / "scene.json").read_text())["state"])


def _synthetic_views(state: State) -> list[ViewEvidence]:
    size = (640, 360)
    k = np.array([[480.0, 0, 320], [0, 480.0, 180], [0, 0, 1]])
    cams: dict[str, ViewCamera] = standard_cameras(k, size, elevation_deg=35.0)
    return [ViewEvidence(cam, render_labels(state.blocks, state.flags, cam), side) for side, cam in cams.items()]


def _score_images_one_turn_back(scene_name: str, tmp_path: Path) -> list[str]:
    """``ctrl score-images`` arguments for a fixture scene's five pictures, with its truth camera as the
    calibration file and the state one turn back as ``--previous`` (both written to ``tmp_path``)."""
    scene = FIXTURES / scene_name
    before = one_turn_back(_truth(scene_name))
    assert before is not None
    prev = tmp_path / "before.json"
    prev.write_text(json.dumps(before.to_json()))
    cam = json.loads((scene / "px.json").read_text())["camera"]
    calib = tmp_path / "cam.json"
    truth_calibration(cam).save(calib)
    pics = [str(scene / f"{v}.jpg") for v in ("px", "mx", "py", "my", "top")]
    return ["ctrl", "score-images", *pics, "--previous", str(prev), "-c", str(calib), "--json"]


def test_turns_back_repeats_one_turn_back_and_stops_at_the_set_up() -> None:
    truth = _truth("scene_016")
    assert turns_back(truth, 0) is truth
    once = one_turn_back(truth)
    again = one_turn_back(once) if once is not None else None
    assert again is not None and turns_back(truth, 2).to_json() == again.to_json()
    setup = _truth("scene_005")
    assert turns_back(setup, 3) is setup


def test_one_turn_back_is_one_legal_placement_earlier() -> None:
    truth = _truth("scene_026")
    before = one_turn_back(truth)
    assert before is not None and before.to_move is not None
    added = {c: col for c, col in truth.blocks.items() if c not in before.blocks}
    assert len(added) == 3 and set(added.values()) == {before.to_move}
    after = before.apply(next(m for m in before.legal_moves() if set(getattr(m, "cells", ())) == set(added)))
    assert after.blocks == truth.blocks
    assert one_turn_back(_truth("scene_005")) is None  # a set-up has no earlier turn


@pytest.mark.parametrize("turns_back", [1, 2])
def test_search_finds_the_turns_the_synthetic_pictures_show(turns_back: int) -> None:
    truth = _truth("scene_016")
    previous = truth
    for _ in range(turns_back):
        step = one_turn_back(previous)
        assert step is not None
        # one_turn_back leaves the mover to play: the state before is a complete position again
        previous = step
    recon = reconstruct(_synthetic_views(truth))
    assert recon.scorer is not None
    expl = explain_turns(previous, recon.scorer, recon.flags, recon.blocks)
    assert expl.state.blocks == truth.blocks
    assert len(expl.turns) == turns_back
    assert expl.cost <= expl.free_cost + 6


def test_pictures_of_another_game_are_no_legal_continuation() -> None:
    other = _truth("scene_038")
    recon = reconstruct(_synthetic_views(other))
    assert recon.scorer is not None
    previous = one_turn_back(_truth("scene_016"))
    assert previous is not None
    expl = explain_turns(previous, recon.scorer, recon.flags, recon.blocks)
    assert expl.cost > expl.free_cost + max(40, expl.free_cost // 20)  # the pipeline's "not a legal continuation"


def test_score_images_with_previous_on_rendered_pictures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    truth = _truth("scene_026")
    code = main(_score_images_one_turn_back("scene_026", tmp_path))
    doc = json.loads(capsys.readouterr().out)
    got = State.from_json(doc["state"])
    assert got.blocks == truth.blocks
    assert got.side_scores() == truth.side_scores()
    assert len(doc["turns"]) == 1
    assert code == 0


def _score_with_previous(scene_name: str) -> tuple[State, State]:
    from benchmarks.ctrl_scenes import load_scene
    from vision.pipeline import score_images

    scene = load_scene(FIXTURES / scene_name, with_camera=True)
    before = one_turn_back(scene.truth)
    assert before is not None
    res = score_images(scene.pics, scene.spec, scene.camera, before)
    return scene.truth, res.state


# The hardest rendered conditions, each scene chosen by its recorded conditions (the first scene that
# has them), not by how well it reads: scene_014 dim warm light (2962 K), the strongest lens distortion
# (k1 = -0.20) and the tallest tower (z = 6); scene_001 hard shadows and a flag hiding a face;
# scene_031 dim light and strong distortion.
HARD = ["scene_014", "scene_001", "scene_031"]


@pytest.mark.slow
@pytest.mark.parametrize("scene", HARD)
def test_hard_scenes_blocks_exact_with_previous(scene: str) -> None:
    truth, got = _score_with_previous(scene)
    assert got.blocks == truth.blocks


@pytest.mark.slow
@pytest.mark.parametrize("scene", [
    pytest.param("scene_014", marks=pytest.mark.xfail(strict=True, reason="the last mover's (green) flag is read "
                                                      "on the wrong face: 1,1,4 +z, truth 2,1,3 +x")),
    "scene_001", "scene_031"])
def test_hard_scenes_scores_exact_with_previous(scene: str) -> None:
    truth, got = _score_with_previous(scene)
    assert got.side_scores() == truth.side_scores()


@pytest.mark.slow
def test_a_whole_round_back_on_rendered_pictures() -> None:
    """Scoring at the end of a round: the previous state is four turns (one per colour) earlier, and
    one of those turns put its blocks where no picture shows them."""
    from benchmarks.ctrl_scenes import load_scene
    from vision.pipeline import score_images

    scene = load_scene(FIXTURES / "scene_016", with_camera=True)
    truth = scene.truth
    before: State | None = truth
    for _ in range(4):
        assert before is not None
        before = one_turn_back(before)
    assert before is not None
    res = score_images(scene.pics, scene.spec, scene.camera, before)
    assert len(res.turns) == 4
    assert res.state.blocks == truth.blocks
    assert res.state.side_scores() == truth.side_scores()


def test_json_confidence_follows_the_reported_state(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """With --previous the reported blocks are the legal turns', not the free reading's (which here has
    blocks the turns do not): every reported block has one confidence entry (null when no picture shows
    it), and nothing else is listed (this once crashed with a KeyError)."""
    assert main(_score_images_one_turn_back("scene_016", tmp_path)) in (0, 1)
    doc = json.loads(capsys.readouterr().out)
    blocks = {tuple(b["cell"]): b["color"] for b in doc["state"]["blocks"]}
    listed = {tuple(e["cell"]): e["color"] for e in doc["confidence"]}
    assert listed == blocks
    assert all(e["confidence"] is None or 0.0 <= e["confidence"] <= 1.0 for e in doc["confidence"])


def test_a_flag_read_from_a_handful_of_rays_makes_its_sides_uncertain(monkeypatch: pytest.MonkeyPatch) -> None:
    # scene_008 one turn back: the pink banner is seen by 5 sampled rays, at a spot one cell from the
    # true one; its pole, seen in more pictures at the true spot, moves it there (weak_flags_by_pole),
    # and every side another spot could change is still reported, not trusted silently
    import vision.pipeline as pipeline
    from benchmarks.ctrl_scenes import load_scene
    from engine.ctrl.moves import FlagSpot
    from vision.history import WEAK_FLAG_RAYS
    from vision.pipeline import score_images

    scene = load_scene(FIXTURES / "scene_008", with_camera=True)
    previous = one_turn_back(scene.truth)
    assert previous is not None
    res = score_images(scene.pics, scene.spec, scene.camera, previous)
    assert res.state.flags.get("pink") == scene.truth.flags["pink"] == FlagSpot.parse("flag 3,0,3 +z")
    moved = [p for p in res.problems if p.code == "flag-by-pole" and p.where == "pink flag"]
    assert len(moved) == 1 and "read at flag 3,-1,3 +z" in moved[0].message
    assert "+x" in res.uncertain_sides  # the pole is a thin line: other spots stay possible
    assert res.state.side_scores() == scene.truth.side_scores()
    # without the poles' check the weak banner reading stays, one cell off, and the side it makes
    # wrong is reported uncertain
    monkeypatch.setattr(pipeline, "weak_flags_by_pole", lambda state, *a, **k: (state, {}))
    monkeypatch.setattr(pipeline, "NEUTRAL_POLE_MOVES", False)  # (session 15's uncoloured pole line moves it too)
    off = score_images(scene.pics, scene.spec, scene.camera, previous)
    pink = off.state.flags.get("pink")
    assert pink == FlagSpot.parse("flag 3,-1,3 +z")
    assert off.reconstruction.scorer is not None
    score = off.reconstruction.scorer.flag_scores(off.state.blocks, "pink", [pink])[0]
    assert 0 < score < WEAK_FLAG_RAYS
    assert "+x" in off.uncertain_sides  # the side the true spot changes
    assert any(p.code == "side-uncertain" and "pink" in p.message for p in off.problems)


def test_ray_scorer_prices_added_blocks_as_its_whole_cost_does() -> None:
    """``RayScorer.delta`` (priced on the rays where an added block comes first) and ``set_base``
    (re-predicting only the rays through changed cells) agree with :meth:`RayScorer.cost` of the
    whole set of blocks: one colour on empty cells (the search's case), mixed colours, blocks on
    occupied cells or the Central Cube, cells outside the volume (SYNTHETIC label maps)."""
    import random

    from engine.ctrl.geometry import CENTRAL_CUBE

    truth = _truth("scene_026")
    scorer = reconstruct(_synthetic_views(truth)).scorer
    assert scorer is not None
    m = scorer._model
    seed = scorer._seed
    assert seed is not None and np.array_equal(m.predict(seed[0]), seed[1])  # the search's own predictions

    def whole(blocks: dict[Cell, str]) -> int:  # every ray predicted again
        return int(((m.predict(scorer._hyp_of(blocks)) != m.obs) * m.weight).sum())

    rng = random.Random(3)
    cells = sorted(truth.blocks)
    colours = ("blue", "pink", "yellow", "green")
    near = sorted({(x + dx, y + dy, z + dz) for x, y, z in cells for dx, dy, dz in
                   ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1)) if z + dz >= 0})
    for _ in range(12):
        base = {c: truth.blocks[c] for c in rng.sample(cells, rng.randint(0, len(cells)))}
        assert scorer.set_base(base) == scorer.cost(base) == whole(base)
        # a base a few blocks away from the last one (only the rays through those are predicted again)
        for c in rng.sample(cells, 3):
            if c in base:
                del base[c]
            else:
                base[c] = rng.choice(colours)
        assert scorer.set_base(base) == scorer.cost(base)
        free = [c for c in near if c not in base and c not in CENTRAL_CUBE]
        for _ in range(15):
            kind = rng.random()
            if kind < 0.6:  # one colour on empty cells
                col = rng.choice(colours)
                added = {c: col for c in rng.sample(free, rng.randint(1, 3))}
            elif kind < 0.8:  # mixed colours
                added = {c: rng.choice(colours) for c in rng.sample(free, rng.randint(2, 3))}
            else:  # on a block, on the Central Cube, outside the volume
                added = {rng.choice([*cells, *sorted(CENTRAL_CUBE), (20, 0, 0)]): rng.choice(colours),
                         rng.choice(free): rng.choice(colours)}
            assert scorer.delta(added) == scorer.cost({**base, **added}) - scorer.cost(base), (base, added)


def test_ray_scorer_delta_forgets_its_cells_rays_when_the_base_changes() -> None:
    """``RayScorer.delta`` keeps each cell's rays ahead of the base's first full cells while the base
    stays (the history search prices many placements sharing cells): after ``set_base`` with other
    blocks it prices on the new base, as :meth:`RayScorer.cost` does (SYNTHETIC label maps)."""
    truth = _truth("scene_026")
    scorer = reconstruct(_synthetic_views(truth)).scorer
    assert scorer is not None
    cells = sorted(truth.blocks)
    near = sorted({(x + dx, y + dy, 0) for x, y, _z in cells for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))}
                  - set(truth.blocks))
    half = {c: truth.blocks[c] for c in cells[: len(cells) // 2]}
    for base in ({}, dict(truth.blocks), {}, half, dict(truth.blocks)):
        scorer.set_base(base)
        for c in near:
            got = scorer.delta({c: "pink"})
            assert got == scorer.cost({**base, c: "pink"}) - scorer.cost(base), (len(base), c)
            assert scorer.delta({c: "pink"}) == got  # asked again on the same base
    # the bases do price some cell differently (else the test could not see a stale answer)
    prices = []
    for base in ({}, dict(truth.blocks)):
        scorer.set_base(base)
        prices.append([scorer.delta({c: "pink"}) for c in near])
    assert prices[0] != prices[1]
