"""From cases as written to tasks a worker can run: option names checked against the command, values
type-checked, files resolved and hashed, workload overrides written out.

A :class:`Task` is self-contained and picklable (it crosses process and machine boundaries): the
command, the options by parameter name with absolute file paths, and the hash of every file it
reads, which the worker checks before running (a worker that sees other bytes at a path fails the
case instead of computing something else)."""

from __future__ import annotations

import hashlib
import json
import math
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.tools.experiments.availability import case_needs
from meshsim.engine.tools.experiments.hashing import FileHasher, input_hash
from meshsim.engine.tools.experiments.options import (
    OptionSchema,
    check_kind,
    is_file_value,
    resolve_file,
)
from meshsim.engine.tools.experiments.runners import RUNNERS
from meshsim.engine.tools.experiments.spec import WORKLOAD_PREFIX, CaseValues, SweepSpec
from meshsim.engine.validation.options import command_rule
from meshsim.engine.validation.rules import check_value
from meshsim.engine.writing import write_file


@dataclass(frozen=True)
class Task:
    """One case ready to run anywhere."""

    case_id: str
    command: str
    options: tuple[tuple[str, Any], ...]
    files: tuple[tuple[str, str], ...]
    jobs: bool


@dataclass(frozen=True)
class PlannedCase:
    """A case as written, the task that runs it, and the hash of its inputs."""

    values: CaseValues
    task: Task
    input_hash: str


def plan_cases(
    spec: SweepSpec, cases: list[CaseValues], schema: OptionSchema, workloads: Path
) -> list[PlannedCase]:
    """Check and resolve every case; derived workload files go to the folder ``workloads``. The
    first problem (an unknown option or name, a missing file) is a :class:`MeshsimError`."""
    hasher = FileHasher()
    planned = []
    for case in cases:
        values = case.as_dict()
        needs = case_needs(values, spec.settings.command, schema, spec.folder)
        if needs:
            raise MeshsimError(f"{spec.source}: {needs[0].error}")
        planned.append(_plan_one(spec, case, schema, workloads, hasher))
    return planned


def _plan_one(
    spec: SweepSpec, case: CaseValues, schema: OptionSchema, workloads: Path, hasher: FileHasher
) -> PlannedCase:
    options: dict[str, Any] = {}
    file_params: list[str] = []
    overrides: dict[str, Any] = {}
    for key, value in case.values:
        if key.startswith(WORKLOAD_PREFIX):
            overrides[key[len(WORKLOAD_PREFIX) :]] = value
            continue
        option = schema.get(key)
        assert option is not None  # case_needs reported unknown options
        value = check_kind(option, value, f"{spec.source} key '{key}'")
        rule = command_rule(spec.settings.command, option.key)
        if rule is not None:
            value = check_value(rule, value, f"{spec.source} key '{key}'")
        if is_file_value(option, value):
            value = str(resolve_file(value, spec.folder))
            file_params.append(option.param)
        options[option.param] = value
    if overrides:
        options["workload"] = str(
            _derived_workload(spec, options.get("workload"), overrides, workloads)
        )
        if "workload" not in file_params:
            file_params.append("workload")
    runner = RUNNERS.get(spec.settings.command)
    files = [(options[p], hasher(Path(options[p]))) for p in file_params]
    extra = [(str(p), hasher(p)) for p in runner.input_files(options)]
    hashed = {
        k: (f"sha256:{hasher(Path(v))}" if k in file_params else v) for k, v in options.items()
    }
    digest = input_hash(spec.settings.command, hashed, [h for _, h in extra])
    task = Task(
        case.case_id,
        spec.settings.command,
        tuple(options.items()),
        tuple(files + extra),
        spec.settings.jobs,
    )
    return PlannedCase(case, task, digest)


def _derived_workload(
    spec: SweepSpec, workload: str | None, overrides: dict[str, Any], folder: Path
) -> Path:
    """The workload file with ``overrides`` applied to its ``[workload]`` table, written once under
    ``folder`` with a content-derived name."""
    if workload is None or not workload.endswith(".toml"):
        keys = ", ".join(WORKLOAD_PREFIX + k for k in overrides)
        raise MeshsimError(f"{spec.source}: {keys} needs a workload .toml file as 'workload'")
    try:
        data = tomllib.loads(Path(workload).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise MeshsimError(f"{workload}: cannot read as TOML ({exc})") from None
    table = dict(data.get("workload", {}))
    table.update(overrides)
    changes = ", ".join(f"{k} = {toml_value(v)}" for k, v in overrides.items())
    lines = [f"# {Path(workload).name} with {changes} (written by meshsim sweep)", "[workload]"]
    lines += [f"{toml_key(k)} = {toml_value(v)}" for k, v in table.items()]
    text = "\n".join(lines) + "\n"
    name = f"{Path(workload).stem}-{hashlib.sha256(text.encode()).hexdigest()[:12]}.toml"
    path = folder / name
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        write_file(path, text)
    return path


_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def toml_key(key: str) -> str:
    """A TOML key: bare when it can be, else a quoted string."""
    return key if _BARE.match(key) else json.dumps(key)


def toml_value(value: Any) -> str:
    """A TOML value for strings, booleans, numbers, arrays and inline tables."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise MeshsimError(f"cannot write {value!r} as a TOML value")
