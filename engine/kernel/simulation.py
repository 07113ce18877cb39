"""The one façade used by the command line, the console and the tests (DESIGN.md, "Engine").

``Simulation(machine, workload, policy, seed)`` replays a workload through a policy on a machine:

- :meth:`step` processes one calendar event (a job end, an operator action, an arrival or a
  scheduling pass) and returns its record; :meth:`peek` gives the next event's time;
  :meth:`run` runs to the end or through a time;
- :meth:`snapshot` returns an immutable view for display; :meth:`results` the metrics;
- :meth:`apply` schedules an operator action and records it in the action log
  (:class:`~meshsim.engine.kernel.action_log.ActionLog`); the actions are carried out on the run's
  :attr:`operator` (:class:`~meshsim.engine.kernel.operator.Operator`), and :meth:`unit_info` is the
  unit inspector;
- :meth:`fork` returns an independent copy at the same event, for what-if comparisons, and
  :meth:`replayed` rebuilds the run at an earlier event (stepping back).

The parts, each in a module of its own: the event kernel (:class:`~meshsim.engine.kernel.loop.
EventLoop`), the machine state (:class:`~meshsim.engine.kernel.machine_state.MachineState`, with its
:class:`~meshsim.engine.kernel.outages.Outages`), the scheduling pass
(:class:`~meshsim.engine.scheduling.scheduler.Scheduler`) and the recorders
(:mod:`meshsim.engine.kernel.recorders`); the views of a run are :mod:`meshsim.engine.kernel.views`.

Order at one instant: completions, then actions, then arrivals, then one scheduling pass
(:mod:`meshsim.engine.kernel.events`). Same inputs, seed and action log give the same results, byte
for byte."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from meshsim.engine.allocation.allocator import Allocator
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.policy import Policy
from meshsim.engine.kernel import views
from meshsim.engine.kernel.action_log import ActionLog
from meshsim.engine.kernel.actions import Action, LoggedAction
from meshsim.engine.kernel.events import Calendar, EventRecord
from meshsim.engine.kernel.loop import EventLoop
from meshsim.engine.kernel.machine_state import MachineState
from meshsim.engine.kernel.operator import Operator, make_allocator
from meshsim.engine.kernel.recorders import (
    FinishedJobs,
    History,
    JobLedger,
    Listeners,
    Recorder,
    TimeIntegrals,
    plugin_recorders,
)
from meshsim.engine.kernel.runtime_models import runtime_model
from meshsim.engine.kernel.waits import Watch
from meshsim.engine.scheduling.context import RunStats
from meshsim.engine.scheduling.scheduler import Scheduler

if TYPE_CHECKING:
    from meshsim.engine.core.jobs import Job
    from meshsim.engine.kernel.metrics import JobOutcomes
    from meshsim.engine.kernel.records import Results, RunningJob, Snapshot
    from meshsim.engine.rejections import ActionRejection
    from meshsim.engine.topology.machines import Machine
    from meshsim.engine.topology.units import UnitInfo
    from meshsim.engine.workloads.workload import Workload

R = TypeVar("R", bound=Recorder)


class Simulation:
    """One run of a workload through a policy on a machine. Its ``plugins`` are the recorders that
    machine families bring (:data:`~meshsim.engine.kernel.recorders.RECORDERS`; on a machine with
    I/O nodes the contention observer, which measures contention per job and over the run): their
    run figures join :meth:`results` and their per-job columns the jobs CSV."""

    def __init__(
        self,
        machine: Machine,
        workload: Workload,
        policy: Policy | None = None,
        seed: int = 0,
        *,
        actions: Sequence[Action | LoggedAction] = (),
        log: Callable[[EventRecord], None] | None = None,
        recent: int = 0,
        history: bool = False,
        allocator_class: type[Allocator] | None = None,
        past: Workload | None = None,
    ) -> None:
        self.machine, self.workload, self.seed = machine, workload, seed
        policy = self._first_policy = policy or Policy()
        self._allocator_class, self._past, self._recent = allocator_class, past, recent
        first = float(workload.submit[0]) if len(workload) else 0.0
        allocator = make_allocator(machine, policy, seed, allocator_class)
        allocator.prepare(workload)
        for done in past.jobs() if past is not None else ():
            allocator.finished(done)
        model = runtime_model(policy.runtime_model, machine, workload, seed)
        if policy.migrate and type(allocator).repack is Allocator.repack:
            raise MeshsimError(f"allocator '{allocator.name}' cannot migrate jobs (--migrate)")
        stats = RunStats(first_arrival=first)
        listeners = Listeners()
        calendar = Calendar(initial_time=first)
        self.state = MachineState(machine, allocator, calendar, listeners, stats, model)
        self.scheduler = Scheduler(machine, policy, self.state, stats)
        self.ledger = JobLedger(workload)
        self.loop = EventLoop(
            workload, calendar, self.state, self.scheduler, listeners, self.ledger, log, recent
        )
        self.operator = Operator(self.loop, workload, policy, seed, allocator_class)
        self.time = TimeIntegrals(first, self.state, self.scheduler.queue)
        self.history = History(first, self.state, self.scheduler.queue) if history else None
        self.finished_jobs = FinishedJobs(recent)
        listeners.add(self.time)
        if self.history is not None:
            listeners.add(self.history)
        listeners.add(self.ledger)
        listeners.add(self.loop.log, skip=() if self.loop.log.listening else ("started",))
        if recent > 0:
            listeners.add(self.finished_jobs)
        self.plugins = plugin_recorders(machine, workload, seed)
        for recorder in self.plugins:
            listeners.add(recorder)
            recorder.after_event(first, self.state)
        self.action_log = ActionLog(self.loop, self.operator, actions)
        self.action_log.apply_due()

    # ------------------------------------------------------------------------- the calendar

    @property
    def now(self) -> float:
        return self.loop.now

    @property
    def events(self) -> int:
        return self.loop.events

    @property
    def done(self) -> bool:
        return self.loop.peek() == math.inf

    def peek(self) -> float:
        """Time of the next event (``inf`` when the run is over)."""
        return self.loop.peek()

    def step(self) -> EventRecord | None:
        """Process one event and return its record; None when the run is over. When the event is the
        last of its instant, the instant's scheduling pass runs too and the record lists the jobs it
        started."""
        loop = self.loop
        loop.started = []
        if not loop.advance():
            return None
        if self.action_log.pending:
            self.action_log.apply_due()
        kind, job_id, detail = loop.log.last
        started = tuple([job.job_id for job in loop.started])
        return EventRecord(loop.events, loop.now, kind, job_id, detail, started)

    def run(self, until: float | None = None, *, max_events: int | None = None) -> None:
        """Run to the end, or process every event at times ≤ ``until``, or ``max_events``."""
        limit = math.inf if until is None else until
        budget = math.inf if max_events is None else max_events
        advance = self.loop.advance
        pending = self.action_log.pending
        if max_events is None and not pending:
            while advance(limit):
                pass
            return
        count = 0
        while True:
            stop = budget
            if pending:
                stop = min(budget, count + pending[0].after_event - self.loop.events)
            while count < stop:
                if not advance(limit):
                    return
                count += 1
            self.action_log.apply_due()
            if count >= budget:
                return

    def run_to_event(self, number: int) -> None:
        """Process events until ``number`` events have been processed (or the run ends)."""
        if self.loop.events < number:
            self.run(max_events=number - self.loop.events)

    # --------------------------------------------------------------------- operator actions

    def apply(self, action: Action) -> int:
        """Schedule ``action`` at its time (not earlier than now) and record it in the action log,
        with the number of events processed so far (so a replay applies it at the same point); its
        number in the log (:class:`~meshsim.engine.kernel.action_log.ActionLog`)."""
        return self.action_log.apply(action)

    def logged_actions(self) -> list[LoggedAction]:
        """Every action of this run with the event count it was applied after: those applied so far,
        then those a replay still holds for later events."""
        return self.action_log.logged()

    def action_rejections(self) -> list[ActionRejection]:
        """Every action that could not apply, in log order (with, once the run is over, those whose
        ``after_event`` it never reached)."""
        return self.action_log.rejections(self.done)

    # ------------------------------------------------------------------------------ state

    @property
    def policy(self) -> Policy:
        return self.operator.policy

    @property
    def allocator(self) -> Allocator:
        return self.state.allocator

    @property
    def running(self) -> dict[int, RunningJob]:
        return self.state.running

    @property
    def held(self) -> dict[int, Job]:
        return self.operator.held

    @property
    def rejected(self) -> dict[str, int]:
        return self.loop.rejected

    @property
    def requeues(self) -> int:
        return self.operator.requeues

    def job_index(self, job_id: int) -> int:
        """The index of the job with number ``job_id``."""
        return self.operator.job_index(job_id)

    def job(self, index: int) -> Job:
        """The job record at ``index`` (workload jobs first, then operator-submitted ones)."""
        return self.ledger.job(index)

    def recorder(self, kind: type[R]) -> R | None:
        """This run's plug-in recorder of type ``kind``, if it has one."""
        return next((r for r in self.plugins if isinstance(r, kind)), None)

    def unit_info(self, cell: int) -> UnitInfo:
        """The unit inspector (:meth:`meshsim.engine.kernel.outages.Outages.unit_info`)."""
        return self.state.outages.unit_info(cell)

    def outages(self) -> dict[str, tuple[int, ...]]:
        """Units out of service (:meth:`meshsim.engine.kernel.outages.Outages.summary`)."""
        return self.state.outages.summary()

    # ------------------------------------------------------------------------------ views

    def explain(self, job_id: int) -> str:
        """Why a job is where it is: running where, finished, held, or why it waits."""
        return views.explain(self, job_id)

    def job_status(self, job_id: int) -> str:
        """Where a job stands now (:func:`meshsim.engine.kernel.views.job_status`)."""
        return views.job_status(self, job_id)

    def snapshot(self, *, watch: Watch | None = None) -> Snapshot:
        """An immutable view now, with the waits of the jobs ``watch`` names (default: none)."""
        return views.snapshot(self, watch or Watch())

    def outcomes(self) -> tuple[np.ndarray, JobOutcomes]:
        """Indices and per-job arrays of the jobs that finished normally (with a runtime model,
        runtimes are the simulated ones, end − start)."""
        return self.ledger.outcomes(self.state.model is not None)

    def results(self) -> Results:
        """Metrics and breakdowns of the jobs that finished (the whole run once it is done)."""
        return views.results(self)

    def job_table(self) -> dict[str, np.ndarray]:
        """Per-job columns of the finished jobs, in job index order (for the jobs CSV)."""
        return views.job_table(self)

    def start_times(self) -> np.ndarray:
        """Start time of every job by index (NaN for jobs that never started)."""
        return np.array(self.ledger.start)

    # ----------------------------------------------------------------------- what-if

    def replayed(self, event: int | None = None) -> Simulation:
        """A fresh run with the same inputs and action log, advanced to ``event`` (default: this
        run's current event). Stepping back is ``sim.replayed(sim.events - 1)``."""
        twin = Simulation(
            self.machine,
            self.workload,
            self._first_policy,
            self.seed,
            actions=self.logged_actions(),
            recent=self._recent,
            history=self.history is not None,
            allocator_class=self._allocator_class,
            past=self._past,
        )
        twin.run_to_event(self.loop.events if event is None else event)
        return twin

    def fork(self) -> Simulation:
        """An independent copy at the current event, for what-if branches."""
        return self.replayed()
