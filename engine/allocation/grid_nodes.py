"""Shared machinery of the non-contiguous allocators on 2D meshes (Mache 1999, Ch. II-VII).

Every non-contiguous allocator gives a job exactly ``job.size`` idle nodes (L543: each job gets
exactly the nodes it requests); :class:`NodeGridAllocator` keeps the owner of every cell, the free
count, and a cache of :meth:`find` answers that lives until the next allocation or release (so a
scheduler may ask again for free). Subclasses only choose cells.

Cells are flat indices of the grid (``cell = x · H + y``, engine/topology/grid.py);
``Placement.cells`` lists them in the order the allocator chose them, which is the rank order
traffic patterns use."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Hashable

import numpy as np

from meshsim.engine.allocation.allocator import FREE, Allocator, Placement
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.jobs import Job
from meshsim.engine.topology.machines import Machine


class NodeGridAllocator(Allocator):
    """Base for allocators that hand out exactly ``job.size`` idle nodes of a 2D grid."""

    def __init__(self, machine: Machine, rng: np.random.Generator, *, rotate: bool = False) -> None:
        super().__init__(machine, rng, rotate=rotate)
        if machine.topology not in self.topologies:
            valid = ", ".join(sorted(self.topologies))
            raise MeshsimError(
                f"allocator '{self.name}' does not work on topology '{machine.topology}' "
                f"(machine '{machine.name}'; valid: {valid})"
            )
        dims = tuple(machine.spec.dims)
        if len(dims) != 2:
            raise MeshsimError(
                f"allocator '{self.name}' needs a 2D grid, machine '{machine.name}' has "
                f"dims {list(dims)}"
            )
        self.width, self.height = dims
        self._owner = np.full(self.width * self.height, FREE, dtype=np.int64)
        self._free = self.width * self.height
        self._answers: dict[Hashable, Placement | None] = {}

    @property
    def free_nodes(self) -> int:
        return self._free

    def idle(self) -> np.ndarray:
        """Idle cells as a (W, H) boolean array indexed [x, y]."""
        return (self._owner == FREE).reshape(self.width, self.height)

    def find(self, job: Job) -> Placement | None:
        if job.size < 1 or job.size > self._free:
            return None
        key = self._question(job)
        if key not in self._answers:
            cells = self._choose(job)
            self._answers[key] = None if cells is None else self._placement(job, cells)
        return self._answers[key]

    def allocate(self, job: Job, placement: Placement) -> None:
        cells = np.asarray(placement.cells, dtype=np.int64)
        if len(np.unique(cells)) != len(cells) or (self._owner[cells] != FREE).any():
            raise ValueError(f"job {job.job_id}: placement holds busy or repeated cells")
        self._owner[cells] = job.index
        self._free -= len(cells)
        self._answers.clear()
        self._committed(job, placement)

    def release(self, job: Job, placement: Placement) -> None:
        cells = np.asarray(placement.cells, dtype=np.int64)
        self._owner[cells] = FREE
        self._free += len(cells)
        self._answers.clear()
        self._released(job, placement)

    def owners(self) -> np.ndarray:
        return self._owner.copy()

    def withdraw(self, cell: int, state: int) -> None:
        if self._owner[cell] == FREE:
            self._free -= 1
            self._withdrawn(cell)
        self._owner[cell] = state
        self._answers.clear()

    def restore(self, cell: int) -> None:
        self._owner[cell] = FREE
        self._free += 1
        self._answers.clear()
        self._restored(cell)

    def _question(self, job: Job) -> Hashable:
        """What :meth:`find`'s answer depends on besides the state (default: size and shape)."""
        return (job.size, job.shape)

    def _placement(self, job: Job, cells: np.ndarray) -> Placement:
        x, y = np.divmod(cells, self.height)
        box = f"{x.max() - x.min() + 1}x{y.max() - y.min() + 1}"
        label = f"{len(cells)} nodes in {box} at ({x.min()},{y.min()})"
        return Placement(tuple(int(c) for c in cells), len(cells), label)

    @abstractmethod
    def _choose(self, job: Job) -> np.ndarray | None:
        """Exactly ``job.size`` idle cells (the free count already suffices), or None."""

    def _committed(self, job: Job, placement: Placement) -> None:
        """Update allocator-specific structures after :meth:`allocate` (default: none)."""

    def _released(self, job: Job, placement: Placement) -> None:
        """Update allocator-specific structures after :meth:`release` (default: none)."""

    def _withdrawn(self, cell: int) -> None:
        """Update allocator-specific structures when an idle cell goes out of service."""

    def _restored(self, cell: int) -> None:
        """Update allocator-specific structures when a cell comes back into service."""


def middle_out(lo: int, hi: int, middle: int) -> list[int]:
    """Positions middle, middle-1, middle+1, middle-2, … restricted to lo … hi (inclusive).

    The "middle-out" scan of PLAS (Mache L2170): strictly alternating below and above the middle
    while both sides last."""
    out = [middle] if lo <= middle <= hi else []
    for offset in range(1, hi - lo + 2):
        out += [p for p in (middle - offset, middle + offset) if lo <= p <= hi]
    return out


def first_idle(owner: np.ndarray, order: np.ndarray, n: int) -> np.ndarray:
    """The first ``n`` idle cells of a fixed scan ``order``: O(N) with numpy."""
    return order[owner[order] == FREE][:n]
