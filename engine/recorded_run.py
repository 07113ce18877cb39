"""A finished run against the schedule its log recorded: the result JSON's ``recorded`` section.

:func:`replay_fit` reads what :func:`meshsim.engine.recorded.compare_recorded` needs from a finished
:class:`~meshsim.engine.kernel.simulation.Simulation` of a trace: the source SWF rows the workload
keeps (``Workload.records``: field 3, the recorded wait; field 11, the status; fields 13, 15 and 16,
the user group, queue and partition), the optional ``eligible`` column of imported logs
(``Workload.attrs["eligible"]``), the jobs the replay started, finished or rejected, and the jobs
skipped on loading. Jobs are grouped by the log's own queue names and partition names (the SWF
header's ``Queue:`` and ``Partition:`` lines, in the log's numbering; a number the header does not
name is shown as the number, −1 as ``unknown``), by the machine's size classes and by user group
(SWF field 13); a kind the log does not record (every value −1) is left out.

There is no fit, and the section says why, when the workload is generated (no log, so no recorded
schedule), when the log records no waits (field 3 is −1 for every job: Lublin's model, the NASA
iPSC/860 log, whose header says its submit times are start times), or when the run changed the
log's submit or run times (a load factor or a runtime coefficient): jobs are then counted as not
compared, by reason, like every job that cannot be compared in a fit.

The cost is a few numpy passes over the job table, O(n log n): well under the replay's own time
(docs/recorded.md gives the measured figures)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from meshsim.engine.logs.reasons import RECORD_REASONS
from meshsim.engine.recorded import (
    NOT_COMPARED,
    Grouping,
    RecordedComparison,
    ReplayedJobs,
    compare_recorded,
)
from meshsim.engine.workloads import swf

if TYPE_CHECKING:
    from meshsim.engine.kernel.simulation import Simulation
    from meshsim.engine.workloads.workload import Workload

CANCELLED = 5
"""SWF status of a cancelled job (field 11)."""


@dataclass(frozen=True)
class RecordedFit:
    """A run measured against its log: the comparison, or why there is none (``reason``), and
    the jobs not compared by reason either way. ``waits_from`` says where both waits are measured
    from (:func:`waits_origin`)."""

    comparison: RecordedComparison | None
    reason: str | None
    not_compared: dict[str, int]
    waits_from: str

    def as_dict(self) -> dict[str, Any]:
        """The result JSON's ``recorded`` section."""
        if self.comparison is None:
            return {
                "compared": False,
                "reason": self.reason,
                "not_compared": dict(self.not_compared),
            }
        return {"compared": True, "waits_from": self.waits_from, **self.comparison.as_dict()}


def replay_fit(sim: Simulation) -> RecordedFit:
    """The comparison of a finished run with the schedule its log recorded (module docstring).
    This is the function to call with a replay of any log, e.g. an imported Slurm log replayed
    by meshsim: build the workload with the log's waits in ``records`` (SWF layout) and its
    eligible times in ``attrs["eligible"]``, run it, and pass the simulation."""
    w = sim.workload
    waits_from = waits_origin(w)
    skipped = skipped_jobs(w)
    why = no_fit(w)
    if why is not None:
        reason, counted = why
        not_compared = dict.fromkeys(NOT_COMPARED, 0) | {counted: len(w)}
        not_compared["skipped_on_load"] = skipped
        return RecordedFit(None, reason, not_compared, waits_from)
    records = cast(np.ndarray, w.records)  # no_fit is None only for a workload with records
    jobs = _columns(sim, records)
    groups = _groupings(sim, records)
    comparison = compare_recorded(jobs, sim.machine.nodes, groups, skipped=skipped)
    return RecordedFit(comparison, None, dict(comparison.not_compared), waits_from)


def waits_origin(w: Workload) -> str:
    """``eligible`` when the waits are measured from the time each job could first start: the
    workload carries eligible times (``attrs["eligible"]``), or it is an operator's log imported
    by meshsim (its header's ``Conversion:`` line), whose submit times are already the eligible
    times (:mod:`meshsim.engine.logs.trace`); else ``submit``."""
    if w.attrs.get("eligible") is not None:
        return "eligible"
    conversion = w.header.get("Conversion") if w.header is not None else None
    return "eligible" if conversion is not None and conversion.startswith("meshsim") else "submit"


def skipped_jobs(w: Workload) -> int:
    """The jobs of the log that never entered the replay: the workload's ``skipped`` counts but
    the log records that are not jobs (Slurm job steps, PBS and Cobalt records folded into their
    job, :data:`meshsim.engine.logs.reasons.RECORD_REASONS`)."""
    return sum(v for k, v in w.skipped.items() if k not in RECORD_REASONS)


def replayed_jobs(sim: Simulation) -> ReplayedJobs | None:
    """The columns of a finished run that the comparison reads; None when the run cannot be
    measured against its log (:func:`no_fit`)."""
    records = sim.workload.records
    if records is None or no_fit(sim.workload) is not None:
        return None
    return _columns(sim, records)


