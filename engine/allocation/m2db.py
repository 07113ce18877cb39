"""M2DB, the Modified 2-D Buddy system of the SDSC Paragon (Wan et al., seed 004 §2.4).

M2DB allocates one or more rectangular blocks of a rectangular region (a Paragon "node set", §2.2,
or the whole mesh) from a buddy tree whose splits follow the six cases of §2.4.2.
:class:`M2DBRegion` works on any rectangle of a mesh so the NQS node sets can each own one;
:class:`M2DBAllocator` is the allocator over the whole mesh.

**Allocation** (§2.4.1):

1. the *anchor block* is the smallest free block whose size is at least the request;
2. if it has exactly the requested size, done;
3. if it is larger, it is broken into buddies and step 1 is repeated;
4. if every free block is smaller than the request, the largest free block is the anchor and the
   request shrinks by its size;
5. further blocks are the free blocks closest to the anchor, closeness being the sum over the four
   corners of the squared distance (x - X)² + (y - Y)² between the anchor's corner and the
   candidate's corresponding corner;
6. a closest block larger than what remains is broken into buddies and step 5 is repeated;
7. until nothing remains.

Choices where §2.4 is silent or inconsistent:

- "size" is the number of nodes (area);
- step 3 "go to step 1" continues among the buddies just made: the smallest buddy still at least the
  request becomes the candidate; if none is, the largest buddy becomes the anchor (step 4 applied to
  the buddies). Searching all free blocks again would, for a request such as 3 among 2 × 2 blocks,
  split every 2 × 2 block of the machine one after the other;
- corners are the corner *nodes*: (x, y), (x+w-1, y), (x, y+h-1), (x+w-1, y+h-1), paired with the
  same corner of the other block;
- ties: the anchor is the smallest block by (area, y, x) in step 1 and the largest by area, then
  smallest (y, x), in step 4; the closest block is the smallest by (closeness, y, x);
- splits a plan made but did not use are merged back at once (see engine/allocation/buddy.py).

**Buddy generation** (§2.4.2), with W2, H2 the largest powers of two <= w, h and blocks written <x,
y, w, h> (the listings use this order although the prose says <x, y, h, w>):

1. h == w == H2 == W2: four equal squares <x,y>, <x+W2/2,y>, <x+W2/2,y+H2/2>, <x,y+H2/2>;
2. h == H2, w == W2, h > w: <x,y,W2,H2/2>, <x,y+H2/2,W2,H2/2> (the printed width "2" is read as W2,
   a typo: the buddies are called identical);
3. h == H2, w == W2, h < w: <x,y,W2/2,H2>, <x+W2/2,y,W2/2,H2>;
4. h == H2, w != W2: <x,y,W2,H2>, <x+W2,y,w-W2,H2>;
5. h != H2, w == W2: <x,y,W2,H2>, <x,y+H2,W2,h-H2>;
6. h != H2, w != W2: <x,y,W2,H2>, <x+W2,y,w-W2,H2>, <x+W2,y+H2,w-W2,h-H2>, <x,y+H2,W2,h-H2>. The
   printed condition also demands h != w, which would leave non-power-of-two squares (3 × 3, 6 × 6,
   …) in no case; they are split by case 6.

Release returns the job's blocks and merges buddies into their parent while all are free. Cost: O(B)
per block chosen and per split for B free blocks (at most the region's nodes), so O(B · n) per
decision in the worst case; O(depth) per released block."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from meshsim.engine.allocation.allocator import ALLOCATORS
from meshsim.engine.allocation.buddy import Block, BuddyAllocator, BuddyForest, BuddyPlan
from meshsim.engine.topology.machines import Machine


def _floor_pow2(v: int) -> int:
    return 1 << (v.bit_length() - 1)


def m2db_split(b: Block) -> tuple[Block, ...]:
    """The buddies of block b by the six cases of seed 004 §2.4.2 (b must hold >= 2 nodes)."""
    x, y, w, h = b
    w2, h2 = _floor_pow2(w), _floor_pow2(h)
    if b.area < 2:
        raise ValueError(f"a 1x1 block has no buddies: {b}")
    if h == w == h2 == w2:
        half = w2 // 2
        return (
            Block(x, y, half, half),
            Block(x + half, y, half, half),
            Block(x + half, y + half, half, half),
            Block(x, y + half, half, half),
        )
    if h == h2 and w == w2:
        if h > w:
            return (Block(x, y, w2, h2 // 2), Block(x, y + h2 // 2, w2, h2 // 2))
        return (Block(x, y, w2 // 2, h2), Block(x + w2 // 2, y, w2 // 2, h2))
    if h == h2:
        return (Block(x, y, w2, h2), Block(x + w2, y, w - w2, h2))
    if w == w2:
        return (Block(x, y, w2, h2), Block(x, y + h2, w2, h - h2))
    return (
        Block(x, y, w2, h2),
        Block(x + w2, y, w - w2, h2),
        Block(x + w2, y + h2, w - w2, h - h2),
        Block(x, y + h2, w2, h - h2),
    )


def corners(b: Block) -> tuple[tuple[int, int], ...]:
    """Upper-left, upper-right, lower-left and lower-right corner nodes."""
    right, bottom = b.x + b.w - 1, b.y + b.h - 1
    return ((b.x, b.y), (right, b.y), (b.x, bottom), (right, bottom))


def closeness(anchor: Block, other: Block) -> int:
    """Σ over the four corresponding corners of (x - X)² + (y - Y)² (seed 004 §2.4.1 step 5)."""
    return sum(
        (x - X) ** 2 + (y - Y) ** 2
        for (x, y), (X, Y) in zip(corners(anchor), corners(other), strict=True)
    )


def m2db_plan(free: Iterable[Block], n: int) -> BuddyPlan | None:
    """M2DB's splits and blocks for a request of n nodes; None if the free blocks hold < n."""
    pool = dict.fromkeys(free)
    if sum(b.area for b in pool) < n:
        return None
    splits: list[Block] = []

    def split(b: Block) -> tuple[Block, ...]:
        del pool[b]
        kids = m2db_split(b)
        pool.update(dict.fromkeys(kids))
        splits.append(b)
        return kids

    fits = [b for b in pool if b.area >= n]
    if fits:
        anchor = min(fits, key=lambda b: (b.area, b.y, b.x))
        while anchor.area > n:
            kids = split(anchor)
            fits = [k for k in kids if k.area >= n]
            if not fits:
                anchor = max(kids, key=lambda k: (k.area, -k.y, -k.x))
                break
            anchor = min(fits, key=lambda b: (b.area, b.y, b.x))
    else:
        anchor = max(pool, key=lambda k: (k.area, -k.y, -k.x))
    del pool[anchor]
    taken = [anchor]
    remaining = n - anchor.area
    while remaining > 0:
        near = min(pool, key=lambda b: (closeness(anchor, b), b.y, b.x))
        if near.area > remaining:
            split(near)
            continue
        del pool[near]
        taken.append(near)
        remaining -= near.area
    return BuddyPlan(tuple(splits), tuple(taken))


