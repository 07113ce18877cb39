"""Recorded against simulated: how close a replay comes to the schedule a log recorded.

Most real logs record what the real scheduler did: each job's wait (SWF field 3, "wait time";
the imported Slurm, PBS and Cobalt logs' start and eligible times). A replay of such a log under a
model of its scheduler can therefore be measured against the real schedule, job by job.

**Per job.** The recorded start is submit + field 3. Where the workload also records when the job
became eligible to run (holds and dependencies released: ``Workload.attrs["eligible"]``, on the
submit times' clock), both waits are measured from ``max(submit, eligible)`` instead of the submit
time, since holds and dependencies are not the scheduler's doing; a recorded start before that
origin counts as a wait of 0, and a replay that starts a job before it is eligible (one that does
not model holds) shows a negative simulated wait, as it happened. The simulated wait is the
simulated start minus the same origin. A job's start is *within* a tolerance when
``|simulated start − recorded start|`` is at most that tolerance (:data:`TOLERANCES`: 1 minute and
1 hour).

**Per group** (overall; per queue, partition, size class and user group): the jobs compared, the
mean and median of both waits, the mean absolute error of the wait
(MAE = Σ |simulated − recorded| / n), Pearson's correlation of the two waits (``None`` for fewer
than two jobs or a constant wait), the share of jobs within each tolerance, and the group's jobs
not compared. Overall, the utilization of the compared jobs under both schedules, by the formula
of :func:`meshsim.engine.metrics.summary` (Σ size × runtime over ``N × T``, ``T`` from the first
submit to the last end of the jobs compared; the simulated schedule's runtimes are its own, end −
start, so a runtime model shows).

**Jobs not compared** are counted by reason (:data:`NOT_COMPARED`), each job under the first reason
that applies, never dropped silently:

- ``times_transformed``: the run changed the log's times (a load factor or a runtime coefficient
  other than 1): the recorded schedule is of another workload, so no job is compared (there is
  no fit then, :mod:`meshsim.engine.recorded_run`);
- ``cancelled_before_start``: the log says the job was cancelled (SWF status 5) and records no run
  (runtime 0): its field 3, if any, is the time until it was cancelled, not a wait;
- ``no_recorded_wait``: field 3 is −1 (every record of the NASA iPSC/860 log and of Lublin's model);
- ``rejected_on_arrival``: the replay refused the job on arrival (an interactive job that found
  its partition full, seed 004 §1);
- ``not_started``: the replay ended without starting the job;
- ``skipped_on_load``: the job never entered the replay (the workload's ``skipped`` reasons).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

TOLERANCES = {"within_1min": 60.0, "within_1h": 3600.0}
"""Start-time tolerances of the comparison, in seconds, by their name in the result JSON."""

NOT_COMPARED = (
    "times_transformed",
    "cancelled_before_start",
    "no_recorded_wait",
    "rejected_on_arrival",
    "not_started",
    "skipped_on_load",
)
"""Why a job of the log is not compared, in the order the reasons apply and the JSON lists them."""


@dataclass(frozen=True)
class WaitFit:
    """Recorded against simulated waits of one group of jobs (seconds), and the group's jobs that
    were not compared."""

    jobs: int
    mean_recorded: float | None
    mean_simulated: float | None
    median_recorded: float | None
    median_simulated: float | None
    mae: float | None
    correlation: float | None
    within: Mapping[str, float | None]
    not_compared: int = 0

    def as_dict(self) -> dict[str, object]:
        return {
            "jobs": self.jobs,
            "mean_recorded_wait_s": self.mean_recorded,
            "mean_simulated_wait_s": self.mean_simulated,
            "median_recorded_wait_s": self.median_recorded,
            "median_simulated_wait_s": self.median_simulated,
            "wait_mae_s": self.mae,
            "wait_correlation": self.correlation,
            **self.within,
            "not_compared": self.not_compared,
        }


@dataclass(frozen=True)
class RecordedComparison:
    """The comparison of a replay with the schedule its log recorded."""

    overall: WaitFit
    groups: Mapping[str, Mapping[str, WaitFit]]
    not_compared: Mapping[str, int]
    recorded_utilization: float | None
    simulated_utilization: float | None

    def as_dict(self) -> dict[str, object]:
        """The fit part of the result JSON's ``recorded`` section."""
        return {
            "overall": self.overall.as_dict(),
            "not_compared": dict(self.not_compared),
            "recorded_utilization": self.recorded_utilization,
            "simulated_utilization": self.simulated_utilization,
            **{
                f"by_{kind}": {label: fit.as_dict() for label, fit in fits.items()}
                for kind, fits in self.groups.items()
            },
        }


