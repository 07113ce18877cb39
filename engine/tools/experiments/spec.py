"""Sweep spec files and their expansion into cases.

A spec is TOML::

    [sweep]                        # optional settings command = "run"                # the meshsim
    command each case is (default "run") replications = 3               # shorthand for a last grid
    key seed = [1, 2, 3] replicate = "seed"             # the key replications vary (statistics pool
    over it) jobs = false                   # also keep each case's per-job CSV (for wait CDFs)
    results = "results/demo"       # default results folder, relative to this file baseline = {
    backfill = "none" }   # relative gains against these cases metrics = ["avg_wait_s", "avg_bsld"]
    # metrics shown in summaries

    [base]                         # options every case shares machine = "flat:128" workload =
    "trace:NASA-iPSC-1993-3.1-cln.swf"

    [grid]                         # each key a list; the sweep is their cartesian product backfill
    = ["none", "easy"] runtime-scale = [1.0, 1.5]

    [[variant]]                    # optional: explicit option sets, each crossed with the grid
    discipline = "window" window = 240

    [[exclude]]                    # optional: drop cases matching every key (a list = any of)
    backfill = "none" runtime-scale = [1.5]

Keys are the command's long option names. ``workload.KEY`` (quoted, or written as a
``[grid.workload]`` sub-table) overrides KEY of the workload file's ``[workload]`` table: the sweep
writes the changed workload file and runs the case on it, so generator parameters can be swept.

Order of cases: variants in file order (one empty variant when there are none), and within each the
grid's cartesian product with keys in file order, the last key varying fastest. A case's values are
base, then variant, then grid (later ones override earlier ones)."""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.toml_table import Table, load_toml
from meshsim.engine.validation.formats import SWEEP_SPEC
from meshsim.engine.validation.limits import CASES
from meshsim.engine.validation.rules import Rule, Section

WORKLOAD_PREFIX = "workload."
"""Spec keys that override a key of the workload file's ``[workload]`` table."""

DEFAULT_METRICS = ("avg_wait_s", "avg_bsld", "utilization", "loss_of_capacity")

ROOT = SWEEP_SPEC.add(
    Section(
        "top level",
        (
            Rule("sweep", "table", {}, doc="settings"),
            Rule("base", "table", {}, doc="options every case shares (one value each)"),
            Rule("grid", "table", {}, doc="option = non-empty list; the cartesian product"),
            Rule("variant", "tables", [], doc="explicit option sets, each crossed with the grid"),
            Rule("exclude", "tables", [], doc="drop cases matching every key (a list = any of)"),
        ),
    )
)
SETTINGS = SWEEP_SPEC.add(
    Section(
        "[sweep]",
        (
            Rule("command", "str", "run", doc="the meshsim command each case is"),
            Rule("replications", "int", None, minimum=1, maximum=100_000),
            Rule("replicate", "str", "seed", doc="the key replications vary"),
            Rule("jobs", "bool", False, doc="also keep each case's per-job CSV"),
            Rule("results", "str", None, doc="results folder, relative to the spec"),
            Rule("baseline", "table", {}, doc="option = value: relative gains against these"),
            Rule("metrics", "str list", list(DEFAULT_METRICS)),
        ),
    )
)


@dataclass(frozen=True)
class Settings:
    """The ``[sweep]`` table."""

    command: str = "run"
    replicate: str = "seed"
    jobs: bool = False
    results: Path | None = None
    baseline: tuple[tuple[str, Any], ...] = ()
    metrics: tuple[str, ...] = DEFAULT_METRICS


@dataclass(frozen=True)
class SweepSpec:
    """A spec file as written: settings, base values, grid axes, variants and exclusions."""

    source: Path
    settings: Settings
    base: dict[str, Any]
    grid: tuple[tuple[str, tuple[Any, ...]], ...]
    variants: tuple[dict[str, Any], ...]
    excludes: tuple[dict[str, tuple[Any, ...]], ...]

    @property
    def folder(self) -> Path:
        return self.source.parent


@dataclass(frozen=True)
class CaseValues:
    """One case as written in the spec: its values by key (in spec order) and its stable id."""

    case_id: str
    values: tuple[tuple[str, Any], ...]

    def as_dict(self) -> dict[str, Any]:
        return dict(self.values)


def load_spec(path: Path, root: Table | None = None) -> SweepSpec:
    """Read and check the structure of a spec file (option names are checked when planning)."""
    root = (root or load_toml(path, ROOT)).follow(ROOT)
    root.reject_unknown()
    sweep = root.table("sweep", SETTINGS)
    sweep.reject_unknown()
    replications = sweep.get("replications")
    baseline = sweep.table("baseline")
    settings = Settings(
        command=sweep.get("command"),
        replicate=_key(sweep.get("replicate")),
        jobs=sweep.get("jobs"),
        results=_path(sweep.get("results"), path.parent),
        baseline=tuple((_key(k), _scalar(baseline, k)) for k in baseline),
        metrics=tuple(sweep.get("metrics")),
    )
    base = _values(root.table("base"), lists=False)
    grid_table = root.table("grid")
    grid = [(k, tuple(v)) for k, v in _values(grid_table, lists=True).items()]
    if replications is not None:
        if any(k == settings.replicate for k, _ in grid):
            raise sweep.error("replications", f"grid already lists '{settings.replicate}'")
        grid.append((settings.replicate, tuple(range(1, replications + 1))))
    variants = tuple(_values(t, lists=False) for t in root.tables("variant"))
    excludes = tuple(
        {k: tuple(v) if isinstance(v, list) else (v,) for k, v in _values(t, lists=None).items()}
        for t in root.tables("exclude")
    )
    spec = SweepSpec(path, settings, base, tuple(grid), variants, excludes)
    check_baseline(spec, f"{path} key 'sweep.baseline'")
    return spec


