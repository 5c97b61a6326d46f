"""The winner line under the score sheet: plain for a sheet that is sure, and saying so when a sheet read from
pictures is not trusted or has sides whose counts may be off (a person reads this line to decide the game)."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardside.cli import main
from boardside.ctrl_text import winner_line

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"
TOTALS = {"blue": 25, "pink": 30, "yellow": 31, "green": 21}


def test_a_sure_sheet_names_the_winner_plainly() -> None:
    assert winner_line(["yellow"], TOTALS) == "Winner: yellow"
    assert winner_line(["yellow", "pink"]) == "Shared win: yellow, pink"
    assert winner_line([]) == "No winner."


def test_sides_that_may_be_off_make_the_winner_not_certain() -> None:
    line = winner_line(["yellow"], TOTALS, uncertain_sides=["top", "-y", "+x"])
    assert line.startswith("Winner: yellow -- NOT CERTAIN: ")
    assert "sides +x, -y, top may be off" in line  # in the sheet's order
    assert "pink is 1 point behind" in line and "not trusted" not in line


def test_an_untrusted_reading_says_so_and_a_level_runner_up_is_named() -> None:
    line = winner_line(["blue"], {"blue": 20, "yellow": 20, "pink": 3}, trusted=False)
    assert "the reading is not trusted" in line
    assert "yellow has as many points (the tie-break decides)" in line


def test_score_images_prints_a_not_trusted_winner_as_not_certain(monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    # fixture scene_035 with the opening step off: an impossible turn order, so NOT TRUSTED (exit 1); see
    # tests/test_vision_pipeline.py
    import vision.opening as opening_mod

    monkeypatch.setattr(opening_mod, "READ_OPENINGS", False)
    d = FIXTURES / "scene_035"
    code = main(["ctrl", "score-images", *[str(d / f"{v}.jpg") for v in ("px", "mx", "py", "my", "top")]])
    out = capsys.readouterr().out
    assert code == 1
    line = next(ln for ln in out.splitlines() if ln.startswith(("Winner", "Shared win", "No winner")))
    assert "NOT CERTAIN" in line and "the reading is not trusted" in line


def test_score_images_json_says_whether_the_winner_is_certain(monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    import json

    import vision.opening as opening_mod

    monkeypatch.setattr(opening_mod, "READ_OPENINGS", False)
    d = FIXTURES / "scene_035"
    main(["ctrl", "score-images", *[str(d / f"{v}.jpg") for v in ("px", "mx", "py", "my", "top")], "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["trusted"] is False and doc["winner_certain"] is False
