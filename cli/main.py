"""``meshsim``: the entry point. Every command's bad input ends as one ``error:`` line and a
non-zero exit (status 1 for bad input, 2 for bad usage), never a traceback; an input or output that
fails at the operating system (a full disk, a closed pipe) is the same kind of line; Ctrl-C and
SIGTERM end with one line saying where the command stopped and status 130 or 143
(:mod:`meshsim.cli.interrupts`). A failure that is a bug in meshsim is one ``error: internal
error`` line with status 70; ``MESHSIM_DEBUG=1`` shows its traceback.

Start-up is kept small: ``--version`` is answered before Typer is imported, and the command group
registers only the command being run. ``meshsim --help`` lists every command from
:data:`COMMANDS` (its one-line summaries are checked against the commands' own help by a test)
without importing any command module, so it loads neither numpy nor the console."""

from __future__ import annotations

import errno
import importlib
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from meshsim import __version__
from meshsim.cli import interrupts
from meshsim.cli.output import err, error_line
from meshsim.engine.core.errors import MeshsimError


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
        "compare. It takes every simulation option `meshsim run` takes; a scenario reopens at "
        "the event where it was saved.",
    ),
    "trace": Command(
        "trace",
        "Inspect and convert workload traces and operators' logs.",
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
        "Run configurations on one workload and report each against its baseline (Tang et al.); "
        "with --recorded, rank them by how closely they reproduce the waits the log recorded.",
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
        "Draw metric vs. load per policy, utilization vs. slowdown, wait CDFs by size class, "
        "capacity utilized, unused and lost at one load, and a run's recorded against simulated "
        "waits.",
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
        from meshsim.engine.workloads.tracepath import add_trace_dirs

        add_trace_dirs(traces)


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in VERSION_FLAGS:
        print(f"meshsim {__version__}")
        return
    if _command_name(args) != "tui":  # the console handles its own keys and signals
        interrupts.install()
    sys.exit(_run(args))


def _run(args: list[str]) -> int:
    """Run the command line; return the exit status (every failure printed as one line)."""
    from typer._click import exceptions as click

    try:
        code = build_app(args)(args=args, prog_name="meshsim", standalone_mode=False)
    except click.NoArgsIsHelpError as exc:
        exc.show()
        return 2
    except click.ClickException as exc:
        error_line(exc.format_message())
        return exc.exit_code
    except typer.Abort:
        error_line("aborted (end of input)")
        return 1
    except MeshsimError as exc:
        error_line(str(exc))
        return 1
    except KeyboardInterrupt:
        code = 130
    except OSError as exc:
        return _os_error(exc)
    except MemoryError:
        error_line("out of memory (a resource limit may be set too high; see docs/boundaries.md)")
        return 1
    except Exception as exc:
        if os.environ.get("MESHSIM_DEBUG"):
            raise
        error_line(
            f"internal error: {type(exc).__name__}: {exc} (a bug in meshsim; please report it "
            "with the command line; MESHSIM_DEBUG=1 shows the traceback)"
        )
        return 70
    stop = interrupts.stopped()
    if stop is not None:
        if not stop.reported:
            err.print(f"interrupted ({stop.name}) {stop.where}", markup=False, highlight=False)
        return stop.exit_code
    return code if isinstance(code, int) else 0


def _os_error(exc: OSError) -> int:
    """A failure at the operating system as one line (a closed pipe on stdout ends quietly, as
    ``head`` expects)."""
    if exc.errno == errno.EPIPE:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 128 + 13
    where = f"{exc.filename}: " if exc.filename else ""
    error_line(f"{where}{exc.strerror or exc}")
    return 1
