"""Backfilling on a partition menu: reservations are concrete partitions at future times.

At a candidate time t (now, a running job's expected end, or the end of an adjustment) the
partitions usable over [t, t + d) are those conflicting with no running partition still held at t
and with no adjustment overlapping the interval: a reservation, a job started in this pass, or the
midplanes of an operator reservation that has not started (:meth:`PartitionPlanner.hold`). An
adjustment holds the bitset of the partitions it blocks; the
allocator's own rule picks among them (seed 000 §V-B: the head job reserves a concrete partition at
its earliest start, and backfilled jobs may not take or block it). Cost: the running partitions'
conflict bitsets are OR-ed once per planner into suffixes by release time, so the partitions blocked
at a candidate time are one binary search away; then one OR per adjustment overlapping the interval,
plus the allocator's decision."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable
from math import inf
from typing import TYPE_CHECKING

from meshsim.engine.allocation.planning import Planner, Releases, Slot, span_end
from meshsim.engine.core.jobs import Job

if TYPE_CHECKING:
    from meshsim.engine.allocation.allocator import Placement
    from meshsim.engine.allocation.windows import Window
    from meshsim.engine.families.partitions.allocator import LeastBlocking


class PartitionPlanner(Planner):
    """Running partitions with their release times, plus reserved partitions over intervals."""

    def __init__(self, allocator: LeastBlocking, now: float, releases: Releases) -> None:
        self.allocator = allocator
        self.now = now
        entries = releases.entries  # in order of expected end
        self.releases = [end if end > now else now for end, _, _ in entries]
        # blocked[i]: the partitions in conflict with the i-th running partition by release
        # time or a later one, so those still held after t are blocked[bisect_right(releases, t)]
        running = allocator.running_partitions
        conflicts = allocator.menu.conflicts
        self.blocked = blocked = [0] * (len(entries) + 1)
        for i in range(len(entries) - 1, -1, -1):
            blocked[i] = blocked[i + 1] | conflicts[running[entries[i][1]]]
        self.adjust: list[tuple[float, float, int]] = []
        self.reserved: dict[int, tuple[float, float, int]] = {}

    def _usable(self, start: float, end: float) -> int:
        taken = self.allocator._down | self.blocked[bisect_right(self.releases, start)]
        for a, b, blocks in self.adjust:
            if a < end and b > start:
                taken |= blocks
        return self.allocator.all & ~taken

    def earliest(self, job: Job, duration: float, not_before: float = -inf) -> Slot | None:
        """The first candidate time at which the allocator's rule finds a partition usable for the
        whole of ``duration``, and that partition. Candidate times before the first release after
        which a partition of the job's size conflicts with no running one cannot serve (adjustments
        only take more away), so a binary search over the release suffixes skips them."""
        allocator = self.allocator
        wanted = allocator.candidates(job) & ~allocator._down
        blocked, releases = self.blocked, self.releases
        first = lo = bisect_right(releases, self.now)
        hi = len(releases)
        if not wanted & ~blocked[hi]:
            return None
        while lo < hi:
            mid = (lo + hi) // 2
            if wanted & ~blocked[mid]:
                hi = mid
            else:
                lo = mid + 1
        start = max(releases[lo - 1] if lo > first else self.now, not_before)
        times = sorted({self.now, *releases, *(b for _, b, _ in self.adjust)})
        for t in times[bisect_left(times, start) :]:
            choice = allocator.choose(job, self._usable(t, span_end(t, duration)), t)
            if choice is not None:
                return Slot(t, allocator.placement(choice))
        return None

    def reserve(self, job: Job, slot: Slot, duration: float) -> None:
        p = self.allocator.partition_of(slot.where).index
        entry = (slot.start, span_end(slot.start, duration), self.allocator.menu.conflicts[p])
        self.adjust.append(entry)
        self.reserved[job.index] = entry

    def unreserve(self, job: Job) -> None:
        entry = self.reserved.pop(job.index)
        self.adjust = [a for a in self.adjust if a is not entry]

    def admits(self, job: Job, placement: Placement, duration: float) -> bool:
        """Whether ``job`` may run on ``placement`` from now for ``duration`` without touching a
        reservation or a job started in this pass (its own reservation aside: starting now gives
        that up)."""
        p = self.allocator.partition_of(placement).index
        end = span_end(self.now, duration)
        own = self.reserved.get(job.index)
        return not any(
            e is not own and e[0] < end and e[1] > self.now and e[2] >> p & 1 for e in self.adjust
        )

    def fit_now(
        self, job: Job, duration: float, find: Callable[[Job], Placement | None]
    ) -> Placement | None:
        """The allocator's own choice among the partitions usable now that touch no adjustment over
        the job's run; this planner asks its allocator directly, so ``find`` (that allocator's) is
        not called, and a job that :meth:`~LeastBlocking.fits` nowhere now is refused at once."""
        if not self.allocator.fits(job):
            return None
        usable = self._usable(self.now, span_end(self.now, duration)) & self.allocator.usable
        choice = self.allocator.choose(job, usable, self.now)
        return None if choice is None else self.allocator.placement(choice)

    def start(self, job: Job, placement: Placement, duration: float) -> None:
        p = self.allocator.partition_of(placement).index
        blocks = self.allocator.menu.conflicts[p]
        self.adjust.append((self.now, span_end(self.now, duration), blocks))

    def hold(self, window: Window) -> None:
        """The window blocks every partition that uses one of its midplanes (as a midplane out
        of service does)."""
        blocks = 0
        for m in window.cells:
            blocks |= self.allocator.menu.by_midplane[m]
        self.adjust.append((window.start, window.until, blocks))
