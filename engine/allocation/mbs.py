"""MBS, the Multiple Buddy Strategy (Lo et al. [35], as summarised by Mache 1999, L601-641).

MBS keeps "free lists of idle square blocks of size 2^i × 2^i"; a request for n nodes is "broken
into base-four sub-requests", n = Σ d_i · 4^i with 0 <= d_i <= 3, and "each sub-request is satisfied
with the first block in the corresponding free list; larger blocks or sub-requests are broken down
further only if necessary" (L601, L641; Fig. 13: 6 = 4 + 1 + 1). Choices where the dissertation is
silent (extraction §3.3, ambiguity 8):

- *initial blocks* of a mesh whose sides are not equal powers of two: greedy tiling with the largest
  power-of-two square that fits the shorter side of the remaining rectangle, as many as fit, then
  the same for the strip to the right and the strip below (22 × 16: one 16 × 16, four 4 × 4, eight 2
  × 2). Each initial block is the root of a quadtree of buddies;
- *order*: sub-requests from the largest block size down; "first block" of a free list = the one
  whose upper-left node comes first in row-major order (y, then x);
- *no block of size 2^i*: split the first block of the smallest larger non-empty list into four
  quarter buddies, repeatedly, keeping the upper-left quarter; if no larger block exists either, the
  sub-request becomes four sub-requests of size 2^(i-1);
- *release*: a block returns to its list; four free buddies merge into their parent, upward.

Every free node lies in exactly one free block, so a request never fails while enough nodes are
idle. Cost: O(B log N) per decision for B free blocks (at most N), O(log N) per released block for
merging."""

from __future__ import annotations

import bisect
from collections.abc import Iterable

import numpy as np

from meshsim.engine.allocation.allocator import ALLOCATORS
from meshsim.engine.allocation.buddy import Block, BuddyAllocator, BuddyForest, BuddyPlan
from meshsim.engine.topology.machines import Machine


def square_tiling(x: int, y: int, w: int, h: int) -> list[Block]:
    """Greedy tiling of a w × h rectangle at (x, y) with power-of-two squares."""
    if w <= 0 or h <= 0:
        return []
    side = 1 << (min(w, h).bit_length() - 1)
    nx, ny = w // side, h // side
    blocks = [Block(x + i * side, y + j * side, side, side) for j in range(ny) for i in range(nx)]
    blocks += square_tiling(x + nx * side, y, w - nx * side, h)
    blocks += square_tiling(x, y + ny * side, nx * side, h - ny * side)
    return blocks


def quarter(b: Block) -> tuple[Block, ...]:
    """The four quarter buddies of a 2^i × 2^i block, upper-left first, row by row."""
    s = b.w // 2
    return (
        Block(b.x, b.y, s, s),
        Block(b.x + s, b.y, s, s),
        Block(b.x, b.y + s, s, s),
        Block(b.x + s, b.y + s, s, s),
    )


def base4_digits(n: int) -> list[int]:
    """d_0, d_1, … with n = Σ d_i · 4^i."""
    digits = []
    while n:
        n, d = divmod(n, 4)
        digits.append(d)
    return digits


def _order(b: Block) -> int:
    return b.w.bit_length() - 1


def mbs_plan(free: Iterable[Block], n: int) -> BuddyPlan | None:
    """MBS's blocks for a request of n nodes, given the free blocks; None if they hold < n."""
    lists: dict[int, list[Block]] = {}
    for b in sorted(free, key=lambda b: b.position):
        lists.setdefault(_order(b), []).append(b)
    digits = base4_digits(n)
    top = max([len(digits) - 1, *lists])
    need = digits + [0] * (top + 1 - len(digits))
    splits: list[Block] = []
    taken: list[Block] = []
    for i in range(top, -1, -1):
        while need[i] > 0:
            if lists.get(i):
                taken.append(lists[i].pop(0))
                need[i] -= 1
                continue
            larger = [j for j in sorted(lists) if j > i and lists[j]]
            if not larger:
                if i == 0:
                    return None
                need[i - 1] += 4 * need[i]
                need[i] = 0
                break
            block = lists[larger[0]].pop(0)
            while _order(block) > i:
                splits.append(block)
                block, *rest = quarter(block)
                for r in rest:
                    bisect.insort(lists.setdefault(_order(r), []), r, key=lambda b: b.position)
            taken.append(block)
            need[i] -= 1
    return BuddyPlan(tuple(splits), tuple(taken))


@ALLOCATORS.register("mbs")
class MBSAllocator(BuddyAllocator):
    """Base-four sub-requests served from free lists of square buddy blocks."""

    name = "mbs"
    topologies = frozenset({"mesh", "torus"})
    complexity = "O(B log N) per decision (B free blocks <= N); O(log N) per block released"

    def __init__(self, machine: Machine, rng: np.random.Generator, *, rotate: bool = False) -> None:
        super().__init__(machine, rng, rotate=rotate)
        self.forest = BuddyForest(square_tiling(0, 0, self.width, self.height), quarter)

    def _plan(self, size: int) -> BuddyPlan | None:
        return mbs_plan(self.forest.free, size)

    def _apply(self, plan: BuddyPlan) -> None:
        self.forest.apply(plan)

    def _give_back(self, blocks: tuple[Block, ...]) -> None:
        self.forest.give_back(blocks)

    def _carve(self, x: int, y: int) -> None:
        self.forest.carve(x, y)
