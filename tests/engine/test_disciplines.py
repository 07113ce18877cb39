"""Start disciplines of seed 001 on a flat machine (the mesh examples are in the mesh tests)."""

from meshsim.engine.core.policy import Policy
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.topology.machines import load_machine
from tests.engine.helpers import run, workload

# flat:4. J1 holds 3 nodes for 10 s; J2 needs 4 (blocked until 10); J3..J6 need 1 node each.
ROWS = [(0, 3, 10), (1, 4, 5), (2, 1, 20), (3, 1, 20), (4, 1, 20), (5, 1, 20)]


def starts(**policy) -> list[float]:
    return run(4, ROWS, **policy).start_times().tolist()


def test_fcfs_blocks_behind_the_head():
    assert starts() == [0, 10, 15, 15, 15, 15]


def test_oo_starts_anything_that_fits():
    # t=2 J3 takes the spare node; t=10 J4-J6 take J1's 3 nodes; J2 waits until all end at 30
    assert starts(discipline="oo") == [0, 30, 2, 10, 10, 10]


def test_oocb_lets_the_head_be_overtaken_k_times():
    assert starts(discipline="oocb", bound=1) == [0, 22, 2, 27, 27, 27]
    assert starts(discipline="oocb", bound=8) == starts(discipline="oo")


def test_window_counts_served_jobs_until_the_head_moves():
    # K = 3 under FCFS: the window is jobs 2-4 in arrival order. J3 starts at t=2; at t=10 J4
    # (inside) takes a node but J5 stays outside although 2 nodes are free; once J2 starts at 30
    # the window moves to J5-J7 and J5, J6 start when J2 ends.
    assert starts(discipline="window", window=3) == [0, 30, 2, 10, 35, 35]
    assert starts(discipline="window", window=2) == [0, 22, 2, 27, 27, 27]
    assert starts(discipline="window", window=1) == starts()


def test_window_explains_jobs_outside_it():
    sim = Simulation(load_machine("flat:4"), workload(ROWS), Policy(discipline="window", window=2))
    sim.run(until=6)
    assert sim.explain(2) == "needs 4 nodes, 0 free"
    assert sim.explain(6) == "needs 1 node, 0 free"
    rows = [(0, 4, 10), (1, 8, 5), (2, 1, 1)]
    sim2 = Simulation(load_machine("flat:8"), workload(rows), Policy(discipline="window", window=1))
    sim2.run(until=5)
    assert sim2.explain(3) == "outside the scheduling window (K=1) that starts at job 2"


def test_delay_switches_to_strict_after_the_threshold():
    # Before any job has waited, W = 0 so the threshold is 0: the head blocks at once.
    assert starts(discipline="delay") == starts()
