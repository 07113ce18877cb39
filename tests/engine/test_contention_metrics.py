"""Contention state, runtime model, dispersal and balance metrics, the Table 7 workload."""

import numpy as np
import pytest

from meshsim.engine.allocation.allocator import FREE
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.families.contention.balance import SampledMetric, balance_factor, system_balance
from meshsim.engine.families.contention.dispersal import cell_dispersal, dispersal
from meshsim.engine.families.contention.io import IOLayout
from meshsim.engine.families.contention.layouts import LAYOUTS
from meshsim.engine.families.contention.routing import Link
from meshsim.engine.families.contention.runtime import (
    RuntimeModel,
    iteration_times,
    remaining_after,
)
from meshsim.engine.families.contention.state import contention
from meshsim.engine.families.contention.traffic import Traffic, job_traffic
from meshsim.engine.families.contention.workload import synthetic_io_workload

RNG = np.random.default_rng(0)
WRITE = (Traffic("io-write"),)


def cell(x: int, y: int, h: int) -> int:
    return x * h + y


def test_intra_and_inter_job_contention() -> None:
    """A at (1,0) and B at (0,0) both write to 4 I/O nodes: they share the link into the I/O column
    (4 + 4 pairs) and the three +y links of the column above row 0."""
    layout = IOLayout.square(4, 4)
    a = job_traffic(layout, 1, [cell(1, 0, 4)], WRITE, RNG)
    b = job_traffic(layout, 2, [cell(0, 0, 4)], WRITE, RNG)
    state = contention(layout, [a, b])
    assert state.keys == (1, 2)
    assert state.max_contention == 8
    assert state.hotspot == Link((0, 0), (-1, 0))
    assert state.intra.tolist() == [4, 4]
    assert state.inter.tolist() == [4, 4]
    assert state.met.tolist() == [8, 8]
    assert state.shared_links == 4
    alone = contention(layout, [a])
    assert (alone.max_contention, alone.inter.tolist(), alone.shared_links) == (4, [0], 0)
    empty = contention(layout, [])
    assert (empty.max_contention, empty.hotspot, empty.keys) == (0, None, ())


def test_runtime_alone_reproduces_network_and_io_throughput() -> None:
    """One job alone: D MB per pair in t = D·max_contention/B_l, i.e. throughput B_NET; with the
    I/O-node term, min(B_NET, m·B_0) (Ch. VI)."""
    k, d = 16, 8.0
    layout = IOLayout.square(k, k)
    bare = RuntimeModel(startup_s=0.0, per_hop_s=0.0)
    disks = RuntimeModel(startup_s=0.0, per_hop_s=0.0, include_io_nodes=True)
    for name in LAYOUTS.names():
        coords = LAYOUTS.get(name)(k, k)
        cells = [cell(int(x), int(y), k) for x, y in coords]
        jt = job_traffic(layout, 0, cells, (Traffic("io-write", d),), RNG)
        top = contention(layout, [jt]).max_contention
        t = iteration_times(layout, [jt], bare)[0]
        assert t == pytest.approx(d * top / 380.0)
        moved = k * k * d
        b_net = k * k * 380.0 / top
        assert moved / t == pytest.approx(b_net)
        t_disk = iteration_times(layout, [jt], disks)[0]
        assert moved / t_disk == pytest.approx(min(b_net, k * 64.0))


def test_runtime_grows_with_contention_and_placement_matters() -> None:
    layout = IOLayout.square(8, 8)
    model = RuntimeModel()
    column = job_traffic(layout, 0, [cell(0, y, 8) for y in range(8)], WRITE, RNG)
    row = job_traffic(layout, 1, [cell(x, 3, 8) for x in range(8)], WRITE, RNG)
    other = job_traffic(layout, 2, [cell(1, y, 8) for y in range(8)], WRITE, RNG)
    alone = iteration_times(layout, [column], model)[0]
    shared = iteration_times(layout, [column, other], model)
    assert iteration_times(layout, [row], model)[0] > alone
    assert shared[0] > alone and shared.shape == (2,)
    latency = model.startup_s + model.per_hop_s * column.max_hops
    assert alone == pytest.approx(latency + 16 / 380.0)
    assert iteration_times(layout, [], model).shape == (0,)


