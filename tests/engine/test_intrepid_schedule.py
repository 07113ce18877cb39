"""Intrepid schedules (seed 000): loss of capacity by hand on the partition menu, and paired job
filling under EASY backfilling (a companion is backfilled too and may not delay the head)."""

import pytest

from meshsim.engine.core.policy import Policy
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.topology.machines import load_machine
from tests.engine.helpers import workload

INTREPID = load_machine("intrepid")


def simulate(rows, **policy):
    sim = Simulation(INTREPID, workload(rows), Policy(**policy))
    sim.run()
    return sim


def test_loss_of_capacity_by_hand_with_wiring_fragmentation():
    # t=0: a 32K job takes rows 0-3 until 2000; sixteen 512-node jobs fill row 4 (least-blocking
    # puts job 1 on R40-M0 and job 6 on R42-M1; both end at 100, the others at 1000); a 1K job
    # waits. [0,100): nothing idle. [100,1000): R40-M0 and R42-M1 idle (1,024 nodes) and the 1K
    # job needs no more, but the two share no line of the torus, so no 1K partition: LoC.
    # [1000,1010): the 1K job runs, nothing waits. T = 2000.
    runtimes = [1000.0] * 16
    runtimes[0] = runtimes[5] = 100.0
    rows = [(0, 32768, 2000.0), *((0, 512, r) for r in runtimes), (0, 1024, 10.0)]
    sim = Simulation(INTREPID, workload(rows), Policy(queue="fcfs", allocator="least-blocking"))
    sim.run(until=500)
    assert sim.explain(18) == "needs 1K, 1K idle but no free 1K partition"
    sim.run()
    where = sim.job_table()["location"].tolist()
    assert (where[1], where[6]) == ("R40-M0", "R42-M1")
    assert sim.start_times().tolist()[-1] == 1000.0
    m = sim.results().metrics
    assert m["makespan_s"] == 2000.0
    assert m["loss_of_capacity"] == pytest.approx(1024 * 900 / (40960 * 2000))


def test_loss_of_capacity_needs_a_waiting_job_that_fits_the_idle_nodes():
    # One row (8K) idle for 100 s while a 16K job waits: not LoC (no waiting job fits 8K);
    # then a 1K job arrives behind it and the same idle row counts.
    rows = [(0, 32768, 100.0), (0, 16384, 50.0), (10, 1000, 20.0)]
    m = simulate(rows, queue="fcfs").results().metrics
    assert m["makespan_s"] == 150.0
    assert m["loss_of_capacity"] == pytest.approx(8192 * 90 / (40960 * 150))


# The machine but one row is busy until 10000; a 2K job on R40/R41 ends at 100; an 8K head (the
# whole row 4) arrives at 1 and reserves row 4 from 100; at 2, 512-node jobs: B (ends at 92),
# C (would end at 102) and D (ends at 62). B backfills (it ends before 100); PF pairs it with the
# waiting 512-node job of closest walltime that does not delay the head: D, not C.
PF_ROWS = [
    (0, 32768, 10000.0),
    (0, 2048, 100.0),
    (1, 8192, 100.0),
    (2, 512, 90.0),
    (2, 512, 100.0),
    (2, 512, 60.0),
]


@pytest.mark.parametrize("alloc", ["least-blocking", "pf", "combo"])
def test_paired_companion_never_delays_the_easy_reservation(alloc):
    sim = simulate(PF_ROWS, queue="fcfs", backfill="easy", allocator=alloc)
    starts = sim.start_times().tolist()
    assert starts[2] == 100.0  # the head starts at its reservation
    assert starts[4] == 200.0  # C cannot run before the head
    where = sim.job_table()["location"].tolist()
    if alloc == "least-blocking":
        assert starts[3] == starts[5] == 2.0  # B and D backfill on their own
    else:
        assert starts[3] == starts[5] == 2.0 and sorted([where[3], where[5]]) == [
            "R42-M0",
            "R42-M1",
        ]  # D is B's companion on the buddy midplane


def test_paired_companion_without_an_admissible_mate_is_not_started():
    rows = [r for i, r in enumerate(PF_ROWS) if i != 5]  # only C could pair with B
    sim = simulate(rows, queue="fcfs", backfill="easy", allocator="pf")
    assert sim.start_times().tolist() == [0.0, 0.0, 100.0, 2.0, 200.0]


def test_partition_names_are_unique_and_placements_round_trip():
    import numpy as np

    from meshsim.engine.allocation.allocator import ALLOCATORS
    from meshsim.engine.families.partitions.menu import build_menu

    menu = build_menu(INTREPID.spec)
    names = [p.name for p in menu.partitions]
    assert len(set(names)) == len(names) == 621
    # 1x2x4 on rack pairs 0 and 3 and 1x4x2 on z 0 and 3 span the same first and last midplane
    assert "4K R00-M0..R07-M1 [x=0 y=0,3 z=0,1,2,3]" in names
    assert "4K R00-M0..R07-M1 [x=0 y=0,1,2,3 z=0,3]" in names
    assert "32K R00-M0..R47-M1 [x=0,1,2,4 y=0,1,2,3 z=0,1,2,3]" in names
    assert "32K R00-M0..R37-M1" in names and "2K R00-M0..R02-M1" in names
    alloc = ALLOCATORS.get("least-blocking")(INTREPID, np.random.default_rng(0))
    for p in menu.partitions:
        assert alloc.partition_of(alloc.placement(p.index)).index == p.index


@pytest.mark.parametrize("alloc", ["pf", "combo"])
def test_paired_companion_never_delays_a_conservative_reservation(alloc):
    # As above under conservative backfilling: every job holds a reservation; B's companion is
    # D (it ends before the head's reservation), never C, and the head starts on time.
    sim = simulate(PF_ROWS, queue="fcfs", backfill="conservative", allocator=alloc)
    starts = sim.start_times().tolist()
    assert starts[2] == 100.0 and starts[4] == 200.0
    assert starts[3] == starts[5] == 2.0
