"""Future availability for backfilling: running jobs' expected releases plus reservations.

A :class:`Planner` answers the two questions backfilling asks (DESIGN.md, "Scheduling"):
*when and where could this job start at the earliest* without disturbing what is already planned,
and *may this job start now* without delaying any reservation. Allocators create the planner for
their topology (:meth:`meshsim.engine.allocation.allocator.Allocator.planner`); a reservation is
whatever the topology needs (a node count on a flat machine, a concrete placement at a future time
on meshes, tori and partition menus). The machine state makes every planner hold the operator's
pending reservations (:meth:`Planner.hold`: their units unavailable over [start, until),
:mod:`meshsim.engine.allocation.windows`).

:class:`CountPlanner` is the node-count version, exact for the flat machine: availability is a step
function of free nodes over time."""

from __future__ import annotations

from abc import ABC, abstractmethod
from bisect import bisect_right
from collections.abc import Callable, Iterator, Mapping
from math import inf, nextafter
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from meshsim.engine.allocation.allocator import Placement
    from meshsim.engine.allocation.windows import Window
    from meshsim.engine.core.jobs import Job


class Release(NamedTuple):
    """A running job's expected release: ``time`` = max(start + estimate, now)."""

    time: float
    job: Job
    placement: Placement


class Releases:
    """The running jobs' expected releases in order of time, as of ``now``.

    ``entries`` is a snapshot list of ``(expected_end, job_index, nodes)`` sorted by time; expected
    ends in the past count as ``now`` (the job has overrun its estimate). Node-count planners read
    the tuples directly; topology-aware planners iterate :class:`Release` records."""

    __slots__ = ("entries", "now", "running")

    def __init__(
        self, now: float, entries: list[tuple[float, int, int]], running: Mapping[int, Any]
    ) -> None:
        self.now = now
        self.entries = entries
        self.running = running

    def __iter__(self) -> Iterator[Release]:
        now, running = self.now, self.running
        for end, index, _ in self.entries:
            r = running[index]
            yield Release(end if end > now else now, r.job, r.placement)

    def __len__(self) -> int:
        return len(self.entries)


Shadow = tuple[float, int, int]
"""EASY's view of a node-count planner with one reservation (DESIGN.md, "Scheduling"), as ``(time,
free, extra)``: the head's reserved start ``time`` (``inf`` if it can never fit), the nodes ``free``
now for jobs that end by the shadow time (free now plus those of jobs past their estimate) and the
``extra`` nodes left over at the shadow time for jobs that run across it.

A plain tuple: EASY makes one in most of its passes, and a named tuple's constructor (a Python-level
``__new__``) costs about ten times as much to call as building the tuple."""


class Slot(NamedTuple):
    """A planned start: the time, and the topology's token for where (None for counts)."""

    start: float
    where: Any = None


class Planner(ABC):
    """Availability over time from ``now`` on, with reservations held by waiting jobs."""

    @abstractmethod
    def earliest(self, job: Job, duration: float, not_before: float = -inf) -> Slot | None:
        """The earliest slot at or after now (and at or after ``not_before``, a time at which
        availability may change: now, a release or the end of a reservation) where ``job`` fits for
        ``duration`` seconds, respecting every reservation held; None if it can never fit."""

    @abstractmethod
    def reserve(self, job: Job, slot: Slot, duration: float) -> None:
        """Hold ``slot`` for ``job`` over [slot.start, slot.start + duration)."""

    @abstractmethod
    def unreserve(self, job: Job) -> None:
        """Drop the reservation ``job`` holds."""

    @abstractmethod
    def admits(self, job: Job, placement: Placement, duration: float) -> bool:
        """Whether starting ``job`` now on ``placement`` for ``duration`` keeps every reservation
        feasible."""

    @abstractmethod
    def start(self, job: Job, placement: Placement, duration: float) -> None:
        """Record that ``job`` started now on ``placement`` and holds it for ``duration``."""

    @abstractmethod
    def hold(self, window: Window) -> None:
        """Hold an operator reservation that has not started: ``window``'s units are unavailable
        over [window.start, window.until) to every reservation made and every job admitted."""

    def shadow(self, job: Job) -> Shadow | None:
        """EASY's shadow time and extra nodes for head ``job`` when availability is a node count
        (None for planners that hold concrete placements)."""
        return None

    def fit_now(
        self, job: Job, duration: float, find: Callable[[Job], Placement | None]
    ) -> Placement | None:
        """Where ``job`` may start now for ``duration`` without breaking a reservation: the
        allocator's own choice when admitted (topology-aware planners search around reservations
        instead)."""
        placement = find(job)
        return (
            placement if placement is not None and self.admits(job, placement, duration) else None
        )


