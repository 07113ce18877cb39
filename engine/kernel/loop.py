"""The event kernel: the calendar, the arrival feed, and one event at a time.

Events come from two sources merged in DESIGN.md's order: the SimPy calendar
(:class:`~meshsim.engine.kernel.events.Calendar`: completions, operator actions, reservation
starts and ends, and clock ticks) and the workload's arrivals in (submit, job number) order, which
follow every calendar event of their instant. When an event is the last of its instant, the
instant's scheduling pass runs (:meth:`meshsim.engine.scheduling.scheduler.Scheduler.run_pass`)
if something asked for one, then the runtime model moves the completions it changed. The recorders
hear of the clock moving and of the end of every event (:mod:`meshsim.engine.kernel.recorders`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from itertools import chain
from typing import TYPE_CHECKING

from meshsim.engine.allocation.allocator import Allocator
from meshsim.engine.core.jobs import Job, new_job
from meshsim.engine.kernel.events import ACTION, Calendar, EventRecord, priority
from meshsim.engine.kernel.recorders import EventLog

if TYPE_CHECKING:
    from meshsim.engine.kernel.machine_state import MachineState
    from meshsim.engine.kernel.recorders import JobLedger, Listeners
    from meshsim.engine.scheduling.scheduler import Scheduler
    from meshsim.engine.workloads.workload import Workload

_CHUNK = 4096
_INF = math.inf
_CLOCK = priority(ACTION, (1 << 39))


def job_feed(workload: Workload) -> Iterator[Job]:
    """The workload's jobs in arrival order, built in chunks of ``_CHUNK`` rows as each chunk's turn
    comes (a million-job workload never exists as a million records at once). The chunks are
    chained, so drawing the next job is a step of C iterators rather than a generator's
    resumption."""
    return chain.from_iterable(_job_chunks(workload))


def _job_chunks(w: Workload) -> Iterator[Iterator[Job]]:
    cols = ("job_id", "submit", "runtime", "estimate", "size", "procs", "user", "group")
    cols += ("queue", "partition")
    for lo in range(0, len(w), _CHUNK):
        hi = min(lo + _CHUNK, len(w))
        chunk = [getattr(w, c)[lo:hi].tolist() for c in cols]
        shapes: list[tuple[int, ...] | None] = [None] * (hi - lo)
        if w.shapes is not None:
            rows = w.shapes[lo:hi].tolist()
            shapes = [tuple(v for v in row if v > 0) or None for row in rows]
        yield map(new_job, zip(range(lo, hi), *chunk, shapes, strict=True))


class EventLoop:
    """Processes the events of one run (module doc). ``events`` counts those processed;
    ``started`` lists the jobs the last pass of the current step started."""

    def __init__(
        self,
        workload: Workload,
        calendar: Calendar,
        state: MachineState,
        scheduler: Scheduler,
        listeners: Listeners,
        ledger: JobLedger,
        log: Callable[[EventRecord], None] | None,
        recent: int,
    ) -> None:
        self.calendar = calendar
        self.state = state
        self.scheduler = scheduler
        self.listeners = listeners
        self.ledger = ledger
        self.log = EventLog(self, log, recent)
        self.rejected: dict[str, int] = {}
        self.events = 0
        self.pass_pending = False
        self.started: list[Job] = []
        self._wake_at = math.nan
        self._last = calendar.now
        self._feed = job_feed(workload)
        self._next_job: Job | None = next(self._feed, None)
        self._next_submit = _INF if self._next_job is None else self._next_job.submit
        state.complete = self._complete
        self.configure()

    def configure(self) -> None:
        """Note the allocator's optional hooks (after every allocator change)."""
        kind = type(self.state.allocator)
        self._clocked = kind.next_change is not Allocator.next_change
        self._admits = kind.admit is not Allocator.admit

    @property
    def now(self) -> float:
        return self.calendar.now

    def peek(self) -> float:
        """Time of the next event (``inf`` when the run is over)."""
        tick = self.calendar.next_tick()
        t = _INF if tick is None else tick[0]
        return self._next_submit if self._next_submit < t else t

    def advance(self, limit: float = _INF) -> bool:
        """Process the next event if it is due at or before ``limit``; False if there is none: the
        next calendar tick, or the next arrival when it comes first (an arrival follows every tick
        of its instant). Cancelled ticks are dropped unseen: they neither count as events nor move
        the clock.

        (One event per call: Python 3.11 specializes a function's code when it is entered, so a loop
        over all events inside one call would run unspecialized.)"""
        calendar = self.calendar
        tick = calendar.next_tick()
        next_submit = self._next_submit
        if tick is not None and tick[0] <= next_submit:
            t = tick[0]
        elif next_submit < _INF:
            t = next_submit
            tick = None
        else:
            return False
        if t > limit:
            return False
        last = self._last
        if t > last:
            for advanced in self.listeners.advanced:
                advanced(last, t)
            self._last = t
        calendar.now = t
        if tick is None:
            self._arrive(self._next_job)
            closed = self._next_submit > t  # the calendar's next tick is later: it lost to t
        else:
            calendar.pop()
            tick[3](tick[4])
            following = calendar.next_tick()
            closed = (following is None or following[0] > t) and self._next_submit > t
        if closed:
            if self.pass_pending:
                self.pass_pending = False
                self.started = self.scheduler.run_pass(t)
                if self._clocked:
                    self._wake(t)
            if self.state.model_dirty:
                self.state.reschedule()
        after = self.listeners.after_event
        if after:  # no iterator over an empty tuple at every event
            for after_event in after:
                after_event(t, self.state)
        self.events += 1
        return True

    def _arrive(self, job: Job) -> None:
        nxt = self._next_job = next(self._feed, None)
        self._next_submit = _INF if nxt is None else nxt.submit
        if self._admits and (refusal := self.state.allocator.admit(job)) is not None:
            self.rejected[refusal] = self.rejected.get(refusal, 0) + 1
            self.ledger.refused[job.index] = refusal
            self.ledger.cancelled.add(job.index)
            self.log.emit("rejected", job.job_id, refusal)
            return
        scheduler = self.scheduler
        scheduler.queue.add(job)
        scheduler.stats.arrivals += 1
        self.log.emit("arrival", job.job_id)
        self.pass_pending = True

    def _complete(self, index: int) -> None:
        """A job's completion: it ends, and the jobs left waiting get a pass."""
        self.state.finish(index)
        if self.scheduler.queue.jobs:
            self.pass_pending = True

    def request_pass(self) -> None:
        """Ask for the instant's pass after something other than an arrival: the jobs the last pass
        left waiting must all be tried again."""
        self.pass_pending = True
        self.scheduler.retry_all()

    def _wake(self, now: float) -> None:
        """After the instant's pass, while jobs wait on an allocator whose rules change by
        themselves: a clock tick at the next change."""
        if not self.scheduler.queue.jobs:
            return
        wake = self.state.allocator.next_change(now)
        if wake is not None and wake > now and wake != self._wake_at:
            self._wake_at = wake
            self.calendar.schedule(wake, _CLOCK, self._on_clock, wake)

    def _on_clock(self, wake: float) -> None:
        """A time at which the allocator's rules change (e.g. prime time begins); scheduled only
        while jobs wait, so an idle machine's clock never keeps a run alive."""
        self.log.emit("clock", -1, "allocation rules change")
        self.request_pass()
