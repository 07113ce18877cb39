"""Named, versioned experiments: the seed papers' tables and figures as sweep specs with the paper's
numbers beside them (``meshsim reproduce NAME``).

An experiment file (``experiments/NAME.toml``) is a sweep spec plus::

    [experiment] name = "krevat2002-fig1"           # the name `meshsim reproduce` takes version = 1
                           # bumped whenever the spec changes what it computes
    title = "..." source = "seed 002 §3, Fig. 1"     # where the paper's numbers are notes = "..."
                       # how this setup differs from the paper's, and why
    [experiment.traces]                # how to get each trace:NAME the spec reads
    "NASA-iPSC-1993-3.1-cln.swf" = "Parallel Workloads Archive, NASA-iPSC-1993-3.1-cln"

    [[compare]]                        # one number of the paper and how to compute ours label =
    "FCFS on the torus" where = { machine = "bgl", backfill = "none" }   # which configurations (a
    list = any of) statistic = "max"                  # see STATISTICS metric = "utilization" scale
    = 100                        # ours × scale is in the paper's unit unit = "%" paper = 77.0
                    # omitted when the paper states no number
    relation = "≈"                     # how the paper states it: "≈", ">", "<", ... below = {
    avg_bsld = 100 }         # max/min: only configurations whose means stay below threshold = 0.05
                     # fraction-above: gains above this count
    by = ["alloc"]                     # max-mean-gain: mean gain per group, then the best group

Every statistic works on configuration means (the mean over replications of one configuration) or on
relative gains against the spec's ``[sweep] baseline``
(:mod:`meshsim.engine.tools.experiments.stats`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from meshsim.engine.core.bundled import bundled_folder
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.toml_table import UNREAD, Table, load_toml
from meshsim.engine.tools.experiments.spec import SweepSpec, load_spec
from meshsim.engine.tools.experiments.stats import aggregate, fraction_above, gains, group_key
from meshsim.engine.tools.experiments.tables import CaseRow
from meshsim.engine.validation.formats import EXPERIMENT_FILE
from meshsim.engine.validation.rules import Rule, Section, check_value

STATISTICS = {
    "value": "the mean of the one matching configuration",
    "max": "the largest configuration mean among the matching ones (subject to `below`)",
    "min": "the smallest configuration mean among the matching ones (subject to `below`)",
    "gain": "the mean relative gain of the matching cases over their baseline cases",
    "max-mean-gain": "the mean gain per group of `by` keys, then the largest of these means",
    "fraction-above": "the fraction of matching cases whose gain exceeds `threshold`",
}


ROOT = EXPERIMENT_FILE.add(
    Section(
        "top level",
        (
            Rule("experiment", "table"),
            Rule("compare", "tables", []),
        ),
        doc="plus the tables of a sweep spec (`[sweep]`, `[base]`, `[grid]`, ...)",
        open=True,
    )
)
HEAD = EXPERIMENT_FILE.add(
    Section(
        "[experiment]",
        (
            Rule("name", "str", doc="the name `meshsim reproduce` takes"),
            Rule(
                "version", "int", minimum=1, doc="bumped whenever the spec changes what it computes"
            ),
            Rule("title", "str"),
            Rule("source", "str", doc="where the paper's numbers are"),
            Rule("notes", "str", "", doc="how this setup differs from the paper's"),
            Rule("traces", "table", {}, doc="trace file name = how to get it (strings)"),
        ),
    )
)
COMPARE = EXPERIMENT_FILE.add(
    Section(
        "[[compare]]",
        (
            Rule("label", "str"),
            Rule("statistic", "str", choices=tuple(STATISTICS)),
            Rule("metric", "str", doc="a metric of the result JSON"),
            Rule("where", "table", {}, doc="option = value (a list = any of)"),
            Rule("paper", "float", None, doc="the paper's number, when it states one"),
            Rule("relation", "str", "≈"),
            Rule("scale", "float", 1.0, doc="ours × scale is in the paper's unit"),
            Rule("unit", "str", ""),
            Rule(
                "below",
                "table",
                {},
                doc="metric = bound (numbers): max/min only count "
                "configurations whose means stay below",
            ),
            Rule("threshold", "float", 0.0, doc="fraction-above: gains above this count"),
            Rule("by", "str list", [], doc="max-mean-gain: the keys of a group"),
            Rule("note", "str", ""),
        ),
    )
)
_TRACE = Rule("trace file name", "str")
_BOUND = Rule("metric", "float")


@dataclass(frozen=True)
class Comparison:
    """One number of the paper and the rule that computes ours (module docstring)."""

    label: str
    statistic: str
    metric: str
    where: dict[str, tuple[Any, ...]]
    paper: float | None = None
    relation: str = "≈"
    scale: float = 1.0
    unit: str = ""
    below: tuple[tuple[str, float], ...] = ()
    threshold: float = 0.0
    by: tuple[str, ...] = ()
    note: str = ""

    def matches(self, values: dict[str, Any]) -> bool:
        return all(k in values and values[k] in v for k, v in self.where.items())


@dataclass(frozen=True)
class Experiment:
    """A named, versioned experiment: its sweep spec, the paper's numbers and how to get traces."""

    name: str
    version: int
    title: str
    source: str
    notes: str
    traces: dict[str, str]
    spec: SweepSpec
    comparisons: tuple[Comparison, ...]

    @property
    def folder_name(self) -> str:
        return f"{self.name}-v{self.version}"


