"""Command groups of the ``boardside`` CLI, one module each (discovered by ``boardside.cli``)."""