def span_end(start: float, duration: float) -> float:
    """The end of an occupation of ``duration`` from ``start``.

    A zero-length job still holds its nodes at the instant it starts, so its interval ends at the
    next representable time after ``start``: a reservation for it blocks any job that would run
    across that instant, exactly as EASY's extra-node rule requires."""
    end = start + duration
    return end if end > start else nextafter(start, inf)


def count_shadow(
    now: float,
    free_now: int,
    entries: list[tuple[float, int, int]],
    size: int,
    total: int | None = None,
) -> Shadow:
    """EASY's reservation for a head of ``size`` nodes on a node-count machine with ``free_now``
    nodes free and the running jobs' expected releases ``entries`` (``(expected_end, job_index,
    nodes)`` sorted by time, as :class:`Releases` holds them; ``total`` is the sum of their nodes
    when the caller keeps it): the shadow time is the first release time (now for jobs past their
    estimate) at which enough nodes are free, and the extra nodes are those free then beyond the
    head's size (see :data:`Shadow`; when the head is reserved for now, the jobs that end by then
    are the zero-length ones, and they do not meet it). No planner is built.

    A blocked head usually needs most of the running jobs' nodes, so the shadow is found walking
    back from the last release (all nodes free) to the first release at which enough are: O(releases
    after the shadow time), plus O(releases) to add up ``total`` when not given."""
    n = len(entries)
    at_now = k0 = 0
    if n and entries[0][0] <= now:
        while k0 < n and entries[k0][0] <= now:
            at_now += entries[k0][2]
            k0 += 1
    need = size - free_now
    if at_now >= need:
        free = free_now + at_now
        return (now, free, free - size)
    if total is None:
        total = sum([entry[2] for entry in entries])
    if total < need:
        return (inf, free_now + at_now, free_now + total - size)
    k = n - 1
    while k > k0:
        nodes = entries[k][2]
        if total - nodes < need:
            break
        total -= nodes
        k -= 1
    time = entries[k][0]
    k += 1
    while k < n and entries[k][0] == time:
        total += entries[k][2]
        k += 1
    return (time, free_now + at_now, free_now + total - size)


