"""MBS (Mache L601-641, Fig. 13) and M2DB (seed 004 §2.4): worked examples."""

import numpy as np
import pytest

from meshsim.engine.allocation.allocator import ALLOCATORS
from meshsim.engine.allocation.buddy import Block, BuddyForest, BuddyPlan
from meshsim.engine.allocation.m2db import M2DBRegion, closeness, corners, m2db_plan, m2db_split
from meshsim.engine.allocation.mbs import base4_digits, mbs_plan, quarter, square_tiling
from meshsim.engine.core.jobs import Job
from meshsim.engine.families.contention.benchmarks import mesh_machine


def job(index: int, size: int) -> Job:
    return Job(index, index, 0.0, 1.0, 1.0, size, size)


def test_base4_digits() -> None:
    assert base4_digits(6) == [2, 1]
    assert base4_digits(16) == [0, 0, 1]
    assert base4_digits(63) == [3, 3, 3]


def test_square_tiling_of_paragon_batch_mesh() -> None:
    """22 × 16: one 16 × 16, four 4 × 4, eight 2 × 2 blocks."""
    tiles = square_tiling(0, 0, 22, 16)
    assert Block(0, 0, 16, 16) in tiles
    sides = sorted(b.w for b in tiles)
    assert sides == [2] * 8 + [4] * 4 + [16]
    assert all(b.w == b.h for b in tiles)
    odd = square_tiling(0, 0, 5, 3)
    assert sum(b.area for b in odd) == 15
    covered = {c for b in odd for c in b.cells(3).tolist()}
    assert covered == set(range(15))


def test_mbs_fig13_six_is_four_plus_one_plus_one() -> None:
    """Fig. 13 (L641): with two free 2 × 2 blocks and two free 1 × 1 blocks, a 2 × 3 request (6 = 4
    + 1 + 1) gets one 2 × 2 block and both 1 × 1 blocks; the other 2 × 2 stays whole."""
    a = ALLOCATORS.get("mbs")(mesh_machine(4, 4), np.random.default_rng(0))
    first = a.find(job(0, 6))
    a.allocate(job(0, 6), first)
    assert a.plan(6) is not None
    assert sorted(a.forest.free_blocks()) == sorted(
        [Block(2, 1, 1, 1), Block(3, 1, 1, 1), Block(0, 2, 2, 2), Block(2, 2, 2, 2)]
    )
    plan = a.plan(6)
    assert plan.blocks == (Block(0, 2, 2, 2), Block(2, 1, 1, 1), Block(3, 1, 1, 1))
    assert plan.splits == ()
    second = a.find(job(1, 6))
    a.allocate(job(1, 6), second)
    assert a.forest.free_blocks() == [Block(2, 2, 2, 2)]
    a.release(job(0, 6), first)
    a.release(job(1, 6), second)
    assert a.forest.free_blocks() == [Block(0, 0, 4, 4)] and not a.forest.children


def test_mbs_breaks_requests_when_no_block_is_large_enough() -> None:
    """A 4-node sub-request with only 1 × 1 blocks free becomes four 1-node sub-requests."""
    free = [Block(0, 0, 1, 1), Block(3, 0, 1, 1), Block(0, 3, 1, 1), Block(3, 3, 1, 1)]
    plan = mbs_plan(free, 4)
    assert plan.blocks == tuple(free) and plan.splits == ()
    assert mbs_plan(free, 5) is None
    split = mbs_plan([Block(0, 0, 4, 4)], 1)
    assert split.splits == (Block(0, 0, 4, 4), Block(0, 0, 2, 2))
    assert split.blocks == (Block(0, 0, 1, 1),)
    assert quarter(Block(4, 4, 4, 4))[3] == Block(6, 6, 2, 2)


@pytest.mark.parametrize(
    ("block", "buddies"),
    [
        # case 1: power-of-two square -> four equal squares (UL, UR, LR, LL as listed)
        (
            Block(0, 0, 4, 4),
            [Block(0, 0, 2, 2), Block(2, 0, 2, 2), Block(2, 2, 2, 2), Block(0, 2, 2, 2)],
        ),
        # case 2: h > w, both powers of two -> split h
        (Block(1, 1, 2, 4), [Block(1, 1, 2, 2), Block(1, 3, 2, 2)]),
        # case 3: h < w, both powers of two -> split w
        (Block(0, 0, 4, 2), [Block(0, 0, 2, 2), Block(2, 0, 2, 2)]),
        # case 4: h a power of two, w not -> W2 and w - W2
        (Block(0, 0, 6, 4), [Block(0, 0, 4, 4), Block(4, 0, 2, 4)]),
        # case 5: w a power of two, h not -> H2 and h - H2
        (Block(0, 0, 4, 6), [Block(0, 0, 4, 4), Block(0, 4, 4, 2)]),
        # case 6: neither -> four unequal buddies
        (
            Block(0, 0, 6, 5),
            [Block(0, 0, 4, 4), Block(4, 0, 2, 4), Block(4, 4, 2, 1), Block(0, 4, 4, 1)],
        ),
        # case 6 also covers non-power-of-two squares (the printed "h != w" would not)
        (
            Block(0, 0, 3, 3),
            [Block(0, 0, 2, 2), Block(2, 0, 1, 2), Block(2, 2, 1, 1), Block(0, 2, 2, 1)],
        ),
        (Block(5, 0, 1, 2), [Block(5, 0, 1, 1), Block(5, 1, 1, 1)]),
        (Block(0, 0, 3, 1), [Block(0, 0, 2, 1), Block(2, 0, 1, 1)]),
    ],
)
def test_m2db_six_buddy_cases(block: Block, buddies: list[Block]) -> None:
    kids = m2db_split(block)
    assert list(kids) == buddies
    assert sum(k.area for k in kids) == block.area
    cells = np.concatenate([k.cells(16) for k in kids])
    assert sorted(cells.tolist()) == sorted(block.cells(16).tolist())


