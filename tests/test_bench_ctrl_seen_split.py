"""``benchmarks/ctrl_seen_split.py``: each wrong cell's cause (docs/vision.md, "Session 19: free reading where every
block is seen")."""

from __future__ import annotations

from benchmarks.ctrl_seen_split import classify_cell
from engine.ctrl.moves import FlagSpot

TRUTH = {(3, 0, 0): "pink", (3, 0, 1): "pink", (4, 0, 0): "blue", (5, 0, 0): "blue", (2, -1, 0): "blue"}


def test_a_block_one_level_up_and_the_block_it_hides_are_one_cell_off() -> None:
    got = {(3, 0, 0): "pink", (3, 0, 2): "pink", (4, 0, 0): "blue", (5, 0, 0): "blue", (2, -1, 0): "blue"}
    assert classify_cell((3, 0, 2), TRUTH, got, {}, False, 0) == "one-off"
    assert classify_cell((3, 0, 1), TRUTH, got, {}, False, 50) == "one-off"


def test_extra_blocks() -> None:
    got = {**TRUTH, (3, 0, 2): "pink", (6, 3, 0): "yellow", (6, 3, 1): "green"}
    assert classify_cell((3, 0, 2), TRUTH, got, {}, False, 0) == "extra-on-own"  # on a true pink block it has too
    assert classify_cell((6, 3, 0), TRUTH, got, {}, False, 0) == "extra-mat"
    assert classify_cell((6, 3, 1), TRUTH, got, {}, False, 0) == "extra-other"
    flags = {"pink": FlagSpot((3, 0, 2), "+z")}
    assert classify_cell((3, 0, 2), TRUTH, got, flags, False, 0) == "flag"  # a banner read as a block


def test_missing_and_colour() -> None:
    got = {c: v for c, v in TRUTH.items() if c != (5, 0, 0)}
    assert classify_cell((5, 0, 0), TRUTH, got, {}, True, 40) == "missing-behind"
    assert classify_cell((5, 0, 0), TRUTH, got, {}, False, 5) == "missing-faint"
    assert classify_cell((5, 0, 0), TRUTH, got, {}, False, 6) == "missing-seen"
    assert classify_cell((4, 0, 0), TRUTH, {**TRUTH, (4, 0, 0): "pink"}, {}, False, 0) == "colour"
