"""The one façade used by the command line, the console and the tests (DESIGN.md, "Engine").

``Simulation(machine, workload, policy, seed)`` replays a workload through a policy on a machine:

- :meth:`step` processes one calendar event (a job end, an operator action, an arrival or a
  scheduling pass) and returns its record; :meth:`peek` gives the next event's time;
  :meth:`run` runs to the end or through a time;
- :meth:`snapshot` returns an immutable view for display; :meth:`results` the metrics;
- :meth:`apply` schedules an operator action and records it in the action log; failures, repairs and
  reservations of units (:meth:`fail_unit`, :meth:`repair_unit`,
  :meth:`reserve_units`) are what the ``fail``, ``repair`` and ``reserve`` actions do, and
  :meth:`unit_info` is the unit inspector;
- :meth:`fork` returns an independent copy at the same event, for what-if comparisons, and
  :meth:`replayed` rebuilds the run at an earlier event (stepping back).

Order at one instant: completions, then actions, then arrivals, then one scheduling pass
(:mod:`meshsim.engine.events`). Same inputs, seed and action log give the same results, byte for
byte."""

from __future__ import annotations

import math
from bisect import bisect_left, insort
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from heapq import heappop
from itertools import chain, repeat
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from meshsim.engine.actions import Action, LoggedAction
from meshsim.engine.allocation import ALLOCATORS, DOWN, FREE, RESERVED, Allocator, Placement
from meshsim.engine.contention.observer import ContentionObserver
from meshsim.engine.errors import MeshsimError
from meshsim.engine.events import (
    ACTION,
    COMPLETION,
    Calendar,
    EventRecord,
    Tick,
    priority,
    schedule,
)
from meshsim.engine.jobs import Job
from meshsim.engine.metrics import Integrals, JobOutcomes, breakdown, summary
from meshsim.engine.planning import Planner, Releases, Shadow, count_shadow
from meshsim.engine.policy import Policy
from meshsim.engine.rejections import ActionRejected, ActionRejection, reason_of
from meshsim.engine.runtime_models import RUNTIME_MODELS, RuntimeModel
from meshsim.engine.scheduling.backfill import BACKFILLS, Backfill
from meshsim.engine.scheduling.context import PassContext, RunStats
from meshsim.engine.scheduling.disciplines import DISCIPLINES, Discipline
from meshsim.engine.scheduling.orders import QUEUE_ORDERS, QueueOrder, WaitingQueue
from meshsim.engine.seeding import Stream, generator
from meshsim.engine.series import Series, SeriesView
from meshsim.engine.simclock import clock
from meshsim.engine.units import UnitInfo, block_cells, unit_cell, unit_name

if TYPE_CHECKING:
    from meshsim.engine.machines import Machine
    from meshsim.engine.partitions.menu import Menu
    from meshsim.engine.workload import Workload

_CHUNK = 4096
_INF = math.inf
_new_tuple = tuple.__new__
"""Builds a named tuple from a tuple of its fields without its Python-level ``__new__``."""
_COMPLETION = priority(COMPLETION, 0)
_CLOCK = priority(ACTION, (1 << 39))
_RESERVATION_END = priority(ACTION, (1 << 38))
ON_JOB = ("requeue", "kill")
"""What a failure does to the job running on the failing unit (the ``fail`` action's ``on_job``):
requeue it (default) or kill it."""


class FinishedJob(NamedTuple):
    """A job that has left the machine: where it ran, from when to when, and whether it was killed
    (cancelled, or lost with a failed unit) rather than finished."""

    job: Job
    start: float
    end: float
    placement: Placement
    killed: bool


class RunningJob(NamedTuple):
    """A job that holds nodes: when it started, where, and when it is expected to end."""

    job: Job
    start: float
    placement: Placement

    @property
    def expected_end(self) -> float:
        return self.start + self.job.estimate

    @property
    def end(self) -> float:
        return self.start + self.job.runtime


@dataclass(frozen=True, eq=False)
class Snapshot:
    """An immutable view of a simulation at one event, for display (the console renders only these).
    ``owners`` is a read-only per-cell array (job index, or FREE/DOWN/RESERVED); ``recent`` and
    ``finished`` hold the last events and the last jobs to leave the machine (bounded by the
    ``recent`` argument of the simulation)."""

    time: float
    event: int
    done: bool
    machine: Machine
    policy: Policy
    free_nodes: int
    owners: np.ndarray
    running: tuple[RunningJob, ...]
    waiting: tuple[Job, ...]
    held: tuple[Job, ...]
    reasons: MappingProxyType
    metrics: MappingProxyType
    recent: tuple[EventRecord, ...]
    finished: tuple[FinishedJob, ...]
    series: SeriesView | None


@dataclass(frozen=True)
class Reservation:
    """An operator reservation of ``cells`` over [start, until) (a maintenance drain)."""

    number: int
    cells: tuple[int, ...]
    start: float
    until: float
    label: str


@dataclass
class MigrationCounts:
    """What migration did over a run."""

    passes: int = 0
    jobs: int = 0
    node_seconds: float = 0.0


@dataclass(frozen=True)
class Results:
    """What a run produced: the metrics and their breakdowns by size class and by queue."""

    metrics: dict[str, float | int]
    by_size_class: dict[str, dict[str, float | int]]
    by_queue: dict[str, dict[str, float | int]]


