"""Fault injection: dropped, corrupted and duplicated bytes and random disconnects.

The bytes really are damaged on their way between the executor and the simulated robot
(running the firmware's state machine); the robot records every move it starts.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from hardware.faults import fault_campaign


def test_fault_injection_fast(tmp_path: Path) -> None:
    totals = asyncio.run(fault_campaign(tmp_path, 40, seed=3))
    assert totals["disconnects"] >= 40 and totals["damaged_bytes"] > 0
    assert totals["lost"] == 0 and totals["duplicated"] == 0 and totals["out_of_order"] == 0


@pytest.mark.slow
def test_fault_injection_1000_disconnects(tmp_path: Path) -> None:
    totals = asyncio.run(fault_campaign(tmp_path, 1000, seed=11))
    assert totals["disconnects"] >= 1000 and totals["host_crashes"] > 0
    assert totals["lost"] == 0 and totals["duplicated"] == 0 and totals["out_of_order"] == 0
