"""Golden positions with their expected legal moves (most counted by hand; see each file's "how")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.gridopolis import State, validate_state

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.json"))


def test_there_are_golden_files() -> None:
    assert len(GOLDEN) >= 6
    assert sum(json.loads(p.read_text())["hand_counted"] for p in GOLDEN) >= 5


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_legal_moves(path: Path) -> None:
    case = json.loads(path.read_text())
    state = State.from_json(case["state"])
    assert [p for p in validate_state(case["state"]) if p.severity == "error"] == []
    legal = sorted(str(m) for m in state.legal_moves())
    assert len(legal) == case["legal_move_count"], case["how"]
    if case["legal_moves"] is not None:
        assert legal == case["legal_moves"]
    assert state.to_json() == case["state"]
