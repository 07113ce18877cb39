"""Properties every non-contiguous allocator must have (DESIGN.md "Allocation"; issue 5):
exactly the requested number of idle nodes, never a double booking, pure ``find``, and release
restores the state (buddy blocks re-merge)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import meshsim.engine.allocation.m2db
import meshsim.engine.allocation.mbs
import meshsim.engine.allocation.mc
import meshsim.engine.allocation.paging
import meshsim.engine.allocation.random_nodes
import meshsim.engine.families.contention.plas
from meshsim.engine.allocation.allocator import ALLOCATORS, FREE, Allocator, Placement
from meshsim.engine.allocation.buddy import BuddyAllocator, BuddyForest
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.jobs import Job
from meshsim.engine.families.contention.benchmarks import mesh_machine
from meshsim.engine.topology.grid import GridSpec
from meshsim.engine.topology.machines import Machine

NAMES = ["paging", "random", "plas", "mc", "mc-elongated", "mbs", "m2db"]

ops = st.lists(
    st.one_of(
        st.tuples(st.just("arrive"), st.integers(1, 40), st.one_of(st.none(), st.integers(1, 5))),
        st.tuples(st.just("depart"), st.integers(0, 50), st.none()),
    ),
    max_size=30,
)


def forest_of(a: Allocator) -> BuddyForest | None:
    if isinstance(a, meshsim.engine.allocation.m2db.M2DBAllocator):
        return a.region.forest
    if isinstance(a, meshsim.engine.allocation.mbs.MBSAllocator):
        return a.forest
    return None


def snapshot(a: Allocator) -> tuple:
    forest = forest_of(a)
    blocks = () if forest is None else (frozenset(forest.free), frozenset(forest.children))
    return (a.free_nodes, a.owners().tobytes(), blocks)


def check_forest(a: Allocator) -> None:
    forest = forest_of(a)
    if forest is None:
        return
    assert forest.free_area == a.free_nodes
    for parent, kids in forest.children.items():
        assert not all(k in forest.free for k in kids), f"unmerged buddies of {parent}"
    owners = a.owners()
    for b in forest.free:
        assert (owners[b.cells(a.height)] == FREE).all()


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=25, deadline=None)
@given(w=st.integers(1, 9), h=st.integers(1, 9), script=ops, seed=st.integers(0, 3))
def test_allocator_properties(name: str, w: int, h: int, script: list, seed: int) -> None:
    a = ALLOCATORS.get(name)(mesh_machine(w, h), np.random.default_rng(seed))
    start = snapshot(a)
    running: list[tuple[Job, Placement]] = []
    for i, (kind, value, side) in enumerate(script):
        if kind == "depart":
            if running:
                job, where = running.pop(value % len(running))
                a.release(job, where)
        else:
            shape = None if side is None else (side, -(-value // side))
            job = Job(i, i, 0.0, 1.0, 1.0, value, value, shape=shape)
            before = snapshot(a)
            placement = a.find(job)
            assert snapshot(a) == before, "find changed the state"
            if value > a.free_nodes:
                assert placement is None
                continue
            assert placement is not None, "enough idle nodes but no placement"
            assert a.find(job) == placement
            cells = np.array(placement.cells)
            assert placement.nodes == value == len(cells) == len(set(placement.cells))
            assert ((cells >= 0) & (cells < w * h)).all()
            assert (a.owners()[cells] == FREE).all(), "double booking"
            a.allocate(job, placement)
            assert (a.owners()[cells] == job.index).all()
            assert a.free_nodes == before[0] - value
            running.append((job, placement))
        check_forest(a)
        assert a.free_nodes == int((a.owners() == FREE).sum())
    for job, where in running:
        a.release(job, where)
    assert snapshot(a) == start, "releasing everything did not restore the initial state"


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=20, deadline=None)
@given(
    w=st.integers(2, 8),
    h=st.integers(2, 8),
    sizes=st.lists(st.integers(1, 12), max_size=8),
    extra=st.integers(1, 12),
)
def test_allocate_then_release_restores(
    name: str, w: int, h: int, sizes: list[int], extra: int
) -> None:
    """Allocating one more job and releasing it leaves the state exactly as before."""
    a = ALLOCATORS.get(name)(mesh_machine(w, h), np.random.default_rng(1))
    for i, size in enumerate(sizes):
        job = Job(i, i, 0.0, 1.0, 1.0, size, size)
        placement = a.find(job)
        if placement is not None:
            a.allocate(job, placement)
    job = Job(99, 99, 0.0, 1.0, 1.0, extra, extra)
    placement = a.find(job)
    if placement is None:
        return
    before = snapshot(a)
    a.allocate(job, placement)
    a.release(job, placement)
    assert snapshot(a) == before


@pytest.mark.parametrize("name", NAMES)
def test_topology_and_dimension_checks(name: str) -> None:
    cls = ALLOCATORS.get(name)
    assert cls.name == name and cls.complexity
    flat = Machine(name="f", topology="flat", spec=GridSpec((4,), (False,)))
    with pytest.raises(MeshsimError, match="does not work on topology 'flat'"):
        cls(flat, np.random.default_rng(0))
    cube = Machine(name="c", topology="mesh", spec=GridSpec((2, 2, 2), (False,) * 3))
    with pytest.raises(MeshsimError, match="needs a 2D grid"):
        cls(cube, np.random.default_rng(0))
    torus = Machine(name="t", topology="torus", spec=GridSpec((4, 4), (True, True)))
    if "torus" in cls.topologies:
        assert cls(torus, np.random.default_rng(0)).free_nodes == 16
    else:
        with pytest.raises(MeshsimError):
            cls(torus, np.random.default_rng(0))


def test_buddy_allocators_reject_foreign_placements() -> None:
    a = ALLOCATORS.get("mbs")(mesh_machine(4, 4), np.random.default_rng(0))
    assert isinstance(a, BuddyAllocator)
    job = Job(0, 0, 0.0, 1.0, 1.0, 2, 2)
    with pytest.raises(ValueError, match="not the current buddy plan"):
        a.allocate(job, Placement((15, 14), 2))
    b = ALLOCATORS.get("paging")(mesh_machine(4, 4), np.random.default_rng(0))
    b.allocate(job, Placement((0, 1), 2))
    with pytest.raises(ValueError, match="busy or repeated"):
        b.allocate(Job(1, 1, 0.0, 1.0, 1.0, 1, 1), Placement((1,), 1))
