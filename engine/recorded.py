"""Recorded against simulated: how close a replay comes to the schedule a log recorded.

Most real logs record what the real scheduler did: each job's wait (SWF field 3, "wait time";
the imported Slurm, PBS and Cobalt logs' start and eligible times). A replay of such a log under a
model of its scheduler can therefore be measured against the real schedule, job by job.

**Per job.** The recorded wait is field 3; where the log also records when the job became
eligible to run (holds and dependencies released, column ``eligible`` of the workload), both
waits are measured from the eligible time instead of the submit time, since holds and
dependencies are not the scheduler's doing. The simulated wait is the simulated start minus the
same origin. A job's start is *within* a tolerance when ``|simulated start − recorded start|`` is
at most that tolerance (:data:`TOLERANCES`: 1 minute and 1 hour).

**Per group** (overall; per queue, size class and user group): the jobs compared, the mean and
median of both waits, the mean absolute error of the wait (MAE), Pearson's correlation of the
two waits (``None`` for fewer than two jobs or a constant wait), and the share of jobs within each
tolerance. Overall, the utilization of the compared jobs under both schedules, by the formula of
:func:`meshsim.engine.kernel.metrics.summary` (work over ``N × T``, ``T`` from the first submit to
the last end).

**Jobs not compared** are counted by reason (:data:`NOT_COMPARED`), never dropped silently:
``no_recorded_wait`` (field 3 is −1, as in every record of the NASA iPSC/860 log and of
Lublin's model), ``not_started`` (the replay ended without starting the job). When the run scaled
the log's times (a load factor or a runtime coefficient other than 1), the recorded schedule is
of another workload: no job is compared, and every job is counted as ``times_transformed``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

TOLERANCES = {"within_1min": 60.0, "within_1h": 3600.0}
"""Start-time tolerances of the comparison, in seconds, by their name in the result JSON."""

NOT_COMPARED = ("no_recorded_wait", "not_started", "times_transformed")
"""Why a replayed job is not compared, in the order the result JSON lists them."""


@dataclass(frozen=True)
class WaitFit:
    """Recorded against simulated waits of one group of jobs (seconds)."""

    jobs: int
    mean_recorded: float | None
    mean_simulated: float | None
    median_recorded: float | None
    median_simulated: float | None
    mae: float | None
    correlation: float | None
    within: Mapping[str, float | None]

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
        """The result JSON's ``recorded`` section."""
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
class ReplayedJobs:
    """The columns the comparison reads, one entry per replayed job (seconds; ``nan`` for a job
    the replay did not start, ``-1`` in ``recorded_wait`` for an unknown wait)."""

    submit: np.ndarray
    eligible: np.ndarray | None
    runtime: np.ndarray
    size: np.ndarray
    recorded_wait: np.ndarray
    simulated_start: np.ndarray


def compare_recorded(
    jobs: ReplayedJobs,
    nodes: int,
    groups: Mapping[str, Sequence[str]],
    *,
    transformed: bool = False,
) -> RecordedComparison:
    """Compare the replayed jobs' simulated waits with the recorded ones (rules in the module
    docstring). ``groups`` maps a kind (``queue``, ``size_class``, ``user_group``) to one label
    per job."""
    n = len(jobs.submit)
    if transformed:
        none = np.zeros(n, dtype=bool)
        counts = {"no_recorded_wait": 0, "not_started": 0, "times_transformed": n}
        return _comparison(jobs, nodes, groups, none, counts)
    recorded = jobs.recorded_wait >= 0
    started = ~np.isnan(jobs.simulated_start)
    counts = {
        "no_recorded_wait": int((~recorded).sum()),
        "not_started": int((recorded & ~started).sum()),
        "times_transformed": 0,
    }
    return _comparison(jobs, nodes, groups, recorded & started, counts)


def _comparison(
    jobs: ReplayedJobs,
    nodes: int,
    groups: Mapping[str, Sequence[str]],
    compared: np.ndarray,
    counts: dict[str, int],
) -> RecordedComparison:
    origin = jobs.submit if jobs.eligible is None else np.maximum(jobs.submit, jobs.eligible)
    held = origin - jobs.submit
    recorded_wait = np.maximum(jobs.recorded_wait - held, 0.0)
    simulated_wait = jobs.simulated_start - origin
    offset = np.abs(jobs.simulated_start - (jobs.submit + jobs.recorded_wait))
    waits = (recorded_wait, simulated_wait, offset)
    by_kind = {}
    for kind, labels in groups.items():
        names = np.asarray(labels, dtype=object)
        by_kind[kind] = {
            str(label): _fit(compared & (names == label), *waits)
            for label in sorted(set(names[compared].tolist()), key=_label_order)
        }
    recorded_start = jobs.submit + jobs.recorded_wait
    return RecordedComparison(
        overall=_fit(compared, *waits),
        groups=by_kind,
        not_compared=counts,
        recorded_utilization=_utilization(jobs, recorded_start, compared, nodes),
        simulated_utilization=_utilization(jobs, jobs.simulated_start, compared, nodes),
    )


def _fit(
    mask: np.ndarray, recorded: np.ndarray, simulated: np.ndarray, offset: np.ndarray
) -> WaitFit:
    r, s, d = recorded[mask], simulated[mask], offset[mask]
    k = len(r)
    if k == 0:
        within = dict.fromkeys(TOLERANCES)
        return WaitFit(0, None, None, None, None, None, None, within)
    return WaitFit(
        jobs=k,
        mean_recorded=float(r.mean()),
        mean_simulated=float(s.mean()),
        median_recorded=float(np.median(r)),
        median_simulated=float(np.median(s)),
        mae=float(np.abs(s - r).mean()),
        correlation=_correlation(r, s),
        within={name: float((d <= limit).mean()) for name, limit in TOLERANCES.items()},
    )


def _correlation(a: np.ndarray, b: np.ndarray) -> float | None:
    """Pearson's r of two samples; None when it is undefined (fewer than two values, or one
    sample constant)."""
    if len(a) < 2 or a.std() == 0 or b.std() == 0:
        return None
    return float(np.corrcoef(a, b)[0, 1])


def _utilization(
    jobs: ReplayedJobs, start: np.ndarray, mask: np.ndarray, nodes: int
) -> float | None:
    """Work over ``nodes × T`` of the jobs in ``mask`` started at ``start``; ``T`` runs from the
    first submit to the last end."""
    if not mask.any():
        return None
    span = float((start[mask] + jobs.runtime[mask]).max() - jobs.submit[mask].min())
    if span <= 0:
        return None
    return float((jobs.size[mask] * jobs.runtime[mask]).sum()) / (nodes * span)


def _label_order(label: str) -> tuple[int, float, str]:
    """Numeric labels (and ranges such as ``5-8``) in numeric order, then the others by name."""
    head = label.split("-")[0]
    try:
        return (0, float(head), label)
    except ValueError:
        return (1, 0.0, label)
