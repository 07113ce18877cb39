"""What a case needs that this meshsim or this machine lacks: a command, an option, a policy or
machine name, a workload generator, a trace or a file.

``meshsim sweep`` turns the first need into an error (the message a run would give); ``meshsim
reproduce`` reports every distinct need ("needs allocator 'mpl' (not available)") and runs only the
cases that need nothing."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from meshsim.engine.allocation.allocator import ALLOCATORS
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.registry import Registry
from meshsim.engine.scheduling.backfill import BACKFILLS
from meshsim.engine.scheduling.disciplines import DISCIPLINES
from meshsim.engine.scheduling.orders import QUEUE_ORDERS
from meshsim.engine.tools.experiments.options import (
    TRACE_PREFIX,
    OptionSchema,
    is_file_value,
    resolve_file,
)
from meshsim.engine.tools.experiments.runners import RUNNERS
from meshsim.engine.tools.experiments.spec import WORKLOAD_PREFIX
from meshsim.engine.topology.machines import bundled_machines
from meshsim.engine.workloads.generators import GENERATORS
from meshsim.engine.workloads.tracepath import find_trace, trace_dirs

NAMED_OPTIONS: dict[str, dict[str, Registry[Any]]] = {
    "run": {
        "queue": QUEUE_ORDERS,
        "discipline": DISCIPLINES,
        "backfill": BACKFILLS,
        "alloc": ALLOCATORS,
    }
}
"""Options whose values are names in a registry, per command."""


@dataclass(frozen=True)
class Need:
    """Something a case needs: ``kind`` and ``name`` say what; ``error`` is the message a sweep
    stops with; ``hint`` says how to get it (for traces)."""

    kind: str
    name: str
    error: str
    hint: str = ""

    def __str__(self) -> str:
        if self.kind in ("trace", "file"):
            return (
                f"needs {self.kind} '{self.name}' (absent{': ' + self.hint if self.hint else ''})"
            )
        return f"needs {self.kind} '{self.name}' (not available)"


def case_needs(
    values: Mapping[str, Any],
    command: str,
    schema: OptionSchema | None,
    folder: Path,
    trace_hints: Mapping[str, str] | None = None,
) -> list[Need]:
    """Every need of one case (values as written in a spec in ``folder``), in key order."""
    if schema is None or command not in RUNNERS:
        message = f"meshsim has no command '{command}' that sweeps can run"
        return [Need("command", command, message)]
    needs: list[Need] = []
    named = NAMED_OPTIONS.get(command, {})
    for key, value in values.items():
        if key.startswith(WORKLOAD_PREFIX):
            continue
        spec = schema.get(key)
        if spec is None:
            valid = ", ".join(schema.keys())
            message = f"'{key}' is not an option of meshsim {command} (options: {valid})"
            needs.append(Need(f"{command} option", f"--{key}", message))
            continue
        registry = named.get(spec.param)
        if registry is not None and isinstance(value, str) and value not in registry:
            needs.append(Need(registry.kind, value, _registry_error(registry, value)))
        elif is_file_value(spec, value):
            needs.extend(_file_needs(value, folder, trace_hints or {}))
        elif command == "run" and spec.param == "machine":
            needs.extend(_machine_needs(value))
    return needs


def _registry_error(registry: Registry[Any], name: str) -> str:
    try:
        registry.get(name)
    except MeshsimError as exc:
        return str(exc)
    return f"unknown {registry.kind} '{name}'"


def _machine_needs(name: str) -> list[Need]:
    if name.startswith("flat:") or name in bundled_machines():
        return []
    valid = ", ".join(bundled_machines())
    return [Need("machine", name, f"unknown machine '{name}' (valid: {valid}, flat:N)")]


def _file_needs(value: str, folder: Path, hints: Mapping[str, str]) -> list[Need]:
    if value.startswith(TRACE_PREFIX):
        name = value[len(TRACE_PREFIX) :]
        if find_trace(name) is None:
            places = ", ".join(str(d) for d in trace_dirs())
            hint = hints.get(name, "")
            where = f"put it in one of {places}, or add a folder with --traces or MESHSIM_TRACES"
            hint = f"{hint}; {where}" if hint else where
            return [Need("trace", name, f"trace '{name}' not found ({hint})", hint)]
        return []
    path = resolve_file(value, folder)
    if not path.is_file() and not path.is_dir():  # a folder: a PBS server's daily files
        return [Need("file", str(path), f"{path}: no such file")]
    if path.suffix == ".toml":
        kind = _workload_kind(path)
        if kind is not None and kind not in GENERATORS:
            return [Need("workload kind", kind, _registry_error(GENERATORS, kind))]
    return []


def _workload_kind(path: Path) -> str | None:
    """The generator a workload file names (None for other TOML files or unreadable ones, which the
    run itself reports)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return None
    table = data.get("workload")
    kind = table.get("kind") if isinstance(table, dict) else None
    return kind if isinstance(kind, str) else None
