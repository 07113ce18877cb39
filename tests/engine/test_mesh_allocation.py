"""Contiguous allocation on meshes and tori: the seed papers' examples and properties."""

from itertools import permutations, product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from meshsim.engine.allocation.allocator import ALLOCATORS, FREE
from meshsim.engine.allocation.boxes import (
    TallestBoxes,
    overlapping_starts,
    summed_table,
    window_max,
    window_sums,
)
from meshsim.engine.core.jobs import Job
from meshsim.engine.core.policy import Policy
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.topology.machines import load_machine
from meshsim.engine.workloads.shapes import box, paragon, request_for, square
from meshsim.engine.workloads.workload import from_columns
from tests.conftest import DATA

MESH5X4 = load_machine(str(DATA / "mesh5x4.toml"))
TORUS = load_machine(str(DATA / "torus4x4.toml"))


def job(index, shape, size=None):
    size = size or int(np.prod(shape))
    return Job(index, index + 1, 0.0, 10.0, 10.0, size, size, shape=shape)


def occupy(allocator, cells_xy, index=900):
    """Mark (x, y) cells busy with a blocker job."""
    dims = allocator.machine.spec.dims
    flat = allocator._owner.reshape(-1)
    for x, y in cells_xy:
        flat[x * dims[1] + y] = index
    allocator._free -= len(cells_xy)
    allocator._changed()


# Fig. 1 of seed 001 with its y axis flipped (our y grows downward): rows 0 and the first three
# nodes of row 1 are busy; the maximal free submeshes are rows 2-3 (5x2) and columns 3-4 of rows
# 1-3 (2x3).
FIG1_BUSY = [(x, 0) for x in range(5)] + [(x, 1) for x in range(3)]


def test_shape_rules_on_hand_examples():
    assert square(15, (12, 12)).boxes == ((3, 5),)
    assert square(17, (12, 12)).boxes == ((3, 6),) and square(17, (12, 12)).volume == 18
    assert square(16, (2, 32)).boxes == ((2, 8),)
    assert paragon(48, (22, 16)).boxes == ((3, 16),)
    assert paragon(15, (22, 16)).boxes == ((5, 3),)
    assert set(box(4, (4, 4, 8)).boxes) >= {(1, 1, 4), (1, 2, 2), (2, 2, 1), (4, 1, 1)}
    assert box(7, (4, 4, 8)).boxes == ((1, 1, 7),)
    assert box(7, (2, 2, 2)).volume == 8
    assert request_for(6, (2, 3), (5, 4), "square").boxes == ((2, 3),)


def test_fig1_maximal_free_submeshes_and_the_mpl_choice():
    mpl = ALLOCATORS.get("mpl")(MESH5X4, np.random.default_rng(0))
    occupy(mpl, FIG1_BUSY)
    assert mpl.free_positions((5, 2)).tolist() == [[0, 2]]
    assert mpl.free_positions((2, 3)).tolist() == [[3, 1]]
    assert mpl.free_positions((3, 2)).tolist() == [[0, 2], [1, 2], [2, 2]]
    assert mpl.largest_free_box()[1] == 10
    # A 2x1 request: the paper's answer is a corner pair with peripheral length 3 (a side of 2
    # on one edge, a side of 1 on the other). Both bottom corners score 3; the paper "may"
    # choose the right one, our tie-break (scan order) takes the left one.
    placement = mpl.find(job(0, (2, 1)))
    assert placement.label == "(0,3) 2x1"
    from meshsim.engine.allocation.contiguous_choice import peripheral_length

    scores = peripheral_length(
        (2, 1), np.array([[0, 3], [3, 3], [1, 3], [3, 1]]), (5, 4), (False, False)
    )
    assert scores.tolist() == [3, 3, 2, 1]
    first = ALLOCATORS.get("first-fit")(MESH5X4, np.random.default_rng(0))
    occupy(first, FIG1_BUSY)
    assert first.find(job(0, (2, 1))).label == "(3,1) 2x1"


