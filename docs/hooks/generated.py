"""MkDocs hook: fills each ``<!-- generated: NAME -->`` line of a page with a table generated from
meshsim itself, so the reference pages cannot drift from the code.

The tables and where they come from:

- ``run-options``: :class:`~meshsim.engine.tools.runcase.RunOptions` (names, types, defaults), the
  help of ``meshsim run``'s options (meaning, ranges) and the registries (valid names).
- ``result-json``: the result JSON of a small run on the bundled excerpt (keys, JSON types).
- ``actions``: the fields of each registered operator action.
- ``scenario``, ``machine-toml``, ``workload-toml``, ``sweep-spec``: every key of the format, from
  the rules the validators read (:mod:`meshsim.engine.validation.formats`): type, default, range
  or valid names, section.
- ``console-keys``: the console's key bindings.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import MISSING, fields
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


# ---------------------------------------------------------------------- file formats


def _prefix(section: str) -> str:
    """How a section's keys are written dotted: ``[[nqs.queues]]`` holds ``nqs.queues[].KEY``,
    ``[topology] mesh`` holds ``topology.KEY``, a scenario's ``options`` ``options.KEY``."""
    if section.startswith("[["):
        return section[2 : section.index("]]")] + "[]."
    if section.startswith("["):
        return section[1 : section.index("]")] + "."
    if section == "options":
        return "options."
    return ""


def rules_table(name: str, skip: tuple[str, ...] = ()) -> str:
    """Every key of format ``name`` as the validators read it
    (:func:`meshsim.engine.validation.formats.formats`): the same rules, so the page cannot drift
    from what is checked. Sections named in ``skip`` are left out."""
    from meshsim.engine.validation.formats import formats

    (chosen,) = [f for f in formats() if f.name == name]
    rows = []
    listed = {r.key for s in chosen.sections if s.name.startswith("top level") for r in s.rules}
    for section in chosen.sections:
        if section.name in skip:
            continue
        if section.name.startswith("[") and not section.name.startswith("[["):
            table_name = section.name[1 : section.name.index("]")]
            if "." not in table_name and table_name not in listed:
                listed.add(table_name)
                rows.append((code(table_name), "table", "", "", section.name, section.doc))
        for rule in section.rules:
            d = rule.describe()
            allowed = d["range"] or (("one of " + ", ".join(d["names"])) if d["names"] else "")
            default = d["default"]
            shown = (
                "required" if default == "required" else ("" if default is None else repr(default))
            )
            rows.append(
                (
                    code(_prefix(section.name) + rule.key),
                    d["type"],
                    shown,
                    allowed,
                    section.name,
                    d["doc"] or "",
                )
            )
    return table(("key", "type", "default", "allowed", "section", "note"), rows)


# ---------------------------------------------------------------------- console keys


def console_keys() -> str:
    from meshsim.tui.app import MeshsimApp
    from meshsim.tui.keys import key_sections

    rows = []
    for section in key_sections(MeshsimApp.BINDINGS):
        rows.append(("", f"**{section.title}**", ""))
        for key in section.keys:
            rows.append((", ".join(code(k) for k in key.display.split(", ")), key.action, key.does))
    return table(("key", "action", "what it does"), rows)


TABLES: dict[str, Callable[[], str]] = {
    "run-options": run_options,
    "result-json": result_json,
    "scenario": lambda: rules_table("scenario file", skip=("options",)),
    "actions": actions,
    "machine-toml": lambda: rules_table("machine file"),
    "workload-toml": lambda: rules_table("workload file"),
    "sweep-spec": lambda: rules_table("sweep spec") + "\n\n" + rules_table("experiment file"),
    "console-keys": console_keys,
}
"""Every table a page may ask for, by marker name."""
