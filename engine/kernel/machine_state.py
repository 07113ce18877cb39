"""The machine as jobs hold it: the allocator, the running jobs and their expected releases.

:class:`MachineState` starts jobs (the scheduling pass does so through it, as its
:class:`~meshsim.engine.scheduling.scheduler.MachineState`), ends them when their completion comes
or when they are killed, re-packs them (migration) and, with a runtime model, moves their
completions whenever the running set changes. Its recorders hear of every start and end
(:mod:`meshsim.engine.kernel.recorders`); its :class:`~meshsim.engine.kernel.outages.Outages` take
units out of service and put them back."""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Callable
from typing import TYPE_CHECKING

from meshsim.engine.allocation.allocator import Allocator
from meshsim.engine.allocation.planning import Planner, Releases, Shadow, count_shadow
from meshsim.engine.allocation.windows import WindowGuard
from meshsim.engine.core.jobs import SCHEDULING_FIELDS
from meshsim.engine.kernel.events import COMPLETION, Calendar, Tick, priority
from meshsim.engine.kernel.outages import Outages
from meshsim.engine.kernel.records import MigrationCounts, RunningJob, new_running_job

if TYPE_CHECKING:
    from meshsim.engine.allocation.allocator import Placement
    from meshsim.engine.core.jobs import Job
    from meshsim.engine.kernel.recorders import Listeners
    from meshsim.engine.kernel.runtime_models import RuntimeModel
    from meshsim.engine.scheduling.context import RunStats
    from meshsim.engine.topology.machines import Machine

_COMPLETION = priority(COMPLETION, 0)


