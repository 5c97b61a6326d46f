"""The CLI turns operating-system errors, and any unexpected exception (a bug), into one readable line (never a
traceback)."""

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


def test_an_unexpected_exception_is_one_line_and_a_file(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A bug reaches the user as one line naming it and a file with the traceback, exit 70 (not a traceback)."""
    import typer

    def boom(*_a: object, **_k: object) -> None:
        raise AttributeError("'NoneType' object has no attribute 'reshape'")

    monkeypatch.setattr(typer.main, "get_command", lambda _app: type("C", (), {"main": staticmethod(boom)})())
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.delenv("BOARDSIDE_TRACEBACK", raising=False)
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    code = main(["ctrl", "score-images", "x.jpg"])
    err = capsys.readouterr().err
    assert code == 70
    assert err.count("\n") == 1 and "internal error" in err and "AttributeError" in err
    files = list(tmp_path.glob("boardside-crash-*.txt"))
    assert len(files) == 1 and "Traceback" in files[0].read_text() and "reshape" in files[0].read_text()
