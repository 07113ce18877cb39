"""Migration (Krevat et al., seed 002 §2) is not re-tried while nothing it depends on changed.

A re-pack depends only on the running jobs, the units out of service and the allocator's rule; the
engine skips it when none of them changed since the last one. Runs that re-pack at every blocked
pass must give the same schedule and the same migration counts."""

import numpy as np
import pytest

from meshsim.engine.core.policy import Policy
from meshsim.engine.kernel.actions import Fail, Repair
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.topology.grid import GridSpec
from meshsim.engine.topology.machines import Machine, load_machine
from meshsim.engine.workloads.workload import from_columns


def always_repack(sim: Simulation) -> Simulation:
    """``sim``, made to re-pack at every blocked pass, as the engine did before the skip."""
    state = sim.state
    repack = state.repack

    def again() -> bool:
        state._packed = -1
        return repack()

    state.repack = again
    return sim


def sides_workload(seed: int, n: int = 90):
    rng = np.random.default_rng(seed)
    shapes = np.stack([rng.integers(1, 17, n), rng.integers(1, 17, n)], axis=1)
    runtime = rng.exponential(50.0, n)
    return from_columns(
        "sides",
        submit=np.sort(rng.uniform(0, 400, n)),
        runtime=runtime,
        size=shapes.prod(axis=1),
        shapes=shapes,
        estimate=runtime * 2.0,
    )


@pytest.mark.parametrize("allocator", ["first-fit", "mpl"])
@pytest.mark.parametrize("backfill", ["none", "easy"])
def test_skipped_repacks_change_nothing(allocator, backfill):
    machine = load_machine("mesh32")
    workload = sides_workload(3)
    actions = [Fail(100.0, unit="5,5"), Repair(300.0, unit="5,5")]
    policy = Policy(allocator=allocator, backfill=backfill, migrate=True)
    runs = []
    for make in (Simulation, lambda *args, **kw: always_repack(Simulation(*args, **kw))):
        sim = make(machine, workload, policy, actions=actions)
        sim.run()
        runs.append(sim)
    skipping, always = runs
    assert skipping.start_times().tolist() == always.start_times().tolist()
    assert skipping.state.migration == always.state.migration
    assert skipping.state.migration.jobs > 0  # the workload does make jobs move


def test_backfilling_with_migration_migrates_before_it_backfills():
    """B+M (seed 002 §2): FCFS, then migration, then FCFS again, and only then backfilling.

    On a 2x2x4 torus four 4-node jobs fill the machine; two end at t=100 and leave two separate
    4-node holes. The 8-node head H (arrived at 50) is blocked by fragmentation, not by count. EASY
    alone reserves H for t=1000 and backfills the four 10-second jobs S into the holes at once; B+M
    re-packs the two long jobs, starts H at 100, and the S jobs wait for t=1000. This is the paper's
    order, and it is why B+M can have a higher mean bounded slowdown than EASY:
    migration serves the queue head first, at the expense of short jobs backfilling would start."""
    torus = Machine(name="t", topology="torus", spec=GridSpec((2, 2, 4), (True, True, True)))
    rows = [(0, 100, 4), (0, 1000, 4), (0, 100, 4), (0, 1000, 4), (50, 1000, 8)]
    rows += [(101 + 10 * k, 10, 4) for k in range(4)]
    submit, runtime, size = (np.array(c) for c in zip(*rows, strict=True))
    workload = from_columns("holes", submit=submit, runtime=runtime, size=size)
    starts = {}
    for migrate in (False, True):
        policy = Policy(allocator="max-free-box", backfill="easy", migrate=migrate)
        sim = Simulation(torus, workload, policy)
        sim.run()
        starts[migrate] = sim.start_times().tolist()
    assert starts[False][4:] == [1000, 101, 111, 121, 131]
    assert starts[True][4:] == [100, 1000, 1000, 1010, 1010]
