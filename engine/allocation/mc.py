"""MC and MC Elongated: shell-scan allocation minimising contention (Mache 1999, Figs. 31, 59).

**MC** (Ch. V, L1377-1421). For a w × h request and an idle centre (i, j), shell_0 is the w × h
rectangle whose lowest corner is (i - ceil((w-1)/2), j - ceil((h-1)/2)) (Mache's "lower-left";
ceil((w-1)/2) = w // 2), and shell_s is the ring of the rectangle grown by s on every side
(Chebyshev distance, L1385), clipped to the mesh. A candidate cluster takes idle nodes from shell_0,
shell_1, … until it has n; a node costs its shell number and a cluster the sum (L1401). Both
orientations w × h and h × w are evaluated; the cheapest cluster is allocated (Fig. 31).

Choices where the text is silent (extraction §3.8, ambiguity 4):

- *within-shell order*: "shorter sides first, longer sides second, corners last" (L1387). Of two
  equal sides the one with lower coordinates goes first (top before bottom, left before right); each
  side is scanned in increasing coordinate order; sides are measured without clipping, and when the
  ring is square the vertical sides (parallel to the I/O column) count as the shorter. Corners:
  (left, top), (right, top), (left, bottom), (right, bottom). Inside shell_0, when it holds more
  idle nodes than needed (scalar requests below), nodes are taken row by row. The scan along a side
  is *not* middle-out: Ch. VII introduces middle-out as MC Elongated's new order (L2388) and says
  the old MC order explains its poorer balance (footnote L2392);
- *ties*: within one orientation the first centre in row-major scan order (y, then x) with the
  minimal cost wins; the h × w orientation replaces w × h only when strictly cheaper (the
  pseudocode's order of evaluation);
- *scalar sizes* (ambiguity 5): a job with a 2D ``shape`` uses it as w × h; otherwise shell_0 is the
  near-square w = ceil(sqrt(n)), h = ceil(n / w) (area >= n) and the cluster stops at n.

The cost of a centre needs no per-node walk: if c_s is the number of idle nodes within the grown
rectangle of shell s, the cluster's cost is Σ_{s>=0} max(0, n - c_s). With a summed-area table,
every c_s is four lookups, so all centres and all shells are evaluated with one numpy expression:
O(N · (max(W, H) + 1)) per orientation, then O(N) to list the winning cluster.

**MC Elongated** (Ch. VII, Fig. 59, L2347-2417): one orientation only; shell_0 holds floor(n / k)
whole columns (k = the mesh height) around column i, spanning the full height (ambiguity 6: not a
k-tall rectangle centred on row j, which would be clipped); each further shell adds one column on
the left and one on the right. When n < k, shell_0 is empty (zero columns, between columns i - 1 and
i), so shell_1 is columns i - 1 and i. The vertical sides are the only ones inside the mesh, so a
shell is its left column, then its right column, each scanned

- ``order="mc"`` (default, the registered ``mc-elongated``): top to bottom, MC's order, as in the
  reported results (footnote L2392, Table 8, Table 9);
- ``order="middle-out"``: middle-out as in PLAS, the order Mache designed (L2388). With it an empty
  mesh filled by arrivals only stays perfectly balanced when every job is smaller than k or a
  multiple of k; the unconditional claim of L2412 fails for mixed sizes (tested).
"""

from __future__ import annotations

from abc import abstractmethod
from math import isqrt

import numpy as np

from meshsim.engine.allocation.allocator import ALLOCATORS
from meshsim.engine.allocation.grid_nodes import NodeGridAllocator, middle_out
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.jobs import Job
from meshsim.engine.topology.machines import Machine


