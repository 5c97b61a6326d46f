"""``benchmarks/ctrl_follow.py --probe-missing``: which flags it would watch (measurement only)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from engine.core import Problem


def _bench() -> ModuleType:
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "ctrl_follow.py"
    spec = importlib.util.spec_from_file_location("bench_ctrl_follow", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_missing_flags_are_the_flag_missing_errors_only() -> None:
    problems = [Problem("flag-missing", "no banner", "blue flag"),
                Problem("flag-ambiguous", "two spots", "pink flag"),
                Problem("flag-missing", "no banner", "yellow flag", severity="warning"),
                Problem("flag-missing", "no banner", "green flag")]
    assert _bench()._missing_flags(problems) == ["blue", "green"]
