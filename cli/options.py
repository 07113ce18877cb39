"""Command-line options that several commands share (``meshsim run``, ``tui``, ``compare``,
``sweep`` through ``run``, and ``trace``), so their names, help and listed valid names are written
once."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from meshsim.engine.allocation.allocator import ALLOCATORS
from meshsim.engine.logs.formats import format_names
from meshsim.engine.scheduling.backfill import BACKFILLS
from meshsim.engine.scheduling.disciplines import DISCIPLINES
from meshsim.engine.scheduling.orders import QUEUE_ORDERS

POLICY_PANEL = "Policy"


def names(registry) -> str:  # type: ignore[no-untyped-def]
    """The registry's names, comma-separated, for help texts."""
    return ", ".join(registry.names())


Machine = Annotated[
    str,
    typer.Option(help="Machine: a name from `meshsim machines list`, a .toml file, or flat:N."),
]
Workload = Annotated[
    str | None,
    typer.Option(
        help="SWF trace (.swf, .swf.gz), an operator's log (Slurm sacct or jobcomp, PBS, Cobalt; "
        "see --from) or workload .toml; default: the machine's."
    ),
]
LOG_PANEL = "Traces and logs"
LogFormat = Annotated[
    str | None,
    typer.Option(
        "--from",
        help=f"Format of the trace or log: {', '.join(format_names())} (default: told from its "
        "content).",
        rich_help_panel=LOG_PANEL,
    ),
]
TimeZone = Annotated[
    str,
    typer.Option(
        "--tz",
        help="Time zone of a log's local time stamps (Slurm, PBS, Cobalt), an IANA name; written "
        "to the SWF header as TimeZoneString.",
        rich_help_panel=LOG_PANEL,
    ),
]
PartitionLimit = Annotated[
    str | None,
    typer.Option(
        help="Time limit of log jobs without one of their own (UNLIMITED, Partition_Limit, no "
        "walltime), by partition or queue: NAME=DURATION,... (* for any; [D-]HH:MM:SS, MM:SS or "
        "minutes).",
        rich_help_panel=LOG_PANEL,
    ),
]
Lenient = Annotated[
    bool,
    typer.Option(
        help="Skip malformed SWF lines and log records (they are counted and reported) instead of "
        "failing.",
        rich_help_panel=LOG_PANEL,
    ),
]
Queue = Annotated[
    str | None,
    typer.Option(
        help=f"Queue order (default: the machine's, else fcfs): {names(QUEUE_ORDERS)}.",
        rich_help_panel=POLICY_PANEL,
    ),
]
Discipline = Annotated[
    str | None,
    typer.Option(
        help=f"Start discipline (default: the machine's, else fcfs): {names(DISCIPLINES)}.",
        rich_help_panel=POLICY_PANEL,
    ),
]
Backfill = Annotated[
    str | None,
    typer.Option(
        help=f"Backfilling (default: the machine's, else none): {names(BACKFILLS)}.",
        rich_help_panel=POLICY_PANEL,
    ),
]
Alloc = Annotated[
    str | None,
    typer.Option(
        help=f"Allocator (default: the machine's): {names(ALLOCATORS)}.",
        rich_help_panel=POLICY_PANEL,
    ),
]
Seed = Annotated[int, typer.Option(help="Random seed (workload generators, random policies).")]
Scenario = Annotated[
    Path | None,
    typer.Option(
        "--scenario",
        help="A scenario file saved by the console (its options and operator actions).",
    ),
]