def request_shape(job: Job) -> tuple[int, int]:
    """The w × h MC works with: the job's 2D shape, else the near-square box holding its size."""
    if job.shape is not None and len(job.shape) == 2:
        return int(job.shape[0]), int(job.shape[1])
    w = isqrt(job.size)
    w = w if w * w == job.size else w + 1
    return w, -(-job.size // w)


def summed_area(idle: np.ndarray) -> np.ndarray:
    """S[x, y] = idle nodes in [0, x) × [0, y): shape (W + 1, H + 1)."""
    out = np.zeros((idle.shape[0] + 1, idle.shape[1] + 1), dtype=np.int64)
    out[1:, 1:] = idle.cumsum(axis=0).cumsum(axis=1)
    return out


_CHUNK = 1 << 18
"""Largest number of (centre, shell) entries :func:`shell_costs` evaluates at once."""


def shell_costs(
    idle: np.ndarray,
    cx: np.ndarray,
    cy: np.ndarray,
    w: int,
    h: int,
    n: int,
    *,
    full_height: bool = False,
) -> np.ndarray:
    """Cost of the candidate cluster of every centre (cx[k], cy[k]), all shells at once.

    Centres are processed in chunks of at most ``_CHUNK`` (centre, shell) entries so memory stays
    bounded on large meshes."""
    width, height = idle.shape
    sat = summed_area(idle)
    s = np.arange(max(width, height) + 1)[None, :]
    step = max(1, _CHUNK // s.size)
    out = np.empty(len(cx), dtype=np.int64)
    for lo in range(0, len(cx), step):
        x0 = (cx[lo : lo + step] - w // 2)[:, None]
        xa, xb = np.clip(x0 - s, 0, width), np.clip(x0 + w + s, 0, width)
        if full_height:
            ya, yb = 0, height
        else:
            y0 = (cy[lo : lo + step] - h // 2)[:, None]
            ya, yb = np.clip(y0 - s, 0, height), np.clip(y0 + h + s, 0, height)
        counts = sat[xb, yb] - sat[xa, yb] - sat[xb, ya] + sat[xa, ya]
        out[lo : lo + step] = np.maximum(n - counts, 0).sum(axis=1)
    return out


def candidate_costs(
    idle: np.ndarray, w: int, h: int, n: int, *, full_height: bool = False
) -> np.ndarray:
    """Per-cell cost of the cluster centred there ((W, H) array; -1 on busy cells)."""
    xs, ys = np.nonzero(idle)
    out = np.full(idle.shape, -1, dtype=np.int64)
    out[xs, ys] = shell_costs(idle, xs, ys, w, h, n, full_height=full_height)
    return out


SIDE_ORDERS = ("mc", "middle-out")
"""How a side of a shell is scanned: in increasing coordinate order, or middle-out."""


def _side(lo: int, hi: int, order: str) -> list[int]:
    if order == "middle-out":
        return middle_out(lo, hi, lo + (hi - lo + 1) // 2)
    return list(range(lo, hi + 1))


def ring(x0: int, y0: int, w: int, h: int, s: int, order: str = "mc") -> list[tuple[int, int]]:
    """Shell s >= 1 around the w × h rectangle at (x0, y0), unclipped, in MC's order."""
    left, right = x0 - s, x0 + w + s - 1
    top, bottom = y0 - s, y0 + h + s - 1
    xs = _side(left + 1, right - 1, order)
    ys = _side(top + 1, bottom - 1, order)
    horizontal = [(x, top) for x in xs] + [(x, bottom) for x in xs]
    vertical = [(left, y) for y in ys] + [(right, y) for y in ys]
    sides = horizontal + vertical if w < h else vertical + horizontal
    return [*sides, (left, top), (right, top), (left, bottom), (right, bottom)]


def build_cluster(
    idle: np.ndarray,
    cx: int,
    cy: int,
    w: int,
    h: int,
    n: int,
    *,
    full_height: bool = False,
    order: str = "mc",
) -> list[tuple[int, int]]:
    """The n idle nodes MC picks around centre (cx, cy), in selection order."""
    width, height = idle.shape
    x0 = cx - w // 2
    y0, hh = (0, height) if full_height else (cy - h // 2, h)
    chosen = [
        (x, y)
        for y in range(max(y0, 0), min(y0 + hh, height))
        for x in range(max(x0, 0), min(x0 + w, width))
        if idle[x, y]
    ][:n]
    s = 1
    while len(chosen) < n:
        for x, y in ring(x0, y0, w, hh, s, order):
            if 0 <= x < width and 0 <= y < height and idle[x, y]:
                chosen.append((x, y))
                if len(chosen) == n:
                    break
        s += 1
    return chosen


class _ShellAllocator(NodeGridAllocator):
    """Common driver: evaluate every idle centre per orientation and build the cheapest cluster."""

    full_height = False
    side_order = "mc"

    @abstractmethod
    def _orientations(self, job: Job) -> list[tuple[int, int]]:
        """The (w, h) shell_0 shapes to evaluate, in tie-breaking order."""

    def _choose(self, job: Job) -> np.ndarray:
        idle = self.idle()
        cy, cx = np.divmod(np.flatnonzero(idle.T), self.width)
        best = (np.iinfo(np.int64).max, 0, 0, 0, 0)
        for w, h in self._orientations(job):
            cost = shell_costs(idle, cx, cy, w, h, job.size, full_height=self.full_height)
            k = int(np.argmin(cost))
            if cost[k] < best[0]:
                best = (int(cost[k]), int(cx[k]), int(cy[k]), w, h)
        _, x, y, w, h = best
        nodes = build_cluster(
            idle, x, y, w, h, job.size, full_height=self.full_height, order=self.side_order
        )
        return np.array([px * self.height + py for px, py in nodes], dtype=np.int64)


@ALLOCATORS.register("mc")
class MCAllocator(_ShellAllocator):
    """MC: the cheapest shell cluster over both orientations (Fig. 31)."""

    name = "mc"
    topologies = frozenset({"mesh"})
    complexity = (
        "O(N·(max(W,H)+1)) per decision with numpy (summed-area table, all centres and shells "
        "at once, both orientations), plus O(N) to list the cluster"
    )

    def _orientations(self, job: Job) -> list[tuple[int, int]]:
        w, h = request_shape(job)
        return [(w, h)] if w == h else [(w, h), (h, w)]


@ALLOCATORS.register("mc-elongated")
class MCElongatedAllocator(_ShellAllocator):
    """MC Elongated: shell_0 is floor(n / k) whole columns (Fig. 59)."""

    name = "mc-elongated"
    topologies = frozenset({"mesh"})
    complexity = "O(N·(max(W,H)+1)) per decision with numpy, plus O(N) to list the cluster"
    full_height = True

    def __init__(
        self, machine: Machine, rng: np.random.Generator, *, order: str = "mc", rotate: bool = False
    ) -> None:
        super().__init__(machine, rng, rotate=rotate)
        if order not in SIDE_ORDERS:
            raise MeshsimError(
                f"unknown MC Elongated order '{order}' (valid: {', '.join(SIDE_ORDERS)})"
            )
        self.side_order = order

    def _orientations(self, job: Job) -> list[tuple[int, int]]:
        return [(job.size // self.height, self.height)]

    def _question(self, job: Job) -> int:
        return job.size
