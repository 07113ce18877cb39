"""The ``flat`` allocator: any free nodes will do (the "fully connected" machine).

On a ``flat`` machine it only counts nodes: O(1) per decision (one immutable placement per size,
made once); a node taken out of service (failed or reserved) is remembered by number and lowers the
free count. On a mesh or torus it gives the job the lowest-numbered free cells, ignoring contiguity,
which is the fully connected comparison of Krevat et al. (seed 002, Fig. 1): O(cells) per decision
with numpy."""

from __future__ import annotations

import numpy as np

from meshsim.engine.allocation.allocator import ALLOCATORS, FREE, Allocator, Placement
from meshsim.engine.core.jobs import Job
from meshsim.engine.topology.machines import Machine


@ALLOCATORS.register("flat")
class FlatAllocator(Allocator):
    """Any free nodes; never fragments."""

    name = "flat"
    topologies = frozenset({"flat", "mesh", "torus"})
    complexity = "O(1) per decision on a flat machine; O(cells) on a grid"
    stable_refusals = True
    fits_by_count = True
    free_nodes: int = 0
    """Idle usable nodes, kept as a plain attribute (read at every event)."""

    def __init__(self, machine: Machine, rng: np.random.Generator, *, rotate: bool = False) -> None:
        super().__init__(machine, rng, rotate=rotate)
        self._count_only = machine.topology == "flat"
        self.free_nodes = machine.nodes
        self._owner = np.full(0 if self._count_only else machine.nodes, FREE, dtype=np.int64)
        self._out: set[int] = set()
        self._counts: dict[int, Placement] = {}

    def find(self, job: Job) -> Placement | None:
        size = job.size
        if size > self.free_nodes:
            return None
        if self._count_only:
            placement = self._counts.get(size)
            if placement is None:
                placement = self._counts[size] = Placement((), size)
            return placement
        cells = np.flatnonzero(self._owner == FREE)[:size]
        return Placement(tuple(cells.tolist()), size, f"{size} nodes")

    def fits(self, job: Job) -> bool:
        return job.size <= self.free_nodes

    def allocate(self, job: Job, placement: Placement) -> None:
        self.free_nodes -= placement.nodes
        if not self._count_only and placement.cells:
            self._owner[list(placement.cells)] = job.index

    def release(self, job: Job, placement: Placement) -> None:
        self.free_nodes += placement.nodes
        if not self._count_only and placement.cells:
            self._owner[list(placement.cells)] = FREE

    def owners(self) -> np.ndarray:
        return self._owner.copy()

    def withdraw(self, cell: int, state: int) -> None:
        if self._count_only:
            if cell not in self._out:
                self._out.add(cell)
                self.free_nodes -= 1
            return
        if self._owner[cell] == FREE:
            self.free_nodes -= 1
        self._owner[cell] = state

    def restore(self, cell: int) -> None:
        if self._count_only:
            self._out.remove(cell)
        else:
            self._owner[cell] = FREE
        self.free_nodes += 1
