"""MPL on a 2D mesh picks from the free cells of the mesh's edges as integers
(:mod:`meshsim.engine.allocation.periphery`, :mod:`meshsim.engine.allocation.free_bits`) instead of
scoring every free start position; both give the same box and start, so schedules do not depend on
which ran. Box allocators keep the cell indices of the placements they make and hold, and mark the
same cells as from the placement's tuple."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from meshsim.engine.allocation.allocator import ALLOCATORS, FREE, Placement
from meshsim.engine.allocation.boxes import summed_table, window_sums
from meshsim.engine.allocation.contiguous_choice import MaximumPeripheralLength
from meshsim.engine.allocation.free_bits import (
    FreeBits,
    all_set,
    lowest_bit,
    packed_ints,
    run_starts,
)
from meshsim.engine.allocation.periphery import best_on_periphery
from meshsim.engine.topology.machines import load_machine
from tests.conftest import DATA
from tests.engine.test_mesh_allocation import job


def mpl(dims):
    """An MPL allocator on a mesh of ``dims`` (no wrap-around)."""
    machine = load_machine(str(DATA / "mesh5x4.toml"))
    spec = machine.spec.__class__(dims, (False,) * len(dims))
    return MaximumPeripheralLength(machine.__class__(name="t", topology="mesh", spec=spec), None)


def by_scores(alloc, boxes, busy):
    """MPL's pick by scoring every free start position of every free box (its ``choose``)."""
    table = summed_table(busy, alloc.wrap)
    candidates = []
    for box in boxes:
        mask = window_sums(table, alloc.dims, box, alloc.wrap) == 0
        if mask.any():
            candidates.append((box, mask))
    return alloc.choose(candidates, busy) if candidates else None


def occupancy(draw_busy, dims, rng):
    """A random busy mask: scattered cells or a few busy rectangles."""
    if draw_busy == "cells":
        return rng.random(dims) < rng.choice([0.05, 0.2, 0.5, 0.8])
    busy = np.zeros(dims, dtype=bool)
    for _ in range(int(rng.integers(0, 6))):
        x, y = (int(rng.integers(d)) for d in dims)
        w, h = (int(rng.integers(1, d + 1)) for d in dims)
        busy[x : x + w, y : y + h] = True
    return busy


@settings(max_examples=300, deadline=None)
@given(
    dims=st.sampled_from([(5, 4), (6, 6), (1, 7), (7, 1), (2, 3), (12, 9), (32, 32), (33, 70)]),
    kind=st.sampled_from(["cells", "boxes"]),
    seed=st.integers(0, 2**20),
    rotate=st.booleans(),
)
def test_pick_from_edges_equals_pick_by_scores(dims, kind, seed, rotate):
    rng = np.random.default_rng(seed)
    alloc = mpl(dims)
    busy = occupancy(kind, dims, rng)
    alloc._owner[busy] = 0
    alloc._changed()
    for _ in range(8):
        box = tuple(int(rng.integers(1, d + 1)) for d in dims)
        boxes = [box]
        turned = box[::-1]
        if rotate and turned != box and all(e <= d for e, d in zip(turned, dims, strict=True)):
            boxes.append(turned)
        assert alloc.pick(boxes, busy) == by_scores(alloc, boxes, busy)


@settings(max_examples=200, deadline=None)
@given(
    dims=st.sampled_from([(5, 4), (6, 6), (1, 7), (7, 1), (12, 9), (32, 32)]),
    seed=st.integers(0, 2**20),
)
def test_best_on_periphery_is_the_best_scoring_free_edge_position(dims, seed):
    rng = np.random.default_rng(seed)
    busy = occupancy("cells", dims, rng)
    alloc = mpl(dims)
    box = tuple(int(rng.integers(1, d + 1)) for d in dims)
    mask = window_sums(summed_table(busy, alloc.wrap), dims, box, alloc.wrap) == 0
    w, h = box
    best = None
    for y in range(mask.shape[1]):  # scan order: y, then x
        for x in range(mask.shape[0]):
            score = h * (x == 0) + h * (x + w == dims[0]) + w * (y == 0) + w * (y + h == dims[1])
            if mask[x, y] and score and (best is None or score > best[0]):
                best = (int(score), (x, y))
    assert best_on_periphery(box, dims, FreeBits(~busy)) == best


@settings(max_examples=200, deadline=None)
@given(bits=st.integers(0, 2**70), length=st.integers(1, 72))
def test_run_starts_marks_where_a_run_of_that_length_starts(bits, length):
    run = (1 << length) - 1
    expected = sum(1 << i for i in range(72) if bits >> i & run == run)
    assert run_starts(bits, length) == expected


def test_packed_ints_and_bit_helpers():
    rng = np.random.default_rng(3)
    for rows, columns in [(5, 4), (3, 32), (4, 33), (2, 64), (2, 65), (1, 130)]:
        flags = rng.random((rows, columns)) < 0.5
        expected = [sum(1 << j for j in range(columns) if row[j]) for row in flags]
        assert packed_ints(flags) == expected
        assert packed_ints(np.ascontiguousarray(flags.T).T) == expected  # not C-contiguous
    free = rng.random((6, 5)) < 0.5
    bits = FreeBits(free)
    assert bits.columns == packed_ints(free) and bits.rows() == packed_ints(free.T)
    assert all_set([0b1110, 0b0111, 0b1111]) == 0b0110
    assert [lowest_bit(v) for v in (1, 0b1000, 0b10100, 1 << 70)] == [0, 3, 2, 70]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**20), name=st.sampled_from(["mpl", "first-fit", "max-free-box"]))
def test_allocate_and_release_mark_the_cells_of_any_placement(seed, name):
    """:meth:`allocate` reuses the cell indices of a placement the allocator just made, and
    :meth:`release` those of the placement it allocated; a placement it did not make, or an equal
    copy of one, marks the same cells. The occupancy equals the one built from the running jobs."""
    rng = np.random.default_rng(seed)
    machine = load_machine(str(DATA / "mesh5x4.toml"))
    alloc = ALLOCATORS.get(name)(machine, rng)
    running: dict[int, Placement] = {}
    for index in range(60):
        if running and rng.random() < 0.45:
            gone = int(rng.choice(list(running)))
            placement = running.pop(gone)
            if rng.random() < 0.5:
                placement = Placement(tuple(list(placement.cells)), placement.nodes, "a copy")
            alloc.release(job(gone, (1, 1)), placement)
        else:
            shape = tuple(int(rng.integers(1, d + 1)) for d in machine.spec.dims)
            placement = alloc.find(job(index, shape))
            if placement is None:
                continue
            if rng.random() < 0.3:
                placement = Placement(tuple(list(placement.cells)), placement.nodes, "a copy")
            alloc.allocate(job(index, shape), placement)
            running[index] = placement
        expected = np.full(machine.spec.dims, FREE).reshape(-1)
        for owner, placement in running.items():
            expected[list(placement.cells)] = owner
        assert alloc.owners().tolist() == expected.tolist()
        assert alloc.free_nodes == int((expected == FREE).sum())
