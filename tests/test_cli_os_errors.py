"""The CLI turns operating-system errors into one readable line (never a traceback)."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardside.cli import main


def test_output_under_a_regular_file_is_a_readable_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "afile"
    blocker.write_text("kept")
    code = main(["mat", "print", "-o", str(blocker / "mat.png")])
    err = capsys.readouterr().err
    assert code == 2
    assert "Traceback" not in err
    assert err.startswith("boardside: error: ")
    assert "afile" in err
    assert blocker.read_text() == "kept"


@pytest.mark.parametrize("argv", [[], ["ctrl"], ["gridopolis"]])
def test_a_group_alone_shows_its_help_not_an_error(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2
    assert "Commands:" in err
    assert "error" not in err