class CountPlanner(Planner):
    """Free nodes over time as the nodes free now, plus the running jobs' releases, plus adjustments
    (reservations and jobs started during this pass) as intervals of held nodes.

    Releases are read lazily, in order of time, only as far as a query needs, so one EASY pass costs
    O(jobs ending before the shadow time + waiting jobs scanned), not O(running jobs). Free nodes
    only decrease where an adjustment starts, so the fewest free nodes over [a, b) is the minimum at
    a and at the adjustment starts inside (a, b): O(adjustments) per query."""

    def __init__(self, now: float, free_now: int, releases: Releases) -> None:
        self.now = now
        self.free_now = free_now
        self._entries = releases.entries
        self._pos = 0
        self._times: list[float] = []
        self._cum: list[int] = []
        self._exhausted = not self._entries
        self._adjust: list[tuple[float, float, int]] = []
        self._held: dict[int, tuple[float, float, int]] = {}
        self._memo: dict[float, int] = {}
        self._windows = False

    def _read_through(self, t: float) -> None:
        """Materialize every release at or before ``t`` (and one beyond, to know where to stop)."""
        times, cum, entries = self._times, self._cum, self._entries
        now, pos, n = self.now, self._pos, len(entries)
        total = cum[-1] if cum else 0
        while pos < n and (not times or times[-1] <= t):
            end, _, nodes = entries[pos]
            pos += 1
            when = end if end > now else now
            total += nodes
            if times and times[-1] == when:
                cum[-1] = total
            else:
                times.append(when)
                cum.append(total)
        self._pos = pos
        self._exhausted = pos == n

    def _released_by(self, t: float) -> int:
        self._read_through(t)
        k = bisect_right(self._times, t)
        return self._cum[k - 1] if k else 0

    def free_at(self, t: float) -> int:
        """Free nodes at time ``t`` (after everything that happens at ``t``); memoized until the
        adjustments change."""
        free = self._memo.get(t)
        if free is None:
            free = self.free_now + self._released_by(t)
            for start, end, nodes in self._adjust:
                if start <= t < end:
                    free -= nodes
            self._memo[t] = free
        return free

    def min_free(self, start: float, end: float) -> int:
        """The fewest free nodes over [start, end)."""
        low = self.free_at(start)
        for a, _, _ in self._adjust:
            if start < a < end:
                low = min(low, self.free_at(a))
        return low

    def _candidate_starts(self) -> Iterator[float]:
        """Times where free nodes may grow, in increasing order: now, releases, adjustment ends."""
        yield self.now
        ends = sorted({end for _, end, _ in self._adjust if end > self.now})
        k = 0
        i = 0
        last = self.now
        while True:
            self._read_through(last)
            nxt_release = self._times[k] if k < len(self._times) else inf
            nxt_end = ends[i] if i < len(ends) else inf
            t = min(nxt_release, nxt_end)
            if t == inf:
                return
            if t == nxt_release:
                k += 1
            if t == nxt_end:
                i += 1
            if t > last:
                last = t
                yield t

    def earliest(self, job: Job, duration: float, not_before: float = -inf) -> Slot | None:
        size = job.size
        if not self._adjust and not_before <= self.now:
            return self._earliest_by_releases(size)
        for start in self._candidate_starts():
            if start < not_before:
                continue
            end = span_end(start, duration)
            if self.free_at(start) >= size and self.min_free(start, end) >= size:
                return Slot(start)
        return None

    def _earliest_by_releases(self, size: int) -> Slot | None:
        """With no adjustments free nodes never decrease: the first release time at which enough
        nodes are free (one tight loop; this is the EASY shadow time)."""
        need = size - self.free_now
        now = self.now
        if need <= 0:
            return Slot(now)
        total = 0
        for end, _, nodes in self._entries:
            total += nodes
            if total >= need:
                return Slot(end if end > now else now)
        return None

    def shadow(self, job: Job) -> Shadow | None:
        """The head's reservation in closed form, for an untouched planner (:func:`count_shadow`).
        Backfilling with it is exactly :meth:`admits` after
        :meth:`reserve`: a job may start if it fits in ``free`` and, when it runs across the shadow
        time, in ``extra``. None while the planner holds a window (the closed form knows none)."""
        if self._windows:
            return None
        return count_shadow(self.now, self.free_now, self._entries, job.size)

    def hold(self, window: Window) -> None:
        """The window's nodes are taken from the free count over [start, until)."""
        self._adjust.append((window.start, window.until, window.nodes))
        self._windows = True
        self._memo.clear()

    def reserve(self, job: Job, slot: Slot, duration: float) -> None:
        held = (slot.start, span_end(slot.start, duration), job.size)
        self._adjust.append(held)
        self._held[job.index] = held
        self._memo.clear()

    def unreserve(self, job: Job) -> None:
        self._adjust.remove(self._held.pop(job.index))
        self._memo.clear()

    def admits(self, job: Job, placement: Placement, duration: float) -> bool:
        return self.min_free(self.now, span_end(self.now, duration)) >= placement.nodes

    def start(self, job: Job, placement: Placement, duration: float) -> None:
        self._adjust.append((self.now, span_end(self.now, duration), placement.nodes))
        self._memo.clear()