def test_remaining_after() -> None:
    left = remaining_after(np.array([10.0, 1.0]), 2.0, np.array([0.5, 1.0]))
    assert left.tolist() == [6.0, 0.0]


def test_dispersal_metrics_by_hand() -> None:
    """Three nodes (0,0), (1,0), (0,1): distances 1, 1, 2."""
    d = dispersal(np.array([[0, 0], [1, 0], [0, 1]]))
    assert d.nodes_affected == 4
    assert d.links_affected == 4
    assert d.summed_distance == 8
    assert d.average_distance == pytest.approx(8 / 6)
    assert d.distance_from_center == 2
    assert d.diameter == 2


def test_dispersal_whole_mesh_example() -> None:
    """An 8 × 4 job spanning the mesh with count_x = count_y = 4 (like job 41, L1075, L1107):
    nodes_affected 32, links_affected 7·4 + 3·4 = 40."""
    d = cell_dispersal([cell(x, y, 4) for x, y in [(0, 0), (7, 3), (2, 1), (5, 2)]], 4)
    assert (d.nodes_affected, d.links_affected, d.diameter) == (32, 40, 10)
    one = dispersal(np.array([[3, 3]]))
    assert (one.nodes_affected, one.links_affected, one.average_distance) == (1, 0, 0.0)
    with pytest.raises(ValueError):
        dispersal(np.zeros((0, 2)))


def test_balance_factor_and_system_balance() -> None:
    h, b = 4, 2
    assert balance_factor([cell(0, 2, h), cell(0, 3, h), cell(1, 0, h)], h, b) == 1
    owners = np.full(8, FREE)
    owners[[cell(0, 0, h), cell(0, 1, h)]] = 0
    owners[cell(1, 3, h)] = 1
    assert system_balance(owners, h, b) == -1


def test_fig47_average_balance_factor() -> None:
    """Fig. 47: system balance 0, 0, 0, +1, 0 after the five arrivals -> average 1/5."""
    m = SampledMetric()
    for t, v in enumerate([0, 0, 0, 1, 0]):
        m.observe(float(t), abs(v))
    assert m.event_mean == pytest.approx(1 / 5)
    assert m.time_mean == pytest.approx(1 / 4)
    assert m.peak == 1 and m.count == 5
    with pytest.raises(ValueError, match="backwards"):
        m.observe(1.0, 0)
    fresh = SampledMetric()
    assert (fresh.event_mean, fresh.time_mean) == (0.0, 0.0)


def test_table7_workload() -> None:
    w = synthetic_io_workload(np.random.default_rng(5), jobs=20000, mean_interarrival=500.0)
    assert len(w.arrival) == len(w.size) == 20000
    assert (np.diff(w.arrival) > 0).all() and w.arrival[0] > 0
    assert np.diff(w.arrival).mean() == pytest.approx(500.0, rel=0.03)
    assert w.size.min() >= 1 and w.size.max() <= 352
    assert w.size.mean() == pytest.approx(16.0, rel=0.03)
    assert (w.iterations == 100.0).all() and (w.io_share == 1.0).all()
    again = synthetic_io_workload(np.random.default_rng(5), jobs=20000, mean_interarrival=20.0)
    assert (again.size == w.size).all()
    assert np.allclose(again.arrival, w.arrival * 20.0 / 500.0)
    with pytest.raises(MeshsimError):
        synthetic_io_workload(np.random.default_rng(5), io_share=2.0)
    with pytest.raises(MeshsimError):
        synthetic_io_workload(np.random.default_rng(5), mean_interarrival=0.0)
