"""Shape-aware backfilling on meshes and tori: reservations are concrete boxes at future times.

The planner knows, for every cell, when it becomes free (now for idle cells, the expected end of the
running job holding it, never for failed or operator-reserved cells) and holds adjustments:
boxes reserved for waiting jobs, boxes of jobs started during the pass and the units of operator
reservations that have not started (:meth:`GridPlanner.hold`), each over a time interval. The
earliest start of a job is found by replaying the expected releases on the real occupancy: at now
and at each later release or adjustment end, the cells still busy then, plus every adjustment
overlapping the job's interval, are taken, and the allocator's own rule looks for a box on what
remains (DESIGN.md, "Scheduling"; issue 3 §5). A reservation plans the job's own boxes: a
job that would grow to a larger volume now (seed 002 §2, :meth:`BoxAllocator._grown`) does so when
it starts, not in a plan.

Cost: the latest release inside each of the job's boxes at every position (a doubling sliding
maximum, O(cells · log extent) per box); times before the earliest of those are skipped, and at a
time no adjustment overlaps, the positions whose latest release has passed are exactly the free
ones, so the allocator only chooses among them. Otherwise O(cells) numpy per candidate time plus the
allocator's search, skipping times where too few cells are free. The head's EASY reservation (no
adjustments yet) thus costs one choice."""

from __future__ import annotations

from collections.abc import Callable
from math import inf
from typing import TYPE_CHECKING

import numpy as np

from meshsim.engine.allocation.allocator import FREE, Placement
from meshsim.engine.allocation.boxes import summed_table, window_max
from meshsim.engine.allocation.planning import Planner, Releases, Slot, span_end
from meshsim.engine.core.jobs import Job

if TYPE_CHECKING:
    from meshsim.engine.allocation.contiguous import BoxAllocator
    from meshsim.engine.allocation.windows import Window


def cell_array(cells: tuple[int, ...]) -> np.ndarray:
    """A placement's cells as an index array."""
    return np.fromiter(cells, dtype=np.intp, count=len(cells))


class GridPlanner(Planner):
    """Future availability of a mesh or torus as per-cell release times plus reserved boxes."""

    def __init__(self, allocator: BoxAllocator, now: float, releases: Releases) -> None:
        self.allocator = allocator
        self.now = now
        self.release = np.where(allocator.owners() == FREE, -inf, inf)
        times = {now}
        for end, index, _ in releases.entries:
            when = max(end, now)
            self.release[cell_array(releases.running[index].placement.cells)] = when
            times.add(when)
        self.times = sorted(times)
        self.adjust: list[tuple[float, float, np.ndarray]] = []
        self.held: dict[int, tuple[float, float, np.ndarray]] = {}
        self._masks: dict[tuple, tuple[np.ndarray, int]] = {}
        self._tables: dict[tuple, np.ndarray] = {}

    def _busy(
        self, start: float, end: float, volume: int, *, held: bool = False
    ) -> tuple[np.ndarray, np.ndarray | None, int]:
        """Cells taken over [start, end), with their summed table and free count, cached by which
        releases and adjustments are involved (many queries of a pass share them); the table is
        None (and not computed) when fewer than ``volume`` cells are free, since nothing of that
        volume can be placed there. With ``held`` (``start`` is now), the cells released at
        ``start`` count as taken: a running job past its expected end is released now in the plan,
        but it still holds its cells."""
        overlapping = tuple(k for k, (a, b, _) in enumerate(self.adjust) if a < end and b > start)
        key = (start, overlapping, held)
        known = self._masks.get(key)
        if known is None:
            busy = self.release >= start if held else self.release > start
            for k in overlapping:
                busy[self.adjust[k][2]] = True
            known = self._masks[key] = (
                busy.reshape(self.allocator.dims),
                int(busy.size - busy.sum()),
            )
        shaped, free = known
        if free < volume:
            return shaped, None, free
        table = self._tables.get(key)
        if table is None:
            table = self._tables[key] = summed_table(shaped, self.allocator.wrap)
        return shaped, table, free

    def _changed(self) -> None:
        self._masks.clear()
        self._tables.clear()

    def earliest(self, job: Job, duration: float, not_before: float = -inf) -> Slot | None:
        allocator = self.allocator
        request, boxes = allocator.boxes_for(job)
        volume = request.volume
        release = self.release.reshape(allocator.dims)
        latest = [(box, window_max(release, box, allocator.wrap)) for box in boxes]
        first = min((float(m.min()) for _, m in latest), default=inf)
        if first == inf:
            return None
        first = max(first, not_before)
        candidates = sorted({*self.times, *(b for _, b, _ in self.adjust if b > self.now)})
        for t in candidates:
            if t < first:
                continue
            end = span_end(t, duration)
            if not any(a < end and b > t for a, b, _ in self.adjust):
                found = [(box, mask) for box, m in latest if (mask := m <= t).any()]
                return Slot(t, allocator.place_among(job, found, release > t))
            busy, table, free = self._busy(t, end, volume)
            if table is None:
                continue
            placement = self.allocator.place_on(job, busy, table, free, grow=False)
            if placement is not None:
                return Slot(t, placement)
        return None

    def reserve(self, job: Job, slot: Slot, duration: float) -> None:
        held = (slot.start, span_end(slot.start, duration), cell_array(slot.where.cells))
        self.adjust.append(held)
        self.held[job.index] = held
        self._changed()

    def unreserve(self, job: Job) -> None:
        held = self.held.pop(job.index)
        self.adjust = [a for a in self.adjust if a is not held]
        self._changed()

    def admits(self, job: Job, placement: Placement, duration: float) -> bool:
        end = span_end(self.now, duration)
        cells = cell_array(placement.cells)
        return not any(
            a < end and b > self.now and np.isin(cells, held).any() for a, b, held in self.adjust
        )

    def fit_now(
        self, job: Job, duration: float, find: Callable[[Job], Placement | None]
    ) -> Placement | None:
        """A box free now that no reservation overlapping [now, now + duration) needs. A job that
        does not fit the real occupancy is refused at the allocator's cached price, and the box is
        free in the real occupancy too: the cells of a running job past its expected end, which the
        plan releases now, are still held (it ends when it ends)."""
        if not self.allocator.fits(job):
            return None
        volume = self.allocator.boxes_for(job)[0].volume
        busy, table, free = self._busy(self.now, span_end(self.now, duration), volume, held=True)
        if table is None:
            return None
        return self.allocator.place_on(job, busy, table, free)

    def start(self, job: Job, placement: Placement, duration: float) -> None:
        self.adjust.append((self.now, span_end(self.now, duration), cell_array(placement.cells)))
        self._changed()

    def hold(self, window: Window) -> None:
        self.adjust.append((window.start, window.until, cell_array(window.cells)))
        self._changed()
