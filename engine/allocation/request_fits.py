"""Which waiting requests may fit now, all at once: the vectorized form of
:meth:`~meshsim.engine.allocation.contiguous.BoxAllocator.find`'s refusals, for a discipline that
tries the whole queue on every pass (aggressive out-of-order, seed 001 §2.4).

Every distinct request (a job's size and shape) gets a number, its *request id*, the first time a
job asks it; the ids index arrays of the request's candidate boxes and volume.
:meth:`RequestFits.mask` answers for every id at once, in O(cells + boxes) numpy work:

- False means :meth:`find` returns None for a job of that request now: more nodes than are free, or
  (on a 2D mesh without wrap-around) none of its boxes free anywhere, which holds exactly when the
  box's height exceeds the tallest free box of its width
  (:func:`~meshsim.engine.allocation.boxes.tallest_by_width`);
- True means it may fit: :meth:`find` decides. On tori and 3D machines only the node count is
  checked, so True is then only "not excluded".

While cells are only taken (the allocator's ``releases`` count stays the same: within a pass, and
from a pass to the next when only arrivals happened between), a refused request stays refused: the
mask is kept and only narrowed, by the volume check and by the refusals :meth:`find` reported
(:meth:`RequestFits.refuse`), and computed again after a release. So a discipline may skip the jobs
of an excluded request without asking, and starts what it would have started asking every one
(``tests/engine/test_request_fits.py`` holds the two to the same schedules)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from meshsim.engine.allocation.contiguous import BoxAllocator
    from meshsim.engine.core.jobs import Job


class RequestFits:
    """Request ids for the jobs of one box allocator, and which requests may fit now."""

    def __init__(self, allocator: BoxAllocator) -> None:
        self.allocator = allocator
        self._ids: dict[tuple, int] = {}
        self._volumes = _Column()
        self._box_ids = _Column()
        self._box_widths = _Column()
        self._box_heights = _Column()
        self._arrays: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
        self._by_columns = len(allocator.dims) == 2 and not any(allocator.wrap)
        self._kept = np.zeros(0, dtype=bool)
        self._kept_at = -1
        self._kept_free = -1

    def __len__(self) -> int:
        return len(self._volumes)

    def request_id(self, job: Job) -> int:
        """The id of ``job``'s request (size, shape), numbered on first sight."""
        key = (job.size, job.shape)
        known = self._ids.get(key)
        if known is not None:
            return known
        request, boxes = self.allocator.boxes_for(job)
        number = self._ids[key] = len(self._volumes)
        self._volumes.append(max(request.volume, job.size))
        for box in boxes:
            self._box_ids.append(number)
            self._box_widths.append(box[0])
            self._box_heights.append(box[-1])
        self._arrays = None
        return number

    def mask(self) -> np.ndarray:
        """For every request id, False when a job of it cannot be placed now (see the module
        docstring), True when it may be. Kept while no cells are released."""
        return self._narrowed(fresh=False)

    def recheck(self) -> np.ndarray:
        """:meth:`mask` computed again on the occupancy now, even when no cells were released
        since (after cells were taken, it excludes what no longer fits)."""
        return self._narrowed(fresh=True)

    def _narrowed(self, *, fresh: bool) -> np.ndarray:
        """The mask: the kept one narrowed by the volume check while no cells were released (and,
        when ``fresh``, by the boxes free now), else computed again."""
        volumes, box_ids, widths, heights = self._columns()
        allocator = self.allocator
        free_nodes = allocator.free_nodes
        kept = self._kept
        same = self._kept_at == allocator.releases and len(kept) == len(volumes)
        if same and not fresh and free_nodes == self._kept_free:
            return kept
        allowed = volumes <= free_nodes
        if self._kept_at == allocator.releases:
            if len(kept) < len(volumes):
                kept = np.concatenate([kept, np.ones(len(volumes) - len(kept), dtype=bool)])
            allowed &= kept
            same = True
        if (same and not fresh) or not self._by_columns or not allowed.any():
            kept = allowed
        else:
            free = heights <= allocator.tallest_by_width()[widths]
            if len(box_ids) == len(volumes):  # one box per request: box k is request k's
                kept = allowed & free
            else:
                kept = np.zeros(len(volumes), dtype=bool)
                kept[box_ids[free]] = True
                kept &= allowed
        self._kept = kept
        self._kept_at = allocator.releases
        self._kept_free = free_nodes
        return kept

    def _columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per request id its volume; per candidate box its request id, width and height."""
        if self._arrays is None:
            self._arrays = (
                self._volumes.values(),
                self._box_ids.values(),
                self._box_widths.values(),
                self._box_heights.values(),
            )
        return self._arrays

    def refuse(self, request: int) -> None:
        """:meth:`find` refused a job of ``request`` now: exclude it until cells are released."""
        if self._kept_at == self.allocator.releases and request < len(self._kept):
            self._kept[request] = False


class _Column:
    """A growing column of integers kept in one array of twice the room it last needed, so a new
    request costs an item assignment, not a conversion of the whole column."""

    def __init__(self) -> None:
        self._array = np.zeros(64, dtype=np.int64)
        self._length = 0

    def __len__(self) -> int:
        return self._length

    def append(self, value: int) -> None:
        if self._length == len(self._array):
            self._array = np.concatenate([self._array, np.zeros_like(self._array)])
        self._array[self._length] = value
        self._length += 1

    def values(self) -> np.ndarray:
        """The column so far (a view: appending later does not change it, but may write past it)."""
        return self._array[: self._length]
