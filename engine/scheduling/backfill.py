"""Backfilling: starting jobs out of order without delaying reserved ones.

- ``none``: nothing beyond the discipline.
- ``easy`` (one reservation, Lifka's EASY as specified in issue 2): the blocked head reserves its
  earliest slot computed from the running jobs' expected ends (start + estimate, or now if that has
  passed); every later job, in priority order, starts now if it fits now and either ends by the
  shadow time (now + estimate ≤ shadow time) or uses no more than the extra nodes, which it then
  consumes. On a topology-aware planner, "uses no more than the extra nodes" is "touches no cell of
  the head's reservation while it runs", and a zero-length job, which ends by any shadow time,
  starts wherever it fits now.
- ``conservative`` (reservations for all, Mu'alem & Feitelson): every waiting job holds a
  reservation made in priority order when it first waits; a job starts when its reservation comes
  due (a reservation just after a zero-length job, at the next representable time, is due at the
  instant that job ends); when a job ends earlier than its estimate, reservations are compressed: in
  order of their start, each is lifted and placed again at its earliest slot with all others held,
  so it can only move earlier and never delays another. When the operator's pending reservations
  change, the reservations are placed again the same way (one that a new maintenance window
  overlaps moves to its earliest slot around it).

While operator reservations are pending every planner holds them and every start goes through the
pass's ``find`` (:class:`~meshsim.engine.allocation.windows.WindowGuard`): no job starts on the
units of a window its estimate reaches.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from itertools import islice
from math import inf
from typing import ClassVar

from meshsim.engine.allocation.planning import Planner, Shadow, Slot, span_end
from meshsim.engine.core.jobs import Job
from meshsim.engine.core.policy import Policy
from meshsim.engine.core.registry import Registry
from meshsim.engine.core.simclock import clock
from meshsim.engine.scheduling.context import PassContext


class Backfill(ABC):
    """A backfilling policy. If ``owns_starts`` it decides every start itself (no discipline). An
    ``incremental`` policy honours ``ctx.settled``: it tries only the jobs after them."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    owns_starts: ClassVar[bool] = False
    incremental: ClassVar[bool] = False
    skips_idle: ClassVar[bool] = False
    """:meth:`idle` is :meth:`run` when no waiting job fits (an idle pass)."""
    head: Job | None = None
    """The blocked job this policy holds its one reservation for, as of the last pass (EASY's
    head); None when it holds none, or one for every waiting job."""
    starts_ahead: ClassVar[bool] = True
    """It may start a job ahead of jobs waiting before it in the queue."""
    plans: ClassVar[bool] = True
    """It reserves through the allocator's planner (a settled pass then needs the node-count
    planner: :class:`~meshsim.engine.scheduling.scheduler.Scheduler`)."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy

    @abstractmethod
    def run(self, ctx: PassContext, head: int | None) -> None:
        """Start what may start; ``head`` is the discipline's blocked position (None if none)."""

    def idle(self, queue: list[Job], head: int | None, settled: int) -> None:
        """What :meth:`run` remembers of a pass in which no job of ``queue`` fits now (``settled``
        as in :class:`PassContext`); only for a policy that ``skips_idle``."""
        raise NotImplementedError

    def why(self, job: Job) -> str | None:
        """Why ``job``, which would fit now, did not start (None: not this policy's doing)."""
        return None

    def reservation(self, job: Job) -> Slot | None:
        """The reservation this policy holds for waiting ``job`` as of the last pass (None: it
        holds none for it)."""
        return None

    def forget(self, job: Job) -> None:  # noqa: B027 - optional hook, most policies keep no state
        """``job`` left the queue without starting (cancelled or held)."""


BACKFILLS: Registry[type[Backfill]] = Registry("backfill")


@BACKFILLS.register("none")
class NoBackfill(Backfill):
    """No backfilling: the discipline alone decides."""

    name = "none"
    description = "no backfilling"
    incremental = True
    skips_idle = True
    starts_ahead = False
    plans = False

    def run(self, ctx: PassContext, head: int | None) -> None:
        return None

    def idle(self, queue: list[Job], head: int | None, settled: int) -> None:
        return None


