"""The ``boardside`` command line.

Conventions for every command (DEVELOPERS.md / issue "Foundation"):

* ``--help`` on every command and group;
* ``--json`` prints machine-readable output on stdout (one JSON document);
* exit code 0 on success, 2 for bad input with a one-line reason on stderr and no
  traceback (any :class:`engine.errors.BoardsideError`, an unreadable file, a usage
  error), 130 when interrupted with Ctrl-C; commands may document other codes
  (``validate`` exits 1 when the set-up breaks a rule);
* any other exception is a bug in Boardside: one line naming it and a file holding the full traceback
  (exit 70, ``EX_SOFTWARE``); ``BOARDSIDE_TRACEBACK=1`` lets it through instead, for debugging.

Command groups live in ``boardside/commands/<name>.py``; each module defines
``app: typer.Typer`` and ``NAME: str`` (or ``COMMAND`` for a single command) and is
discovered here, so adding a game never edits this file.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
import tempfile
import time
import traceback
from collections.abc import Sequence

import typer

try:  # typer >= 0.20 vendors click as typer._click (Exit and Abort live in typer.exceptions)
    from typer._click.exceptions import ClickException, UsageError
except ImportError:  # pragma: no cover - older typer uses the click package
    from click.exceptions import ClickException, UsageError  # type: ignore[assignment]
try:
    from click.exceptions import Abort as _ClickAbort
    from click.exceptions import Exit as _ClickExit
except ImportError:  # pragma: no cover
    _ClickAbort, _ClickExit = typer.Abort, typer.Exit  # type: ignore[misc,assignment]

from boardside import __version__
from engine.errors import BoardsideError


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"boardside {__version__}")
        raise typer.Exit()


def build_app() -> typer.Typer:
    app = typer.Typer(
        name="boardside",
        help="Boardside: a table-side companion for CTRL, Quirky Circuits, Gridopolis and "
        "Captura la Bandera -- scores, rule checks, camera reading and robot driving.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )

    @app.callback()
    def _root(
        version: bool = typer.Option(
            False, "--version", callback=_version_callback, is_eager=True, help="Show the version."
        ),
    ) -> None:
        """Boardside command line."""

    import boardside.commands as commands_pkg

    for info in sorted(pkgutil.iter_modules(commands_pkg.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"boardside.commands.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(app)
        else:
            sub = module.app
            name = getattr(module, "NAME", info.name)
            app.add_typer(sub, name=name)
    return app


def _fail(message: str, code: int = 2) -> int:
    first = message.strip().splitlines()[0] if message.strip() else "error"
    print(f"boardside: error: {first}", file=sys.stderr)
    return code


def _internal_error(exc: BaseException) -> int:
    """An exception no command expected: a bug.  Keep its traceback in a file, say so in one line."""
    where = ""
    try:
        fd, path = tempfile.mkstemp(prefix=f"boardside-crash-{time.strftime('%Y%m%d-%H%M%S')}-", suffix=".txt")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(f"boardside {' '.join(sys.argv[1:])}\n\n")
            fh.write("".join(traceback.format_exception(exc)))
        where = f"; the details are in {path!r}"
    except OSError:  # pragma: no cover - no writable temp dir: still one line
        pass
    return _fail(f"internal error (a bug in boardside, please report it): {type(exc).__name__}: {exc}{where}", 70)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit code."""
    command = typer.main.get_command(build_app())
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        result = command.main(args=args, prog_name="boardside", standalone_mode=False)
    except (typer.Exit, _ClickExit) as exc:
        return int(exc.exit_code or 0)
    except (typer.Abort, _ClickAbort):
        return _fail("interrupted", 130)
    except KeyboardInterrupt:
        return _fail("interrupted", 130)
    except ClickException as exc:
        if type(exc).__name__ == "NoArgsIsHelpError" and isinstance(exc, UsageError) and exc.ctx is not None:
            # `boardside` or `boardside ctrl` alone: show that group's help, as click's standalone mode does
            print(exc.ctx.get_help(), file=sys.stderr)
            return 2
        # usage errors: unknown option, missing argument, bad value
        if isinstance(exc, UsageError) and exc.ctx is not None:
            print(exc.ctx.get_usage(), file=sys.stderr)
        return _fail(exc.format_message(), 2)
    except BoardsideError as exc:
        return _fail(str(exc), exc.exit_code)
    except FileNotFoundError as exc:
        return _fail(f"no such file: {exc.filename!r}", 2)
    except IsADirectoryError as exc:
        return _fail(f"expected a file, got a directory: {exc.filename!r}", 2)
    except PermissionError as exc:
        return _fail(f"permission denied: {exc.filename!r}", 2)
    except BrokenPipeError:
        return 0
    except OSError as exc:
        # disk full, read-only file system, a device gone: the reason and the path, no traceback
        where = f": {exc.filename!r}" if exc.filename else ""
        return _fail(f"{exc.strerror or exc}{where}", 2)
    except Exception as exc:
        if os.environ.get("BOARDSIDE_TRACEBACK"):
            raise
        return _internal_error(exc)
    if isinstance(result, int):
        return result
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())


def main_entry() -> None:
    """Console-script entry point."""
    sys.exit(main())
