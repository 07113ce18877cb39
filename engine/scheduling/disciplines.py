"""Start disciplines: which jobs of the ordered queue may start now.

A discipline starts what it may and returns the position in the queue of the first job that is
blocked (the job a backfilling policy reserves for), or None when nothing is blocked. It can say
afterwards why a job that would fit did not start (:meth:`Discipline.why`), computed on demand from
what it remembers of the last pass, so passes never pay for explanations."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from meshsim.engine.core.jobs import Job
from meshsim.engine.core.policy import Policy
from meshsim.engine.core.registry import Registry
from meshsim.engine.scheduling.context import PassContext

if TYPE_CHECKING:
    from meshsim.engine.allocation.allocator import Allocator
    from meshsim.engine.allocation.request_fits import RequestFits


class Discipline(ABC):
    """A start rule over the queue in priority order. An ``incremental`` discipline honours
    ``ctx.settled`` (:class:`~meshsim.engine.scheduling.context.PassContext`): it skips the jobs
    known not to start, and its blocked head is then the first of them."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    incremental: ClassVar[bool] = False
    skips_idle: ClassVar[bool] = False
    """:meth:`idle` is :meth:`select` when no waiting job fits (the engine then calls it instead: an
    idle pass, :class:`meshsim.engine.scheduling.scheduler.Scheduler`)."""
    starts_in_order: ClassVar[bool] = False
    """No job starts before the jobs ahead of it in the queue (a strict order)."""
    section: ClassVar[str] = ""
    """The machine's TOML section the discipline reads ("" for none)."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.blocked: Job | None = None

    @abstractmethod
    def select(self, ctx: PassContext) -> int | None:
        """Start the jobs this discipline allows; return the blocked head's queue position."""

    def idle(self, queue: list[Job]) -> int | None:
        """What :meth:`select` returns and remembers when no job of ``queue`` (not empty) fits now;
        only for a discipline that ``skips_idle``."""
        raise NotImplementedError

    def why(self, job: Job) -> str | None:
        """Why ``job``, which would fit now, did not start (None: not this discipline's doing)."""
        if self.blocked is not None and job != self.blocked:
            return f"behind job {self.blocked.job_id}, which blocks the queue ({self.name})"
        return None


DISCIPLINES: Registry[type[Discipline]] = Registry("discipline")


@DISCIPLINES.register("fcfs")
class Strict(Discipline):
    """Strict order (FCFS when the queue order is FCFS; window size K = 1 in seed 001's terms):
    start jobs in priority order while each one fits, and stop at the first that does not."""

    name = "fcfs"
    description = "strict order: the first job that does not fit blocks all others"
    incremental = True
    skips_idle = True
    starts_in_order = True

    def idle(self, queue: list[Job]) -> int | None:
        self.blocked = queue[0]
        return 0

    def select(self, ctx: PassContext) -> int | None:
        if ctx.settled:
            self.blocked = ctx.queue[0]
            return 0
        find = ctx.find
        started = ctx.started
        for position, job in enumerate(ctx.queue):
            if job.index in started:
                continue
            placement = find(job)
            if placement is None:
                self.blocked = job
                return position
            ctx.start(job, placement)
        self.blocked = None
        return None


