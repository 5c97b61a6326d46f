"""Boardside application layer: the ``boardside`` CLI, sessions and storage."""

__version__ = "0.1.0"
