"""``meshsim``: the entry point. Every command's bad input ends as one ``error:`` line and a
non-zero exit (status 1 for bad input, 2 for bad usage), never a traceback.

Start-up is kept small: ``--version`` is answered before Typer is imported, and the command group
registers only the command being run. ``meshsim --help`` lists every command from
:data:`COMMANDS` (its one-line summaries are checked against the commands' own help by a test)
without importing any command module, so it loads neither numpy nor the console."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from meshsim import __version__
from meshsim.cli.output import err, error_line
from meshsim.engine.errors import MeshsimError


@dataclass(frozen=True)
class Command:
    """A ``meshsim`` command: the module under ``meshsim.cli`` that registers it, and the first
    paragraph of its help for ``meshsim --help``."""

    module: str
    summary: str


COMMANDS = {
    "run": Command(
        "run",
        "Simulate a workload on a machine and report waiting, slowdown and capacity metrics.",
    ),
    "tui": Command(
        "tui",
        "Open the operator console: step or run the simulation live, inspect, act, fork, "
        "compare. A scenario reopens at the event where it was saved.",
    ),
    "trace": Command(
        "trace",
        "Inspect and convert SWF workload traces.",
    ),
    "machines": Command(
        "machines",
        "List, show and validate machine definitions.",
    ),
    "list": Command(
        "listing",
        "List machines, queue orders, disciplines, backfilling, allocators and more.",
    ),
    "bench": Command(
        "bench",
        "Measure simulation speed and memory on fixed scenarios; compare with their targets.",
    ),
    "compare": Command(
        "compare",
        "Run configurations on one workload and report each against its baseline (Tang et al.).",
    ),
    "contention": Command(
        "contention",
        "Link contention, hotspot, max_contention and throughput of one layout (Tables 5, 6).",
    ),
    "sweep": Command(
        "sweep",
        "Run every case of a parameter grid (each an ordinary `meshsim run`), skipping "
        "finished ones; write one JSON per case and the combined tables.",
    ),
    "reproduce": Command(
        "reproduce",
        "Reproduce a table or figure of the seed papers: the paper's numbers next to ours.",
    ),
    "plot": Command(
        "plot",
        "Draw metric vs. load per policy, utilization vs. slowdown, wait CDFs by size class, and "
        "a run's recorded against simulated waits.",
    ),
}
"""Each command of ``meshsim``, in the order ``--help`` lists them."""

VERSION_FLAGS = ("--version", "-V")


def build_app(argv: Sequence[str] | None = None) -> typer.Typer:
    """The ``meshsim`` application. Given the command line, it registers only the command being run;
    for ``--help`` or an unknown name it adds each command as a summary that is never run (the real
    command is registered whenever its name is on the command line)."""
    app = typer.Typer(
        name="meshsim",
        help="Job scheduling and processor allocation on mesh- and torus-connected supercomputers.",
        no_args_is_help=True,
        rich_markup_mode="rich",
        pretty_exceptions_enable=False,
        add_completion=False,
    )
    app.callback()(_group)
    wanted = _command_name(argv or [])
    if wanted in COMMANDS:
        importlib.import_module(f"meshsim.cli.{COMMANDS[wanted].module}").register(app)
    else:
        for name, command in COMMANDS.items():
            app.command(name, help=command.summary, add_help_option=False)(_summary_only)
    return app


def _command_name(argv: Sequence[str]) -> str | None:
    """The command on the command line: the first word after the group's options."""
    words = iter(argv)
    for word in words:
        if word == "--traces":
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def _summary_only() -> None:
    """Never run: :func:`build_app` registers the real command whenever its name is given."""
    raise AssertionError("a command summary was run")


def _group(
    traces: Annotated[
        list[Path] | None,
        typer.Option(
            "--traces",
            metavar="DIR",
            help="A folder of real traces, searched first for trace:NAME and the benchmarks' "
            "logs (repeatable; also MESHSIM_TRACES).",
        ),
    ] = None,
    version: Annotated[
        bool, typer.Option("--version", "-V", help="Print the version and exit.")
    ] = False,
) -> None:
    """Job scheduling and processor allocation on mesh- and torus-connected supercomputers."""
    if traces:
        from meshsim.engine.tracepath import add_trace_dirs

        add_trace_dirs(traces)


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in VERSION_FLAGS:
        print(f"meshsim {__version__}")
        return
    try:
        build_app(args)(args=args, prog_name="meshsim")
    except MeshsimError as exc:
        error_line(str(exc))
        sys.exit(1)
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)