@dataclass(frozen=True)
class Grouping:
    """The jobs' groups of one kind: a code per job (``codes[i]`` indexes ``labels``), and the
    labels in the order the result lists them."""

    codes: np.ndarray
    labels: tuple[str, ...]

    @classmethod
    def of(cls, labels: Sequence[str]) -> Grouping:
        """From one label per job, listed in :func:`label_order`."""
        keys, codes = np.unique(np.asarray(labels, dtype=str), return_inverse=True)
        ordered = sorted(keys.tolist(), key=label_order)
        rank = np.array([ordered.index(k) for k in keys.tolist()], dtype=np.int64)
        return cls(rank[codes] if len(codes) else codes, tuple(ordered))


@dataclass(frozen=True)
class ReplayedJobs:
    """The columns the comparison reads, one entry per replayed job (seconds; ``nan`` in
    ``simulated_start`` for a job the replay did not start, ``-1`` in ``recorded_wait`` for an
    unknown wait). ``simulated_end`` defaults to start + runtime; ``cancelled`` marks the jobs the
    log says were cancelled before they started, ``rejected`` those the replay refused on
    arrival."""

    submit: np.ndarray
    eligible: np.ndarray | None
    runtime: np.ndarray
    size: np.ndarray
    recorded_wait: np.ndarray
    simulated_start: np.ndarray
    simulated_end: np.ndarray | None = None
    cancelled: np.ndarray | None = None
    rejected: np.ndarray | None = None


def compare_recorded(
    jobs: ReplayedJobs,
    nodes: int,
    groups: Mapping[str, Grouping],
    *,
    skipped: int = 0,
) -> RecordedComparison:
    """Compare the replayed jobs' simulated waits with the recorded ones (rules in the module
    docstring). ``groups`` maps a kind (``queue``, ``partition``, ``size_class``, ``user_group``)
    to the jobs' groups of that kind; ``skipped`` is the number of the log's jobs that never
    entered the replay. Cost: O(n log n) for n jobs, whatever the number of groups."""
    compared, counts = compared_jobs(jobs)
    counts = {"times_transformed": 0, **counts, "skipped_on_load": skipped}
    recorded_wait, simulated_wait, offset = job_waits(jobs)
    waits = (recorded_wait, simulated_wait, offset)
    by_kind = {kind: _group_fits(grouping, compared, waits) for kind, grouping in groups.items()}
    recorded_start = jobs.submit + jobs.recorded_wait
    simulated_end = (
        jobs.simulated_start + jobs.runtime if jobs.simulated_end is None else jobs.simulated_end
    )
    recorded_end = recorded_start + jobs.runtime
    return RecordedComparison(
        overall=_fit(np.flatnonzero(compared), *waits, not_compared=int((~compared).sum())),
        groups=by_kind,
        not_compared=counts,
        recorded_utilization=_utilization(jobs, recorded_start, recorded_end, compared, nodes),
        simulated_utilization=_utilization(
            jobs, jobs.simulated_start, simulated_end, compared, nodes
        ),
    )