def experiments_dir() -> Path:
    """The bundled experiment files (``experiments/`` in the source tree)."""
    return bundled_folder("meshsim.experiments")


def experiment_names() -> list[str]:
    return sorted(p.stem for p in experiments_dir().glob("*.toml"))


def load_experiment(name_or_path: str) -> Experiment:
    """A bundled experiment by name, or an experiment file by path."""
    path = Path(name_or_path)
    if not (path.suffix == ".toml" and path.exists()):
        path = experiments_dir() / f"{name_or_path}.toml"
        if not path.exists():
            valid = ", ".join(experiment_names())
            raise MeshsimError(f"unknown experiment '{name_or_path}' (valid: {valid})")
    root = load_toml(path, ROOT)
    head = root.table("experiment", HEAD)
    head.reject_unknown()
    traces = head.table("traces")
    return Experiment(
        name=head.get("name"),
        version=head.get("version"),
        title=head.get("title"),
        source=head.get("source"),
        notes=head.get("notes"),
        traces={k: check_value(_TRACE, v, traces.where(k)) for k, v in traces.data.items()},
        spec=load_spec(path, _without(root, ("experiment", "compare"))),
        comparisons=tuple(_comparison(t) for t in root.tables("compare", COMPARE)),
    )


def _option_key(key: str) -> str:
    """A run option's long name (``load_factor`` is ``load-factor``); ``workload.KEY`` keys name
    generator parameters and keep their spelling."""
    return key if key.startswith("workload.") else key.replace("_", "-")


def _without(root: Table, names: Sequence[str]) -> Table:
    """The file's tables minus the experiment's own (what remains is the sweep spec)."""
    data = {k: v for k, v in root.data.items() if k not in names}
    return Table(data, root.source, "", UNREAD)


def _comparison(t: Table) -> Comparison:
    t.reject_unknown()
    where = t.table("where")
    below = t.table("below")
    return Comparison(
        label=t.get("label"),
        statistic=t.get("statistic"),
        metric=t.get("metric"),
        where={
            _option_key(k): tuple(v) if isinstance(v, list) else (v,) for k, v in where.data.items()
        },
        paper=t.get("paper"),
        relation=t.get("relation"),
        scale=t.get("scale"),
        unit=t.get("unit"),
        below=tuple((k, check_value(_BOUND, v, below.where(k))) for k, v in below.data.items()),
        threshold=t.get("threshold"),
        by=tuple(k.replace("_", "-") for k in t.get("by")),
        note=t.get("note"),
    )


def evaluate(
    comparison: Comparison, manifest: dict[str, Any], rows: Sequence[CaseRow]
) -> float | None:
    """Our number for ``comparison`` (already × scale), or None when no finished case matches."""
    keys = [k for k in manifest["keys"] if k != manifest["replicate"]]
    c = comparison
    if c.statistic in ("value", "max", "min"):
        metrics = [c.metric, *(m for m, _ in c.below)]
        means = [
            (config, {m: e.mean for m, e in est.items()})
            for config, est in aggregate(rows, keys, metrics)
            if c.matches(_full(config, rows, keys))
        ]
        means = [(cfg, m) for cfg, m in means if all(m[k] < bound for k, bound in c.below)]
        values = [m[c.metric] for _, m in means if not math.isnan(m[c.metric])]
        if not values:
            return None
        if c.statistic == "value" and len(values) > 1:
            raise MeshsimError(
                f"experiment comparison '{c.label}': {len(values)} configurations match; "
                "'value' needs exactly one"
            )
        pick = {"value": values[0], "max": max(values), "min": min(values)}[c.statistic]
        return pick * c.scale
    pairs = [
        g
        for g in gains(rows, manifest["keys"], manifest["baseline"], [c.metric])
        if c.matches(g.row.values) and c.metric in g.gains
    ]
    values = [g.gains[c.metric] for g in pairs if not math.isnan(g.gains[c.metric])]
    if not values:
        return None
    if c.statistic == "gain":
        return sum(values) / len(values) * c.scale
    if c.statistic == "fraction-above":
        return fraction_above(values, c.threshold) * c.scale
    groups: dict[tuple[Any, ...], list[float]] = {}
    for g in pairs:
        if not math.isnan(g.gains[c.metric]):
            groups.setdefault(group_key(g.row.values, c.by), []).append(g.gains[c.metric])
    return max(sum(v) / len(v) for v in groups.values()) * c.scale


def _full(config: dict[str, Any], rows: Sequence[CaseRow], keys: Sequence[str]) -> dict[str, Any]:
    """A configuration's values including the keys every case shares (so ``where`` can name base
    options too)."""
    for row in rows:
        if group_key(row.values, keys) == group_key(config, keys):
            return row.values
    return config
