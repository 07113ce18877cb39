"""Metric definitions (DESIGN.md, "Metrics"), computed from per-job arrays and time integrals.

All capacity metrics are time-weighted over [first submit, last end], T = last end − first submit,
N = machine nodes:

- wait = start − submit; response = end − submit;
  bounded slowdown = max(response, 10 s) / max(runtime, 10 s);
- utilization = Σ size × runtime / (N × T), size in nodes requested (useful work);
  allocated utilization counts what jobs held (rounded up to boxes or partitions);
- unused capacity = ∫ max(0, free(t) − queued_demand(t)) dt / (N × T);
  lost capacity = 1 − utilization − unused capacity (Krevat et al., seed 002 §4);
- loss of capacity (LoC) = Σ idle_i × (t_{i+1} − t_i) × δ_i / (N × T), δ_i = 1 when some waiting
  job needs no more nodes than are idle after event i (Tang et al., seed 000 eq. 1);
- expansion factor = (Σ wait + Σ runtime) / Σ runtime (aggregate, so zero-length jobs count).

Integrals are accumulated by the engine as the clock advances (:class:`Integrals`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

BSLD_BOUND = 10.0
"""The bounded-slowdown threshold in seconds."""


@dataclass
class Integrals:
    """Time integrals over the run, updated each time the clock moves (node-seconds)."""

    first: float = float("nan")
    last: float = float("nan")
    busy: float = 0.0
    allocated: float = 0.0
    unused: float = 0.0
    loc: float = 0.0
    queue: float = 0.0


@dataclass(frozen=True)
class JobOutcomes:
    """Per-job arrays of the jobs that finished (same order in every array)."""

    submit: np.ndarray
    runtime: np.ndarray
    size: np.ndarray
    allocated: np.ndarray
    start: np.ndarray
    end: np.ndarray
    queue: np.ndarray

    @property
    def wait(self) -> np.ndarray:
        return self.start - self.submit

    @property
    def response(self) -> np.ndarray:
        return self.end - self.submit

    @property
    def bsld(self) -> np.ndarray:
        return np.maximum(self.response, BSLD_BOUND) / np.maximum(self.runtime, BSLD_BOUND)


def summary(jobs: JobOutcomes, nodes: int, integrals: Integrals) -> dict[str, float | int | None]:
    """The ``metrics`` object of the result JSON. A metric that is undefined is ``None`` (``null``
    in JSON): averages and maxima over no finished job, capacity shares when no capacity passed
    (no finished job, or a span of zero), the queue length over a span of zero, and the expansion
    factor when no runtime was run."""
    n = len(jobs.submit)
    span = 0.0 if n == 0 else float(jobs.end.max() - min(jobs.submit.min(), integrals.first))
    capacity = nodes * span
    wait = jobs.wait
    work = float(np.sum(jobs.size * jobs.runtime))
    held = float(np.sum(jobs.allocated * jobs.runtime))
    runtime_total = float(jobs.runtime.sum())

    def share(value: float) -> float | None:
        return value / capacity if capacity > 0 else None

    utilization = share(work)
    unused = share(integrals.unused)
    return {
        "jobs": n,
        "avg_wait_s": _mean(wait),
        "max_wait_s": float(wait.max()) if n else None,
        "avg_response_s": _mean(jobs.response),
        "mean_turnaround_s": _mean(jobs.response),
        "avg_bsld": _mean(jobs.bsld),
        "avg_runtime_s": _mean(jobs.runtime),
        "max_bsld": float(jobs.bsld.max()) if n else None,
        "utilization": utilization,
        "allocated_utilization": share(held),
        "unused_capacity": unused,
        "lost_capacity": None if utilization is None else 1.0 - utilization - (unused or 0.0),
        "loss_of_capacity": share(integrals.loc),
        "avg_queue_length": integrals.queue / span if span > 0 else None,
        "expansion_factor": (float(wait.sum()) + runtime_total) / runtime_total
        if runtime_total > 0
        else None,
        "makespan_s": span if n else None,
    }


def breakdown(
    jobs: JobOutcomes, names: Sequence[str], groups: np.ndarray
) -> dict[str, dict[str, float | int | None]]:
    """Per-group wait, slowdown and share of work, for size classes or queues: job k belongs to
    the group ``names[groups[k]]`` (indices that share a name form one group). Jobs are grouped
    by integer index, so no per-job label objects are made. The share of work is ``None`` when no
    work was done, the expansion factor when the group ran no runtime."""
    work = jobs.size * jobs.runtime
    total_work = float(work.sum())
    out: dict[str, dict[str, float | int | None]] = {}
    for label in sorted(set(names), key=_label_order):
        mask = np.isin(groups, [k for k, name in enumerate(names) if name == label])
        wait = jobs.wait[mask]
        runtime = jobs.runtime[mask]
        run_total = float(runtime.sum())
        out[label] = {
            "jobs": int(mask.sum()),
            "avg_wait_s": _mean(wait),
            "max_wait_s": float(wait.max()),
            "avg_bsld": _mean(jobs.bsld[mask]),
            "avg_runtime_s": _mean(runtime),
            "work_share": float(work[mask].sum()) / total_work if total_work > 0 else None,
            "expansion_factor": (float(wait.sum()) + run_total) / run_total
            if run_total > 0
            else None,
        }
    return out


def _mean(a: np.ndarray) -> float | None:
    return float(a.mean()) if len(a) else None


def _label_order(label: str) -> tuple[int, str]:
    head = label.split("-")[0]
    return (int(head), label) if head.isdigit() else (1 << 62, label)


# ---------------------------------------------------------------------------- how to read them

LOWER, HIGHER = "lower", "higher"
"""A metric's better direction: a branch is better when its value is lower (waits, slowdowns,
capacity lost) or higher (utilization, jobs completed)."""


@dataclass(frozen=True)
class MetricInfo:
    """How a metric is named, shown and judged everywhere it is shown (``meshsim run``'s summary,
    ``meshsim compare``, the console's metrics and what-if comparison). ``kind`` is ``duration``
    (seconds, shown as s, min, h or d), ``share`` (a fraction, shown as a percentage), ``count``,
    ``time`` (a simulated time, ``day D hh:mm:ss``) or ``number`` (shown with ``spec``);
    ``better`` is :data:`LOWER`, :data:`HIGHER` or None (neither: a count of events, a mean
    runtime)."""

    label: str
    kind: str
    better: str | None = None
    spec: str = ".2f"
    unit: str = ""


METRIC_INFO: dict[str, MetricInfo] = {
    "jobs": MetricInfo("jobs", "count", HIGHER),
    "avg_wait_s": MetricInfo("avg wait", "duration", LOWER),
    "max_wait_s": MetricInfo("max wait", "duration", LOWER),
    "avg_response_s": MetricInfo("avg response", "duration", LOWER),
    "mean_turnaround_s": MetricInfo("mean turnaround", "duration", LOWER),
    "avg_bsld": MetricInfo("avg bounded slowdown", "number", LOWER, ".2f"),
    "avg_runtime_s": MetricInfo("avg runtime", "duration"),
    "max_bsld": MetricInfo("max bounded slowdown", "number", LOWER, ".2f"),
    "utilization": MetricInfo("utilization", "share", HIGHER),
    "allocated_utilization": MetricInfo("allocated utilization", "share"),
    "unused_capacity": MetricInfo("unused capacity", "share", LOWER),
    "lost_capacity": MetricInfo("lost capacity", "share", LOWER),
    "loss_of_capacity": MetricInfo("loss of capacity (LoC)", "number", LOWER, ".3f"),
    "avg_queue_length": MetricInfo("avg queue length", "number", LOWER, ".1f"),
    "expansion_factor": MetricInfo("expansion factor", "number", LOWER, ".3f"),
    "makespan_s": MetricInfo("makespan", "duration", LOWER),
    "migrations": MetricInfo("migrations", "count"),
    "migrated_jobs": MetricInfo("migrated jobs", "count"),
    "migrated_node_seconds": MetricInfo("migrated node-seconds", "number", None, ",.0f"),
    "requeued_jobs": MetricInfo("requeued jobs", "count", LOWER),
    "max_contention_time_mean": MetricInfo("max_contention (time mean)", "number", LOWER, ".1f"),
    "balance_time_mean": MetricInfo("balance factor (time mean)", "number", None, ".2f"),
    "network_throughput_mb_s_time_mean": MetricInfo(
        "network throughput", "number", HIGHER, ",.0f", " MB/s"
    ),
    "nodes_affected_mean": MetricInfo("nodes affected (mean)", "number", LOWER, ".1f"),
    # the running figures of a simulation in progress (Simulation.current_metrics)
    "time": MetricInfo("simulated time", "time"),
    "events": MetricInfo("events", "count"),
    "running": MetricInfo("running jobs", "count"),
    "waiting": MetricInfo("waiting jobs", "count"),
    "finished": MetricInfo("finished jobs", "count", HIGHER),
    "queue_length": MetricInfo("queue length", "count"),
    "free_nodes": MetricInfo("idle nodes", "count"),
}
"""Every metric of the result JSON and of a simulation in progress that is shown by name; a metric
not listed (a family's detail) is shown under its key with :func:`metric_text`'s plain number."""


SUMMARY = (
    "jobs",
    "avg_wait_s",
    "max_wait_s",
    "avg_response_s",
    "avg_bsld",
    "utilization",
    "allocated_utilization",
    "unused_capacity",
    "lost_capacity",
    "loss_of_capacity",
    "makespan_s",
)
"""The metrics of ``meshsim run``'s summary, in its order (the console lists them first)."""


def metric_info(key: str) -> MetricInfo:
    """The :class:`MetricInfo` of ``key`` (its key as label, a plain number, when not listed)."""
    return METRIC_INFO.get(key) or MetricInfo(key.replace("_", " "), "number", None, ",.2f")


def metric_text(key: str, value: float | int | None) -> str:
    """``value`` of metric ``key`` as people read it: a duration in s, min, h or d, a share as a
    percentage, a count with thousands separators; ``—`` when undefined (None or NaN)."""
    if value is None or (isinstance(value, float) and value != value):
        return "—"
    info = metric_info(key)
    if info.kind == "duration":
        return duration_text(float(value))
    if info.kind == "share":
        return f"{value:.1%}"
    if info.kind == "count":
        return f"{int(value):,}"
    if info.kind == "time":
        from meshsim.engine.core.simclock import clock

        return clock(float(value))
    return format(value, info.spec) + info.unit


def duration_text(seconds: float) -> str:
    """A duration in the largest unit that keeps it readable: ``42.0 s``, ``16.4 min``, ``3.2 h``,
    ``4.5 d`` (``meshsim run``'s summary)."""
    if seconds < 120:
        return f"{seconds:.1f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} d"


def better_gain(key: str, base: float | None, new: float | None) -> float | None:
    """How much better ``new`` is than ``base`` for metric ``key``, as a share of ``base``:
    (base − new) / base where lower is better (Tang et al., seed 000 §V-D2), (new − base) / base
    where higher is better, so a positive gain is always an improvement; None when either value
    is undefined, the metric has no better direction, or the base is 0 and the new value is not
    (0 when both are)."""
    better = metric_info(key).better
    if base is None or new is None or better is None:
        return None
    if base == 0:
        return 0.0 if new == 0 else None
    change = (base - new) / base
    return change if better == LOWER else -change
