"""Command-line options that several commands share (``meshsim run``, ``tui``, ``compare``,
``sweep`` through ``run``, and ``trace``), so their names, help and listed valid names are written
once."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Annotated

import typer

from meshsim.cli.output import fail
from meshsim.engine.allocation.allocator import ALLOCATORS
from meshsim.engine.families.contention.traffic import COMM_PATTERNS, IO_TRAFFIC
from meshsim.engine.kernel.runtime_models import RUNTIME_MODELS
from meshsim.engine.logs.formats import format_names
from meshsim.engine.scheduling.backfill import BACKFILLS
from meshsim.engine.scheduling.disciplines import DISCIPLINES
from meshsim.engine.scheduling.orders import QUEUE_ORDERS
from meshsim.engine.tools.runcase import RunOptions
from meshsim.engine.validation.options import flag
from meshsim.engine.workloads.shapes import SHAPE_RULES

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
First = Annotated[
    int | None,
    typer.Option(
        help="Replay only the first N records of the trace or log (counted in file order, after "
        "--skip, before any record is skipped).",
        rich_help_panel=LOG_PANEL,
    ),
]
Skip = Annotated[
    int,
    typer.Option(
        help="Pass over the first N records of the trace or log (counted in file order).",
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
Window = Annotated[
    int,
    typer.Option(help="Window size K for --discipline window.", rich_help_panel=POLICY_PANEL),
]
Bound = Annotated[
    int,
    typer.Option(help="Overtaking bound k for --discipline oocb.", rich_help_panel=POLICY_PANEL),
]
Rotate = Annotated[
    bool,
    typer.Option(help="Allow 90° rotation of requested boxes.", rich_help_panel=POLICY_PANEL),
]
Migrate = Annotated[
    bool,
    typer.Option(
        help="Re-pack running jobs when the head is blocked.", rich_help_panel=POLICY_PANEL
    ),
]
Shape = Annotated[
    str | None,
    typer.Option(
        help=f"Size-to-shape rule on meshes and tori: {names(SHAPE_RULES)} "
        "(default: given shapes, else square in 2D and every box in 3D).",
        rich_help_panel=POLICY_PANEL,
    ),
]
RuntimeModel = Annotated[
    str | None,
    typer.Option(
        help=f"Runtime model (default: the workload's runtimes): {names(RUNTIME_MODELS)}.",
        rich_help_panel=POLICY_PANEL,
    ),
]
Pattern = Annotated[
    str | None,
    typer.Option(
        help="Communication pattern of every job's traffic (machines with I/O nodes; "
        f"default all-to-all): {names(COMM_PATTERNS)}.",
        rich_help_panel=POLICY_PANEL,
    ),
]
IoTraffic = Annotated[
    str | None,
    typer.Option(
        help=f"Parallel I/O of every job (default write): {names(IO_TRAFFIC)}.",
        rich_help_panel=POLICY_PANEL,
    ),
]
IoShare = Annotated[
    float | None,
    typer.Option(
        help="Share of every node's bytes that is I/O, the rest being --pattern "
        "(default: the workload's, else 1).",
        rich_help_panel=POLICY_PANEL,
    ),
]
ProcsPerUnit = Annotated[
    int | None, typer.Option(help="Trace processors per machine unit (default: the machine's).")
]
LoadFactor = Annotated[float, typer.Option(help="Divide the time since the first submit by F.")]
RuntimeScale = Annotated[float, typer.Option(help="Multiply runtimes and estimates by C.")]
Requeue = Annotated[
    bool,
    typer.Option(help="Move jobs that break their queue's limits to a queue that admits them."),
]
QueueMap = Annotated[
    list[str] | None,
    typer.Option(
        "--queue-map",
        metavar="NAME=QUEUE",
        help="Run the jobs of the trace's queue NAME in the machine's NQS queue QUEUE "
        "(repeatable). Other queues go to the machine queue of the same name, or by the "
        "q\\[f]<nodes><s|m|l> naming rule; never by number.",
    ),
]


def joined(values: list[str] | None) -> str | None:
    """A repeatable option's values as one text, joined by commas (how :class:`RunOptions` holds
    ``--queue-map``)."""
    return ",".join(values) if values else None


SIMULATION_OPTIONS = tuple(f.name for f in fields(RunOptions))
"""The parameters, named as :class:`RunOptions` names its fields, that ``run`` and ``tui`` both
declare with this module's definitions."""


def run_options(ctx: typer.Context) -> RunOptions:
    """The :class:`RunOptions` of a command that declares every simulation option (``run`` and
    ``tui``), from the values Typer parsed; they are checked where every run's are
    (:func:`meshsim.engine.tools.runcase.load_inputs`)."""
    values = {name: ctx.params[name] for name in SIMULATION_OPTIONS}
    values["queue_map"] = joined(values["queue_map"])
    return RunOptions(**values)  # type: ignore[arg-type]


def refuse_beside_scenario(ctx: typer.Context) -> None:
    """With ``--scenario FILE`` the scenario sets every simulation option: one given on the command
    line too is an error naming it (never silently ignored)."""
    for name in SIMULATION_OPTIONS:
        source = ctx.get_parameter_source(name)
        if source is not None and source.name != "DEFAULT":
            fail(f"{flag(name)} cannot be combined with --scenario (the scenario file sets it)")
