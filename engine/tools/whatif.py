"""What-if comparisons: two branches of one run, forked at the same event, compared metric by metric
twice — over the whole run (since day 0) and over what happened after the fork (since the fork).

Both branches share everything before the fork, so figures from day 0 dilute a change: a day's
difference is a thirtieth of a month's averages. The figures since the fork count only what the
branches did differently:

- ``jobs``: the jobs completed after the fork (by the end, or by the time the comparison runs to);
- waits, responses and slowdowns: over the jobs that started after the fork and have finished;
- utilization, unused and lost capacity, loss of capacity and the mean queue length: the time
  integrals of the run (:class:`~meshsim.engine.kernel.metrics.Integrals`) between the fork and each
  branch's last event, over the machine's capacity in that span (the same time-weighted figures as
  the result's, on that span: DESIGN.md, "Metrics").

Each metric's gain is signed by its better direction
(:func:`~meshsim.engine.kernel.metrics.better_gain`): positive means the branch is better, as in
``meshsim compare``."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from meshsim.engine.kernel.metrics import Integrals, better_gain

if TYPE_CHECKING:
    from meshsim.engine.kernel.simulation import Simulation
    from meshsim.engine.tools.session import Session

COMPARED = (
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
    "avg_queue_length",
    "makespan_s",
)
"""The metrics a what-if comparison lists, in this order (``makespan_s`` since day 0 only)."""


@dataclass(frozen=True)
class ForkPoint:
    """What a run had done when it was forked: the time, the time integrals so far, the jobs that
    had started (by index) and the number that had finished."""

    time: float
    integrals: Integrals
    started: frozenset[int]
    finished: int

    @classmethod
    def of(cls, sim: Simulation) -> ForkPoint:
        started = np.flatnonzero(~np.isnan(sim.start_times())).tolist()
        finished = len(sim.outcomes()[0])
        return cls(sim.now, replace(sim.time.integrals), frozenset(started), finished)


def since_fork(sim: Simulation, point: ForkPoint) -> dict[str, float | int | None]:
    """The :data:`COMPARED` metrics of ``sim`` over what happened after ``point`` (see the module's
    rules); a metric that is undefined (no job started after the fork has finished, no time
    passed) is None."""
    idx, out = sim.outcomes()
    new = np.array([i not in point.started for i in idx.tolist()], dtype=bool)
    wait = (out.start - out.submit)[new]
    response = out.response[new]
    bsld = out.bsld[new]
    acc, then = sim.time.integrals, point.integrals
    span = acc.last - point.time
    capacity = sim.machine.nodes * span

    def share(now: float, before: float) -> float | None:
        return (now - before) / capacity if capacity > 0 else None

    utilization = share(acc.busy, then.busy)
    unused = share(acc.unused, then.unused)
    return {
        "jobs": len(idx) - point.finished,
        "avg_wait_s": float(wait.mean()) if len(wait) else None,
        "max_wait_s": float(wait.max()) if len(wait) else None,
        "avg_response_s": float(response.mean()) if len(response) else None,
        "avg_bsld": float(bsld.mean()) if len(bsld) else None,
        "utilization": utilization,
        "allocated_utilization": share(acc.allocated, then.allocated),
        "unused_capacity": unused,
        "lost_capacity": None if utilization is None else 1.0 - utilization - (unused or 0.0),
        "loss_of_capacity": share(acc.loc, then.loc),
        "avg_queue_length": (acc.queue - then.queue) / span if span > 0 else None,
    }


@dataclass(frozen=True)
class MetricDelta:
    """One metric of a comparison: the base and branch values and the gain of the branch, signed
    so that positive is better (None: undefined, or the metric has no better direction)."""

    name: str
    base: float | int | None
    branch: float | int | None
    gain: float | None


@dataclass(frozen=True)
class Comparison:
    """The two branches compared since the fork and since day 0."""

    since_fork: tuple[MetricDelta, ...]
    since_start: tuple[MetricDelta, ...]


def deltas(
    base: dict[str, float | int | None], branch: dict[str, float | int | None]
) -> tuple[MetricDelta, ...]:
    """The :data:`COMPARED` metrics that both sides have, with their gains."""
    return tuple(
        MetricDelta(name, base[name], branch[name], better_gain(name, base[name], branch[name]))
        for name in COMPARED
        if name in base and name in branch
    )


def compare_branches(base: Session, branch: Session, point: ForkPoint) -> Comparison:
    """Compare two branches forked at ``point`` (usually both carried to their end)."""
    return Comparison(
        deltas(base.since_fork(point), branch.since_fork(point)),
        deltas(base.results().metrics, branch.results().metrics),
    )
