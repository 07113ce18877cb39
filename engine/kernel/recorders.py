"""Recorders: the listeners that turn a run into its outputs.

A :class:`Recorder` hears of the clock moving (:meth:`~Recorder.advanced`), of jobs starting, ending
and moving (:meth:`~Recorder.started`, :meth:`~Recorder.ended`, :meth:`~Recorder.moved`) and of the
end of every event (:meth:`~Recorder.after_event`); :class:`Listeners` calls each hook only on the
recorders that override it, so a run pays for what it records. The recorders of every run:

- :class:`TimeIntegrals`: the capacity integrals of DESIGN.md's metrics;
- :class:`History`: the console's bucketed history of the same rates
  (:class:`~meshsim.engine.kernel.series.Series`), when asked for;
- :class:`JobLedger`: every job's start, end, nodes held and location, which the result metrics,
  the jobs CSV and the job views read;
- :class:`EventLog`: the event records, to a log callback and a bounded list of recent ones;
- :class:`FinishedJobs`: the last jobs to leave the machine (the console's timeline);

and the plug-in recorders machine families register in :data:`RECORDERS` (on a machine with I/O
nodes, the contention observer), whose figures join the results and the jobs CSV."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

import numpy as np

from meshsim.engine.core.registry import Registry
from meshsim.engine.kernel.events import EventRecord
from meshsim.engine.kernel.metrics import Integrals, JobOutcomes
from meshsim.engine.kernel.records import FinishedJob
from meshsim.engine.kernel.series import Series

if TYPE_CHECKING:
    from meshsim.engine.allocation.allocator import Placement
    from meshsim.engine.core.jobs import Job
    from meshsim.engine.kernel.machine_state import MachineState
    from meshsim.engine.kernel.records import RunningJob
    from meshsim.engine.scheduling.orders import WaitingQueue
    from meshsim.engine.topology.machines import Machine
    from meshsim.engine.workloads.workload import Workload


class Recorder:
    """A listener of a run; every hook does nothing unless a recorder overrides it."""

    def advanced(self, start: float, end: float) -> None:
        """The clock moved from ``start`` to ``end``; nothing changed in between."""

    def started(self, job: Job, placement: Placement, now: float) -> None:
        """``job`` started now on ``placement``."""

    def ended(self, running: RunningJob, now: float, killed: bool) -> None:
        """A job left the machine now (``killed``: cancelled or hit by a failure)."""

    def moved(self, job: Job, placement: Placement) -> None:
        """A running job was re-placed (migration)."""

    def after_event(self, now: float, state: MachineState) -> None:
        """An event has been processed (``state``'s running jobs may have changed)."""

    def metrics(self) -> dict[str, float]:
        """Figures over the run that join the result metrics (a plug-in recorder's)."""
        return {}

    def job_columns(self, indices: np.ndarray) -> dict[str, np.ndarray]:
        """Per-job columns for the jobs ``indices`` that join the jobs CSV (a plug-in's)."""
        return {}


RECORDERS: Registry[Callable[[Machine, Workload, int], Recorder | None]] = Registry("recorder")
"""Plug-in recorders, by name: each is asked, for every run, for a recorder of that run
``(machine, workload, seed)``, or None when it does not apply (a machine family registers those it
brings, such as the contention observer on machines with I/O nodes)."""


def plugin_recorders(machine: Machine, workload: Workload, seed: int) -> tuple[Recorder, ...]:
    """The plug-in recorders that apply to this run, in registration order."""
    made = (RECORDERS.get(name)(machine, workload, seed) for name in RECORDERS)
    return tuple(recorder for recorder in made if recorder is not None)


HOOKS = ("advanced", "started", "ended", "moved", "after_event")


class Listeners:
    """Per hook of :class:`Recorder`, the bound methods of the recorders that override it."""

    def __init__(self) -> None:
        self.recorders: list[Recorder] = []
        self.advanced: tuple[Callable[[float, float], None], ...] = ()
        self.started: tuple[Callable[[Job, Placement, float], None], ...] = ()
        self.ended: tuple[Callable[[RunningJob, float, bool], None], ...] = ()
        self.moved: tuple[Callable[[Job, Placement], None], ...] = ()
        self.after_event: tuple[Callable[[float, MachineState], None], ...] = ()

    def add(self, recorder: Recorder, *, skip: tuple[str, ...] = ()) -> None:
        """Listen with ``recorder`` from now on, on the hooks it overrides but those in ``skip``."""
        self.recorders.append(recorder)
        for hook in HOOKS:
            if hook in skip:
                continue
            if getattr(type(recorder), hook) is not getattr(Recorder, hook):
                setattr(self, hook, (*getattr(self, hook), getattr(recorder, hook)))


class TimeIntegrals(Recorder):
    """The time integrals of the capacity metrics (node-seconds, :class:`Integrals`)."""

    def __init__(self, first: float, state: MachineState, queue: WaitingQueue) -> None:
        self.integrals = Integrals(first=first, last=first)
        self.state = state
        self.queue = queue

    def advanced(self, start: float, end: float) -> None:
        acc = self.integrals
        dt = end - start
        state = self.state
        idle = state.allocator.free_nodes
        waiting = self.queue
        acc.busy += state.busy * dt
        acc.allocated += state.busy_alloc * dt
        count = len(waiting.jobs)
        if count:
            acc.queue += count * dt
            spare = idle - waiting.demand
            if spare > 0:
                acc.unused += spare * dt
            if idle > 0 and waiting.smallest <= idle:  # a waiting job would fit: capacity lost
                acc.loc += idle * dt
        elif idle > 0:
            acc.unused += idle * dt
        acc.last = end


class History(Recorder):
    """The console's history of utilization, queue length and loss of capacity (the rates
    :class:`TimeIntegrals` integrates), in the buckets of a :class:`Series`."""

    def __init__(self, first: float, state: MachineState, queue: WaitingQueue) -> None:
        self.series = Series(first)
        self.state = state
        self.queue = queue
        self._nodes = state.machine.nodes

    def advanced(self, start: float, end: float) -> None:
        state = self.state
        idle = state.allocator.free_nodes
        waiting = self.queue
        count = len(waiting.jobs)
        lost = idle if count and idle > 0 and waiting.smallest <= idle else 0
        n = self._nodes
        self.series.add(start, end, state.busy / n, count, lost / n)


class JobLedger(Recorder):
    """Per job, by index: start and end times (NaN until then), nodes held and location; the jobs
    submitted by the operator (after the workload's), cancelled and refused ones."""

    def __init__(self, workload: Workload) -> None:
        n = len(workload)
        self.workload = workload
        self.start = [math.nan] * n
        self.finish = [math.nan] * n
        self.held_nodes = [0] * n
        self.where = [""] * n
        self.extra: list[Job] = []
        self.cancelled: set[int] = set()
        self.refused: dict[int, str] = {}
        self.finished = 0

    def started(self, job: Job, placement: Placement, now: float) -> None:
        index = job.index
        self.start[index] = now
        self.held_nodes[index] = placement.nodes
        if placement.label:
            self.where[index] = placement.label

    def ended(self, running: RunningJob, now: float, killed: bool) -> None:
        self.finish[running.job.index] = now
        if not killed:
            self.finished += 1

    def moved(self, job: Job, placement: Placement) -> None:
        if placement.label:
            self.where[job.index] = placement.label

    def forget(self, index: int) -> None:
        """Job ``index`` is back in the queue (requeued after a failure): as if never started."""
        self.finish[index] = math.nan
        self.start[index] = math.nan
        self.held_nodes[index] = 0
        self.where[index] = ""

    def add(self, job: Job) -> None:
        """A job submitted by the operator (its index follows the last one)."""
        self.extra.append(job)
        self.start.append(math.nan)
        self.finish.append(math.nan)
        self.held_nodes.append(0)
        self.where.append("")

    def job(self, index: int) -> Job:
        """The job record at ``index`` (workload jobs first, then operator-submitted ones)."""
        n = len(self.workload)
        return self.workload.job(index) if index < n else self.extra[index - n]

    def outcomes(self, simulated_runtimes: bool) -> tuple[np.ndarray, JobOutcomes]:
        """Indices and per-job arrays of the jobs that finished normally (with
        ``simulated_runtimes``, runtimes are end − start)."""
        finish = np.array(self.finish)
        idx = np.flatnonzero(~np.isnan(finish))
        if self.cancelled:
            idx = idx[~np.isin(idx, list(self.cancelled))]
        w = self.workload
        extra = self.extra

        def column(name: str) -> np.ndarray:
            base = getattr(w, name)
            if not extra:
                return base[idx]
            return np.concatenate([base, np.array([getattr(j, name) for j in extra])])[idx]

        start = np.array(self.start)[idx]
        end = finish[idx]
        outcomes = JobOutcomes(
            submit=column("submit"),
            runtime=end - start if simulated_runtimes else column("runtime"),
            size=column("size"),
            allocated=np.array(self.held_nodes)[idx],
            start=start,
            end=end,
            queue=column("queue"),
        )
        return idx, outcomes

    def job_ids(self) -> np.ndarray:
        """Every job's number, by index."""
        ids = self.workload.job_id
        if self.extra:
            ids = np.concatenate([ids, np.array([j.job_id for j in self.extra])])
        return ids


class Clock(Protocol):
    """What the event log reads of the kernel: the events processed so far, and the time."""

    events: int

    @property
    def now(self) -> float: ...


class EventLog(Recorder):
    """The event records: the current event's (``last``: kind, job number or -1, detail), and, when
    someone listens (``listening``), a record per event and per start to ``log`` and to the
    ``recent`` ones. Register it without its ``started`` hook when no one listens."""

    def __init__(self, clock: Clock, log: Callable[[EventRecord], None] | None, recent: int):
        self.clock = clock
        self.log = log
        self.recent: deque[EventRecord] = deque(maxlen=recent)
        self.listening = log is not None or recent > 0
        self.last: tuple[str, int, str] = ("", -1, "")

    def emit(self, kind: str, job_id: int = -1, detail: str = "") -> None:
        """Remember the current event; build its record only when someone listens."""
        self.last = (kind, job_id, detail)
        if self.listening:
            clock = self.clock
            self.record(EventRecord(clock.events + 1, clock.now, kind, job_id, detail))

    def started(self, job: Job, placement: Placement, now: float) -> None:
        self.record(EventRecord(self.clock.events, now, "start", job.job_id, placement.label))

    def ended(self, running: RunningJob, now: float, killed: bool) -> None:
        kind, job_id = "killed" if killed else "end", running[0].job_id
        self.last = (kind, job_id, "")  # what emit does, without a second call per job
        if self.listening:
            self.record(EventRecord(self.clock.events + 1, now, kind, job_id, ""))

    def record(self, record: EventRecord) -> None:
        if self.log is not None:
            self.log(record)
        if self.recent.maxlen:
            self.recent.append(record)


class FinishedJobs(Recorder):
    """The last ``recent`` jobs to leave the machine."""

    def __init__(self, recent: int) -> None:
        self.left: deque[FinishedJob] = deque(maxlen=recent)

    def ended(self, running: RunningJob, now: float, killed: bool) -> None:
        job, start, placement = running
        self.left.append(FinishedJob(job, start, now, placement, killed))
