"""PLAS, the Parallel Layout Allocation Strategy (Mache 1999, Ch. VII, Fig. 52, L2168-2221).

PLAS scans idle compute nodes in one fixed order, always from the same middle point: column after
column parallel to the I/O nodes, starting with the column next to them (x = 0, the pseudocode's
``column = 1``, L2184; future work L2667 confirms starting at the I/O side), and "middle-out" inside
each column (L2170). A job takes the first ``size`` idle nodes of that order.

The pseudocode taken literally probes the middle row twice and row 0 never (extraction §3.9,
ambiguity 7). The proof of perfect balance (L2203) needs nodes taken "in alternation, one from above
and one from below the middle I/O link", so the order implemented is the intended one:
rows b, b-1, b+1, b-2, b+2, … where b is the first high-side row (the row of I/O node m/2,
:attr:`IOLayout.boundary`; H // 2 on a machine without ``[io]``), dropping rows outside the mesh
when b is not central. The high side comes first, so an empty system filled by arrivals only has
system balance factor 0 or +1 after every allocation. The pseudocode lacks the ``number_idle >=
jobsize`` guard that MC has; the engine's :meth:`find` supplies it.

No ties arise (the order is total). Cost: O(N) per decision (one numpy pass over the order)."""

from __future__ import annotations

import numpy as np

from meshsim.engine.allocation.allocator import ALLOCATORS
from meshsim.engine.allocation.grid_nodes import NodeGridAllocator, first_idle, middle_out
from meshsim.engine.core.jobs import Job
from meshsim.engine.families.contention.io import balance_boundary
from meshsim.engine.topology.machines import Machine


def plas_order(width: int, height: int, middle: int) -> np.ndarray:
    """Every cell in PLAS's scan order: columns west to east, each middle-out."""
    rows = np.array(middle_out(0, height - 1, middle))
    return (np.arange(width)[:, None] * height + rows[None, :]).ravel()


@ALLOCATORS.register("plas")
class PLASAllocator(NodeGridAllocator):
    """The first idle nodes in PLAS's column-by-column, middle-out order."""

    name = "plas"
    topologies = frozenset({"mesh"})
    complexity = "O(N) per decision (one numpy pass over the precomputed scan order)"

    def __init__(self, machine: Machine, rng: np.random.Generator, *, rotate: bool = False) -> None:
        super().__init__(machine, rng, rotate=rotate)
        self.middle = balance_boundary(machine)
        self._scan = plas_order(self.width, self.height, self.middle)

    def _choose(self, job: Job) -> np.ndarray:
        return first_idle(self._owner, self._scan, job.size)