@BACKFILLS.register("easy")
class EasyBackfill(Backfill):
    """EASY: one reservation, for the blocked head."""

    name = "easy"
    description = "EASY: reserve for the blocked head; others may start if they do not delay it"
    incremental = True
    skips_idle = True

    # Jobs that do not fit the machine now are set aside before the head's reservation is
    # computed (starting jobs only takes space away); when none fits, no reservation is needed.
    # In a settled pass the head and its reservation are those of the last pass (nothing was
    # released since), and so are the free and extra nodes the last pass left (``_left``). The
    # reservation time given by ``why`` is the one last computed for the unchanged head: a full
    # pass that finds nothing to backfill does not compute it, a settled pass keeps it. When
    # the allocator's ``fits`` is the node count, the jobs after the first that fits are not
    # listed beforehand: the shadow-time rule sets the same ones aside as it meets them (their
    # size exceeds the idle count, which only falls), and it stops once no waiting size fits.

    def __init__(self, policy: Policy) -> None:
        super().__init__(policy)
        self.head: Job | None = None
        self._slot: Slot | None = None
        self._left: Shadow | None = None

    @property
    def slot(self) -> Slot | None:
        """The head's reservation (None when it was not computed or the head can never start):
        the planner's slot, or the shadow time of a node-count reservation."""
        left = self._left
        if self._slot is not None or left is None or left[0] == inf:
            return self._slot
        return Slot(left[0])

    def why(self, job: Job) -> str | None:
        if self.head is None or job == self.head:
            return None
        slot = self.slot
        when = "" if slot is None else f" reserved for {clock(slot.start)}"
        return f"would delay job {self.head.job_id}{when} (EASY)"

    def idle(self, queue: list[Job], head: int | None, settled: int) -> None:
        if head is None or not settled:
            self.head = self._slot = self._left = None
        if head is not None:
            self.head = queue[head]

    def run(self, ctx: PassContext, head: int | None) -> None:
        settled = ctx.settled
        if head is None or not settled:
            self.head = self._slot = self._left = None
        if head is None:
            return
        queue = ctx.queue
        first = self.head = queue[head]
        allocator = ctx.allocator
        free = allocator.free_nodes
        if ctx.smallest > free:
            return
        started = ctx.started
        lo = settled if settled > head else head + 1
        n = len(queue)
        if allocator.fits_by_count:
            # By position over the sizes (a list read is cheaper than a job's field).
            jobs = queue
            sizes = ctx.sizes
            if sizes is None:
                sizes = [job.size for job in queue]
            while lo < n:
                if sizes[lo] <= free and queue[lo].index not in started:
                    break
                lo += 1
            else:
                return
            hopeful: Iterable[Job] | None = None  # built only if a planner needs it
            positions = range(lo, n)
        else:
            fits = allocator.fits
            while lo < n:
                job = queue[lo]
                if job.size <= free and job.index not in started and fits(job):
                    break
                lo += 1
            else:
                return
            jobs = hopeful = [
                job
                for job in queue[lo:]
                if job.size <= free and job.index not in started and fits(job)
            ]
            sizes = [job.size for job in jobs]
            positions = range(len(jobs))
        shadow = self._left if settled else None
        if shadow is None:
            if ctx.shadow is not None:
                shadow = ctx.shadow(first)
            else:
                planner = ctx.planner()
                shadow = None if ctx.pairs else planner.shadow(first)
                if shadow is None:
                    if hopeful is None:
                        hopeful = islice(queue, lo, None)
                    self._by_planner(ctx, planner, first, hopeful)
                    return
            self._left = shadow
        self._by_counts(ctx, shadow, jobs, sizes, positions)

    def _by_planner(
        self, ctx: PassContext, planner: Planner, first: Job, hopeful: Iterable[Job]
    ) -> None:
        """Reserve the head's earliest slot in ``planner`` and start every hopeful job the planner
        admits now around it (topology-aware planners, and pairing allocators). A zero-length job
        ends by the shadow time, so it starts wherever it fits now: the planner, whose zero-length
        occupation holds the instant it starts, would refuse it beside a head reserved for now."""
        allocator = ctx.allocator
        started = ctx.started
        slot = self._slot = planner.earliest(first, first.estimate)
        if slot is not None:
            planner.reserve(first, slot, first.estimate)
        find = ctx.find
        idle = allocator.free_nodes
        ctx.guard = planner  # a paired companion is backfilled too: it may not delay the head
        try:
            for job in hopeful:
                if job.index in started or idle < job.size:
                    continue
                if job.estimate == 0:  # it ends by the shadow time, even one that is now
                    placement = find(job)
                else:
                    placement = planner.fit_now(job, job.estimate, find)
                if placement is not None:
                    planner.start(job, placement, job.estimate)
                    ctx.start(job, placement)
                    idle = allocator.free_nodes
        finally:
            ctx.guard = None

    def _by_counts(
        self,
        ctx: PassContext,
        shadow: Shadow,
        jobs: Sequence[Job],
        sizes: Sequence[int],
        positions: range,
    ) -> None:
        """The classic shadow-time rule on a node-count planner (the same decisions as the planner's
        reservation, without its bookkeeping) for ``jobs[p]`` of size ``sizes[p]``, ``p`` in
        ``positions``: a job starts if the allocator places it, its nodes fit in the free count and,
        when it runs across the shadow time, in the extra nodes, which it then consumes. What is
        left becomes ``_left`` when a job starts.

        A job runs across the shadow time when ``shadow < now + estimate``, so a job that ends by it
        (``now + estimate <= shadow``) needs only the free nodes: a zero-length job too when the
        head is reserved for now (the documented rule; the planner's zero-length occupation, which
        holds the instant now, would refuse it). The allocator never pairs jobs here (a node-count
        shadow is only taken without pairing), so a start is the engine's start and its record in
        ``ctx.started``."""
        now = ctx.now
        when, free, extra = shadow
        allocator = ctx.allocator
        find = allocator.find
        start_job = ctx.start_job
        started = ctx.started
        idle = allocator.free_nodes
        smallest = ctx.smallest
        bound = idle if idle < free else free
        changed = False
        for p in positions:
            size = sizes[p]
            if size > bound:
                continue
            job = jobs[p]
            across = when < now + job.estimate
            if (across and size > extra) or job.index in started:
                continue
            placement = find(job)
            if placement is None:
                continue
            nodes = placement.nodes
            if nodes > free or (across and nodes > extra):
                continue
            start_job(job, placement)
            started[job.index] = job
            idle = allocator.free_nodes
            free -= nodes
            if across:
                extra -= nodes
            changed = True
            bound = idle if idle < free else free
            if bound < smallest:
                break
        if changed:
            self._left = (when, free, extra)