def test_example_2_window_walk_through():
    """Seed 001 §4, Example 2, with K = 4 on the Fig. 1 state (built by two first-fit jobs)."""
    rows = [
        (0.0, (5, 1), 10.0),  # A: row 0
        (0.0, (3, 1), 10.0),  # B: nodes 0-2 of row 1 -> the state of Fig. 1
        (1.0, (5, 3), 5.0),  # job 1 waits: no free 5x3
        (2.0, (5, 2), 50.0),  # job 2 gets rows 2-3, the paper's (1, 1, 5, 2)
        (3.0, (2, 1), 50.0),  # job 3 gets (3, 1)-(4, 1), the paper's (4, 3, 5, 3)
        (4.0, (4, 3), 5.0),  # job 4 fails
        (5.0, (3, 2), 5.0),  # job 5 is outside the window of jobs 1-4
    ]
    workload = from_columns(
        "example2",
        submit=np.array([r[0] for r in rows]),
        runtime=np.array([r[2] for r in rows]),
        size=np.array([int(np.prod(r[1])) for r in rows]),
        shapes=np.array([r[1] for r in rows]),
    )
    for k, job5 in ((4, 63.0), (5, 10.0)):
        sim = Simulation(
            MESH5X4, workload, Policy(discipline="window", window=k, allocator="first-fit")
        )
        sim.run(until=5)
        where = {r.job.job_id: r.placement.label for r in sim.running.values()}
        assert where == {1: "(0,0) 5x1", 2: "(0,1) 3x1", 4: "(0,2) 5x2", 5: "(3,1) 2x1"}
        assert [j.job_id for j in sim.scheduler.queue.ordered(5)] == [3, 6, 7]
        sim.run(until=11)
        # At t=10 A and B end: a 3x2 box is free at (0, 0). With K = 4 job 5 (id 7) is outside
        # the window (jobs 1-4, two of them served) and waits; with K = 5 it starts.
        started = sim.start_times()[6]
        assert (started == 10.0) == (k == 5)
        if k == 4:
            assert "outside the scheduling window (K=4)" in sim.explain(7)
        sim.run()
        assert sim.start_times()[6] == job5


def test_max_free_box_keeps_the_largest_box_on_a_torus():
    mfb = ALLOCATORS.get("max-free-box")(TORUS, np.random.default_rng(0))
    occupy(mfb, [(0, 0)])
    # A 1x1 job: placing it next to the busy cell keeps a 4x3 (or 3x4) box free (volume 12);
    # first fit would take (1, 0)... which also leaves 12; the centre (2, 2) would leave only 2x4.
    placement = mfb.find(job(0, (1, 1)))
    busy = mfb.busy().copy()
    busy.reshape(-1)[list(placement.cells)] = True
    assert mfb.largest_free_box(busy)[1] == 12
    centre = mfb.busy().copy()
    centre[2, 2] = True
    assert mfb.largest_free_box(centre)[1] == 9  # a 3x3 box wraps around both busy cells
    # wrap-around: a 4x2 box fits across the edge of the torus
    occupy(mfb, [(x, y) for x in range(4) for y in (1, 2)], index=901)
    assert mfb.find(job(1, (4, 2))) is None  # (0, 0) is busy
    mfb2 = ALLOCATORS.get("first-fit")(TORUS, np.random.default_rng(0))
    occupy(mfb2, [(x, y) for x in range(4) for y in (1, 2)])
    assert sorted(mfb2.find(job(1, (4, 2))).cells) == sorted(
        x * 4 + y for x in range(4) for y in (3, 0)
    )


def brute_positions(busy, shape, wrap):
    dims = busy.shape
    out = []
    ranges = [range(d if w else d - s + 1) for d, s, w in zip(dims, shape, wrap, strict=True)]
    for start in np.ndindex(*[len(r) for r in ranges]):
        ok = True
        for off in np.ndindex(*shape):
            cell = tuple((s + o) % d for s, o, d in zip(start, off, dims, strict=True))
            if busy[cell]:
                ok = False
                break
        if ok:
            out.append(start)
    return out


