"""Buddy-block bookkeeping shared by MBS and M2DB: blocks, split trees, plans, merging.

A buddy system keeps a forest of rectangular blocks: the roots tile the region; a block is split
into buddies (its children) on demand, and when every buddy of a split block is free again they are
merged back into their parent (Li & Cheng's 2D buddy system as used by MBS, Mache L601, and M2DB,
seed 004 §2.4.2: "combines the buddies to restore the parent block"). Free blocks are the free
leaves. Blocks are identified by their geometry ``(x, y, w, h)``: x is the column, y the row counted
from the top (seed 004 §2.4.1 counts from the upper-left corner; engine/topology/grid.py draws y = 0
at the top), so two distinct blocks of one forest never compare equal.

A *plan* lists the splits and the blocks a request needs; planning works on a scratch copy of the
free set so that the allocator's :meth:`find` changes nothing, and :meth:`BuddyForest.apply` replays
it. Splits a plan made but did not use are merged back at once, so the forest never holds a split
block whose buddies are all free."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

import numpy as np

from meshsim.engine.allocation.allocator import Placement
from meshsim.engine.allocation.grid_nodes import NodeGridAllocator
from meshsim.engine.core.jobs import Job
from meshsim.engine.topology.machines import Machine


class Block(NamedTuple):
    """A rectangular block: columns x … x+w-1, rows y … y+h-1."""

    x: int
    y: int
    w: int
    h: int

    @property
    def area(self) -> int:
        return self.w * self.h

    @property
    def position(self) -> tuple[int, int]:
        """Row-major sort key (y, x) of the upper-left node."""
        return (self.y, self.x)

    def cells(self, height: int) -> np.ndarray:
        """Flat cell indices (cell = x · height + y), row by row."""
        ys, xs = np.mgrid[self.y : self.y + self.h, self.x : self.x + self.w]
        return (xs * height + ys).ravel()


Splitter = Callable[[Block], tuple[Block, ...]]


class BuddyPlan(NamedTuple):
    """The splits to perform (in order) and the blocks a request then takes (in order)."""

    splits: tuple[Block, ...]
    blocks: tuple[Block, ...]

    @property
    def nodes(self) -> int:
        return sum(b.area for b in self.blocks)


class BuddyForest:
    """Split trees over a set of root blocks, with the free leaves."""

    def __init__(self, roots: Sequence[Block], split: Splitter) -> None:
        self.roots = tuple(roots)
        self.split_rule = split
        self.children: dict[Block, tuple[Block, ...]] = {}
        self.parent: dict[Block, Block] = {}
        self.free: dict[Block, None] = dict.fromkeys(self.roots)

    @property
    def free_area(self) -> int:
        return sum(b.area for b in self.free)

    def free_blocks(self) -> list[Block]:
        """Free leaves in row-major order of their upper-left node."""
        return sorted(self.free, key=lambda b: b.position)

    def split(self, block: Block) -> tuple[Block, ...]:
        """Split a free leaf into its buddies (all free)."""
        del self.free[block]
        kids = self.split_rule(block)
        self.children[block] = kids
        for k in kids:
            self.parent[k] = block
            self.free[k] = None
        return kids

    def apply(self, plan: BuddyPlan) -> None:
        """Perform a plan's splits and take its blocks; merge back splits it left unused."""
        for b in plan.splits:
            self.split(b)
        for b in plan.blocks:
            del self.free[b]
        for b in reversed(plan.splits):
            if b in self.children and all(k in self.free for k in self.children[b]):
                self._merge(b)

    def give_back(self, blocks: Iterable[Block]) -> None:
        """Free allocated leaves and merge buddies upward while all of them are free."""
        for b in blocks:
            self.free[b] = None
            node = b
            while node in self.parent:
                up = self.parent[node]
                if not all(k in self.free for k in self.children[up]):
                    break
                self._merge(up)
                node = up

    def carve(self, x: int, y: int) -> Block:
        """Take the single node (x, y) out of the free leaves: the free leaf holding it is split
        into buddies, repeatedly, down to the 1 × 1 block of that node, which is removed (the other
        buddies stay free). :meth:`give_back` of that block merges everything back."""
        leaf = next(b for b in self.free if _holds(b, x, y))
        while leaf.area > 1:
            leaf = next(k for k in self.split(leaf) if _holds(k, x, y))
        del self.free[leaf]
        return leaf

    def _merge(self, block: Block) -> None:
        for k in self.children.pop(block):
            del self.free[k]
            del self.parent[k]
        self.free[block] = None


def _holds(b: Block, x: int, y: int) -> bool:
    return b.x <= x < b.x + b.w and b.y <= y < b.y + b.h


class BuddyAllocator(NodeGridAllocator):
    """A :class:`NodeGridAllocator` whose placements are unions of buddy blocks.

    Subclasses implement :meth:`_plan`, :meth:`_apply`, :meth:`_give_back` and :meth:`_carve`. A
    unit taken out of service is carved out of the forest as a 1 × 1 block (its buddies stay free,
    so requests keep being served from what is left) and given back when restored."""

    def __init__(self, machine: Machine, rng: np.random.Generator, *, rotate: bool = False) -> None:
        super().__init__(machine, rng, rotate=rotate)
        self._plans: dict[int, BuddyPlan | None] = {}
        self._held: dict[int, tuple[Block, ...]] = {}

    def plan(self, size: int) -> BuddyPlan | None:
        """The blocks a request of ``size`` nodes would get now (cached until a change)."""
        if size not in self._plans:
            self._plans[size] = self._plan(size)
        return self._plans[size]

    @abstractmethod
    def _plan(self, size: int) -> BuddyPlan | None:
        """Plan a request of ``size`` nodes on the current forest (pure)."""

    @abstractmethod
    def _apply(self, plan: BuddyPlan) -> None:
        """Perform a plan made in the current state."""

    @abstractmethod
    def _give_back(self, blocks: tuple[Block, ...]) -> None:
        """Return a job's blocks (buddies merge)."""

    @abstractmethod
    def _carve(self, x: int, y: int) -> None:
        """Take the idle node (x, y) out of the free blocks (:meth:`BuddyForest.carve`)."""

    def _withdrawn(self, cell: int) -> None:
        x, y = divmod(cell, self.height)
        self._carve(x, y)
        self._plans.clear()

    def _restored(self, cell: int) -> None:
        x, y = divmod(cell, self.height)
        self._give_back((Block(x, y, 1, 1),))
        self._plans.clear()

    def _question(self, job: Job) -> int:
        return job.size

    def _choose(self, job: Job) -> np.ndarray | None:
        p = self.plan(job.size)
        if p is None:
            return None
        return np.concatenate([b.cells(self.height) for b in p.blocks])

    def _placement(self, job: Job, cells: np.ndarray) -> Placement:
        p = self.plan(job.size)
        count = 0 if p is None else len(p.blocks)
        label = f"{len(cells)} nodes in {count} block{'s' if count != 1 else ''}"
        return Placement(tuple(int(c) for c in cells), len(cells), label)

    def _committed(self, job: Job, placement: Placement) -> None:
        p = self.plan(job.size)
        if p is None or tuple(np.concatenate([b.cells(self.height) for b in p.blocks])) != (
            placement.cells
        ):
            raise ValueError(f"job {job.job_id}: placement is not the current buddy plan")
        self._apply(p)
        self._held[job.index] = p.blocks
        self._plans.clear()

    def _released(self, job: Job, placement: Placement) -> None:
        self._give_back(self._held.pop(job.index))
        self._plans.clear()