class M2DBRegion:
    """M2DB over one rectangle of a mesh (a node set): plan, commit, release."""

    def __init__(self, x: int, y: int, w: int, h: int) -> None:
        if w < 1 or h < 1:
            raise ValueError(f"an M2DB region needs a positive size, got {w}x{h}")
        self.block = Block(x, y, w, h)
        self.forest = BuddyForest((self.block,), m2db_split)
        self._free = w * h

    @property
    def free_nodes(self) -> int:
        return self._free

    def free_blocks(self) -> list[Block]:
        """The free blocks, row-major by upper-left node."""
        return self.forest.free_blocks()

    def plan(self, n: int) -> BuddyPlan | None:
        """The blocks a request of n nodes would get now (changes nothing)."""
        if n < 1 or n > self._free:
            return None
        return m2db_plan(self.forest.free, n)

    def commit(self, plan: BuddyPlan) -> None:
        """Perform a plan made in the current state."""
        self.forest.apply(plan)
        self._free -= plan.nodes

    def carve(self, x: int, y: int) -> None:
        """Take the idle node (x, y) out of service (release its 1 × 1 block to restore it)."""
        self.forest.carve(x, y)
        self._free -= 1

    def release(self, blocks: Iterable[Block]) -> None:
        """Return a job's blocks; buddies merge back into their parents."""
        blocks = tuple(blocks)
        self.forest.give_back(blocks)
        self._free += sum(b.area for b in blocks)


@ALLOCATORS.register("m2db")
class M2DBAllocator(BuddyAllocator):
    """M2DB over the whole mesh as one node set."""

    name = "m2db"
    topologies = frozenset({"mesh", "torus"})
    complexity = "O(B·n) per decision worst case (B free blocks <= N); O(log N) per block released"

    def __init__(self, machine: Machine, rng: np.random.Generator, *, rotate: bool = False) -> None:
        super().__init__(machine, rng, rotate=rotate)
        self.region = M2DBRegion(0, 0, self.width, self.height)

    def _plan(self, size: int) -> BuddyPlan | None:
        return self.region.plan(size)

    def _apply(self, plan: BuddyPlan) -> None:
        self.region.commit(plan)

    def _give_back(self, blocks: tuple[Block, ...]) -> None:
        self.region.release(blocks)

    def _carve(self, x: int, y: int) -> None:
        self.region.carve(x, y)
