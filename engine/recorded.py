"""Recorded against simulated: how close a replay comes to the schedule a log recorded.

Most real logs record what the real scheduler did: each job's wait (SWF field 3, "wait time";
the imported Slurm, PBS and Cobalt logs' start and eligible times). A replay of such a log under a
model of its scheduler can therefore be measured against the real schedule, job by job.

**Per job.** The recorded start is submit + field 3. Where the workload also records when the job
became eligible to run (holds and dependencies released: ``Workload.attrs["eligible"]``, on the
submit times' clock; ``nan`` where a job's is unknown), both waits are measured from
``max(submit, eligible)`` instead of the submit time, since holds and dependencies are not the
scheduler's doing; a recorded start before that
origin counts as a wait of 0, and a replay that starts a job before it is eligible (one that does
not model holds) shows a negative simulated wait, as it happened. The simulated wait is the
simulated start minus the same origin. A job's start is *within* a tolerance when
``|simulated start − recorded start|`` is at most that tolerance (:data:`TOLERANCES`: 1 minute and
1 hour).

**Per group** (overall; per queue, partition, size class and user group): the jobs compared, the
mean and median of both waits, the mean absolute error of the wait (MAE = Σ |simulated − recorded| /
n), Pearson's correlation of the two waits (``None`` for fewer than two jobs or a constant wait),
the share of jobs within each tolerance, and the group's jobs not compared. Overall, the utilization
of the compared jobs under both schedules, by the formula of
:func:`meshsim.engine.kernel.metrics.summary` (Σ size × runtime over ``N × T``, ``T`` from the first
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
    waits = _Compared.of(compared, *job_waits(jobs))
    by_kind = {kind: _group_fits(grouping, compared, waits) for kind, grouping in groups.items()}
    recorded_start = jobs.submit + jobs.recorded_wait
    simulated_end = (
        jobs.simulated_start + jobs.runtime if jobs.simulated_end is None else jobs.simulated_end
    )
    recorded_end = recorded_start + jobs.runtime
    return RecordedComparison(
        overall=_overall(compared, waits),
        groups=by_kind,
        not_compared=counts,
        recorded_utilization=_utilization(jobs, recorded_start, recorded_end, compared, nodes),
        simulated_utilization=_utilization(
            jobs, jobs.simulated_start, simulated_end, compared, nodes
        ),
    )


def _overall(compared: np.ndarray, waits: _Compared) -> WaitFit:
    """The fit of every job, as one group."""
    fit = _fits(np.zeros(len(compared), dtype=np.int64), 1, compared, waits)[0]
    return fit or WaitFit(0, None, None, None, None, None, None, dict.fromkeys(TOLERANCES))


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
    origin = jobs.submit if jobs.eligible is None else np.fmax(jobs.submit, jobs.eligible)
    held = origin - jobs.submit
    recorded_wait = np.maximum(jobs.recorded_wait - held, 0.0)
    simulated_wait = jobs.simulated_start - origin
    offset = np.abs(jobs.simulated_start - (jobs.submit + jobs.recorded_wait))
    return recorded_wait, simulated_wait, offset


@dataclass(frozen=True)
class _Compared:
    """The compared jobs' recorded waits, simulated waits and start offsets, and the orders that
    sort each sample of waits (computed once for every grouping)."""

    recorded: np.ndarray
    simulated: np.ndarray
    offset: np.ndarray
    by_recorded: np.ndarray
    by_simulated: np.ndarray

    @classmethod
    def of(
        cls, compared: np.ndarray, recorded: np.ndarray, simulated: np.ndarray, offset: np.ndarray
    ) -> _Compared:
        r, s = recorded[compared], simulated[compared]
        return cls(r, s, offset[compared], np.argsort(r), np.argsort(s))


def _group_fits(grouping: Grouping, compared: np.ndarray, waits: _Compared) -> dict[str, WaitFit]:
    """One fit per label that has jobs, in the grouping's order."""
    fits = _fits(grouping.codes, len(grouping.labels), compared, waits)
    return {label: fit for label, fit in zip(grouping.labels, fits, strict=True) if fit}


def _fits(
    codes: np.ndarray, groups: int, compared: np.ndarray, waits: _Compared
) -> list[WaitFit | None]:
    """The fit of every group ``0 ≤ code < groups`` at once (None for a group without jobs):
    sums by ``np.bincount``, medians and extremes from one sort of the compared jobs by group
    and value, so the cost does not grow with the number of groups. Pearson's r is computed from
    deviations from each group's means (two passes, as ``np.corrcoef``); it is None for fewer
    than two jobs or a sample whose values are all equal."""
    r, s, d = waits.recorded, waits.simulated, waits.offset
    c = codes[compared]
    n = np.bincount(c, minlength=groups)
    jobs_in = np.bincount(codes, minlength=groups)

    def total(x: np.ndarray) -> np.ndarray:
        return np.bincount(c, weights=x, minlength=groups)

    safe = np.maximum(n, 1)
    mean_r, mean_s = total(r) / safe, total(s) / safe
    mae = total(np.abs(s - r)) / safe
    dr, ds = r - mean_r[c], s - mean_s[c]
    covariance, var_r, var_s = total(dr * ds), total(dr * dr), total(ds * ds)
    within = {name: total((d <= limit).astype(float)) / safe for name, limit in TOLERANCES.items()}
    first = np.concatenate(([0], np.cumsum(n)[:-1]))
    med_r, const_r = _medians(c, r, waits.by_recorded, first, n)
    med_s, const_s = _medians(c, s, waits.by_simulated, first, n)
    fits: list[WaitFit | None] = []
    for g in range(groups):
        k = int(n[g])
        not_compared = int(jobs_in[g]) - k
        if jobs_in[g] == 0:
            fits.append(None)
        elif k == 0:
            nothing = dict.fromkeys(TOLERANCES)
            fits.append(WaitFit(0, None, None, None, None, None, None, nothing, not_compared))
        else:
            defined = k >= 2 and not const_r[g] and not const_s[g]
            correlation = covariance[g] / np.sqrt(var_r[g] * var_s[g]) if defined else None
            fits.append(
                WaitFit(
                    jobs=k,
                    mean_recorded=float(mean_r[g]),
                    mean_simulated=float(mean_s[g]),
                    median_recorded=float(med_r[g]),
                    median_simulated=float(med_s[g]),
                    mae=float(mae[g]),
                    correlation=None if correlation is None else float(correlation),
                    within={name: float(share[g]) for name, share in within.items()},
                    not_compared=not_compared,
                )
            )
    return fits


def _medians(
    codes: np.ndarray, values: np.ndarray, by_value: np.ndarray, first: np.ndarray, n: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each group's median (the mean of the two middle values for an even count, as
    ``np.median``) and whether all its values are equal. ``by_value`` sorts the values (once for
    every grouping); a stable sort of it by group (a radix sort on small group codes) sorts them by
    group and value."""
    small = codes.astype(np.int16 if len(n) < 2**15 else np.int64)
    ordered = values[by_value[np.argsort(small[by_value], kind="stable")]]
    if len(ordered) == 0:
        return np.zeros(len(n)), np.ones(len(n), dtype=bool)
    last = len(ordered) - 1
    low = np.minimum(first + (n - 1) // 2, last)
    high = np.minimum(first + n // 2, last)
    median = (ordered[low] + ordered[high]) / 2
    constant = ordered[np.minimum(first, last)] == ordered[np.minimum(first + n - 1, last)]
    return median, constant


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