def test_m2db_unit_block_cannot_split() -> None:
    with pytest.raises(ValueError):
        m2db_split(Block(0, 0, 1, 1))


def test_closeness_sums_corresponding_corners() -> None:
    anchor = Block(0, 0, 2, 2)
    assert corners(anchor) == ((0, 0), (1, 0), (0, 1), (1, 1))
    assert closeness(anchor, Block(2, 0, 2, 2)) == 16
    assert closeness(anchor, Block(2, 2, 2, 2)) == 32
    assert closeness(anchor, Block(2, 0, 1, 1)) == 4 + 1 + 5 + 2
    assert closeness(anchor, anchor) == 0


def test_m2db_anchor_exact_fit() -> None:
    """Steps 1-3: the smallest block >= 4 is the 4 × 4 root, split until a 2 × 2 fits."""
    plan = m2db_plan([Block(0, 0, 4, 4)], 4)
    assert plan.splits == (Block(0, 0, 4, 4),)
    assert plan.blocks == (Block(0, 0, 2, 2),)


def test_m2db_anchor_then_closest_blocks() -> None:
    """5 nodes of an empty 4 × 4: the buddies are all smaller, so the first 2 × 2 is the anchor
    (step 4 on the buddies); the closest block (2 × 2 at (2, 0), closeness 16, ahead of the tie at
    (0, 2) by position) is too big and is split (step 6); its closest 1 × 1 is taken."""
    plan = m2db_plan([Block(0, 0, 4, 4)], 5)
    assert plan.blocks == (Block(0, 0, 2, 2), Block(2, 0, 1, 1))
    assert plan.splits == (Block(0, 0, 4, 4), Block(2, 0, 2, 2))


def test_m2db_step4_largest_block_is_anchor() -> None:
    free = [Block(6, 0, 1, 1), Block(0, 0, 2, 2), Block(4, 4, 2, 1)]
    plan = m2db_plan(free, 6)
    assert plan.blocks == (Block(0, 0, 2, 2), Block(4, 4, 2, 1))  # closeness 114 beats 124
    assert set(m2db_plan(free, 7).blocks) == set(free)
    assert m2db_plan(free, 8) is None


def test_m2db_region_inside_a_larger_mesh() -> None:
    """A node set: the rectangle x 3..6, y 2..5 of a 10 × 8 mesh."""
    region = M2DBRegion(3, 2, 4, 4)
    plan = region.plan(6)
    assert plan is not None and plan.nodes == 6
    for b in plan.blocks:
        assert b.x >= 3 and b.x + b.w <= 7 and b.y >= 2 and b.y + b.h <= 6
    region.commit(plan)
    assert region.free_nodes == 10
    assert region.plan(11) is None
    assert sum(b.area for b in region.free_blocks()) == 10
    region.release(plan.blocks)
    assert region.free_blocks() == [Block(3, 2, 4, 4)] and region.free_nodes == 16
    with pytest.raises(ValueError):
        M2DBRegion(0, 0, 0, 3)


def test_m2db_allocator_merges_on_release() -> None:
    a = ALLOCATORS.get("m2db")(mesh_machine(22, 16), np.random.default_rng(0))
    held = []
    for i, size in enumerate([5, 16, 3, 32, 7]):
        p = a.find(job(i, size))
        a.allocate(job(i, size), p)
        held.append((job(i, size), p))
    assert a.free_nodes == 352 - 63
    for j, p in reversed(held):
        a.release(j, p)
    assert a.region.free_blocks() == [Block(0, 0, 22, 16)]
    assert not a.region.forest.children


def test_forest_apply_merges_unused_splits() -> None:
    forest = BuddyForest([Block(0, 0, 2, 2)], m2db_split)
    forest.apply(BuddyPlan((Block(0, 0, 2, 2),), ()))
    assert list(forest.free) == [Block(0, 0, 2, 2)] and not forest.children
