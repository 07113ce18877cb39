"""Random: "a request for n compute nodes is satisfied with n randomly selected compute nodes"
(Mache 1999, L2236; Lo et al. [35]); idle nodes, uniformly, without replacement.

:meth:`find` must not change anything, so the randomness is drawn when a placement is committed:
every cell holds a key drawn from the allocator's generator, a request takes the idle cells with the
n smallest keys, and :meth:`allocate` redraws all keys. The keys of idle cells are fresh uniform
draws at every decision, so every n-subset of the idle cells is equally likely; repeated
:meth:`find` calls in one state agree. Ties between keys have probability zero (float64 draws; the
lower cell index wins if one occurs). Cost: O(N) per decision (``argpartition``), O(N) per
allocation to redraw the keys."""

from __future__ import annotations

import numpy as np

from meshsim.engine.allocation.allocator import ALLOCATORS, FREE, Placement
from meshsim.engine.allocation.grid_nodes import NodeGridAllocator
from meshsim.engine.core.jobs import Job
from meshsim.engine.topology.machines import Machine


@ALLOCATORS.register("random")
class RandomAllocator(NodeGridAllocator):
    """n idle nodes chosen uniformly at random (seeded from the allocator's generator)."""

    name = "random"
    topologies = frozenset({"mesh", "torus"})
    complexity = "O(N) per decision (argpartition over the idle cells' keys)"

    def __init__(self, machine: Machine, rng: np.random.Generator, *, rotate: bool = False) -> None:
        super().__init__(machine, rng, rotate=rotate)
        self._keys = rng.random(self.width * self.height)

    def _choose(self, job: Job) -> np.ndarray:
        idle = np.flatnonzero(self._owner == FREE)
        keys = self._keys[idle]
        n = job.size
        part = np.argpartition(keys, n - 1)[:n] if n < len(idle) else np.arange(len(idle))
        chosen = idle[part]
        return chosen[np.lexsort((chosen, self._keys[chosen]))]

    def _committed(self, job: Job, placement: Placement) -> None:
        self._keys = self.rng.random(self.width * self.height)
