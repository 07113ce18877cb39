"""The options a sweep case may set, how their values are checked, and which values are files.

A case is an ordinary command (``meshsim run``), so the keys of a sweep spec are that command's long
option names without the dashes (``load-factor``, ``procs-per-unit``); ``load_factor`` is accepted
as the same key. The front end builds the :class:`OptionSchema` by introspecting the command's
parameters, so an option added to ``meshsim run`` is accepted by sweeps with no change here.

**Which values are files** (resolved relative to the spec file, and hashed by content):

- every value of an option whose parameter is declared as a path;
- a string value that contains a ``/`` or ends with one of :data:`FILE_SUFFIXES`, unless the option
  is one of :data:`NAMES_WITH_SLASHES` (so ``workload =
  "uniform.toml"`` and ``workload = "sacct.txt"`` are files but ``machine = "mesh32"`` and
  ``machine = "flat:128"`` are names; a log named otherwise is written with a folder,
  ``"./20240301"``);
- ``trace:NAME``: the trace file NAME looked up in :mod:`meshsim.engine.workloads.tracepath` (real
  traces are never copied into the project, so specs name them this way).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.workloads.tracepath import TRACE_PREFIX, require_trace

FILE_SUFFIXES = (".toml", ".swf", ".gz", ".json", ".jsonl", ".csv", ".txt", ".log")
NAMES_WITH_SLASHES = frozenset({"tz"})
"""Options whose values are names that may hold a ``/`` and are never files (``tz =
"America/Chicago"``)."""
KINDS = ("str", "int", "float", "bool", "path")


@dataclass(frozen=True)
class OptionSpec:
    """One option of a command: its spec key (long name), parameter name, value kind, default."""

    key: str
    param: str
    kind: str
    default: Any


@dataclass(frozen=True)
class OptionSchema:
    """The options a case of ``command`` may set, in the command's order."""

    command: str
    options: tuple[OptionSpec, ...]

    def get(self, key: str) -> OptionSpec | None:
        """The option named ``key`` (dashes or underscores), or None."""
        wanted = key.replace("_", "-")
        for spec in self.options:
            if spec.key == wanted:
                return spec
        return None

    def keys(self) -> list[str]:
        return [spec.key for spec in self.options]

    def __iter__(self) -> Iterator[OptionSpec]:
        return iter(self.options)


def check_kind(spec: OptionSpec, value: Any, where: str) -> Any:
    """``value`` (as TOML gave it) checked against the option's kind; ints are accepted as floats.
    ``where`` names the file and key for the error message."""
    ok = {
        "str": isinstance(value, str),
        "path": isinstance(value, str),
        "bool": isinstance(value, bool),
        "int": isinstance(value, int) and not isinstance(value, bool),
        "float": isinstance(value, int | float) and not isinstance(value, bool),
    }[spec.kind]
    if not ok:
        expected = {"str": "a string", "path": "a file path", "bool": "true or false"}
        wanted = expected.get(spec.kind, "an integer" if spec.kind == "int" else "a number")
        raise MeshsimError(f"{where}: expected {wanted}, got {value!r}")
    return float(value) if spec.kind == "float" else value


def is_file_value(spec: OptionSpec, value: Any) -> bool:
    """Whether ``value`` of option ``spec`` names a file (rule in the module docstring)."""
    if not isinstance(value, str) or spec.key in NAMES_WITH_SLASHES:
        return False
    if spec.kind == "path" or value.startswith(TRACE_PREFIX):
        return True
    return "/" in value or value.endswith(FILE_SUFFIXES)


def resolve_file(value: str, base: Path) -> Path:
    """The file ``value`` names: ``trace:NAME`` through
    :func:`~meshsim.engine.workloads.tracepath.require_trace`, ``~`` expanded, and a relative path
    taken relative to ``base`` (the spec file's folder)."""
    if value.startswith(TRACE_PREFIX):
        name = value[len(TRACE_PREFIX) :]
        return require_trace(name)
    path = Path(value).expanduser()
    return path if path.is_absolute() else Path(os.path.normpath(base / path))
