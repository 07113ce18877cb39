"""``meshsim``: the entry point. Every command's bad input ends as one ``error:`` line and a
non-zero exit (status 1 for bad input, 2 for bad usage), never a traceback."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

import typer

from cli.output import err, error_line
from engine.errors import MeshsimError

COMMANDS = {
    "run": "run",
    "tui": "tui",
    "trace": "trace",
    "machines": "machines",
    "list": "listing",
    "bench": "bench",
    "compare": "compare",
    "contention": "contention",
    "sweep": "sweep",
    "reproduce": "reproduce",
    "plot": "plot",
}
"""Each command of ``meshsim`` and the module under ``cli/`` that registers it."""


def build_app(argv: Sequence[str] | None = None) -> typer.Typer:
    """The ``meshsim`` application. Given the command line, it registers only the command being
    run (every command for ``--help`` or an unknown name): a command's module imports what it
    needs, so ``meshsim run`` does not pay for the console, plotting or sweeps at start-up."""
    import engine.catalog  # noqa: F401  (fill every registry before help texts are built)

    app = typer.Typer(
        name="meshsim",
        help="Job scheduling and processor allocation on mesh- and torus-connected supercomputers.",
        no_args_is_help=True,
        rich_markup_mode="rich",
        pretty_exceptions_enable=False,
        add_completion=False,
    )
    app.callback()(_group)
    wanted = argv[0] if argv else None
    names = [COMMANDS[wanted]] if wanted in COMMANDS else list(COMMANDS.values())
    for name in names:
        importlib.import_module(f"cli.{name}").register(app)
    return app


def _group() -> None:
    """Job scheduling and processor allocation on mesh- and torus-connected supercomputers."""


def main() -> None:
    """Console-script entry point."""
    try:
        build_app(sys.argv[1:])()
    except MeshsimError as exc:
        error_line(str(exc))
        sys.exit(1)
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)