def _columns(sim: Simulation, records: np.ndarray) -> ReplayedJobs:
    w = sim.workload
    n = len(w)
    start = sim.start_times()[:n]
    end = np.full(n, np.nan)
    idx, outcomes = sim.outcomes()
    own = idx < n
    end[idx[own]] = outcomes.end[own]
    end = np.where(np.isnan(end), start + w.runtime, end)
    rejected = np.zeros(n, dtype=bool)
    rejected[[i for i in sim.ledger.refused if i < n]] = True
    eligible = w.attrs.get("eligible")
    return ReplayedJobs(
        submit=w.submit,
        eligible=None if eligible is None else np.asarray(eligible, dtype=float),
        runtime=w.runtime,
        size=w.size,
        recorded_wait=records[:, swf.WAIT],
        simulated_start=start,
        simulated_end=end,
        cancelled=_cancelled_before_start(records),
        rejected=rejected,
    )


def _groupings(sim: Simulation, records: np.ndarray) -> dict[str, Grouping]:
    """The groups the comparison reports (module docstring)."""
    header = sim.workload.header
    queues = header.queues if header is not None else {}
    partitions = header.partitions if header is not None else {}
    kinds: dict[str, Grouping] = {}
    for kind, column, names in (
        ("queue", swf.QUEUE, queues),
        ("partition", swf.PARTITION, partitions),
    ):
        values = records[:, column].astype(np.int64)
        if (values >= 0).any():
            kinds[kind] = _grouping(values, lambda v, names=names: _named(v, names))
    kinds["size_class"] = _grouping(sim.workload.size, sim.machine.size_class)
    groups = records[:, swf.GROUP].astype(np.int64)
    if (groups >= 0).any():
        kinds["user_group"] = _grouping(groups, _number)
    return kinds


def recorded_start_column(sim: Simulation, idx: np.ndarray) -> list[float | str] | None:
    """The recorded start (submit + field 3) of the jobs at ``idx`` for the jobs CSV, ``""`` where
    the log has none (no wait recorded, cancelled before it started, or submitted during the run by
    an operator); None when the run has no fit (:func:`no_fit`)."""
    w = sim.workload
    if w.records is None or no_fit(w) is not None:
        return None
    n = len(w)
    waits = np.where(_cancelled_before_start(w.records), -1.0, w.records[:, swf.WAIT])
    column: list[float | str] = []
    for i in idx.tolist():
        wait = float(waits[i]) if i < n else -1.0
        column.append(float(w.submit[i]) + wait if wait >= 0 else "")
    return column


def _cancelled_before_start(records: np.ndarray) -> np.ndarray:
    """Jobs the log says were cancelled (status 5) with no run recorded (runtime 0)."""
    return (records[:, swf.STATUS] == CANCELLED) & (records[:, swf.RUN] <= 0)


def no_fit(w: Workload) -> tuple[str, str] | None:
    """Why a workload's run cannot be measured against its log, and the reason its jobs are
    counted under; None when it can (module docstring)."""
    records = w.records
    if records is None:
        return "the workload is generated: it records no schedule", "no_recorded_wait"
    if len(w) and not (records[:, swf.WAIT] >= 0).any():
        return _no_waits_reason(w), "no_recorded_wait"
    same = np.array_equal(w.submit, records[:, swf.SUBMIT]) and np.array_equal(
        w.runtime, records[:, swf.RUN]
    )
    if not same:
        changes = ", ".join(w.transforms) or "submit or run times"
        reason = f"the run changed the log's times ({changes}): its schedule is of another workload"
        return reason, "times_transformed"
    return None


def _grouping(values: np.ndarray, label_of: Callable[[int], str]) -> Grouping:
    """Groups of per-job integer ``values`` labelled by ``label_of``, listed by value; values with
    one label share its group."""
    keys, inverse = np.unique(values, return_inverse=True)
    labels = [label_of(int(v)) for v in keys.tolist()]
    listed = list(dict.fromkeys(labels))
    code = np.array([listed.index(label) for label in labels], dtype=np.int64)
    return Grouping(code[inverse] if len(values) else inverse, tuple(listed))


def _named(value: int, names: dict[int, str]) -> str:
    """The header's name of a queue or partition number; ``unknown`` for SWF's −1."""
    words = names.get(value, "").split()
    return words[0] if words else _number(value)


def _number(value: int) -> str:
    return "unknown" if value < 0 else str(value)


def _no_waits_reason(w: Workload) -> str:
    """Why a log has no fit when field 3 is −1 throughout, quoting its header's note on wait
    times when it has one (the NASA iPSC/860 log: "the given submit times are actually start
    times")."""
    notes = w.header.notes if w.header is not None else ()
    said = next((note for note in notes if "wait" in note.lower()), None)
    base = "the log records no waits (field 3 is -1 for every job)"
    return f"{base}; its header says: {said}" if said else base
