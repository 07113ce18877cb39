"""Shape-aware backfilling on meshes and tori: reservations are concrete boxes at future times.

The planner knows, for every cell, when it becomes free (now for idle cells, the expected end of
the running job holding it, never for failed or operator-reserved cells) and holds adjustments:
boxes reserved for waiting jobs and boxes of jobs started during the pass, each over a time
interval. The earliest start of a job is found by replaying the expected releases on the real
occupancy: at now and at each later release or adjustment end, the cells still busy then, plus
every adjustment overlapping the job's interval, are taken, and the allocator's own rule looks
for a box on what remains (DESIGN.md, "Scheduling"; issue 3 §5).

Cost: O(cells) numpy per candidate time plus the allocator's search; times where too few cells
are free are skipped without a search.
"""

from __future__ import annotations

from collections.abc import Callable
from math import inf
from typing import TYPE_CHECKING

import numpy as np

from engine.allocation import FREE, Placement
from engine.jobs import Job
from engine.planning import Planner, Releases, Slot, span_end

if TYPE_CHECKING:
    from engine.allocators.contiguous import BoxAllocator


class GridPlanner(Planner):
    """Future availability of a mesh or torus as per-cell release times plus reserved boxes."""

    def __init__(self, allocator: BoxAllocator, now: float, releases: Releases) -> None:
        self.allocator = allocator
        self.now = now
        owner = allocator.owners()
        self.release = np.where(owner == FREE, -inf, inf)
        times = {now}
        for end, index, _ in releases.entries:
            when = max(end, now)
            cells = list(releases.running[index].placement.cells)
            self.release[cells] = when
            times.add(when)
        self.times = sorted(times)
        self.adjust: list[tuple[float, float, np.ndarray]] = []
        self.held: dict[int, tuple[float, float, np.ndarray]] = {}

    def _busy(self, start: float, end: float) -> np.ndarray:
        busy = self.release > start
        for a, b, cells in self.adjust:
            if a < end and b > start:
                busy[cells] = True
        return busy

    def earliest(self, job: Job, duration: float) -> Slot | None:
        volume = self.allocator.boxes_for(job)[0].volume
        candidates = sorted({*self.times, *(b for _, b, _ in self.adjust if b > self.now)})
        for t in candidates:
            busy = self._busy(t, span_end(t, duration))
            if busy.size - int(busy.sum()) < volume:
                continue
            placement = self.allocator.place_on(job, busy.reshape(self.allocator.dims))
            if placement is not None:
                return Slot(t, placement)
        return None

    def reserve(self, job: Job, slot: Slot, duration: float) -> None:
        held = (slot.start, span_end(slot.start, duration), np.array(slot.where.cells))
        self.adjust.append(held)
        self.held[job.index] = held

    def unreserve(self, job: Job) -> None:
        held = self.held.pop(job.index)
        self.adjust = [a for a in self.adjust if a is not held]

    def admits(self, job: Job, placement: Placement, duration: float) -> bool:
        end = span_end(self.now, duration)
        cells = np.array(placement.cells)
        return not any(
            a < end and b > self.now and np.isin(cells, held).any() for a, b, held in self.adjust
        )

    def fit_now(
        self, job: Job, duration: float, find: Callable[[Job], Placement | None]
    ) -> Placement | None:
        """A box free now that no reservation overlapping [now, now + duration) needs."""
        busy = self._busy(self.now, span_end(self.now, duration)) | (self.release > self.now)
        return self.allocator.place_on(job, busy.reshape(self.allocator.dims))

    def start(self, job: Job, placement: Placement, duration: float) -> None:
        self.adjust.append((self.now, span_end(self.now, duration), np.array(placement.cells)))
