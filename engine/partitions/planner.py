"""Backfilling on a partition menu: reservations are concrete partitions at future times.

At a candidate time t (now, a running job's expected end, or the end of an adjustment) the
partitions usable over [t, t + d) are those conflicting with no running partition still held at t
and with no adjustment (a reservation, or a job started in this pass) overlapping the interval;
the allocator's own rule picks among them (seed 000 §V-B: the head job reserves a concrete
partition at its earliest start, and backfilled jobs may not take or block it).
Cost: one OR of conflict bitsets per held partition and candidate time, plus the allocator's
decision.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.jobs import Job
from engine.planning import Planner, Releases, Slot, span_end

if TYPE_CHECKING:
    from engine.allocation import Placement
    from engine.partitions.allocator import LeastBlocking


class PartitionPlanner(Planner):
    """Running partitions with their release times, plus reserved partitions over intervals."""

    def __init__(self, allocator: LeastBlocking, now: float, releases: Releases) -> None:
        self.allocator = allocator
        self.now = now
        self.held: list[tuple[float, int]] = []
        for end, index, _ in releases.entries:
            placement = releases.running[index].placement
            self.held.append((max(end, now), allocator.partition_of(placement).index))
        self.adjust: list[tuple[float, float, int]] = []
        self.reserved: dict[int, tuple[float, float, int]] = {}

    def _usable(self, start: float, end: float) -> int:
        conflicts = self.allocator.menu.conflicts
        taken = self.allocator._down
        for release, p in self.held:
            if release > start:
                taken |= conflicts[p]
        for a, b, p in self.adjust:
            if a < end and b > start:
                taken |= conflicts[p]
        return self.allocator.all & ~taken

    def earliest(self, job: Job, duration: float) -> Slot | None:
        times = sorted({self.now, *(t for t, _ in self.held), *(b for _, b, _ in self.adjust)})
        for t in times:
            if t < self.now:
                continue
            choice = self.allocator.choose(job, self._usable(t, span_end(t, duration)), t)
            if choice is not None:
                return Slot(t, self.allocator.placement(choice))
        return None

    def reserve(self, job: Job, slot: Slot, duration: float) -> None:
        p = self.allocator.partition_of(slot.where).index
        entry = (slot.start, span_end(slot.start, duration), p)
        self.adjust.append(entry)
        self.reserved[job.index] = entry

    def unreserve(self, job: Job) -> None:
        entry = self.reserved.pop(job.index)
        self.adjust = [a for a in self.adjust if a is not entry]

    def admits(self, job: Job, placement: Placement, duration: float) -> bool:
        """Whether ``job`` may run on ``placement`` from now for ``duration`` without touching
        a reservation or a job started in this pass (its own reservation aside: starting now
        gives that up)."""
        p = self.allocator.partition_of(placement).index
        end = span_end(self.now, duration)
        conflicts = self.allocator.menu.conflicts
        own = self.reserved.get(job.index)
        return not any(
            e is not own and e[0] < end and e[1] > self.now and conflicts[p] >> e[2] & 1
            for e in self.adjust
        )

    def fit_now(
        self, job: Job, duration: float, find: Callable[[Job], Placement | None]
    ) -> Placement | None:
        if find(job) is None:
            return None
        usable = self._usable(self.now, span_end(self.now, duration)) & self.allocator.usable
        choice = self.allocator.choose(job, usable, self.now)
        return None if choice is None else self.allocator.placement(choice)

    def start(self, job: Job, placement: Placement, duration: float) -> None:
        p = self.allocator.partition_of(placement).index
        self.adjust.append((self.now, span_end(self.now, duration), p))