class Simulation:
    """One run of a workload through a policy on a machine. On a machine with I/O nodes its
    ``observer`` measures contention per job and over the run while it runs (the running set is
    shown to it after every event that changed it); its run figures join :meth:`results` and its
    per-job columns the jobs CSV (:mod:`meshsim.engine.contention.observer`)."""

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
        self.machine = machine
        self.workload = workload
        self.policy = policy or Policy()
        self._first_policy = self.policy
        self.seed = seed
        n = len(workload)
        first = float(workload.submit[0]) if n else 0.0
        self.env = Calendar(initial_time=first)
        self._calendar = self.env._queue
        self._allocator_class = allocator_class
        self.allocator = self._make_allocator(self.policy.allocator)
        self.allocator.prepare(workload)
        self._past = past
        if past is not None:
            for done in past.jobs():
                self.allocator.finished(done)
        self._model: RuntimeModel | None = None
        if self.policy.runtime_model is not None:
            model_class = RUNTIME_MODELS.get(self.policy.runtime_model)
            self._model = model_class(machine, workload, generator(seed, Stream.RUNTIME))
        self.rejected: dict[str, int] = {}
        self.migration = MigrationCounts()
        self.requeues = 0
        self._down: set[int] = set()
        self._out: dict[int, int] = {}
        self._draining: set[int] = set()
        self._reservations: list[Reservation] = []
        self._reservation_count = 0
        if self.policy.migrate and type(self.allocator).repack is Allocator.repack:
            raise MeshsimError(f"allocator '{self.allocator.name}' cannot migrate jobs (--migrate)")
        self._refused: dict[int, str] = {}
        self._order: QueueOrder = QUEUE_ORDERS.get(self.policy.queue)(machine)
        self._discipline: Discipline = DISCIPLINES.get(self.policy.discipline)(self.policy)
        self._backfill: Backfill = BACKFILLS.get(self.policy.backfill)(self.policy)
        self.queue = WaitingQueue(self._order)
        self.running: dict[int, RunningJob] = {}
        self.held: dict[int, Job] = {}
        self._ends: list[tuple[float, int, int]] = []
        self._ends_nodes = 0
        self._end_ticks: dict[int, Tick] = {}
        self._extra: list[Job] = []
        self._start = [math.nan] * n
        self._finish = [math.nan] * n
        self._held_nodes = [0] * n
        self._where = [""] * n
        self._cancelled: set[int] = set()
        self._ids: dict[int, int] | None = None
        self._busy = 0
        self._busy_alloc = 0
        self._early_release = False
        self._pass_pending = False
        self._layout = 0
        self._packed = -1
        self._model_dirty = False
        self._wake_at = math.nan
        self.integrals = Integrals(first=first, last=first)
        self.series = Series(first) if history else None
        self._finished = 0
        self.events = 0
        self.action_log: list[Action] = []
        self.action_events: list[int] = []
        self.rejected_actions: dict[int, ActionRejection] = {}
        """Actions that could not apply, by their number in the action log."""
        self._log = log
        self._recent: deque[EventRecord] = deque(maxlen=recent)
        self._left: deque[FinishedJob] = deque(maxlen=recent)
        self._keeps_left = recent > 0
        self._listening = log is not None or recent > 0
        self._last: tuple[str, int, str] = ("", -1, "")
        """The current event for step's record: its kind, its job number (or -1) and detail."""
        self._stale: set[int] = set()
        """The sequence numbers of cancelled ticks still on the calendar."""
        self._started_now: list[Job] = []
        """The jobs the last pass started (one step reports those of its pass)."""
        self.stats = RunStats(first_arrival=first)
        self._ctx = PassContext(
            first, [], self.allocator, self._start_job, self._make_planner, stats=self.stats
        )
        self._configure_pass()
        self._feed = self._job_feed()
        self._next_job: Job | None = next(self._feed, None)
        self._next_submit = math.inf if self._next_job is None else self._next_job.submit
        logged = [a if isinstance(a, LoggedAction) else LoggedAction(0, a) for a in actions]
        self._held_actions = deque(sorted(logged, key=lambda a: a.after_event))
        self.observer: ContentionObserver | None = None
        if ContentionObserver.applies(machine):
            self.observer = ContentionObserver(machine, workload, seed)
            self.observer.observe(first, self.running)
        self._observed = self._layout
        self._apply_due()

    # ----------------------------------------------------------------- construction helpers

    def _make_allocator(self, name: str | None) -> Allocator:
        name = name or self.machine.default_allocator
        cls = self._allocator_class or ALLOCATORS.get(name)
        if self.machine.topology not in cls.topologies:
            topology = self.machine.topology
            valid = [n for n in ALLOCATORS.names() if topology in ALLOCATORS.get(n).topologies]
            raise MeshsimError(
                f"allocator '{name}' does not work on {self.machine.topology} machine "
                f"'{self.machine.name}' (valid here: {', '.join(valid)})"
            )
        return cls(self.machine, generator(self.seed, Stream.ALLOCATOR), rotate=self.policy.rotate)

    def _job_feed(self) -> Iterator[Job]:
        """Jobs in arrival order, built in chunks (a million-job workload never exists as a million
        records at once). The chunks are chained, so drawing the next job is a step of C iterators
        rather than a generator's resumption."""
        return chain.from_iterable(self._job_chunks())

    def _job_chunks(self) -> Iterator[Iterator[Job]]:
        """The jobs of each chunk of ``_CHUNK`` rows, built as the chunk's turn comes."""
        w = self.workload
        cols = ("job_id", "submit", "runtime", "estimate", "size", "procs", "user", "group")
        cols += ("queue", "partition")
        for lo in range(0, len(w), _CHUNK):
            hi = min(lo + _CHUNK, len(w))
            chunk = [getattr(w, c)[lo:hi].tolist() for c in cols]
            shapes: list[tuple[int, ...] | None] = [None] * (hi - lo)
            if w.shapes is not None:
                rows = w.shapes[lo:hi].tolist()
                shapes = [tuple(v for v in row if v > 0) or None for row in rows]
            # tuple.__new__ is what Job._make does, without a Python call per job
            rows = zip(range(lo, hi), *chunk, shapes, strict=True)
            yield map(_new_tuple, repeat(Job), rows)

    # ------------------------------------------------------------------------- the calendar

    @property
    def now(self) -> float:
        return self.env.now

    @property
    def done(self) -> bool:
        return self.peek() == math.inf

    def peek(self) -> float:
        """Time of the next event (``inf`` when the run is over)."""
        queue = self._calendar
        if self._stale:
            self._drop_stale()
        t = queue[0][0] if queue else math.inf
        job = self._next_job
        return job.submit if job is not None and job.submit < t else t

    def step(self) -> EventRecord | None:
        """Process one event and return its record; None when the run is over. When the event is the
        last of its instant, the instant's scheduling pass runs too and the record lists the jobs it
        started."""
        self._started_now = []
        if not self._advance():
            return None
        if self._held_actions:
            self._apply_due()
        kind, job_id, detail = self._last
        started = tuple([job.job_id for job in self._started_now])
        return EventRecord(self.events, self.env.now, kind, job_id, detail, started)

    def _drop_stale(self) -> None:
        """Pop the cancelled ticks at the top of the calendar (``_stale`` holds those on it)."""
        queue, stale = self._calendar, self._stale
        while queue and queue[0][2] in stale:
            stale.remove(heappop(queue)[2])

    def _advance(self, limit: float = math.inf) -> bool:
        """Process the next event if it is due at or before ``limit``; False if there is none.

        Events come from two sources merged in DESIGN.md's order: the SimPy calendar's heap, read
        directly (completions, actions and clock ticks, each a
        :data:`~meshsim.engine.events.Tick` with one callback), and the workload's arrivals in
        (submit, job number) order, which follow every calendar event of their instant. Cancelled
        completions (moved by the runtime model, or of a job killed or evicted) are dropped unseen:
        they neither count as events nor advance the clock or the time integrals. When the event is
        the last of its instant, the instant's pass runs.

        (One event per call: Python 3.11 specializes a function's code when it is entered, so a loop
        over all events inside one call would run unspecialized.)"""
        queue = self._calendar
        if self._stale:
            self._drop_stale()
        next_submit = self._next_submit
        if queue:
            top = queue[0]
            t = top[0]
            if t <= next_submit:
                tick = top
            else:
                t = next_submit
                tick = None
        elif next_submit < _INF:
            t = next_submit
            tick = None
        else:
            return False
        if t > limit:
            return False
        acc = self.integrals
        if t > acc.last:
            # The time integrals from the last event to t (the state is constant between).
            dt = t - acc.last
            idle = self.allocator.free_nodes
            waiting = self.queue
            busy = self._busy
            acc.busy += busy * dt
            acc.allocated += self._busy_alloc * dt
            lost = 0  # idle nodes while a waiting job would fit them (loss of capacity)
            count = len(waiting.jobs)
            if count:
                acc.queue += count * dt
                spare = idle - waiting.demand
                if spare > 0:
                    acc.unused += spare * dt
                if idle > 0 and waiting.smallest <= idle:
                    lost = idle
                    acc.loc += idle * dt
            elif idle > 0:
                acc.unused += idle * dt
            if self.series is not None:
                n = self.machine.nodes
                self.series.add(acc.last, t, busy / n, count, lost / n)
            acc.last = t
        self.env._now = t
        if tick is None:
            self._arrive(self._next_job)
        else:
            heappop(queue)
            tick[3](tick[4])
        if self._stale:
            self._drop_stale()
        if (not queue or queue[0][0] > t) and self._next_submit > t:
            if self._pass_pending:
                self._pass()
            if self._model_dirty:
                self._reschedule()
        if self.observer is not None and self._observed != self._layout:
            self._observed = self._layout
            self.observer.observe(t, self.running)
        self.events += 1
        return True

    def run(self, until: float | None = None, *, max_events: int | None = None) -> None:
        """Run to the end, or process every event at times ≤ ``until``, or ``max_events``."""
        limit = math.inf if until is None else until
        budget = math.inf if max_events is None else max_events
        advance = self._advance
        pending = self._held_actions
        if max_events is None and not pending:
            while advance(limit):
                pass
            return
        count = 0
        while True:
            stop = budget
            if pending:
                stop = min(budget, count + pending[0].after_event - self.events)
            while count < stop:
                if not advance(limit):
                    return
                count += 1
            self._apply_due()
            if count >= budget:
                return

    def run_to_event(self, number: int) -> None:
        """Process events until ``number`` events have been processed (or the run ends)."""
        if self.events < number:
            self.run(max_events=number - self.events)

    def _emit(self, kind: str, job_id: int = -1, detail: str = "") -> None:
        """Remember the current event; build a log record only when someone listens."""
        self._last = (kind, job_id, detail)
        if self._listening:
            self._record(EventRecord(self.events + 1, self.env.now, kind, job_id, detail))

    def _record(self, record: EventRecord) -> None:
        if self._log is not None:
            self._log(record)
        if self._recent.maxlen:
            self._recent.append(record)

    # ---------------------------------------------------------------------------- arrivals

    def _arrive(self, job: Job) -> None:
        nxt = self._next_job = next(self._feed, None)
        self._next_submit = math.inf if nxt is None else nxt.submit
        if self._admits and (refusal := self.allocator.admit(job)) is not None:
            self.rejected[refusal] = self.rejected.get(refusal, 0) + 1
            self._refused[job.index] = refusal
            self._cancelled.add(job.index)
            self._emit("rejected", job.job_id, refusal)
            return
        self.queue.add(job)
        self.stats.arrivals += 1
        self._emit("arrival", job.job_id)
        self._pass_pending = True

    def _request_pass(self) -> None:
        """Ask for the instant's pass after something other than an arrival: the jobs the last pass
        left waiting must all be tried again."""
        self._pass_pending = True
        self._settled = 0

    # -------------------------------------------------------------------------- scheduling

    def _make_planner(self) -> Planner:
        now = self.env._now
        return self.allocator.planner(now, Releases(now, self._ends.copy(), self.running))

    def _shadow(self, job: Job) -> Shadow:
        """The node-count planner's shadow for head ``job`` now (``PassContext.shadow``)."""
        return count_shadow(
            self.env._now, self.allocator.free_nodes, self._ends, job.size, self._ends_nodes
        )

    def _pass(self) -> None:
        """The one scheduling pass of an instant, after all its completions, actions and arrivals
        (DESIGN.md, "Event order at one instant").

        A pass is *settled* when the last pass left ``_settled`` jobs waiting and only arrivals
        happened since, under a policy whose refusals are stable (``_incremental``: arrival order,
        incremental discipline and backfilling, an allocator with stable refusals, no migration or
        pairing) and with no running job past its estimate (so a node-count reservation is where it
        was). Those jobs could not start then and cannot now, so the pass only tries the new
        arrivals behind them: the same starts as a full pass.

        A pass is *idle* when no waiting job fits (the smallest waiting size exceeds the free nodes)
        on an allocator that places by count (``fits_by_count``): under policies that start jobs
        only where they fit now (``skips_idle``) it starts nothing, so the policies only note what
        such a pass leaves them (:meth:`Discipline.idle`, :meth:`Backfill.idle`)."""
        self._pass_pending = False
        now = self.env._now
        allocator = self.allocator
        allocator.now = now
        waiting = self.queue
        if waiting.jobs:
            queue = waiting.ordered(now) if self._dynamic else waiting.jobs
            settled = self._settled
            if settled:
                ends = self._ends
                if ends and ends[0][0] <= now:
                    settled = 0
            if self._skips_idle and waiting.smallest > allocator.free_nodes:
                self._backfill.idle(queue, self._discipline.idle(queue), settled)
            else:
                ctx = self._ctx
                ctx.now = now
                ctx.queue = queue
                ctx.settled = settled
                ctx.smallest = waiting.smallest
                ctx.sizes = waiting.sizes
                ctx.early_release = self._early_release
                ctx.started.clear()
                started_now = self._started_now = []
                if self._owns_starts:
                    self._backfill.run(ctx, None)
                else:
                    head = self._discipline.select(ctx)
                    if head is not None and self.policy.migrate and self._migrate():
                        ctx.queue = [job for job in queue if job.index not in ctx.started]
                        ctx.sizes = None
                        head = self._discipline.select(ctx)
                    if head is not None:
                        self._backfill.run(ctx, head)
                if started_now:
                    remove = waiting.remove
                    for job in started_now:
                        remove(job)
        self._early_release = False
        self._settled = len(waiting.jobs) if self._incremental else 0
        if not self._clocked or not waiting.jobs:
            return
        wake = allocator.next_change(now)
        if wake is not None and wake > now and wake != self._wake_at:
            self._wake_at = wake
            schedule(self.env, wake, _CLOCK, self._on_clock, wake)

    def _on_clock(self, wake: float) -> None:
        """A time at which the allocator's rules change (e.g. prime time begins); scheduled only
        while jobs wait, so an idle machine's clock never keeps a run alive."""
        self._emit("clock", -1, "allocation rules change")
        self._request_pass()

    def _migrate(self) -> bool:
        """Re-pack the running jobs when the head is blocked (FCFS with migration, seed 002 §2):
        every running job is re-placed, largest first, into an empty machine by the allocator's own
        rule; the new layout is applied when it holds them all. Returns whether any job moved.
        Counts migrations, moved jobs and moved node-seconds (the work already done by the moved
        jobs, nodes × elapsed time, a measure of the state migrated).

        A re-pack depends only on the running jobs, the units out of service and the allocator's
        rule, which ``_layout`` counts changes of: when none changed since the last re-pack
        (``_packed``), the jobs are where a re-pack puts them, or it failed, and it is not tried
        again."""
        if self._packed == self._layout:
            return False
        self._packed = self._layout
        running = [(r.job, r.placement) for _, r in sorted(self.running.items())]
        plan = self.allocator.repack(running)
        if plan is None:
            return False
        moved = [(job, old) for job, old in running if plan[job.index].cells != old.cells]
        if not moved:
            return False
        allocator = self.allocator
        for job, old in moved:
            allocator.release(job, old)
        now = self.env._now
        for job, _ in moved:
            new = plan[job.index]
            allocator.allocate(job, new)
            r = self.running[job.index]
            self.running[job.index] = r._replace(placement=new)
            if new.label:
                self._where[job.index] = new.label
            self.migration.node_seconds += new.nodes * (now - r.start)
        self._layout += 1
        self._packed = self._layout
        self.migration.passes += 1
        self.migration.jobs += len(moved)
        if self._draining:
            self._settle(self._draining)
        return True

    def _start_job(self, job: Job, placement: Placement) -> None:
        now = self.env._now
        # One slice reads six fields for the cost of four attribute reads (a NamedTuple field
        # is a data descriptor, which Python 3.11 does not specialize).
        index, job_id, submit, runtime, estimate, size = job[:6]
        nodes = placement.nodes
        label = placement.label
        self._layout += 1
        self.allocator.allocate(job, placement)
        self.running[index] = _new_tuple(RunningJob, (job, now, placement))
        insort(self._ends, (now + estimate, index, nodes))
        self._ends_nodes += nodes
        self._start[index] = now
        self._held_nodes[index] = nodes
        if label:
            self._where[index] = label
        self._busy += size
        self._busy_alloc += nodes
        stats = self.stats
        stats.running += 1
        stats.running_wait += now - submit
        if self._model is None:
            tick = schedule(self.env, now + runtime, _COMPLETION | index, self._finish_job, index)
            self._end_ticks[index] = tick
        else:
            self._model.start(job, placement, now)
            self._model_dirty = True
        self._started_now.append(job)
        if self._listening:
            self._record(EventRecord(self.events, now, "start", job_id, label))

    def _reschedule(self) -> None:
        """Move the completions of running jobs to the ends the runtime model gives now."""
        self._model_dirty = False
        now = self.env._now
        for index, end in sorted(self._model.ends(now).items()):
            tick = self._end_ticks.get(index)
            if tick is None or tick[0] != end:
                if tick is not None:
                    self._stale.add(tick[2])
                new = schedule(
                    self.env, max(end, now), _COMPLETION | index, self._finish_job, index
                )
                self._end_ticks[index] = new

    def _finish_job(self, index: int, killed: bool = False) -> RunningJob:
        """Release the nodes of a running job that ends now (normally: its completion tick's
        callback; or ``killed``). The jobs the last pass left waiting must all be tried again
        (``_settled`` is cleared, and a pass is due if any waits)."""
        now = self.env._now
        self._settled = 0
        self._layout += 1
        r = self.running.pop(index)
        job, start, placement = r
        tick = self._end_ticks.pop(index, None)
        if killed and tick is not None:  # still on the calendar (a normal end's tick is not)
            self._stale.add(tick[2])
        if self._model is not None:
            self._model.finish(job, now)
            self._model_dirty = True
        self.allocator.release(job, placement)
        if self._draining:
            self._settle(self._draining)
        expected = start + job.estimate
        nodes = placement.nodes
        ends = self._ends
        self._ends_nodes -= ends.pop(bisect_left(ends, (expected, index, nodes)))[2]
        self._finish[index] = now
        if not killed:
            self._finished += 1
            if self.queue.jobs:
                self._pass_pending = True
            if self._learns:
                self.allocator.finished(job)
        self._busy -= job.size
        self._busy_alloc -= nodes
        stats = self.stats
        stats.running -= 1
        stats.running_wait -= start - job.submit
        if now < expected:
            self._early_release = True
        if self._keeps_left:
            self._left.append(FinishedJob(job, start, now, placement, killed))
        self._emit("killed" if killed else "end", job.job_id)
        return r

    # --------------------------------------------------------------------- operator actions

    def _apply_due(self) -> None:
        """Apply the logged actions whose turn has come
        (:class:`~meshsim.engine.actions.LoggedAction`)."""
        pending = self._held_actions
        while pending and pending[0].after_event <= self.events:
            action = pending.popleft().action
            if action.time < self.env.now:  # its place in the log comes after its time
                number = self._log_action(action)
                message = f"its time t={action.time:g} had passed (now t={self.now:g})"
                self._reject(number, action, ActionRejected("time_passed", message))
            else:
                self.apply(action)

    def logged_actions(self) -> list[LoggedAction]:
        """Every action of this run with the event count it was applied after: those applied so far,
        then those a replay still holds for later events."""
        done = [
            LoggedAction(*pair) for pair in zip(self.action_events, self.action_log, strict=True)
        ]
        return [*done, *self._held_actions]

    def apply(self, action: Action) -> None:
        """Schedule ``action`` at its time (not earlier than now) and record it in the log, with the
        number of events processed so far (so a replay applies it at the same point)."""
        if action.time < self.env.now:
            raise MeshsimError(
                f"action '{action.kind}' at t={action.time:g} is in the past (now t={self.now:g})"
            )
        number = self._log_action(action)
        schedule(self.env, action.time, priority(ACTION, number), self._on_action, number)

    def _log_action(self, action: Action) -> int:
        """Record ``action`` in the action log; return its number there."""
        self.action_log.append(action)
        self.action_events.append(self.events)
        return len(self.action_log) - 1

    def _on_action(self, number: int) -> None:
        action = self.action_log[number]
        try:
            text = action.execute(self)
        except MeshsimError as exc:
            text = f"{action.kind} failed: {exc}"
            self._reject(number, action, exc)
        self._emit("action", detail=text)
        self._request_pass()

    def _reject(self, number: int, action: Action, exc: MeshsimError) -> None:
        reason = reason_of(action.kind, exc)
        rejection = ActionRejection(number, action.kind, action.time, self.now, reason, str(exc))
        self.rejected_actions[number] = rejection

    def action_rejections(self) -> list[ActionRejection]:
        """Every action that could not apply, in log order; once the run is over this includes the
        actions whose ``after_event`` it never reached (numbered after the applied ones, as
        :meth:`logged_actions` lists them)."""
        out = [self.rejected_actions[k] for k in sorted(self.rejected_actions)]
        if self.done:
            first = len(self.action_log)
            for k, logged in enumerate(self._held_actions):
                action = logged.action
                message = f"after_event {logged.after_event} but the run ended at {self.events}"
                out.append(
                    ActionRejection(
                        first + k, action.kind, action.time, self.now, "event_not_reached", message
                    )
                )
        return out

    def unfinished(self) -> dict[str, int]:
        """Jobs still waiting or held (by the operator) now; at the end of a run, the jobs that
        never ran."""
        return {"waiting": len(self.queue), "held": len(self.held)}

    def job_index(self, job_id: int) -> int:
        """The index of the job with number ``job_id``."""
        if self._ids is None:
            ids = self.workload.job_id.tolist()
            self._ids = {job_id: i for i, job_id in enumerate(ids)}
            for job in self._extra:
                self._ids[job.job_id] = job.index
        try:
            return self._ids[job_id]
        except KeyError:
            raise ActionRejected("job_unknown", f"no job {job_id}") from None

    def job(self, index: int) -> Job:
        """The job record at ``index`` (workload jobs first, then operator-submitted ones)."""
        n = len(self.workload)
        return self.workload.job(index) if index < n else self._extra[index - n]

    def _waiting_job(self, job_id: int) -> Job:
        index = self.job_index(job_id)
        for job in self.queue.ordered(self.now):
            if job.index == index:
                return job
        if index in self.running or index in self.held:
            state = "running" if index in self.running else "held"
            raise ActionRejected("job_not_waiting", f"job {job_id} is {state}, not waiting")
        if index in self._cancelled or not math.isnan(self._finish[index]):
            raise ActionRejected("job_ended", f"job {job_id} has ended")
        raise ActionRejected("job_not_arrived", f"job {job_id} has not been submitted yet")

    def submit_job(self, size: int, runtime: float, estimate: float, user: int, queue: int) -> Job:
        """A new job submitted now by the operator."""
        self._settled = 0
        if size < 1 or size > self.machine.nodes:
            raise MeshsimError(f"job size must be 1..{self.machine.nodes}, got {size}")
        if runtime < 0:
            raise MeshsimError(f"runtime must not be negative, got {runtime}")
        index = len(self._start)
        last_id = max(int(self.workload.job_id.max()) if len(self.workload) else 0, index)
        job_id = max([last_id, *(j.job_id for j in self._extra)]) + 1
        est = estimate if estimate > 0 else runtime
        procs = size * self.machine.procs_per_unit
        job = Job(index, job_id, self.now, runtime, est, size, procs, user, -1, queue, -1, None)
        self._extra.append(job)
        self._start.append(math.nan)
        self._finish.append(math.nan)
        self._held_nodes.append(0)
        self._where.append("")
        if self._ids is not None:
            self._ids[job_id] = index
        self.queue.add(job)
        self.stats.arrivals += 1
        return job

    def hold_job(self, job_id: int) -> None:
        self._settled = 0
        job = self._waiting_job(job_id)
        self.queue.remove(job)
        self._backfill.forget(job)
        self.held[job.index] = job

    def release_job(self, job_id: int) -> None:
        self._settled = 0
        index = self.job_index(job_id)
        job = self.held.pop(index, None)
        if job is None:
            raise ActionRejected("job_not_held", f"job {job_id} is not held")
        self.queue.add(job)

    def cancel_job(self, job_id: int) -> None:
        self._settled = 0
        index = self.job_index(job_id)
        if index in self.running:
            self._finish_job(index, True)
        elif index in self.held:
            del self.held[index]
        else:
            job = self._waiting_job(job_id)
            self.queue.remove(job)
            self._backfill.forget(job)
        self._cancelled.add(index)

    def change_policy(self, **changes: str) -> None:
        """Switch queue order, discipline, backfilling or allocator from now on."""
        policy = self.policy.with_changes(**changes)
        order = QUEUE_ORDERS.get(policy.queue)(self.machine)
        discipline = DISCIPLINES.get(policy.discipline)(policy)
        backfill = BACKFILLS.get(policy.backfill)(policy)
        if policy.allocator != self.policy.allocator:
            allocator = self._make_allocator(policy.allocator)
            for r in self.running.values():
                allocator.allocate(r.job, r.placement)
            for cell, state in sorted(self._out.items()):
                allocator.withdraw(cell, state)
            self.allocator = allocator
        self.policy = policy
        self._order, self._discipline, self._backfill = order, discipline, backfill
        self.queue.reorder(order)
        self._configure_pass()

    def _configure_pass(self) -> None:
        """Tell the pass context what stays fixed until the next policy change."""
        ctx = self._ctx
        ctx.allocator = self.allocator
        ctx.arrival_order = self._order.arrival_order
        self._dynamic = self._order.dynamic
        self._owns_starts = self._backfill.owns_starts
        kind = type(self.allocator)
        ctx.pairs = kind.companion is not Allocator.companion
        counts = kind.planner is Allocator.planner and not ctx.pairs
        ctx.shadow = self._shadow if counts else None
        self._clocked = kind.next_change is not Allocator.next_change
        self._admits = kind.admit is not Allocator.admit
        self._learns = kind.finished is not Allocator.finished
        self._skips_idle = (
            self.allocator.fits_by_count
            and self._discipline.skips_idle
            and self._backfill.skips_idle
            and not self._owns_starts
            and not self.policy.migrate
        )
        self._incremental = (
            self._order.arrival_order
            and not self._order.dynamic
            and self._discipline.incremental
            and self._backfill.incremental
            and self.allocator.stable_refusals
            and not self.policy.migrate
            and not ctx.pairs
        )
        self._settled = 0
        self._layout += 1

    # ------------------------------------------------------------------------------ units
    #
    # A unit is failed (DOWN), reserved (RESERVED), or in service. The simulation keeps what the
    # operator asked for (``_down``, the active ``_reservations``) and what the allocator has been
    # told (``_out``: cells withdrawn from it, with their state); :meth:`_settle` brings the two
    # together for some cells. A unit that should be out but still runs a job is ``_draining``
    # and is settled when that job's nodes are released, before the instant's scheduling pass.

    def fail_unit(self, unit: str | int, on_job: str = "requeue") -> str:
        """Unit ``unit`` fails now: it becomes DOWN and is never allocated until repaired. A job
        running on it is requeued (killed, back in the waiting queue with its original submit time,
        restarted from scratch later; counted in ``requeued_jobs``) or, with ``on_job="kill"``,
        killed (it ends as cancelled). On a count-only (flat) pool nodes are interchangeable: an
        idle node is taken if there is one, else the job that started last is hit. Failing a unit
        that is down already, or one that is never allocated, is an error."""
        if on_job not in ON_JOB:
            raise MeshsimError(f"on_job must be one of {', '.join(ON_JOB)}, got '{on_job}'")
        cell = unit_cell(self.machine, unit)
        name = unit_name(self.machine, cell)
        if cell in self._down:
            raise ActionRejected("unit_down", f"unit {name} is already down")
        occupant = self._occupant(cell, self.allocator.owners())
        if occupant < 0 and occupant != FREE and cell not in self._out:
            raise ActionRejected("unit_never_allocated", f"unit {name} is never allocated")
        self._down.add(cell)
        text = f"unit {name} failed"
        if occupant >= 0:
            job = self.running[occupant].job
            self._evict(occupant, requeue=on_job == "requeue")
            verb = "requeued" if on_job == "requeue" else "killed"
            text += f"; job {job.job_id} {verb}"
        self._settle((cell,))
        return text

    def repair_unit(self, unit: str | int) -> str:
        """A failed unit comes back: FREE, or RESERVED while a reservation covers it. Repairing a
        unit that is not down is an error."""
        cell = unit_cell(self.machine, unit)
        name = unit_name(self.machine, cell)
        if cell not in self._down:
            raise ActionRejected("unit_not_down", f"unit {name} is not down")
        self._down.remove(cell)
        self._settle((cell,))
        return f"unit {name} repaired"

    def reserve_units(self, block: str | Sequence[str | int], until: float) -> str:
        """Reserve a block of units from now until ``until`` (a maintenance drain).

        From now every idle unit of the block becomes RESERVED; a busy unit becomes RESERVED when
        its job ends (running jobs are never cut short); at ``until`` (an internal calendar event,
        ordered with the operator actions of that instant) every unit the reservation holds returns
        to service, unless it is down or another active reservation covers it. Reserved units are
        never allocated. Units that are never allocated (service nodes) are left as they are.
        Limitation: backfilling plans with the reserved units as unavailable for good (it does not
        count on their return at ``until``), and a reservation has no effect before its start time
        (jobs started before then may run into the window; their units drain when they end)."""
        cells = block_cells(self.machine, block)
        if not (math.isfinite(until) and until > self.now):
            raise ActionRejected(
                "reservation_over", f"a reservation must end after it starts (t={self.now:g})"
            )
        label = block if isinstance(block, str) else " ".join(map(str, block))
        number = self._reservation_count
        self._reservation_count += 1
        reservation = Reservation(number, cells, self.now, until, label)
        self._reservations.append(reservation)
        self._settle(cells)
        end = _RESERVATION_END | number
        schedule(self.env, until, end, self._on_reservation_end, reservation)
        return f"reserved {label} ({len(cells)} units) until {clock(until)}"

    def _on_reservation_end(self, reservation: Reservation) -> None:
        self._reservations.remove(reservation)
        self._settle(reservation.cells)
        self._emit("action", detail=f"reservation of {reservation.label} ended")
        self._request_pass()

    def _evict(self, index: int, *, requeue: bool) -> None:
        """End a running job hit by a failure: back to the queue, or killed."""
        job = self.running[index].job
        self._finish_job(index, True)
        if not requeue:
            self._cancelled.add(index)
            return
        self._finish[index] = math.nan
        self._start[index] = math.nan
        self._held_nodes[index] = 0
        self._where[index] = ""
        self.queue.add(job)
        self.requeues += 1

    def _occupant(self, cell: int, owners: np.ndarray) -> int:
        """A unit's owner: a job index, FREE, DOWN or RESERVED. A count-only pool has no per-node
        owners: a node not taken out is idle while any node is, else it belongs to the job that
        started last."""
        if cell in self._out:
            return self._out[cell]
        if len(owners):
            return int(owners[cell])
        if self.allocator.free_nodes > 0 or not self.running:
            return FREE
        return max(self.running.values(), key=lambda r: (r.start, r.job.index)).job.index

    def _covering(self, cell: int) -> list[Reservation]:
        return [r for r in self._reservations if cell in r.cells]

    def _settle(self, cells: Iterable[int]) -> None:
        """Bring ``cells`` to the state the operator asked for, as far as their jobs allow."""
        self._settled = 0
        self._layout += 1
        owners = self.allocator.owners()
        for cell in sorted(cells):
            want = DOWN if cell in self._down else RESERVED if self._covering(cell) else FREE
            occupant = self._occupant(cell, owners)
            if occupant >= 0:
                if want == FREE:
                    self._draining.discard(cell)
                else:
                    self._draining.add(cell)
                continue
            self._draining.discard(cell)
            if occupant == want or (occupant != FREE and cell not in self._out):
                continue
            if want == FREE:
                self.allocator.restore(cell)
                del self._out[cell]
            else:
                self.allocator.withdraw(cell, want)
                self._out[cell] = want

    def unit_info(self, cell: int) -> UnitInfo:
        """The unit inspector: name, state, the job on the unit, and what it blocks (on partition
        machines the other partitions that the unit's job, or the unit itself when down or reserved,
        makes unusable through overlap or wiring; elsewhere nothing beyond the job's placement)."""
        owners = self.allocator.owners()
        occupant = self._occupant(cell, owners)
        until = max((r.until for r in self._covering(cell)), default=None)
        menu = getattr(self.allocator, "menu", None)
        blocks: tuple[str, ...] = ()
        if occupant >= 0:
            r = self.running[occupant]
            if menu is not None:
                p = self.allocator.partition_of(r.placement).index
                blocks = _partition_names(menu, menu.conflicts[p] & ~(1 << p))
            return UnitInfo(
                cell,
                unit_name(self.machine, cell),
                "busy",
                occupant,
                r.job.job_id,
                r.placement.label,
                blocks,
                until,
            )
        if occupant != FREE and menu is not None:
            blocks = _partition_names(menu, menu.by_midplane[cell])
        state = {FREE: "free", DOWN: "down"}.get(occupant, "reserved")
        return UnitInfo(cell, unit_name(self.machine, cell), state, None, None, "", blocks, until)

    def outages(self) -> dict[str, tuple[int, ...]]:
        """Units out of service now: ``down`` and ``reserved`` cells, and ``pending`` cells that
        still run a job but will be reserved (or are down) when it ends."""
        return {
            "down": tuple(sorted(c for c, s in self._out.items() if s == DOWN)),
            "reserved": tuple(sorted(c for c, s in self._out.items() if s == RESERVED)),
            "pending": tuple(sorted(self._draining)),
        }

    # ------------------------------------------------------------------------------ views

    def explain(self, job_id: int) -> str:
        """Why a job is where it is: running where, finished, held, or why it waits."""
        index = self.job_index(job_id)
        if index in self.running:
            r = self.running[index]
            return f"running since {clock(r.start)} on {r.placement.label or 'the machine'}"
        if index in self._refused:
            return f"rejected on arrival: {self._refused[index]}"
        if index in self._cancelled:
            return "cancelled"
        if not math.isnan(self._finish[index]):
            return f"finished at {clock(self._finish[index])}"
        if index in self.held:
            return "held by the operator"
        job = self.job(index)
        if job not in self.queue:
            return f"not yet submitted (arrives at {clock(job.submit)})"
        return self.waiting_reason(job)

    def job_status(self, job_id: int) -> str:
        """Where job ``job_id`` stands now: ``waiting``, ``running``, ``held``, ``ended``
        (finished, cancelled, killed or refused on arrival) or ``not_arrived``; an unknown job is
        an :class:`ActionRejected` (``job_unknown``)."""
        index = self.job_index(job_id)
        if index in self.running:
            return "running"
        if index in self.held:
            return "held"
        if index in self._cancelled or not math.isnan(self._finish[index]):
            return "ended"
        return "waiting" if self.job(index) in self.queue else "not_arrived"

    def waiting_reason(self, job: Job) -> str:
        """Why a waiting job is not running, computed now from the allocator and what the policies
        remember of the last pass (no pass ever pays for explanations)."""
        if self.allocator.find(job) is None:
            return self.allocator.explain(job)
        return (
            self._backfill.why(job)
            or self._discipline.why(job)
            or "fits now; starts at the next scheduling pass"
        )

    def snapshot(self, *, reasons: int = 0) -> Snapshot:
        """An immutable view of the current state, with the waiting reasons of the first ``reasons``
        jobs in queue order (explanations cost an allocator query each)."""
        owners = self.allocator.owners()
        owners.flags.writeable = False
        waiting = tuple(self.queue.ordered(self.now))
        return Snapshot(
            time=self.now,
            event=self.events,
            done=self.done,
            machine=self.machine,
            policy=self.policy,
            free_nodes=self.allocator.free_nodes,
            owners=owners,
            running=tuple(self.running[i] for i in sorted(self.running)),
            waiting=waiting,
            held=tuple(self.held[i] for i in sorted(self.held)),
            reasons=MappingProxyType(
                {job.index: self.waiting_reason(job) for job in waiting[:reasons]}
            ),
            metrics=MappingProxyType(self.current_metrics()),
            recent=tuple(self._recent),
            finished=tuple(self._left),
            series=None if self.series is None else self.series.view(),
        )

    def current_metrics(self) -> dict[str, float | int]:
        """Running values of the capacity metrics over [first event, now]."""
        acc = self.integrals
        span = acc.last - acc.first
        cap = self.machine.nodes * span
        return {
            "time": self.now,
            "events": self.events,
            "running": len(self.running),
            "waiting": len(self.queue),
            "finished": self._finished,
            "utilization": acc.busy / cap if cap > 0 else 0.0,
            "allocated_utilization": acc.allocated / cap if cap > 0 else 0.0,
            "unused_capacity": acc.unused / cap if cap > 0 else 0.0,
            "loss_of_capacity": acc.loc / cap if cap > 0 else 0.0,
            "queue_length": len(self.queue),
            "free_nodes": self.allocator.free_nodes,
        }

    def outcomes(self) -> tuple[np.ndarray, JobOutcomes]:
        """Indices and per-job arrays of the jobs that finished normally (with a runtime model,
        runtimes are the simulated ones, end − start)."""
        finish = np.array(self._finish)
        idx = np.flatnonzero(~np.isnan(finish))
        if self._cancelled:
            idx = idx[~np.isin(idx, list(self._cancelled))]
        w = self.workload
        extra = self._extra

        def column(name: str, attr: str) -> np.ndarray:
            base = getattr(w, name)
            if not extra:
                return base[idx]
            full = np.concatenate([base, np.array([getattr(j, attr) for j in extra])])
            return full[idx]

        start = np.array(self._start)[idx]
        end = finish[idx]
        runtime = column("runtime", "runtime") if self._model is None else end - start
        outcomes = JobOutcomes(
            submit=column("submit", "submit"),
            runtime=runtime,
            size=column("size", "size"),
            allocated=np.array(self._held_nodes)[idx],
            start=start,
            end=end,
            queue=column("queue", "queue"),
        )
        return idx, outcomes

    def results(self) -> Results:
        """Metrics and breakdowns of the jobs that finished (the whole run once it is done)."""
        _, out = self.outcomes()
        machine = self.machine
        sizes, by_size = np.unique(out.size, return_inverse=True)
        queues, by_queue = np.unique(out.queue, return_inverse=True)
        metrics = summary(out, machine.nodes, self.integrals)
        metrics["migrations"] = self.migration.passes
        metrics["migrated_jobs"] = self.migration.jobs
        metrics["migrated_node_seconds"] = self.migration.node_seconds
        metrics["requeued_jobs"] = self.requeues
        if self._model is not None:
            metrics.update(self._model.metrics())
        if self.observer is not None:
            for key, value in self.observer.metrics().items():
                metrics.setdefault(key, value)
        return Results(
            metrics=metrics,
            by_size_class=breakdown(
                out, [machine.size_class(int(v)) for v in sizes.tolist()], by_size
            ),
            by_queue=breakdown(out, [str(q) for q in queues.tolist()], by_queue),
        )

    def job_table(self) -> dict[str, np.ndarray]:
        """Per-job columns of the finished jobs, in job index order (for the jobs CSV)."""
        idx, out = self.outcomes()
        return {
            "job_id": self._job_ids()[idx],
            "submit": out.submit,
            "start": out.start,
            "end": out.end,
            "size": out.size,
            "allocated": out.allocated,
            "wait": out.wait,
            "bsld": out.bsld,
            "location": np.array([self._where[i] for i in idx.tolist()], dtype=object),
        }

    def _job_ids(self) -> np.ndarray:
        ids = self.workload.job_id
        if self._extra:
            ids = np.concatenate([ids, np.array([j.job_id for j in self._extra])])
        return ids

    def start_times(self) -> np.ndarray:
        """Start time of every job by index (NaN for jobs that never started)."""
        return np.array(self._start)

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
            recent=self._recent.maxlen or 0,
            history=self.series is not None,
            allocator_class=self._allocator_class,
            past=self._past,
        )
        twin.run_to_event(self.events if event is None else event)
        return twin

    def fork(self) -> Simulation:
        """An independent copy at the current event, for what-if branches."""
        return self.replayed()


def _partition_names(menu: Menu, mask: int) -> tuple[str, ...]:
    """Names of the menu's partitions whose bits are set in ``mask``, in menu order."""
    names = []
    while mask:
        low = mask & -mask
        names.append(menu.partitions[low.bit_length() - 1].name)
        mask ^= low
    return tuple(names)
