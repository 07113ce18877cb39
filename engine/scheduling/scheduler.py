"""The scheduling pass: which waiting jobs start now (DESIGN.md, "Scheduling").

A :class:`Scheduler` owns the waiting queue and the run's queue order, start discipline and
backfilling policy. :meth:`Scheduler.run_pass` is the one pass of an instant: the policies decide
through a :class:`~meshsim.engine.scheduling.context.PassContext`, jobs start through the narrow
:class:`MachineState` interface (the simulation kernel implements it), and the pass returns the jobs
it started, in the order they started, having taken them out of the queue. While operator
reservations are pending, the pass finds and starts jobs through their
:class:`~meshsim.engine.allocation.windows.WindowGuard`, so no start path puts a job on the units
of a maintenance window its estimate reaches. The scheduler also
answers why a waiting job did not start (:meth:`Scheduler.why`), from what the policies remember of
the last pass, so no pass pays for explanations.

Two fast paths give the same starts as a full pass:

- a pass is *settled* when the last pass left ``settled`` jobs waiting and nothing but arrivals
  happened since (the machine state's ``changes`` did not move, no running job is past its estimate,
  and no one asked for a full pass), under a policy whose refusals are stable (arrival order, an
  incremental discipline and backfilling, an allocator with stable refusals, backfilling that plans
  on node counts or none, no migration or pairing): those jobs could not start then and cannot now,
  so the policies only try the jobs behind them;
- a pass is *idle* when no waiting job fits (the smallest waiting size exceeds the free nodes) on an
  allocator that places by count, under policies that start jobs only where they fit now
  (``skips_idle``): it starts nothing, so the policies only note what such a pass leaves them
  (:meth:`Discipline.idle`, :meth:`Backfill.idle`)."""

from __future__ import annotations

from collections.abc import Sized
from typing import TYPE_CHECKING, Protocol

from meshsim.engine.allocation.allocator import Allocator
from meshsim.engine.scheduling.backfill import BACKFILLS, Backfill
from meshsim.engine.scheduling.context import PassContext, RunStats
from meshsim.engine.scheduling.disciplines import DISCIPLINES, Discipline
from meshsim.engine.scheduling.orders import QUEUE_ORDERS, QueueOrder, WaitingQueue

if TYPE_CHECKING:
    from meshsim.engine.allocation.allocator import Placement
    from meshsim.engine.allocation.planning import Planner, Shadow
    from meshsim.engine.allocation.windows import Window, WindowGuard
    from meshsim.engine.core.jobs import Job
    from meshsim.engine.core.policy import Policy
    from meshsim.engine.topology.machines import Machine

_NOTHING: list[Job] = []
"""What a pass that starts nothing returns (shared: callers only read it)."""


class MachineState(Protocol):
    """What the pass needs of the machine: its allocator, a way to start a job now, future
    availability for backfilling, and counters that tell what changed since the last pass."""

    allocator: Allocator
    changes: int
    """Counts the changes of free capacity the pass did not make (ends, outages, re-packs)."""
    early_releases: int
    """Counts the jobs that ended before their estimate."""
    ahead: Sized
    """The operator reservations that have not started (empty: :meth:`windows` is None)."""

    def start(self, job: Job, placement: Placement) -> None:
        """Start ``job`` now on ``placement``."""

    def planner(self) -> Planner:
        """Future availability from the running jobs' expected releases (a new planner per call)."""

    def shadow(self, job: Job) -> Shadow:
        """The node-count planner's shadow for head ``job`` now, without building the planner."""

    def overran(self, now: float) -> bool:
        """Whether a running job is past its estimate at ``now``."""

    def repack(self) -> bool:
        """Re-place the running jobs by the allocator's rule (migration); whether any moved."""

    def windows(self) -> WindowGuard | None:
        """The operator's pending reservations as the pass must respect them now (None when none
        is pending)."""


