"""Typed errors of the fixture renderer."""

from __future__ import annotations

from engine.errors import BoardsideError, BoardsideInputError


class RendererUnavailableError(BoardsideError, RuntimeError):
    """The ``[render]`` extra (mitsuba, pyoidn, libllvm19) is not installed."""


class FixtureSetError(BoardsideInputError):
    """A fixture set name, manifest or seed is not usable."""
