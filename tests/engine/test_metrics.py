"""Every metric on hand-computed examples (DESIGN.md, "Metrics")."""

import pytest

from meshsim.engine.core.policy import Policy
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.topology.machines import load_machine
from meshsim.engine.workloads.swf import read_swf
from meshsim.engine.workloads.workload import from_swf
from tests.conftest import DATA
from tests.engine.helpers import run

# flat:4; J1 (t=0, 2 nodes, 10 s), J2 (t=0, 4 nodes, 10 s), J3 (t=5, 1 node, 5 s).
# FCFS without backfilling: J1 0-10, J2 10-20, J3 20-25; T = 25, N x T = 100.
#   [0,5)   2 idle, J2 waits (needs 4): not LoC (nothing fits), unused 0
#   [5,10)  2 idle, J2+J3 wait, J3 fits in 2: LoC 2 x 5 = 10, unused 0
#   [10,20) 0 idle
#   [20,25) 3 idle, nothing waits: unused 3 x 5 = 15
EXAMPLE = [(0, 2, 10), (0, 4, 10), (5, 1, 5)]


def test_fcfs_metrics_by_hand():
    m = run(4, EXAMPLE).results().metrics
    assert m["jobs"] == 3
    assert m["makespan_s"] == 25
    assert m["utilization"] == pytest.approx(65 / 100)
    assert m["unused_capacity"] == pytest.approx(15 / 100)
    assert m["lost_capacity"] == pytest.approx(20 / 100)
    assert m["loss_of_capacity"] == pytest.approx(10 / 100)
    assert m["avg_wait_s"] == pytest.approx(25 / 3)
    assert m["max_wait_s"] == 15
    assert m["avg_response_s"] == pytest.approx(50 / 3)
    assert m["mean_turnaround_s"] == pytest.approx(50 / 3)
    # bsld: J1 10/10, J2 20/10, J3 max(20,10)/max(5,10) = 2
    assert m["avg_bsld"] == pytest.approx(5 / 3)
    assert m["expansion_factor"] == pytest.approx((25 + 25) / 25)
    assert m["avg_queue_length"] == pytest.approx((1 * 5 + 2 * 5 + 1 * 10) / 25)


def test_easy_backfills_the_small_job_into_the_hole():
    sim = run(4, EXAMPLE, backfill="easy")
    starts = sim.start_times().tolist()
    assert starts == [0, 10, 5]  # J3 ends at 10 = the shadow time of J2
    m = sim.results().metrics
    assert m["makespan_s"] == 20
    assert m["loss_of_capacity"] == 0
    # [0,5) 2 idle, J2 waits: lost; [5,10) 1 idle; [10,20) 0 idle
    assert m["unused_capacity"] == 0
    assert m["utilization"] == pytest.approx(65 / 80)


def test_loc_requires_a_waiting_job_that_fits_the_idle_nodes():
    # 2 idle nodes for 10 s while a 4-node job waits: lost capacity, but not LoC (Tang et al.)
    m = run(4, [(0, 2, 20), (0, 4, 10)]).results().metrics
    assert m["loss_of_capacity"] == 0
    assert m["lost_capacity"] == pytest.approx(1 - (40 + 40) / (4 * 30) - 0)


def test_bounded_slowdown_uses_ten_seconds():
    m = run(1, [(0, 1, 2), (0, 1, 2)]).results().metrics
    # job 1: 2 s, bsld max(2,10)/max(2,10) = 1; job 2 waits 2 s: response 4 -> 10/10 = 1
    assert m["avg_bsld"] == 1.0


def test_size_class_and_queue_breakdowns_from_swf():
    machine = load_machine("flat:4")
    w = from_swf(read_swf(DATA / "tiny.swf"), machine)
    sim = Simulation(machine, w, Policy())
    sim.run()
    r = sim.results()
    assert set(r.by_size_class) == {"1", "2", "3-4"}
    assert r.by_size_class["3-4"]["avg_wait_s"] == 10
    assert r.by_queue["1"]["jobs"] == 2
    assert r.by_queue["2"]["avg_wait_s"] == 15
    assert sum(c["work_share"] for c in r.by_queue.values()) == pytest.approx(1.0)
