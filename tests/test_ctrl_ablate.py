"""benchmarks/ctrl_ablate.py: a rule's switch is set for the reading only, and the summary compares each
variant's readings with the same scenes' base readings (docs/vision.md, "Session 11: the few-case rules")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import vision.pipeline as pipeline
from benchmarks.ctrl_ablate import VARIANTS, patched, summary


def test_every_variant_names_a_switch_that_exists() -> None:
    for name, (_modes, patches) in VARIANTS.items():
        with patched(patches):
            pass  # raises AttributeError for a switch that is not there
        assert patches, name


def test_patched_sets_and_restores() -> None:
    assert pipeline.FAINT_TURN_CHECK is True
    with patched((("vision.pipeline", "FAINT_TURN_CHECK", False),)):
        assert pipeline.FAINT_TURN_CHECK is False
    assert pipeline.FAINT_TURN_CHECK is True
    with pytest.raises(AttributeError, match="NO_SUCH_SWITCH"), patched((("vision.pipeline", "NO_SUCH_SWITCH", 1),)):
        pass


def test_summary_lists_changed_readings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    row = {"set": "/x/ctrl", "mode": "free", "wrong_cells": 0, "state_exact": True, "sides_exact": True,
           "flags_right": 4, "winner_right": True, "trusted": True, "wrong_sides": 0, "silent": 0, "flagged_sides": 0}
    rows = [{**row, "scene": "scene_000", "variant": "base", "digest": "a"},
            {**row, "scene": "scene_000", "variant": "lower_blocks", "digest": "a"},
            {**row, "scene": "scene_001", "variant": "base", "digest": "b"},
            {**row, "scene": "scene_001", "variant": "lower_blocks", "digest": "c", "state_exact": False,
             "sides_exact": False, "wrong_sides": 1}]
    f = tmp_path / "a.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    summary([str(f)])
    out = {line.split(" ", 1)[0]: json.loads(line.split(" ", 1)[1]) for line in capsys.readouterr().out.splitlines()}
    got = out["lower_blocks/free"]
    assert got["changed"] == 1 and got["changed_readings"] == ["x/ctrl/scene_001"]
    assert got["off_minus_on"] == {"state_exact": -1, "sides_exact": -1, "trusted_wrong": 1, "wrong_sides": 1}
