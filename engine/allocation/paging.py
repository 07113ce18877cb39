"""Paging: scan the mesh in a fixed order and take the first idle nodes (Mache 1999, L600, L2235).

"Paging scans for idle compute nodes in row-major order, and thus typically allocates several rows"
(L2235); Ch. IV uses "different page sizes and different indexing schemes" (L1223-1224) without
naming them (extraction §3.2, ambiguity 8). Choices made here:

- the mesh is cut into pages of 2^i × 2^i nodes (``page_exp`` = i, default 0: single nodes); pages
  at the east and south edges of a mesh whose sides are not multiples of 2^i are clipped;
- pages are visited in one of four orders and the nodes of a page row by row. ``row-major`` is the
  dissertation's; the other three are the indexing schemes the extraction recalls from Lo et al.
  [35] (not in the dissertation, not verified): ``snake`` (page rows alternate direction),
  ``shuffled-row-major`` (pages in Morton/Z order: the bits of the page row and page column
  interleaved, row bit first) and ``shuffled-snake`` (the same recursion, but each 2 × 2 group of
  quadrants is visited top-left, top-right, bottom-right, bottom-left);
- rows are y = const (perpendicular to the west I/O column), scanned from y = 0 and x = 0;
- a job gets exactly its size in nodes (the engine's rule, L543), so unlike [35], where a job holds
  whole pages, the last page it touches may be shared with the next job.

Ties cannot arise (the order is total). Cost: O(N) per decision with numpy (one masked pass over the
precomputed order); O(N log N) once to build the order."""

from __future__ import annotations

import numpy as np

from meshsim.engine.allocation.allocator import ALLOCATORS
from meshsim.engine.allocation.grid_nodes import NodeGridAllocator, first_idle
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.jobs import Job
from meshsim.engine.topology.machines import Machine

ORDERS = ("row-major", "snake", "shuffled-row-major", "shuffled-snake")
"""Page orders Paging accepts."""


def _interleave(row: np.ndarray, col: np.ndarray, bits: int) -> np.ndarray:
    code = np.zeros_like(row)
    for b in range(bits):
        code |= ((row >> b) & 1) << (2 * b + 1)
        code |= ((col >> b) & 1) << (2 * b)
    return code


def page_rank(order: str, prow: np.ndarray, pcol: np.ndarray, pcols: int) -> np.ndarray:
    """The visiting rank key of pages at (page row, page column); lower is visited first."""
    if order == "row-major":
        return prow * pcols + pcol
    if order == "snake":
        return prow * pcols + np.where(prow % 2 == 1, pcols - 1 - pcol, pcol)
    bits = int(max(prow.max(initial=0), pcol.max(initial=0))).bit_length()
    if order == "shuffled-row-major":
        return _interleave(prow, pcol, bits)
    if order == "shuffled-snake":
        return _interleave(prow, pcol ^ prow, bits)
    raise MeshsimError(f"unknown paging order '{order}' (valid: {', '.join(ORDERS)})")


def paging_order(
    width: int, height: int, order: str = "row-major", page_exp: int = 0
) -> np.ndarray:
    """Every cell of a width × height grid in Paging's scan order."""
    if page_exp < 0:
        raise MeshsimError(f"page size exponent must be >= 0, got {page_exp}")
    side = 1 << page_exp
    x, y = np.divmod(np.arange(width * height), height)
    prow, pcol = y // side, x // side
    pcols = -(-width // side)
    key = np.lexsort((x % side, y % side, page_rank(order, prow, pcol, pcols)))
    return np.arange(width * height)[key]


@ALLOCATORS.register("paging")
class PagingAllocator(NodeGridAllocator):
    """The first idle nodes in a fixed page order."""

    name = "paging"
    topologies = frozenset({"mesh", "torus"})
    complexity = "O(N) per decision (one numpy pass over the precomputed scan order)"

    def __init__(
        self,
        machine: Machine,
        rng: np.random.Generator,
        *,
        order: str = "row-major",
        page_exp: int = 0,
        rotate: bool = False,
    ) -> None:
        super().__init__(machine, rng, rotate=rotate)
        self.order = order
        self.page_exp = page_exp
        self._scan = paging_order(self.width, self.height, order, page_exp)

    def _choose(self, job: Job) -> np.ndarray:
        return first_idle(self._owner, self._scan, job.size)