class MachineState:
    """Running jobs on one machine. ``changes`` counts the changes of free capacity that a
    scheduling pass does not make itself (ends, outages, re-packs, a new allocator); ``layout``
    counts every change of placements (the contention observer and migration watch it);
    ``early_releases`` counts the jobs that ended before their estimate. ``complete`` is what the
    calendar calls when a job's completion comes (the kernel's, which then asks for a pass)."""

    def __init__(
        self,
        machine: Machine,
        allocator: Allocator,
        calendar: Calendar,
        listeners: Listeners,
        stats: RunStats,
        model: RuntimeModel | None,
    ) -> None:
        self.machine = machine
        self.allocator = allocator
        self.calendar = calendar
        self.listeners = listeners
        self.stats = stats
        self.model = model
        self.model_dirty = False
        self.running: dict[int, RunningJob] = {}
        self.ends: list[tuple[float, int, int]] = []
        """The running jobs' expected ends ``(start + estimate, index, nodes)``, sorted."""
        self.ends_nodes = 0
        self.end_ticks: dict[int, Tick] = {}
        self.busy = 0
        """Nodes the running jobs asked for."""
        self.busy_alloc = 0
        """Nodes the running jobs hold (at least what they asked for)."""
        self.changes = 0
        self.layout = 0
        self.early_releases = 0
        self.migration = MigrationCounts()
        self._packed = -1
        self.complete: Callable[[int], None] = self.finish
        self.outages = Outages(self)
        self.ahead = self.outages.pending
        """The reservations made that have not started (the outages' own list: the scheduling pass
        reads whether it is empty at every pass, without a call)."""
        self.adopt(allocator)

    def adopt(self, allocator: Allocator) -> None:
        """Place jobs with ``allocator`` from now on (it already holds the running jobs)."""
        self.allocator = allocator
        self._learns = type(allocator).finished is not Allocator.finished
        self.changes += 1
        self.layout += 1

    # ------------------------------------------------------------------ starts and ends

    def start(self, job: Job, placement: Placement) -> None:
        """Start ``job`` now on ``placement``: the allocator commits it, its completion goes on the
        calendar (or the runtime model decides it), and the recorders hear of it."""
        now = self.calendar.now
        index, _, submit, runtime, estimate, size = job[SCHEDULING_FIELDS]
        nodes = placement.nodes
        self.layout += 1
        self.allocator.allocate(job, placement)
        self.running[index] = new_running_job((job, now, placement))
        insort(self.ends, (now + estimate, index, nodes))
        self.ends_nodes += nodes
        self.busy += size
        self.busy_alloc += nodes
        stats = self.stats
        stats.running += 1
        stats.running_wait += now - submit
        if self.model is None:
            tick = self.calendar.schedule(now + runtime, _COMPLETION | index, self.complete, index)
            self.end_ticks[index] = tick
        else:
            self.model.start(job, placement, now)
            self.model_dirty = True
        for started in self.listeners.started:
            started(job, placement, now)

    def finish(self, index: int, killed: bool = False) -> RunningJob:
        """Release the nodes of a running job that ends now (normally: its completion came; or
        ``killed``: cancelled, or hit by a failure), and tell the recorders."""
        now = self.calendar.now
        self.changes += 1
        self.layout += 1
        r = self.running.pop(index)
        job, start, placement = r
        tick = self.end_ticks.pop(index, None)
        if killed and tick is not None:  # still on the calendar (a normal end's tick is not)
            self.calendar.cancel(tick)
        if self.model is not None:
            self.model.finish(job, now)
            self.model_dirty = True
        self.allocator.release(job, placement)
        if self.outages.draining:
            self.outages.drain()
        expected = start + job.estimate
        nodes = placement.nodes
        ends = self.ends
        self.ends_nodes -= ends.pop(bisect_left(ends, (expected, index, nodes)))[2]
        if not killed and self._learns:
            self.allocator.finished(job)
        self.busy -= job.size
        self.busy_alloc -= nodes
        stats = self.stats
        stats.running -= 1
        stats.running_wait -= start - job.submit
        if now < expected:
            self.early_releases += 1
        for ended in self.listeners.ended:
            ended(r, now, killed)
        return r

    def reschedule(self) -> None:
        """Move the completions of running jobs to the ends the runtime model gives now."""
        self.model_dirty = False
        now = self.calendar.now
        for index, end in sorted(self.model.ends(now).items()):
            tick = self.end_ticks.get(index)
            if tick is None or tick[0] != end:
                if tick is not None:
                    self.calendar.cancel(tick)
                when = max(end, now)
                new = self.calendar.schedule(when, _COMPLETION | index, self.complete, index)
                self.end_ticks[index] = new

    # ------------------------------------------------------------------ what the pass asks

    def planner(self) -> Planner:
        """Future availability from the running jobs' expected releases now, holding the pending
        reservations."""
        now = self.calendar.now
        planner = self.allocator.planner(now, Releases(now, self.ends.copy(), self.running))
        if self.ahead:
            for window in self.outages.windows():
                planner.hold(window)
        return planner

    def windows(self) -> WindowGuard | None:
        """The pending reservations as the scheduling pass must respect them now
        (:mod:`meshsim.engine.allocation.windows`); None when none is pending."""
        windows = self.outages.windows()
        if not windows:
            return None
        now = self.calendar.now
        return WindowGuard(
            self.allocator,
            windows,
            now,
            lambda: Releases(now, self.ends.copy(), self.running),
            self.start,
        )

    def shadow(self, job: Job) -> Shadow:
        """The node-count planner's shadow for head ``job`` now (``PassContext.shadow``)."""
        now = self.calendar.now
        return count_shadow(now, self.allocator.free_nodes, self.ends, job.size, self.ends_nodes)

    def overran(self, now: float) -> bool:
        """Whether a running job is past its estimate (its expected end is not after ``now``)."""
        ends = self.ends
        return bool(ends) and ends[0][0] <= now

    def repack(self) -> bool:
        """Re-pack the running jobs when the head is blocked (FCFS with migration, seed 002 §2):
        every running job is re-placed, largest first, into an empty machine by the allocator's own
        rule; the new layout is applied when it holds them all. Returns whether any job moved.
        Counts migrations, moved jobs and moved node-seconds (the work already done by the moved
        jobs, nodes × elapsed time, a measure of the state migrated).

        A re-pack depends only on the running jobs, the units out of service and the allocator's
        rule, which ``layout`` counts changes of: when none changed since the last re-pack, the
        jobs are where a re-pack puts them, or it failed, and it is not tried again. While
        reservations are pending, no job is moved onto the units of one its estimate reaches
        (:meth:`~meshsim.engine.allocation.windows.WindowGuard.repack`)."""
        if self._packed == self.layout:
            return False
        self._packed = self.layout
        running = [(r.job, r.placement) for _, r in sorted(self.running.items())]
        windows = self.windows()
        if windows is None:
            plan = self.allocator.repack(running)
        else:
            plan = windows.repack(running, lambda job: self.running[job.index].expected_end)
        if plan is None:
            return False
        moved = [(job, old) for job, old in running if plan[job.index].cells != old.cells]
        if not moved:
            return False
        allocator = self.allocator
        for job, old in moved:
            allocator.release(job, old)
        now = self.calendar.now
        for job, _ in moved:
            new = plan[job.index]
            allocator.allocate(job, new)
            r = self.running[job.index]
            self.running[job.index] = r._replace(placement=new)
            for moved_to in self.listeners.moved:
                moved_to(job, new)
            self.migration.node_seconds += new.nodes * (now - r.start)
        self.layout += 1
        self.changes += 1
        self._packed = self.layout
        self.migration.passes += 1
        self.migration.jobs += len(moved)
        self.outages.drain()
        return True

    def last_started(self) -> int:
        """The index of the running job that started last (ties: the higher index)."""
        return max(self.running.values(), key=lambda r: (r.start, r.job.index)).job.index