@settings(max_examples=60, deadline=None)
@given(
    dims=st.sampled_from([(5, 4), (4, 4), (3, 3, 2)]),
    wrap=st.booleans(),
    busy_seed=st.integers(0, 10**6),
    shape_seed=st.integers(0, 10**6),
    name=st.sampled_from(["first-fit", "best-fit", "mpl", "max-free-box"]),
    rotate=st.booleans(),
)
def test_allocator_properties(dims, wrap, busy_seed, shape_seed, name, rotate):
    rng = np.random.default_rng(busy_seed)
    busy = rng.random(dims) < 0.4
    machine = load_machine(str(DATA / "mesh5x4.toml"))
    spec = machine.spec.__class__(dims, (wrap,) * len(dims))
    machine = machine.__class__(name="t", topology="torus" if wrap else "mesh", spec=spec)
    alloc = ALLOCATORS.get(name)(machine, np.random.default_rng(1), rotate=rotate)
    occupy(alloc, [], index=0)
    flat = alloc._owner.reshape(-1)
    flat[np.flatnonzero(busy.reshape(-1))] = 999
    alloc._free = int((~busy).sum())
    alloc._changed()
    srng = np.random.default_rng(shape_seed)
    shape = tuple(int(srng.integers(1, d + 1)) for d in dims)
    request = job(0, shape)
    before = alloc.owners()
    placement = alloc.find(request)
    assert np.array_equal(alloc.owners(), before), "find changed the state"
    truth = brute_positions(busy, shape, (wrap,) * len(dims))
    rotated = []
    if rotate:
        for perm in set(permutations(shape)) - {shape}:
            if all(p <= d for p, d in zip(perm, dims, strict=True)):
                rotated += brute_positions(busy, perm, (wrap,) * len(dims))
    if not truth and not rotated:
        assert placement is None
        return
    assert placement is not None, "a request that fits was refused"
    cells = np.array(placement.cells)
    assert len(set(cells.tolist())) == len(cells) == int(np.prod(shape))
    assert (before[cells] == FREE).all(), "double booking"
    if name == "first-fit" and not rotate:
        first = min(truth, key=lambda s: tuple(reversed(s)))
        assert placement.label.startswith("(" + ",".join(map(str, first)) + ")")
    alloc.allocate(request, placement)
    assert alloc.free_nodes == int((~busy).sum()) - len(cells)
    alloc.release(request, placement)
    assert np.array_equal(alloc.owners(), before)


def test_summed_table_window_sums_match_brute_force():
    rng = np.random.default_rng(3)
    busy = rng.random((6, 5)) < 0.3
    for wrap in ((False, False), (True, True), (True, False)):
        table = summed_table(busy, wrap)
        sums = window_sums(table, busy.shape, (2, 3), wrap)
        for x, y in np.ndindex(*sums.shape):
            cells = [((x + i) % 6, (y + j) % 5) for i in range(2) for j in range(3)]
            assert sums[x, y] == sum(busy[c] for c in cells)


def test_window_max_matches_brute_force():
    rng = np.random.default_rng(4)
    for shape, box_ in (((6, 5), (2, 3)), ((6, 5), (6, 1)), ((4, 3, 5), (3, 2, 4))):
        values = rng.random(shape)
        for wrap in ((False,) * len(shape), (True,) * len(shape), (True,) + (False,) * 2):
            wrap = wrap[: len(shape)]
            out = window_max(values, box_, wrap)
            for start in np.ndindex(*out.shape):
                axes = [
                    [(s + i) % d for i in range(e)]
                    for s, e, d in zip(start, box_, shape, strict=True)
                ]
                assert out[start] == values[np.ix_(*axes)].max()


@settings(max_examples=80, deadline=None)
@given(
    dims=st.sampled_from([(6, 5), (4, 3, 5), (4, 4, 8)]),
    data=st.data(),
)
def test_overlapping_starts_count_the_placements_a_box_overlaps(dims, data):
    """Brute force over every pair: a placement of ``shape`` at p overlaps ``box`` at each of its
    start positions c when their cells intersect (wrapping where the axis wraps)."""
    wrap = tuple(data.draw(st.lists(st.booleans(), min_size=len(dims), max_size=len(dims))))
    box_ = tuple(data.draw(st.integers(1, d)) for d in dims)
    shape = tuple(data.draw(st.integers(1, d)) for d in dims)
    seed = data.draw(st.integers(0, 2**16))
    starts_shape = tuple(d if w else d - e + 1 for d, e, w in zip(dims, shape, wrap, strict=True))
    starts = np.random.default_rng(seed).random(starts_shape) < 0.4
    counts = overlapping_starts(starts, dims, box_, shape, wrap)

    def cells(at, extent):
        axes = [{(a + i) % d for i in range(e)} for a, e, d in zip(at, extent, dims, strict=True)]
        return {c for c in product(*axes)}

    places = tuple(d if w else d - e + 1 for d, e, w in zip(dims, box_, wrap, strict=True))
    for c in np.ndindex(*places):
        taken = cells(c, box_)
        expected = sum(1 for p in zip(*np.nonzero(starts), strict=True) if cells(p, shape) & taken)
        assert counts[c] == expected