class Scheduler:
    """The waiting queue and the policies of a run; one :meth:`run_pass` per instant."""

    def __init__(self, machine: Machine, policy: Policy, state: MachineState, stats: RunStats):
        self.machine = machine
        self.state = state
        self.stats = stats
        self._changes = state.changes
        self._early = state.early_releases
        self._windows: tuple[Window, ...] = ()
        """The pending reservations the last guarded pass saw."""
        policies = self.policies_for(policy)
        self.queue = WaitingQueue(policies[0])
        self.ctx = PassContext(
            0.0, [], state.allocator, state.start, state.planner, stats=stats, waiting=self.queue
        )
        self.adopt(policy, policies)

    def policies_for(self, policy: Policy) -> tuple[QueueOrder, Discipline, Backfill]:
        """The queue order, discipline and backfilling ``policy`` names (an unknown name is an
        error listing the valid ones, before anything changes)."""
        return (
            QUEUE_ORDERS.get(policy.queue)(self.machine),
            DISCIPLINES.get(policy.discipline)(policy),
            BACKFILLS.get(policy.backfill)(policy),
        )

    def adopt(self, policy: Policy, policies: tuple[QueueOrder, Discipline, Backfill]) -> None:
        """Schedule by ``policy`` and its ``policies`` (:meth:`policies_for`) from now on, with the
        machine state's current allocator; the waiting jobs take the new queue order."""
        self.policy = policy
        self.order, self.discipline, self.backfill = policies
        if self.queue.order is not self.order:
            self.queue.reorder(self.order)
        self.configure()

    def configure(self) -> None:
        """Note what stays fixed until the next policy or allocator change."""
        ctx, allocator, order = self.ctx, self.state.allocator, self.order
        kind = type(allocator)
        ctx.allocator = allocator
        ctx.arrival_order = order.arrival_order
        ctx.pairs = kind.companion is not Allocator.companion
        counts = kind.planner is Allocator.planner and not ctx.pairs
        self._shadow = ctx.shadow = self.state.shadow if counts else None
        ctx.find, ctx.start_job, ctx.windows = allocator.find, self.state.start, None
        self._dynamic = order.dynamic
        self._owns_starts = self.backfill.owns_starts
        self._skips_idle = (
            allocator.fits_by_count
            and self.discipline.skips_idle
            and self.backfill.skips_idle
            and not self._owns_starts
            and not self.policy.migrate
        )
        self._incremental = (
            order.arrival_order
            and not order.dynamic
            and self.discipline.incremental
            and self.backfill.incremental
            and allocator.stable_refusals
            and (counts or not self.backfill.plans)
            and not self.policy.migrate
            and not ctx.pairs
        )
        self.retry_all()

    def retry_all(self) -> None:
        """The next pass tries every waiting job again (something other than arrivals happened)."""
        self._settled = 0

    # ------------------------------------------------------------------------------ the queue

    def add(self, job: Job) -> None:
        """``job`` joins the queue out of arrival order (submitted by the operator, or released
        from a hold): every waiting job is tried again."""
        self.queue.add(job)
        self._settled = 0

    def withdraw(self, job: Job) -> None:
        """``job`` leaves the queue without starting (held or cancelled)."""
        self.queue.remove(job)
        self.backfill.forget(job)
        self._settled = 0

    # ------------------------------------------------------------------------------ the pass

    def run_pass(self, now: float) -> list[Job]:
        """The one scheduling pass of an instant (module doc): start what may start and return the
        jobs started, in order."""
        state = self.state
        allocator = state.allocator
        allocator.now = now
        waiting = self.queue
        started: list[Job] = _NOTHING
        if waiting.jobs:
            queue = waiting.ordered(now) if self._dynamic else waiting.jobs
            settled = self._settled
            if settled and (state.changes != self._changes or state.overran(now)):
                settled = 0
            if self._skips_idle and waiting.smallest > allocator.free_nodes:
                self.backfill.idle(queue, self.discipline.idle(queue), settled)
            else:
                started = self._decide(now, queue, settled)
        self._changes = state.changes
        self._early = state.early_releases
        self._settled = len(waiting.jobs) if self._incremental else 0
        return started

    def _decide(self, now: float, queue: list[Job], settled: int) -> list[Job]:
        """A pass that may start jobs: the discipline, migration when the head is blocked, then
        backfilling; the started jobs leave the queue."""
        waiting, state, ctx = self.queue, self.state, self.ctx
        ctx.now = now
        ctx.queue = queue
        ctx.settled = settled
        ctx.smallest = waiting.smallest
        ctx.sizes = waiting.sizes
        ctx.early_release = state.early_releases != self._early
        started = ctx.started
        started.clear()
        windows = state.windows() if state.ahead else None
        if windows is not None or ctx.windows is not None or ctx.windows_changed:
            self._guard(windows)
        try:
            if self._owns_starts:
                self.backfill.run(ctx, None)
            else:
                head = self.discipline.select(ctx)
                if head is not None and self.policy.migrate and self.state.repack():
                    _leave_started(ctx, queue, head)
                    head = self.discipline.select(ctx)
                if head is not None:
                    self.backfill.run(ctx, head)
        finally:
            if windows is not None:
                windows.lift()
        if not started:
            return _NOTHING
        jobs = list(started.values())
        remove = waiting.remove
        for job in jobs:
            remove(job)
        return jobs

    def _guard(self, windows: WindowGuard | None) -> None:
        """Start jobs through ``windows`` (the pending reservations) in this pass, or, when there
        are none any more, through the allocator again; note whether they changed."""
        ctx = self.ctx
        seen = () if windows is None else windows.windows
        ctx.windows_changed = seen != self._windows
        self._windows = seen
        ctx.windows = windows
        if windows is None:
            ctx.find, ctx.start_job, ctx.shadow = ctx.allocator.find, self.state.start, self._shadow
        else:
            ctx.find, ctx.start_job, ctx.shadow = windows.find, windows.start, None

    # ------------------------------------------------------------------------------ reasons

    def in_order(self) -> bool:
        """Whether every start follows the queue's order: a strict discipline, no backfilling and no
        paired job filling (:mod:`meshsim.engine.scheduling.expected` then places no job before
        the one ahead of it)."""
        return (
            self.discipline.starts_in_order
            and not self.backfill.starts_ahead
            and not self.state.allocator.pairs()
        )

    def why(self, job: Job) -> str:
        """Why a waiting job is not running, computed now from the allocator, the pending
        reservations and what the policies remember of the last pass."""
        allocator = self.state.allocator
        if allocator.find(job) is None:
            return allocator.explain(job)
        windows = self.state.windows()
        return (
            (windows.refusal(job) if windows is not None else "")
            or self.backfill.why(job)
            or self.discipline.why(job)
            or "fits now; starts at the next scheduling pass"
        )


def _leave_started(ctx: PassContext, queue: list[Job], head: int) -> None:
    """Set ``ctx.queue`` (and ``ctx.sizes``) to ``queue`` without the jobs started so far in the
    pass, for the discipline's second selection after a re-pack. When those are exactly the jobs
    before the blocked ``head`` (strict order always: it starts a prefix), that is the slice from
    the head, without testing every waiting job."""
    started = ctx.started
    if len(started) == head and all(queue[p].index in started for p in range(head)):
        ctx.queue = queue[head:]
        ctx.sizes = None if ctx.sizes is None else ctx.sizes[head:]
    else:
        ctx.queue = [job for job in queue if job.index not in started]
        ctx.sizes = None
