"""benchmarks/board_vision.py --save / --compare: a site's reading recorded bit-exactly, and a scene
whose readings differ named with the first site that differs (speed work must leave readings as they were)."""

from __future__ import annotations

from types import SimpleNamespace

from benchmarks.board_vision import compare_records, readings_record
from vision.board_classify import CellReading


def _result(conf: float, kind: str = "pawn") -> SimpleNamespace:
    cells = [CellReading((1, 2, 0), "empty", None, 0, False, 0.9),
             CellReading((3, 3, 1), kind, "red", 0, False, conf, scores={"empty": 0.25, kind: 0.75})]
    recon = SimpleNamespace(doc={"pads": [[3, 3, 1]], "turn": 1}, problems=[])
    return SimpleNamespace(cells=cells, reconstruction=recon)


def test_identical_readings_compare_equal_and_a_last_bit_differs() -> None:
    a = {"gridopolis/scene_000": readings_record(_result(0.5))}
    assert compare_records(a, {"gridopolis/scene_000": readings_record(_result(0.5))}) == []
    # one ulp of a confidence is a difference (floats are kept as repr)
    b = {"gridopolis/scene_000": readings_record(_result(float.fromhex("0x1.0000000000001p-1")))}
    diffs = compare_records(a, b)
    assert len(diffs) == 1 and diffs[0].startswith("gridopolis/scene_000: ['cells'] [3, 3, 1]")


def test_a_changed_kind_and_a_missing_scene_are_listed() -> None:
    a = {"g/s0": readings_record(_result(0.5)), "g/s1": readings_record(_result(0.5))}
    b = {"g/s0": readings_record(_result(0.5, "blocker"))}
    diffs = compare_records(a, b)
    assert diffs[0].startswith("g/s0: ['cells'")
    assert "blocker" in diffs[0]
    assert diffs[1] == "g/s1: only in the saved run"


def test_declined_pieces_fall_in_size_bands_by_their_most_visible_piece() -> None:
    from benchmarks.board_vision import decline_band, truth_pixels

    assert decline_band(30) == "30-150px" and decline_band(149) == "30-150px"
    assert decline_band(150) == ">150px" and decline_band(4000) == ">150px"
    doc = {"board": {"game": "bandera"}, "cells": [
        {"x": 1, "y": 2, "piece": "cube", "pixels": 90},
        {"x": 1, "y": 2, "piece": "character", "pixels": 400},
        {"x": 3, "y": 0, "piece": "cube"}]}  # a truth file without pixel counts: 0
    assert truth_pixels(doc) == {(1, 2): 400, (3, 0): 0}
