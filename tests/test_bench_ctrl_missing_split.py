"""benchmarks/ctrl_missing_split.py (session 15): the kinds of rays and of missing blocks it counts, and that
reading a scene through it leaves the pipeline as it was."""

from __future__ import annotations

from benchmarks import ctrl_missing_split as split
from vision import pipeline
from vision.labels import Label


def test_ray_kinds() -> None:
    mat, cube, blue, pink = int(Label.BACKGROUND), int(Label.CUBE), int(Label.BLUE), int(Label.PINK)
    assert split._kind(blue, mat) == "colour-where-mat"  # colour seen where the blocks leave the mat
    assert split._kind(blue, cube) == "colour-where-mat"  # ... or the Central Cube (both "no block")
    assert split._kind(mat, pink) == "mat-where-block"
    assert split._kind(blue, pink) == "colour-swap"
    assert split._kind(cube, mat) == "free-free"


def test_need_and_front_classes() -> None:
    assert [split._need(n) for n in (6, 1, 0, -3)] == ["needs>=6", "needs1-5", "indifferent", "prefers-without"]
    assert split._front({}) == "no-rays"
    assert split._front({"none": 1, "extra": 5}) == "reached"
    assert split._front({"true": 9, "extra": 1}) == "extras-in-front"
    assert split._front({"true": 9, "cube": 2}) == "only-true-in-front"


def test_capturing_restores_the_pipeline_step() -> None:
    orig = pipeline.add_by_fine_rays
    with split.capturing() as got:
        assert pipeline.add_by_fine_rays is not orig
        assert got == {}
    assert pipeline.add_by_fine_rays is orig


def test_summary_counts_moves_and_costs() -> None:
    rows = [{"scene": "a", "missing": [{"kind": "pair-adjacent", "front_stopped": True,
                                        "blockers": {"true": 3, "extra": 2}, "truth_needs": 40, "reading_add": 0,
                                        "moves": [{"sampled_gain": -7, "fine_gain": 51, "fine_changed": 355}]}],
             "extras": 1, "cost_truth": 120, "cost_reading": 100,
             "truth_rays": {"truth-fails:colour-where-mat:high": 30}},
            {"scene": "b", "error": "blurred"}]
    s = split.summary(rows)
    assert s["rejected"] == 1 and s["missing"] == 1 and s["kinds"] == {"pair-adjacent": 1}
    assert s["front_by_need"] == {"extras-in-front:needs>=6": 1}
    assert s["truth_cost_vs_reading"] == {"truth-higher": 1} and s["truth_minus_reading_cost"] == 20
    assert (s["moves"], s["moves_sampled>=6"], s["moves_fine>=20"], s["moves_unchanged"]) == (1, 0, 1, 0)
