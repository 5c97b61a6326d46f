"""Reading and writing the files the CLI handles, with one-line errors for bad input."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from engine.errors import BoardsideInputError


class UnreadableFileError(BoardsideInputError):
    """A file is missing, unreadable, or not the format expected."""


def read_json(path: str | os.PathLike[str], what: str = "file") -> Any:
    """Load a JSON document; any failure becomes :class:`UnreadableFileError`."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UnreadableFileError(f"{what} not found: {str(p)!r}") from None
    except IsADirectoryError:
        raise UnreadableFileError(f"{what} is a directory, expected a file: {str(p)!r}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UnreadableFileError(f"cannot read {what} {str(p)!r}: {exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UnreadableFileError(
            f"{what} {str(p)!r} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write a file atomically (temporary file + rename): never a half-written file."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_json(path: str | os.PathLike[str], obj: Any) -> None:
    write_text_atomic(path, json.dumps(obj, indent=2) + "\n")


def emit_json(obj: Any) -> None:
    """Print one JSON document on stdout (the ``--json`` convention)."""
    sys.stdout.write(json.dumps(obj, indent=2) + "\n")
    sys.stdout.flush()
