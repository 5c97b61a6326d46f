"""``benchmarks/ctrl_follow.py --probe-missing``: which flags it would watch (measurement only)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

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


def test_views_all_leaves_out_games_without_low_pictures(tmp_path: Path, monkeypatch: Any,
                                                         capsys: Any) -> None:
    """``--views all`` (session 12) reads nine pictures a position; a game rendered without
    ``--low-views`` is named and left out, not read from its five pictures."""
    bench = _bench()
    five = tmp_path / "five" / "scene_000"
    nine = tmp_path / "nine" / "scene_000"
    for d, stems in ((five, bench.VIEWS), (nine, (*bench.VIEWS, "px_low", "mx_low", "py_low", "my_low"))):
        d.mkdir(parents=True)
        for v in stems:
            (d / f"{v}.jpg").write_bytes(b"")
        (d.parent / "game.json").write_text("{}")
    assert bench.has_views(five.parent, bench.VIEWS) and bench.has_views(nine.parent, bench.VIEWS)
    assert not bench.has_views(five.parent, bench.parse_views("all"))
    assert bench.has_views(nine.parent, bench.parse_views("all"))
    # the bundled game has five pictures a position: with --views all nothing is left to follow
    monkeypatch.setattr("sys.argv", ["ctrl_follow.py", "--views", "all"])
    with pytest.raises(SystemExit, match="no followed games"):
        bench.main()
    assert "left out (no pictures px, mx, py, my, top, px_low" in capsys.readouterr().err
    monkeypatch.setattr("sys.argv", ["ctrl_follow.py", "--views", "sideways"])
    with pytest.raises(SystemExit, match="unknown view 'sideways'"):
        bench.main()