def check_baseline(spec: SweepSpec, where: str) -> None:
    """Every key of the baseline must be a key the spec sets (else no case could match it)."""
    keys = {*spec.base, *(k for k, _ in spec.grid), *(k for v in spec.variants for k in v)}
    for key, _ in spec.settings.baseline:
        if key not in keys:
            raise MeshsimError(
                f"{where}: '{key}' is not a key of this sweep ({', '.join(sorted(keys))})"
            )


def expand(spec: SweepSpec) -> list[CaseValues]:
    """Every case of the spec, in the documented order, exclusions removed. A spec whose grid and
    variants make more cases than the case limit is refused before any is made."""
    keys = [k for k, _ in spec.grid]
    axes = [values for _, values in spec.grid]
    CASES.check(len(spec.variants or ({},)) * math.prod(len(a) for a in axes), str(spec.source))
    cases: list[CaseValues] = []
    seen: dict[str, int] = {}
    for variant in spec.variants or ({},):
        for point in itertools.product(*axes):
            values = {**spec.base, **variant, **dict(zip(keys, point, strict=True))}
            if any(_matches(values, ex) for ex in spec.excludes):
                continue
            case = CaseValues(case_id(spec.settings.command, values), tuple(values.items()))
            if case.case_id in seen:
                raise MeshsimError(
                    f"{spec.source}: cases {seen[case.case_id] + 1} and {len(cases) + 1} "
                    f"are the same case ({_show(values)})"
                )
            seen[case.case_id] = len(cases)
            cases.append(case)
    if not cases:
        raise MeshsimError(f"{spec.source}: the spec has no cases (all excluded?)")
    return cases


def varying_keys(cases: list[CaseValues]) -> list[str]:
    """Keys whose value differs between cases (or is missing from some), in first-seen order:
    the columns that tell cases apart in tables."""
    order: dict[str, None] = {}
    for case in cases:
        for key, _ in case.values:
            order.setdefault(key, None)
    first = cases[0].as_dict()
    missing = object()
    return [
        key
        for key in order
        if any(c.as_dict().get(key, missing) != first.get(key, missing) for c in cases)
    ]


def case_id(command: str, values: dict[str, Any]) -> str:
    """A stable id from the command and the values as written (16 hex digits)."""
    text = json.dumps([command, sorted(values.items())], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _matches(values: dict[str, Any], exclude: dict[str, tuple[Any, ...]]) -> bool:
    return all(k in values and _same_in(values[k], v) for k, v in exclude.items())


def _same_in(value: Any, choices: tuple[Any, ...]) -> bool:
    """Membership with TOML's types kept apart (``true`` is not ``1``; ``2`` matches ``2.0``)."""
    return any(type(value) is type(c) or _numbers(value, c) for c in choices if value == c)


def _numbers(a: Any, b: Any) -> bool:
    return all(isinstance(x, int | float) and not isinstance(x, bool) for x in (a, b))


def _values(table: Table, *, lists: bool | None) -> dict[str, Any]:
    """The table's keys (normalized) and values; a ``workload`` sub-table becomes ``workload.KEY``
    keys. ``lists``: True requires non-empty lists, False scalars, None either."""
    out: dict[str, Any] = {}
    for name in table:
        value = table.data[name]
        if isinstance(value, dict) and _key(name) == "workload":
            sub = table.table(name)
            items = [(WORKLOAD_PREFIX + k, v, sub, k) for k, v in sub.data.items()]
        else:
            items = [(_key(name), value, table, name)]
        for key, item, where, raw_name in items:
            if key in out:
                raise where.error(raw_name, "is given twice")
            if lists is True and (not isinstance(item, list) or not item):
                raise where.error(raw_name, f"expected a non-empty list, got {item!r}")
            if lists is False and isinstance(item, list) and not key.startswith(WORKLOAD_PREFIX):
                raise where.error(raw_name, "expected one value (lists belong in [grid])")
            out[key] = item
    return out


def _scalar(table: Table, name: str) -> Any:
    value = table.data[name]
    if isinstance(value, list | dict):
        raise table.error(name, f"expected one value, got {value!r}")
    return value


def _key(name: str) -> str:
    """Spec keys are long option names: ``load_factor`` and ``load-factor`` are one key."""
    if name.startswith(WORKLOAD_PREFIX):
        return name
    return name.replace("_", "-")


def _path(value: str | None, base: Path) -> Path | None:
    if value is None:
        return None
    path = Path(value).expanduser()
    return path if path.is_absolute() else base / path


def _show(values: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items())