def compared_jobs(jobs: ReplayedJobs) -> tuple[np.ndarray, dict[str, int]]:
    """Which jobs are compared, and the others counted under the first reason of
    :data:`NOT_COMPARED` that applies to a single job (``times_transformed`` and
    ``skipped_on_load`` concern the whole run: :mod:`meshsim.engine.recorded_run`)."""
    n = len(jobs.submit)
    none = np.zeros(n, dtype=bool)
    started = ~np.isnan(jobs.simulated_start)
    masks = {
        "cancelled_before_start": none if jobs.cancelled is None else jobs.cancelled,
        "no_recorded_wait": jobs.recorded_wait < 0,
        "rejected_on_arrival": none if jobs.rejected is None else jobs.rejected & ~started,
        "not_started": ~started,
    }
    compared = np.ones(n, dtype=bool)
    counts = {}
    for reason, mask in masks.items():
        counts[reason] = int((compared & mask).sum())
        compared &= ~mask
    return compared, counts


def job_waits(jobs: ReplayedJobs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per job: the recorded wait and the simulated wait, both from the eligible time where it
    is known, and ``|simulated start − recorded start|`` (module docstring)."""
    origin = jobs.submit if jobs.eligible is None else np.maximum(jobs.submit, jobs.eligible)
    held = origin - jobs.submit
    recorded_wait = np.maximum(jobs.recorded_wait - held, 0.0)
    simulated_wait = jobs.simulated_start - origin
    offset = np.abs(jobs.simulated_start - (jobs.submit + jobs.recorded_wait))
    return recorded_wait, simulated_wait, offset


def _group_fits(
    grouping: Grouping, compared: np.ndarray, waits: tuple[np.ndarray, ...]
) -> dict[str, WaitFit]:
    """One fit per label that has jobs, in the grouping's order: the jobs sorted by group once."""
    order = np.argsort(grouping.codes, kind="stable")
    bounds = np.searchsorted(grouping.codes[order], np.arange(len(grouping.labels) + 1))
    fits = {}
    for k, label in enumerate(grouping.labels):
        rows = order[bounds[k] : bounds[k + 1]]
        if len(rows):
            mine = compared[rows]
            fits[label] = _fit(rows[mine], *waits, not_compared=int((~mine).sum()))
    return fits


def _fit(
    rows: np.ndarray,
    recorded: np.ndarray,
    simulated: np.ndarray,
    offset: np.ndarray,
    *,
    not_compared: int,
) -> WaitFit:
    r, s, d = recorded[rows], simulated[rows], offset[rows]
    k = len(r)
    if k == 0:
        within = dict.fromkeys(TOLERANCES)
        return WaitFit(0, None, None, None, None, None, None, within, not_compared)
    return WaitFit(
        jobs=k,
        mean_recorded=float(r.mean()),
        mean_simulated=float(s.mean()),
        median_recorded=float(np.median(r)),
        median_simulated=float(np.median(s)),
        mae=float(np.abs(s - r).mean()),
        correlation=_correlation(r, s),
        within={name: float((d <= limit).mean()) for name, limit in TOLERANCES.items()},
        not_compared=not_compared,
    )


def _correlation(a: np.ndarray, b: np.ndarray) -> float | None:
    """Pearson's r of two samples; None when it is undefined (fewer than two values, or one
    sample constant)."""
    if len(a) < 2 or a.std() == 0 or b.std() == 0:
        return None
    return float(np.corrcoef(a, b)[0, 1])


def _utilization(
    jobs: ReplayedJobs, start: np.ndarray, end: np.ndarray, mask: np.ndarray, nodes: int
) -> float | None:
    """Σ size × (end − start) over ``nodes × T`` of the jobs in ``mask``; ``T`` runs from their
    first submit to their last end."""
    if not mask.any():
        return None
    span = float(end[mask].max() - jobs.submit[mask].min())
    if span <= 0:
        return None
    work = jobs.size[mask] * (end[mask] - start[mask])
    return float(work.sum()) / (nodes * span)


def label_order(label: str) -> tuple[int, float, str]:
    """Numeric labels (and ranges such as ``5-8``) in numeric order, then the others by name."""
    head = label.split("-")[0]
    try:
        return (0, float(head), label)
    except ValueError:
        return (1, 0.0, label)
