"""MC (Mache Fig. 31) and MC Elongated (Fig. 59): worked examples and properties."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import meshsim.engine.allocation.mc  # noqa: F401
from meshsim.engine.allocation.allocator import ALLOCATORS, Placement
from meshsim.engine.allocation.grid_nodes import NodeGridAllocator
from meshsim.engine.allocation.mc import (
    MCElongatedAllocator,
    build_cluster,
    candidate_costs,
    request_shape,
    ring,
)
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.jobs import Job
from meshsim.engine.families.contention.benchmarks import mesh_machine


def job(index: int, size: int, shape: tuple[int, int] | None = None) -> Job:
    return Job(index, index, 0.0, 1.0, 1.0, size, size, shape=shape)


def occupy(a: NodeGridAllocator, idle: set[tuple[int, int]]) -> None:
    """Make every cell not in ``idle`` busy (owned by job 999)."""
    busy = [x * a.height + y for x in range(a.width) for y in range(a.height) if (x, y) not in idle]
    if busy:
        a.allocate(job(999, len(busy)), Placement(tuple(busy), len(busy)))


def xy(a: NodeGridAllocator, cells: tuple[int, ...]) -> list[tuple[int, int]]:
    return [divmod(c, a.height) for c in cells]


A, B, C, D = (0, 0), (0, 1), (0, 3), (2, 5)


def test_fig32_centre_b_wins_with_cost_1() -> None:
    """Fig. 32 (L1405, L1435): a 1 × 3 request and four idle nodes; the clusters centred at A, B, C,
    D cost 2, 1, 3, 5, and B's cluster {A, B, C} is allocated. (The figure is lost; this 6 × 6
    arrangement has exactly the printed costs.)"""
    a = ALLOCATORS.get("mc")(mesh_machine(6, 6), np.random.default_rng(0))
    occupy(a, {A, B, C, D})
    costs = candidate_costs(a.idle(), 1, 3, 3)
    assert [int(costs[p]) for p in (A, B, C, D)] == [2, 1, 3, 5]
    flipped = candidate_costs(a.idle(), 3, 1, 3)
    assert all(flipped[p] >= costs[p] for p in (A, B, C, D))
    placement = a.find(job(0, 3, (1, 3)))
    assert placement is not None
    assert xy(a, placement.cells) == [A, B, C]  # shell_0 row by row, then C from shell 1


def test_ring_order() -> None:
    """Shell 1 of a 1 × 3 shell_0 at (0, 0): the shorter (horizontal) sides first, then the longer
    sides left before right, each in increasing coordinate order, then the corners."""
    assert ring(0, 0, 1, 3, 1) == [
        (0, -1),
        (0, 3),
        (-1, 0),
        (-1, 1),
        (-1, 2),
        (1, 0),
        (1, 1),
        (1, 2),
        (-1, -1),
        (1, -1),
        (-1, 3),
        (1, 3),
    ]
    assert ring(0, 0, 1, 3, 1, "middle-out")[2:5] == [(-1, 1), (-1, 0), (-1, 2)]
    square = ring(0, 0, 1, 1, 1)
    assert square[:2] == [(-1, 0), (1, 0)]


def test_request_shapes() -> None:
    assert request_shape(job(0, 6)) == (3, 2)
    assert request_shape(job(0, 7)) == (3, 3)
    assert request_shape(job(0, 16)) == (4, 4)
    assert request_shape(job(0, 3, (1, 3))) == (1, 3)


def test_scalar_request_on_empty_mesh_is_a_compact_box() -> None:
    a = ALLOCATORS.get("mc")(mesh_machine(8, 8), np.random.default_rng(0))
    placement = a.find(job(0, 6))
    assert sorted(xy(a, placement.cells)) == [(x, y) for x in range(3) for y in range(2)]


def test_other_orientation_when_only_it_fits() -> None:
    """A 1 × 3 request where only a horizontal run of three is free gets that run (cost 0)."""
    a = ALLOCATORS.get("mc")(mesh_machine(5, 5), np.random.default_rng(0))
    occupy(a, {(1, 2), (2, 2), (3, 2), (0, 0), (4, 4)})
    placement = a.find(job(0, 3, (1, 3)))
    assert sorted(xy(a, placement.cells)) == [(1, 2), (2, 2), (3, 2)]


@settings(max_examples=60, deadline=None)
@given(
    w=st.integers(3, 8),
    h=st.integers(3, 8),
    rw=st.integers(1, 3),
    rh=st.integers(1, 3),
    data=st.data(),
)
def test_mc_finds_a_free_rectangle_whenever_one_exists(
    w: int, h: int, rw: int, rh: int, data: st.DataObject
) -> None:
    """If some rw × rh (or rh × rw) rectangle is free, MC returns one (L1441)."""
    x0 = data.draw(st.integers(0, w - rw))
    y0 = data.draw(st.integers(0, h - rh))
    idle = {(x, y) for x in range(x0, x0 + rw) for y in range(y0, y0 + rh)}
    idle |= data.draw(st.sets(st.tuples(st.integers(0, w - 1), st.integers(0, h - 1))))
    a = ALLOCATORS.get("mc")(mesh_machine(w, h), np.random.default_rng(0))
    occupy(a, idle)
    placement = a.find(job(0, rw * rh, (rw, rh)))
    nodes = xy(a, placement.cells)
    xs, ys = {p[0] for p in nodes}, {p[1] for p in nodes}
    box = (max(xs) - min(xs) + 1, max(ys) - min(ys) + 1)
    assert box in {(rw, rh), (rh, rw)}


@settings(max_examples=40, deadline=None)
@given(w=st.integers(1, 7), h=st.integers(1, 7), data=st.data())
def test_cost_formula_matches_the_cluster(w: int, h: int, data: st.DataObject) -> None:
    """The summed-area cost equals the sum of shell numbers of the nodes build_cluster picks."""
    cells = st.tuples(st.integers(0, w - 1), st.integers(0, h - 1))
    idle_set = data.draw(st.sets(cells, min_size=1))
    idle = np.zeros((w, h), bool)
    for p in idle_set:
        idle[p] = True
    n = data.draw(st.integers(1, len(idle_set)))
    rw, rh = data.draw(st.integers(0, 3)), data.draw(st.integers(1, 3))
    full = data.draw(st.booleans())
    order = data.draw(st.sampled_from(["mc", "middle-out"]))
    costs = candidate_costs(idle, rw, rh, n, full_height=full)
    for cx, cy in sorted(idle_set):
        nodes = build_cluster(idle, cx, cy, rw, rh, n, full_height=full, order=order)
        assert len(set(nodes)) == n and all(idle[p] for p in nodes)
        x0 = cx - rw // 2
        y0, hh = (0, h) if full else (cy - rh // 2, rh)

        def shell(p: tuple[int, int], x0: int = x0, y0: int = y0, hh: int = hh) -> int:
            dx = max(x0 - p[0], p[0] - (x0 + rw - 1), 0)
            dy = max(y0 - p[1], p[1] - (y0 + hh - 1), 0)
            return max(dx, dy)

        assert costs[cx, cy] == sum(shell(p) for p in nodes)


def test_mc_elongated_takes_whole_columns() -> None:
    """Fig. 58c / L2363: shell_0 is floor(n / k) whole columns; MC stays compact (Fig. 60)."""
    e = ALLOCATORS.get("mc-elongated")(mesh_machine(6, 4), np.random.default_rng(0))
    placement = e.find(job(0, 8))
    assert sorted(xy(e, placement.cells)) == [(x, y) for x in (0, 1) for y in range(4)]
    m = ALLOCATORS.get("mc")(mesh_machine(6, 4), np.random.default_rng(0))
    compact = xy(m, m.find(job(0, 8)).cells)
    assert max(p[0] for p in compact) - min(p[0] for p in compact) == 2
    small = e.find(job(1, 3))
    assert xy(e, small.cells) == [(0, 0), (0, 1), (0, 2)]
    designed = MCElongatedAllocator(
        mesh_machine(6, 4), np.random.default_rng(0), order="middle-out"
    )
    assert xy(designed, designed.find(job(1, 3)).cells) == [(0, 2), (0, 1), (0, 3)]
    with pytest.raises(MeshsimError, match="unknown MC Elongated order"):
        MCElongatedAllocator(mesh_machine(6, 4), np.random.default_rng(0), order="spiral")
