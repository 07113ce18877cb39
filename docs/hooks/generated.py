"""MkDocs hook: fills each ``<!-- generated: NAME -->`` line of a page with a table generated from
meshsim itself, so the reference pages cannot drift from the code.

The tables and where they come from:

- ``run-options``: :class:`~meshsim.engine.tools.runcase.RunOptions` (names, types, defaults), the
  help of ``meshsim run``'s options (meaning, ranges) and the registries (valid names).
- ``result-json``: the result JSON of a small run on the bundled excerpt (keys, JSON types).
- ``scenario`` and ``actions``: the keys :mod:`meshsim.engine.tools.scenario` reads and the fields
  of each registered operator action.
- ``machine-toml``, ``workload-toml``, ``sweep-spec``: every key the loaders read, recorded while
  they load every bundled machine, workload and experiment spec through
  :class:`~meshsim.engine.core.toml_table.Table` (type, default, allowed names, minimum, files).
- ``console-keys``: the console's key bindings.

The format rules are recorded from the loaders until they are data of their own (issue 19); then
:func:`toml_keys` reads those rules instead, and nothing else here changes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import MISSING, fields
from functools import partial
from pathlib import Path
from typing import Any

GENERATED = re.compile(r"^<!-- generated: (?P<name>[\w-]+) -->$", re.M)


def on_page_markdown(markdown: str, **_: Any) -> str:
    """MkDocs event: replace every marker with its table (an unknown name stops the build)."""

    def fill(match: re.Match[str]) -> str:
        name = match["name"]
        if name not in TABLES:
            raise ValueError(f"unknown generated table {name!r} (known: {', '.join(TABLES)})")
        return TABLES[name]()

    return GENERATED.sub(fill, markdown)


def table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    """A Markdown table."""

    def cell(text: str) -> str:
        return str(text).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def code(text: Any) -> str:
    return f"`{text}`"


# ---------------------------------------------------------------------- run options


def _registries() -> dict[str, Any]:
    from meshsim.engine.allocation.allocator import ALLOCATORS
    from meshsim.engine.families.contention.traffic import COMM_PATTERNS, IO_TRAFFIC
    from meshsim.engine.kernel.runtime_models import RUNTIME_MODELS
    from meshsim.engine.scheduling.backfill import BACKFILLS
    from meshsim.engine.scheduling.disciplines import DISCIPLINES
    from meshsim.engine.scheduling.orders import QUEUE_ORDERS
    from meshsim.engine.workloads.shapes import SHAPE_RULES

    return {
        "queue": QUEUE_ORDERS,
        "discipline": DISCIPLINES,
        "backfill": BACKFILLS,
        "alloc": ALLOCATORS,
        "shape": SHAPE_RULES,
        "runtime_model": RUNTIME_MODELS,
        "pattern": COMM_PATTERNS,
        "io_traffic": IO_TRAFFIC,
    }


def _run_parameters() -> dict[str, Any]:
    """``meshsim run``'s Click parameters by name."""
    import typer

    from meshsim.cli.main import build_app

    group = typer.main.get_command(build_app(["run"]))
    return {p.name: p for p in group.commands["run"].params}  # type: ignore[attr-defined]


def _range(parameter: Any) -> str:
    low, high = parameter.min, parameter.max
    if low is None and high is None:
        return ""
    return f"{'' if low is None else low} … {'' if high is None else high}".strip()


def run_options() -> str:
    from meshsim.engine.tools.runcase import RunOptions

    parameters = _run_parameters()
    registries = _registries()
    rows = []
    for f in fields(RunOptions):
        parameter = parameters[f.name]
        option = max(parameter.opts, key=len)
        names = registries.get(f.name)
        allowed = ", ".join(names.names()) if names is not None else _range(parameter)
        default = "" if f.default is None or f.default is MISSING else code(f.default)
        kind = str(f.type).replace(" | None", "")
        meaning = (parameter.help or "").rsplit(": ", 1)[0] if names is not None else parameter.help
        rows.append(
            (
                code(option),
                code(option.removeprefix("--")),
                code(f.name),
                kind,
                default or "—",
                allowed,
                meaning or "",
            )
        )
    header = ("option", "sweep key", "scenario key", "type", "default", "names / range", "meaning")
    return table(header, rows)