@DISCIPLINES.register("oo")
class OutOfOrder(Discipline):
    """Aggressive out-of-order (seed 001 §2.4): every waiting job, in priority order, starts if it
    fits; nobody waits for the head. O(q) allocator queries per pass, or, on an allocator that
    tells which requests may fit all at once (:meth:`Allocator.request_fits`), queries for those
    jobs only (:meth:`_select_fitting`; not while operator reservations are pending: whether a job
    may start then depends on its estimate as well as its request)."""

    name = "oo"
    description = "aggressive out-of-order: any job that fits starts"
    incremental = True
    skips_idle = True

    def __init__(self, policy: Policy) -> None:
        super().__init__(policy)
        self._fits: RequestFits | None = None
        self._fits_of: Allocator | None = None

    def idle(self, queue: list[Job]) -> int | None:
        self.blocked = None
        return 0

    def select(self, ctx: PassContext) -> int | None:
        waiting = ctx.waiting
        plain = not ctx.pairs and ctx.windows is None
        if waiting is not None and ctx.queue is waiting.jobs and plain:
            if self._fits_of is not ctx.allocator:
                self._fits_of = ctx.allocator
                self._fits = ctx.allocator.request_fits()
                waiting.tag_with(None if self._fits is None else self._fits.request_id)
            tags = waiting.tags
            if self._fits is not None and tags is not None and len(tags) - ctx.settled >= _LONG:
                return self._select_fitting(ctx, self._fits, tags.view())
        return self._select_each(ctx)

    def _select_fitting(self, ctx: PassContext, fits: RequestFits, tags: np.ndarray) -> int | None:
        """:meth:`_select_each` asking :meth:`find` only of the jobs whose request may fit (``tags``
        holds each queued job's request id). A pass only takes cells, so a request refused at some
        point of it is refused from there on: the candidates are the jobs the mask allows at the
        start of the pass, a request :meth:`find` refuses is not asked again, and after a start
        that leaves many candidates the mask is computed again and the candidates filtered by it.
        The same starts, and the same head: the first job refused."""
        settled = ctx.settled
        tried = tags[settled:]
        may = fits.mask()
        allowed = may[tried]
        places = np.flatnonzero(allowed)
        self.blocked = None
        if settled:
            head: int | None = 0
        elif len(places) == len(tried):
            head = None
        elif not len(places) or places[0]:
            head = 0  # the first job is refused
        else:
            head = int(np.argmin(allowed))
        if not len(places):
            return head
        find = ctx.find
        queue = ctx.queue
        candidates = places + settled if settled else places
        requests = tried[places]
        positions, asked = candidates.tolist(), requests.tolist()
        k = 0
        while k < len(positions):
            position, request = positions[k], asked[k]
            k += 1
            if may[request]:
                job = queue[position]
                placement = find(job)
                if placement is not None:
                    ctx.start(job, placement)
                    if len(positions) - k >= _RECHECK:
                        may = fits.recheck()
                        candidates, requests = candidates[k:], requests[k:]
                        still = may[requests]
                        if not still.all():
                            first = int(candidates[np.argmin(still)])
                            head = first if head is None else min(head, first)
                        candidates, requests = candidates[still], requests[still]
                        positions, asked = candidates.tolist(), requests.tolist()
                        k = 0
                    continue
                fits.refuse(request)
            if head is None or position < head:
                head = position
        return head

    def _select_each(self, ctx: PassContext) -> int | None:
        """Every waiting job, in priority order, starts if :meth:`find` places it."""
        find = ctx.find
        started = ctx.started
        settled = ctx.settled
        head: int | None = 0 if settled else None
        queue = ctx.queue
        for position in range(settled, len(queue)):
            job = queue[position]
            if job.index in started:
                continue
            placement = find(job)
            if placement is not None:
                ctx.start(job, placement)
            elif head is None:
                head = position
        self.blocked = None
        return head


_LONG = 32
"""From this many jobs to try, :class:`OutOfOrder` computes which requests may fit instead of asking
every job (O(cells) numpy against an allocator query per job). In mesh32-oo-saturated, 256 left
the queue's build-up and drain to asking every job: 112,567 queries against 33,261 at 32, for 824
more masks (15,124); below 32 the queries saved no longer pay for the masks."""
_RECHECK = 16
"""After a start, :class:`OutOfOrder` computes again which requests may fit when at least this
many candidates are left (O(cells) numpy, against an allocator query per candidate otherwise)."""


class _Counts:
    """A Fenwick tree over job indices: how many started jobs have an index above i."""

    def __init__(self, size: int = 1024) -> None:
        self.tree = [0] * (size + 1)
        self.added: list[int] = []

    def add(self, index: int) -> None:
        if index + 1 >= len(self.tree):
            marks = self.added
            self.tree = [0] * (2 * (index + 1) + 1)
            self.added = []
            for k in marks:
                self.add(k)
        i = index + 1
        while i < len(self.tree):
            self.tree[i] += 1
            i += i & -i
        self.added.append(index)

    def above(self, index: int) -> int:
        i = min(index + 1, len(self.tree) - 1)
        at_or_below = 0
        while i > 0:
            at_or_below += self.tree[i]
            i -= i & -i
        return len(self.added) - at_or_below


