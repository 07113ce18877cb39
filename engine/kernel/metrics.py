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