# ---------------------------------------------------------------------- result JSON


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


EXAMPLE_RUN = {
    "machine": "flat:128",
    "workload": "meshsim.traces:nasa-ipsc-1000.swf",
    "backfill": "easy",
}
"""The run whose result JSON the ``result-json`` table shows."""


def _example(value: Any) -> str:
    if isinstance(value, float):
        value = float(f"{value:.4g}")
    return code(json.dumps(value))


def result_json() -> str:
    from meshsim.engine.tools.runcase import RunOptions, run_case

    document = run_case(RunOptions(**EXAMPLE_RUN)).document
    rows = []
    for key, value in document.items():
        nested = isinstance(value, dict) and key != "by_size_class" and key != "by_queue"
        rows.append((code(key), _json_type(value), "" if nested else _example(value)[:80]))
        if nested:
            for inner, item in value.items():
                rows.append((code(f"{key}.{inner}"), _json_type(item), _example(item)))
    header = ("key", "JSON type", "on flat:128, the bundled excerpt, EASY")
    return table(header, rows)


# ---------------------------------------------------------------------- scenario files


def scenario() -> str:
    from meshsim.engine.tools.scenario import _KEYS, SCHEMA

    meaning = {
        "schema": f"always {code(SCHEMA)}",
        "name": "a name for the scenario (string)",
        "options": "the run options that differ from their defaults, by scenario key (above)",
        "position": "the event number the console was at (integer ≥ 0)",
        "actions": "the action log: objects with an `action` name, its fields and `after_event`",
    }
    return table(("key", "holds"), [(code(k), meaning[k]) for k in _KEYS])