@DISCIPLINES.register("oocb")
class OutOfOrderBounded(Discipline):
    """Out-of-order with a constant bound, OOCB-k (seed 001 §5, after Das Sharma & Pradhan):
    later jobs may overtake the oldest waiting job at most k times (``--bound``, default 8); after
    that only the oldest job may start until it does.

    A job is overtaken each time a job that arrived after it starts while it waits; with jobs
    numbered in arrival order that is the number of started jobs with a higher index, counted with a
    Fenwick tree in O(log n). "Oldest" is the head of the queue order (the FIFO head under FCFS, as
    in the paper). k = 1 is not FCFS here: the head may be overtaken once."""

    name = "oocb"
    description = "out-of-order, the head may be overtaken at most --bound times"

    def __init__(self, policy: Policy) -> None:
        super().__init__(policy)
        self.bound = policy.bound
        self.counts = _Counts()

    def _overtaken(self, job: Job) -> int:
        return self.counts.above(job.index)

    def select(self, ctx: PassContext) -> int | None:
        find = ctx.find
        queue = ctx.queue
        head_pos = 0
        position = 0
        self.blocked = None
        while position < len(queue):
            job = queue[position]
            if job.index in ctx.started:
                if position == head_pos:
                    head_pos += 1
                position += 1
                continue
            if position > head_pos and self._overtaken(queue[head_pos]) >= self.bound:
                self.blocked = queue[head_pos]
                return head_pos
            placement = find(job)
            if placement is not None:
                ctx.start(job, placement)
                self.counts.add(job.index)
                if position == head_pos:
                    head_pos = position + 1
            position += 1
        return head_pos if head_pos < len(queue) else None

    def why(self, job: Job) -> str | None:
        if self.blocked is not None and job != self.blocked:
            return (
                f"job {self.blocked.job_id} was overtaken {self.bound} times and must start first"
            )
        return None


@DISCIPLINES.register("window")
class Window(Discipline):
    """Window-K (seed 001 §4): only jobs in a window of K consecutive jobs that starts with the
    oldest waiting job may start (``--window``, default 240).

    Under FCFS the window is K consecutive jobs *in arrival order*, and jobs of the window that
    already started keep their place in it until the head moves past them (Example 2: with jobs 2
    and 3 served, the window of K = 4 is jobs 1-4, so job 5 must wait). When the head starts, the
    window moves to the next waiting job and later jobs fall inside it during the same pass. Under
    other queue orders (SJF, WFP) the window is the first K waiting jobs of that order. Jobs in the
    window are tried in queue order, once per pass."""

    name = "window"
    description = "window-K: only the K consecutive jobs from the oldest waiting one may start"

    def __init__(self, policy: Policy) -> None:
        super().__init__(policy)
        self.k = policy.window
        self.edge: Job | None = None

    def select(self, ctx: PassContext) -> int | None:
        find = ctx.find
        queue = ctx.queue
        k = self.k
        head_pos = 0
        limit = queue[0].index + k if queue else 0
        pending_seen = 0
        self.edge = None
        for position, job in enumerate(queue):
            inside = job.index < limit if ctx.arrival_order else pending_seen < k
            if not inside:
                self.edge = job
                break
            if job.index in ctx.started:
                if position == head_pos:
                    head_pos = position + 1
                    if head_pos < len(queue):
                        limit = queue[head_pos].index + k
                continue
            placement = find(job)
            if placement is None:
                pending_seen += 1
                continue
            ctx.start(job, placement)
            if position == head_pos:
                head_pos = position + 1
                if head_pos < len(queue):
                    limit = queue[head_pos].index + k
        self.blocked = queue[head_pos] if head_pos < len(queue) else None
        return head_pos if head_pos < len(queue) else None

    def why(self, job: Job) -> str | None:
        if self.blocked is None or job == self.blocked:
            return None
        return (
            f"outside the scheduling window (K={self.k}) that starts at job {self.blocked.job_id}"
        )


@DISCIPLINES.register("delay")
class DelayBased(Discipline):
    """Delay-based out-of-order (seed 001 §2.3, after Kim & Yoon): any job that fits may start
    unless the head has waited at least λ·W, where λ is the arrival rate measured so far (jobs per
    unit of time since the first arrival) and W the mean waiting delay of the running jobs; then
    only the head may start until it does.

    The rule is applied as the paper states it, although λ·W is a number of jobs (Little's law)
    compared with a time: on traces timed in seconds the threshold is small and the discipline
    behaves close to FCFS; on seed 001's synthetic workloads (unit mean service time) it is of the
    order of the waiting times themselves."""

    name = "delay"
    description = "out-of-order until the head has waited lambda*W, then strict"

    def select(self, ctx: PassContext) -> int | None:
        queue = ctx.queue
        stats = ctx.stats
        threshold = stats.arrival_rate(ctx.now) * stats.mean_running_wait()
        find = ctx.find
        self.blocked = None
        head_pos = 0
        for position, job in enumerate(queue):
            if job.index in ctx.started:
                if position == head_pos:
                    head_pos += 1
                continue
            head = queue[head_pos]
            if position > head_pos and ctx.now - head.submit >= threshold:
                self.blocked = head
                return head_pos
            placement = find(job)
            if placement is not None:
                ctx.start(job, placement)
                if position == head_pos:
                    head_pos += 1
        return head_pos if head_pos < len(queue) else None

    def why(self, job: Job) -> str | None:
        if self.blocked is not None and job != self.blocked:
            return f"job {self.blocked.job_id} waited past the delay threshold lambda*W"
        return None
