"""``meshsim``: the entry point. Every command's bad input ends as one ``error:`` line and a
non-zero exit (status 1 for bad input, 2 for bad usage), never a traceback."""

from __future__ import annotations

import sys

import typer

import engine.catalog  # noqa: F401  (fill every registry before help texts are built)
from cli import (
    bench,
    compare,
    contention,
    listing,
    machines,
    plot,
    reproduce,
    run,
    sweep,
    trace,
    tui,
)
from cli.output import err, error_line
from engine.errors import MeshsimError

app = typer.Typer(
    name="meshsim",
    help="Job scheduling and processor allocation on mesh- and torus-connected supercomputers.",
    no_args_is_help=True,
    rich_markup_mode="rich",
    pretty_exceptions_enable=False,
    add_completion=False,
)

for module in (
    run,
    tui,
    trace,
    machines,
    listing,
    bench,
    compare,
    contention,
    sweep,
    reproduce,
    plot,
):
    module.register(app)


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except MeshsimError as exc:
        error_line(str(exc))
        sys.exit(1)
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)