def actions() -> str:
    from meshsim.engine.kernel.actions import ACTIONS

    rows = []
    for name in ACTIONS.names():
        cls = ACTIONS.get(name)
        described = []
        for f in fields(cls):
            default = "" if f.default is MISSING else f" = {f.default!r}"
            described.append(f"{f.name}: {str(f.type).replace(' ', '')}{default}")
        doc = (cls.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
        rows.append((code(name), ", ".join(code(d) for d in described), doc))
    return table(("action", "fields", "does"), rows)


# ---------------------------------------------------------------------- TOML files


class _Key:
    """What a loader asked for one key, over every file it read."""

    def __init__(self) -> None:
        self.kinds: set[str] = set()
        self.defaults: set[str] = set()
        self.limits: set[str] = set()
        self.files: set[str] = set()


@contextmanager
def _recording(keys: dict[str, _Key]) -> Iterator[None]:
    """Record every typed read through :class:`Table` while the block runs."""
    from meshsim.engine.core import toml_table

    cls = toml_table.Table
    kinds = {
        "str": "string",
        "int": "integer",
        "float": "number",
        "bool": "boolean",
        "int_list": "list of integers",
        "float_list": "list of numbers",
        "str_list": "list of strings",
        "raw": "any",
        "table": "table",
        "tables": "array of tables",
    }
    originals = {name: getattr(cls, name) for name in kinds}

    def wrap(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def recorded(self: Any, key: str, *args: Any, **kwargs: Any) -> Any:
            dotted = re.sub(r"\[\d+\]", "[]", self.key(key))
            entry = keys.setdefault(dotted, _Key())
            entry.kinds.add(kinds[name])
            entry.files.add(Path(self.source).name)
            default = args[0] if args else kwargs.get("default", toml_table._MISSING)
            if name in ("table", "tables"):
                default = toml_table._MISSING if kwargs.get("required") else "empty"
            if default is toml_table._MISSING:
                entry.defaults.add("required")
            elif default is None or default == "empty":
                entry.defaults.add("optional")
            else:
                entry.defaults.add(repr(default))
            if kwargs.get("choices"):
                entry.limits.add("one of " + ", ".join(kwargs["choices"]))
            if kwargs.get("minimum") is not None:
                entry.limits.add(f"≥ {kwargs['minimum']}")
            return original(self, key, *args, **kwargs)

        return recorded

    for name, original in originals.items():
        setattr(cls, name, wrap(name, original))
    try:
        yield
    finally:
        for name, original in originals.items():
            setattr(cls, name, original)


def toml_keys(reads: list[Callable[[], Any]], options_in: tuple[str, ...] = ()) -> str:
    """The keys the ``reads`` read (each loads one file), as a table; the keys inside the tables
    ``options_in`` are run options (their own table) and are left out."""
    keys: dict[str, _Key] = {}
    with _recording(keys):
        for read in reads:
            read()
    rows = []
    for dotted in sorted(keys):
        if dotted.startswith(tuple(f"{name}." for name in options_in)):
            continue
        k = keys[dotted]
        files = sorted(k.files)
        shown = ", ".join(files[:4]) + (f" and {len(files) - 4} more" if len(files) > 4 else "")
        rows.append(
            (
                code(dotted),
                " or ".join(sorted(k.kinds)),
                " / ".join(sorted(k.defaults)),
                "; ".join(sorted(k.limits)),
                shown,
            )
        )
    return table(("key", "type", "default", "allowed", "read in"), rows)


def _machine_reads() -> list[Callable[[], Any]]:
    from meshsim.engine.topology.machines import bundled_machines, load_machine

    return [partial(load_machine, name) for name in bundled_machines()]


WORKLOAD_MACHINES = {
    "intrepid-month.toml": "intrepid",
    "ipsc860-synthetic.toml": "ipsc860",
    "mache-io.toml": "paragon-io",
    "mesh32-decreasing.toml": "mesh32",
    "mesh32-uniform.toml": "mesh32",
    "paragon-sdsc-synthetic.toml": "paragon-sdsc",
    "mesh-sides-uniform-decreasing.toml": "mesh32",
    "mesh-sides-uniform.toml": "mesh32",
}
"""The machine each bundled workload file is generated on for the table (a bundled workload not
listed here stops the build, so none is left out)."""


def _workload_reads() -> list[Callable[[], Any]]:
    from meshsim.engine.core.bundled import bundled_folder
    from meshsim.engine.topology.machines import load_machine
    from meshsim.engine.workloads.generators import load_workload

    files = [
        *sorted(bundled_folder("meshsim.traces").glob("*.toml")),
        *sorted((bundled_folder("meshsim.experiments") / "workloads").glob("*.toml")),
    ]
    reads: list[Callable[[], Any]] = []
    for path in files:
        if path.name not in WORKLOAD_MACHINES:
            raise ValueError(f"{path.name}: add it to WORKLOAD_MACHINES in docs/hooks")
        reads.append(partial(load_workload, str(path), load_machine(WORKLOAD_MACHINES[path.name])))
    return reads


def _spec_reads() -> list[Callable[[], Any]]:
    from meshsim.engine.tools.experiments.reproduce import experiment_names, load_experiment

    return [partial(load_experiment, name) for name in experiment_names()]


# ---------------------------------------------------------------------- console keys


def console_keys() -> str:
    from meshsim.tui.app import MeshsimApp

    rows = []
    from textual.keys import format_key

    for binding in MeshsimApp.BINDINGS:
        keys = ", ".join(code(format_key(k)) for k in binding.key.split(","))  # type: ignore[union-attr]
        rows.append((keys, binding.description, binding.tooltip))  # type: ignore[union-attr]
    return table(("key", "action", "what it does"), rows)


TABLES: dict[str, Callable[[], str]] = {
    "run-options": run_options,
    "result-json": result_json,
    "scenario": scenario,
    "actions": actions,
    "machine-toml": lambda: toml_keys(_machine_reads()),
    "workload-toml": lambda: toml_keys(_workload_reads()),
    "sweep-spec": lambda: toml_keys(
        _spec_reads(),
        ("base", "grid", "variant[]", "exclude[]", "compare[].where", "sweep.baseline"),
    ),
    "console-keys": console_keys,
}
"""Every table a page may ask for, by marker name."""
