"""The root of Boardside's typed errors.

Every error that reports *bad input* (a malformed file, an illegal move, a wrong URL,
an image without a mat) derives from :class:`BoardsideError`.  The CLI turns these into
a one-line message and the error's ``exit_code`` (2 by default), never a traceback.
Other packages (vision, calibration, hardware) subclass it; it lives here because
``engine`` is the one package every other package may import.
"""

from __future__ import annotations


class BoardsideError(Exception):
    """Base of all Boardside errors that are reported to a user in one line."""

    exit_code: int = 2


class BoardsideInputError(BoardsideError, ValueError):
    """Bad input that is not about a game's rules (a file, an option, a URL)."""
