"""``max-free-box`` ranks a box's positions by the largest free box each leaves (Krevat et al.,
seed 002 §2). On small machines it reads that, and where a box is free, from the bit sets of every
placement (:mod:`meshsim.engine.allocation.box_bitsets`); elsewhere it counts overlapping
placements and sums windows of a summed table. Both give the answers brute force gives, so the
choice, and the schedule, do not depend on which ran."""

from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from meshsim.engine.allocation import box_bitsets
from meshsim.engine.allocation.box_bitsets import BoxBitsets, table_words
from meshsim.engine.allocation.boxes import scan_positions, summed_table, window_sums
from meshsim.engine.allocation.contiguous_choice import MaxFreeBox
from meshsim.engine.core.policy import Policy
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.topology.machines import load_machine
from tests.conftest import DATA
from tests.engine.test_remembered_placements import arbitrary_sizes


def allocator(dims, wrap):
    """A max-free-box allocator on a grid of ``dims`` wrapping per axis as ``wrap``."""
    machine = load_machine(str(DATA / "mesh5x4.toml"))
    spec = machine.spec.__class__(dims, wrap)
    machine = machine.__class__(name="t", topology="torus" if any(wrap) else "mesh", spec=spec)
    return MaxFreeBox(machine, np.random.default_rng(0))


def cells(at, extent, dims):
    axes = [{(a + i) % d for i in range(e)} for a, e, d in zip(at, extent, dims, strict=True)]
    return set(product(*axes))


def brute_largest_left(busy, box, at, wrap):
    """The volume of the largest box free on ``busy`` that does not touch ``box`` placed at
    ``at``, by trying every box at every start."""
    dims = busy.shape
    taken = cells(at, box, dims) | {tuple(c) for c in np.argwhere(busy)}
    best = 0
    for shape in product(*(range(1, d + 1) for d in dims)):
        volume = int(np.prod(shape))
        if volume <= best:
            continue
        starts = [range(d if w else d - e + 1) for d, e, w in zip(dims, shape, wrap, strict=True)]
        if any(not (cells(s, shape, dims) & taken) for s in product(*starts)):
            best = volume
    return best


@settings(max_examples=60, deadline=None)
@given(
    dims=st.sampled_from([(6, 5), (4, 3, 5), (4, 4, 8), (3, 3)]),
    data=st.data(),
)
def test_bit_sets_and_counting_give_the_volumes_brute_force_gives(dims, data):
    wrap = tuple(data.draw(st.lists(st.booleans(), min_size=len(dims), max_size=len(dims))))
    alloc = allocator(dims, wrap)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    busy = rng.random(dims) < data.draw(st.sampled_from([0.1, 0.4, 0.7]))
    box = tuple(data.draw(st.integers(1, d)) for d in dims)
    table = summed_table(busy, wrap)
    mask = window_sums(table, dims, box, wrap) == 0
    if not mask.any():
        return
    positions = scan_positions(mask)
    bitsets = BoxBitsets(dims, wrap, alloc._shapes_by_volume())
    free = bitsets.on(busy)
    assert free.starts(box).tolist() == mask.tolist()  # where the box itself is free
    ceiling = alloc.largest_free_box(busy, table)[1]
    assert free.largest == ceiling
    cap = min(busy.size - int(busy.sum()) - int(np.prod(box)), ceiling)
    by_bits = free.largest_left(box, positions, cap)
    by_counting = alloc._remaining_largest(busy, table, ceiling, box, positions, {})
    assert by_bits.tolist() == by_counting.tolist()
    if len(dims) == 2 or rng.random() < 0.1:  # brute force is slow in 3D
        k = int(rng.integers(len(positions)))
        assert by_bits[k] == brute_largest_left(busy, box, tuple(positions[k]), wrap)


@pytest.mark.parametrize(
    ("dims", "wrap"),
    [((4, 4, 8), (True,) * 3), ((12, 12), (False, False)), ((4, 3, 5), (True, False, True))],
)
def test_the_table_holds_every_distinct_placement_once(dims, wrap):
    alloc = allocator(dims, wrap)
    bitsets = BoxBitsets(dims, wrap, alloc._shapes_by_volume())
    assert len(bitsets.volumes) * bitsets.words == table_words(dims, wrap)
    assert (np.diff(bitsets.volumes) <= 0).all()  # largest first
    for box, volume in alloc._shapes_by_volume():
        rows = bitsets.row_of[box]
        starts = tuple(d if w else d - e + 1 for d, e, w in zip(dims, box, wrap, strict=True))
        assert rows.shape == starts
        assert (bitsets.volumes[rows] == volume).all()
        # a box spanning a ring covers the same cells from every start: one row for them all
        axes = zip(dims, box, wrap, starts, strict=True)
        assert len(np.unique(rows)) == np.prod([1 if w and e == d else n for d, e, w, n in axes])
        for s in list(np.ndindex(*starts))[:3]:  # free where only its cells are
            busy = np.ones(dims, dtype=bool)
            for c in cells(s, box, dims):
                busy[c] = False
            free = bitsets.on(busy)
            assert rows[s] in free.rows
            assert free.largest == volume


def test_schedules_do_not_depend_on_the_table(monkeypatch):
    """BG/L with migration and a unit down, with the table and with counting alone."""

    def run():
        sim = Simulation(
            load_machine("bgl"),
            arbitrary_sizes(3, n=120),
            Policy(allocator="max-free-box", backfill="easy", migrate=True),
        )
        sim.run()
        bitsets = sim.state.allocator._bitsets
        return sim.start_times().tolist(), sim.state.migration, bitsets

    starts, migration, bitsets = run()
    assert bitsets is not None  # the table was used
    monkeypatch.setattr(box_bitsets, "WORDS_KEPT", 0)
    monkeypatch.setattr("meshsim.engine.allocation.contiguous_choice.WORDS_KEPT", 0)
    starts_counted, migration_counted, none = run()
    assert none is None  # counting alone
    assert starts == starts_counted
    assert migration == migration_counted
    assert migration.passes > 0
