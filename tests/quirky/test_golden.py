"""Golden motion traces (hand-worked; tests/quirky/golden/traces.json) -- the hardware layer's input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.motion import Motion
from engine.quirky import Table, builtin_scenario, parse_program, resolve_program

GOLDEN = json.loads((Path(__file__).parent / "golden" / "traces.json").read_text())["traces"]


@pytest.mark.parametrize("case", GOLDEN, ids=[f"{c['scenario']}:{c['program']}" for c in GOLDEN])
def test_golden_trace(case: dict[str, Any]) -> None:
    scn = builtin_scenario(case["scenario"])
    res = resolve_program(scn, Table.initial(scn), parse_program(case["program"]))
    assert [str(m) for m in res.motions] == case["motions"]
    assert res.outcome == case["outcome"]
    # every motion string parses back to the same value (the hardware protocol's vocabulary)
    for m in res.motions:
        assert Motion.parse(str(m)) == m
    # per-card grouping covers the flat list in order
    assert [m for ms in res.by_card.values() for m in ms] == res.motions
