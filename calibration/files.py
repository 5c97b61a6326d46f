"""Reading and writing calibration files (JSON a person can read), with one-line typed errors."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from calibration.errors import CalibrationFileError


def write_json_file(path: str | os.PathLike[str], doc: Any, dumps: Callable[[Any], str] | None = None) -> None:
    """Write atomically (temporary file + rename): never a half-written calibration."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.tmp")
    text = dumps(doc) if dumps is not None else json.dumps(doc, indent=2)
    tmp.write_text(text + "\n", encoding="utf-8")
    os.replace(tmp, p)


def read_json_file(path: str | os.PathLike[str], what: str) -> Any:
    """Load a JSON document; a missing or unreadable file is a :class:`CalibrationFileError` naming ``what``."""
    p = Path(path)
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CalibrationFileError(f"{what} not found: {str(p)!r}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CalibrationFileError(f"cannot read {what} {str(p)!r}: {exc}") from None
