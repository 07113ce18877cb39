"""The rules of command-line options, keyed as the command line spells them (``--window``).

:data:`RUN` holds every option of ``meshsim run`` that defines a simulation (the fields of
:class:`~meshsim.engine.tools.runcase.RunOptions`); :func:`check_run_options` holds a set of run
options to it and is called wherever a run is prepared (``meshsim run``, the console, sweep cases,
scenario files and the library's ``meshsim.run``), so every path refuses the same values with the
same message. Options of other commands are checked by the engine function they feed (the
contention analysis, trace conversion, ...), from sections added to the same format; options only
the command line has (workers, plot width) are here too."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import fields
from typing import TYPE_CHECKING, Any

from meshsim.engine.validation.formats import OPTIONS
from meshsim.engine.validation.rules import Rule, Section, check_value
from meshsim.engine.validation.swf_columns import MAX_SECONDS

if TYPE_CHECKING:
    from meshsim.engine.tools.runcase import RunOptions

MAX_FACTOR = 1e6
"""The largest load factor or runtime scale (and the inverse of the smallest that keeps times
below :data:`~meshsim.engine.validation.swf_columns.MAX_SECONDS` is checked on the workload)."""

RUN = OPTIONS.add(
    Section(
        "meshsim run (and tui, sweep cases, scenario options)",
        (
            Rule("--machine", "str", "intrepid", doc="a bundled machine, a .toml file, or flat:N"),
            Rule("--workload", "str", None, doc="a trace, a workload .toml, or trace:NAME"),
            Rule("--queue", "str", None, names="queue order"),
            Rule("--discipline", "str", None, names="discipline"),
            Rule("--backfill", "str", None, names="backfill"),
            Rule("--alloc", "str", None, names="allocator", doc="must work on the machine"),
            Rule("--window", "int", 240, minimum=1, maximum=1 << 31),
            Rule("--bound", "int", 8, minimum=0, maximum=1 << 31),
            Rule("--rotate", "bool", False),
            Rule("--migrate", "bool", False),
            Rule("--shape", "str", None, names="shape rule"),
            Rule("--runtime-model", "str", None, names="runtime model"),
            Rule("--pattern", "str", None, names="communication pattern"),
            Rule("--io-traffic", "str", None, names="I/O traffic"),
            Rule("--io-share", "float", None, minimum=0.0, maximum=1.0),
            Rule("--procs-per-unit", "int", None, minimum=1, maximum=1 << 31),
            Rule(
                "--load-factor",
                "float",
                1.0,
                above=0.0,
                maximum=MAX_FACTOR,
                doc=f"times must stay below {MAX_SECONDS:g} s",
            ),
            Rule(
                "--runtime-scale",
                "float",
                1.0,
                above=0.0,
                maximum=MAX_FACTOR,
                doc=f"times must stay below {MAX_SECONDS:g} s",
            ),
            Rule("--seed", "int", 0, minimum=0),
            Rule("--lenient", "bool", False),
            Rule("--from", "str", None, doc="swf, sacct, jobcomp, pbs or cobalt (docs/logs.md)"),
            Rule("--tz", "str", "UTC", doc="an IANA time zone name"),
            Rule("--partition-limit", "str", None, doc="NAME=DURATION,... (docs/logs.md)"),
            Rule(
                "--first", "int", None, minimum=1, maximum=1 << 53, doc="records of a trace or log"
            ),
            Rule("--skip", "int", 0, minimum=0, maximum=1 << 53, doc="records of a trace or log"),
            Rule("--requeue", "bool", False),
            Rule(
                "--queue-map",
                "str",
                None,
                doc="NAME=QUEUE,... (repeatable): a trace queue's name, an NQS queue of the "
                "machine (docs/recorded.md)",
            ),
        ),
    )
)
RUN_OUTPUTS = OPTIONS.add(
    Section(
        "meshsim run outputs",
        (Rule("--report", "str", None, names="report"),),
        doc="--out, --jobs-out, --events-out, --swf-out and --report-out are paths held to the "
        "writer's rules (docs/boundaries.md)",
    )
)
TRACE_INFO = OPTIONS.add(
    Section("meshsim trace info", (Rule("--processors", "int", None, minimum=1, maximum=1 << 53),))
)
TRACE_CONVERT = OPTIONS.add(
    Section(
        "meshsim trace convert",
        (
            Rule("--start", "float", None, minimum=-MAX_SECONDS, maximum=MAX_SECONDS),
            Rule("--end", "float", None, minimum=-MAX_SECONDS, maximum=MAX_SECONDS),
            Rule("--month", "str", None, doc="YYYY-MM"),
            Rule("--format", "str", None, choices=("swf", "csv", "jsonl")),
        ),
    )
)
CONTENTION = OPTIONS.add(
    Section(
        "meshsim contention",
        (
            Rule("--layout", "str", names="spatial layout"),
            Rule("--mesh", "int", 16, minimum=1, doc="k; k x k cells within the cell limit"),
            Rule("--size", "int", None, minimum=1, doc="at most k x k"),
            Rule("--io-nodes", "int", None, minimum=1, doc="at most k"),
            Rule("--traffic", "str", "write", choices=("write", "read")),
            Rule("--link-mb-s", "float", 380.0, above=0.0, maximum=1e12),
            Rule("--io-node-mb-s", "float", 64.0, above=0.0, maximum=1e12),
        ),
    )
)
COMPARE = OPTIONS.add(
    Section(
        "meshsim compare",
        (
            Rule("--preset", "str", None, names="comparison preset"),
            Rule("--seed", "int", 0, minimum=0),
            Rule("--workers", "int", 0, minimum=0, maximum=1024, doc="0: one per core"),
        ),
        doc="--config NAME:key=value,... takes the policy options of meshsim run, "
        "held to their rules",
    )
)
WORKERS = OPTIONS.add(
    Section(
        "meshsim sweep and reproduce",
        (Rule("--workers", "int", None, minimum=1, maximum=1024),),
    )
)
PLOT = OPTIONS.add(
    Section(
        "meshsim plot",
        (
            Rule(
                "--kind",
                "str list",
                None,
                choices=(
                    "load",
                    "util-slowdown",
                    "wait-cdf",
                    "capacity",
                    "recorded-scatter",
                    "recorded-queues",
                ),
                doc="recorded-* of a result JSON of meshsim run, the others of a results folder",
            ),
            Rule("--format", "str", "png", choices=("png", "svg")),
            Rule("--width", "int", 78, minimum=20, maximum=1000),
            Rule("--at", "float", None, doc="a value of the load key"),
        ),
    )
)


SPELLED = {"log_format": "--from"}
"""Parameters whose flag is not their name with dashes."""


def flag(field: str) -> str:
    """The command-line spelling of a parameter name: ``load_factor`` is ``--load-factor``,
    ``log_format`` is ``--from``."""
    return SPELLED.get(field, "--" + field.replace("_", "-"))


def run_option_rule(field: str) -> Rule:
    """The rule of the run option whose parameter name is ``field``."""
    return RUN.rule(flag(field))


def check_options(section: Section, values: Mapping[str, Any]) -> None:
    """Hold each given value (``None``: not given) to the rule of its flag in ``section``."""
    for key, value in values.items():
        if value is not None:
            check_value(section.rule(key), value, key)


def check_run_options(options: RunOptions, name: Callable[[str], str] = flag) -> None:
    """Hold every field of ``options`` to its rule in :data:`RUN`; ``name`` says how a message names
    a field (the flag, or a scenario file's key)."""
    for f in fields(options):
        value = getattr(options, f.name)
        if value is not None:
            check_value(run_option_rule(f.name), value, name(f.name))


COMMAND_OPTIONS = {"run": RUN, "contention": CONTENTION}
"""The option rules of the commands a sweep case can be."""


def command_rule(command: str, key: str) -> Rule | None:
    """The rule of option ``--KEY`` of ``meshsim COMMAND`` (None when there is none)."""
    section = COMMAND_OPTIONS.get(command)
    flag = "--" + key
    return section.rule(flag) if section is not None and flag in section.key_list() else None