@BACKFILLS.register("conservative")
class ConservativeBackfill(Backfill):
    """Conservative: every waiting job holds a reservation; compression on early ends."""

    name = "conservative"
    description = "conservative: every waiting job holds a reservation; none may be delayed"
    owns_starts = True

    def __init__(self, policy: Policy) -> None:
        super().__init__(policy)
        self.slots: dict[int, Slot] = {}
        self.first_slot: dict[int, float] = {}

    def forget(self, job: Job) -> None:
        self.slots.pop(job.index, None)

    def why(self, job: Job) -> str | None:
        slot = self.slots.get(job.index)
        if slot is None:
            return None
        return f"reserved to start at {clock(slot.start)} (conservative)"

    def reservation(self, job: Job) -> Slot | None:
        return self.slots.get(job.index)

    def run(self, ctx: PassContext, head: int | None) -> None:
        now = ctx.now
        queue = ctx.queue
        planner = ctx.planner()
        slots = self.slots
        held = [job for job in queue if job.index in slots]
        for job in held:
            slot = slots[job.index]
            if slot.start < now:
                slot = slots[job.index] = Slot(now, slot.where)
            planner.reserve(job, slot, job.estimate)
        if (ctx.early_release or ctx.windows_changed) and held:
            rank = {job.index: i for i, job in enumerate(held)}
            for job in sorted(held, key=lambda j: (slots[j.index].start, rank[j.index])):
                planner.unreserve(job)
                slot = planner.earliest(job, job.estimate) or slots[job.index]
                planner.reserve(job, slot, job.estimate)
                slots[job.index] = slot
        for job in queue:
            if job.index not in slots:
                slot = planner.earliest(job, job.estimate)
                if slot is None:
                    continue
                planner.reserve(job, slot, job.estimate)
                slots[job.index] = slot
                self.first_slot.setdefault(job.index, slot.start)
        allocator = ctx.allocator
        due = span_end(now, 0.0)
        ctx.guard = planner  # a paired companion starts early: it may not delay any reservation
        try:
            for job in queue:
                if job.index in ctx.started:
                    slots.pop(job.index, None)
                    continue
                slot = slots.get(job.index)
                if slot is not None and slot.start <= due:
                    where = slot.where if allocator.available(slot.where) else None
                    if where is None or not (ctx.windows is None or ctx.windows.admits(job, where)):
                        where = ctx.find(job)
                    if where is not None:
                        ctx.start(job, where)
                        del slots[job.index]
        finally:
            ctx.guard = None
        for index in [i for i in slots if i in ctx.started]:
            del slots[index]  # companions that started ahead of their reservation