def test_tallest_boxes_match_brute_force():
    rng = np.random.default_rng(6)
    for density in (0.1, 0.3, 0.6):
        busy = rng.random((9, 7)) < density
        tallest = TallestBoxes(busy)
        for width in (9, 1, 4, 2, 7, 3):
            fits = [h for h in range(1, 8) if brute_positions(busy, (width, h), (False, False))]
            assert tallest.tallest(width) == max(fits, default=0)


def fresh_copy(alloc):
    """An allocator of the same kind holding the same occupancy and remembering nothing."""
    twin = type(alloc)(alloc.machine, np.random.default_rng(1), rotate=alloc.rotate)
    twin._owner[...] = alloc._owner
    twin._free = alloc.free_nodes
    twin._changed()
    return twin


@settings(max_examples=40, deadline=None)
@given(
    dims=st.sampled_from([(6, 5), (4, 4), (3, 3, 2)]),
    wrap=st.booleans(),
    seed=st.integers(0, 10**6),
    name=st.sampled_from(["first-fit", "best-fit", "mpl", "max-free-box"]),
    rotate=st.booleans(),
)
def test_remembered_fits_never_change_an_answer(dims, wrap, seed, name, rotate):
    """The fit and no-fit frontiers kept across allocations and releases answer every query as an
    allocator that remembers nothing would."""
    machine = load_machine(str(DATA / "mesh5x4.toml"))
    spec = machine.spec.__class__(dims, (wrap,) * len(dims))
    machine = machine.__class__(name="t", topology="torus" if wrap else "mesh", spec=spec)
    alloc = ALLOCATORS.get(name)(machine, np.random.default_rng(1), rotate=rotate)
    rng = np.random.default_rng(seed)
    running = []
    asked = []
    for step in range(30):
        shape = tuple(int(rng.integers(1, d + 1)) for d in dims)
        request = job(step, shape)
        asked.append(request)
        twin = fresh_copy(alloc)
        for earlier in asked[-6:-1]:  # answers remembered from earlier occupancies
            assert alloc.fits(earlier) == (twin.find(earlier) is not None)
            assert alloc.find(earlier) == twin.find(earlier)
        if step % 2:
            fits = alloc.fits(request)
            placement = alloc.find(request)
        else:
            placement = alloc.find(request)
            fits = alloc.fits(request)
        assert placement == twin.find(request)
        assert fits == (placement is not None)
        if placement is not None and rng.random() < 0.7:
            alloc.allocate(request, placement)
            running.append((request, placement))
        elif running:
            alloc.release(*running.pop(int(rng.integers(len(running)))))


@pytest.mark.parametrize("name", ["first-fit", "best-fit", "mpl", "max-free-box"])
@pytest.mark.parametrize(
    ("backfill", "migrate"),
    [("easy", False), ("conservative", False), ("none", True), ("easy", True)],
)
def test_end_to_end_on_a_small_mesh_with_backfilling(name, backfill, migrate):
    rng = np.random.default_rng(5)
    n = 60
    shapes = np.stack([rng.integers(1, 6, n), rng.integers(1, 5, n)], axis=1)
    runtime = rng.exponential(5.0, n)
    workload = from_columns(
        "rand",
        submit=np.sort(rng.uniform(0, 60, n)),
        runtime=runtime,
        size=shapes.prod(axis=1),
        shapes=shapes,
        estimate=runtime * 1.5,
    )
    sim = Simulation(MESH5X4, workload, Policy(allocator=name, backfill=backfill, migrate=migrate))
    sim.run()
    assert sim.results().metrics["jobs"] == n
    assert not sim.running and sim.allocator.free_nodes == 20
    start = sim.start_times()
    assert not np.isnan(start).any()
    end = start + workload.runtime
    for t in np.unique(start):
        live = (start <= t) & (t < end)
        assert workload.size[live].sum() <= 20
