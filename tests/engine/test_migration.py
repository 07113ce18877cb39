"""Migration (Krevat et al., seed 002 §2) is not re-tried while nothing it depends on changed.

A re-pack depends only on the running jobs, the units out of service and the allocator's rule;
the engine skips it when none of them changed since the last one. Runs that re-pack at every
blocked pass must give the same schedule and the same migration counts.
"""

import numpy as np
import pytest

from engine.actions import Fail, Repair
from engine.machines import load_machine
from engine.policy import Policy
from engine.simulation import Simulation
from engine.workload import from_columns


class AlwaysRepack(Simulation):
    """Re-packs at every blocked pass, as the engine did before the skip."""

    def _migrate(self) -> bool:
        self._packed = -1
        return super()._migrate()


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
    for kind in (Simulation, AlwaysRepack):
        sim = kind(machine, workload, policy, actions=actions)
        sim.run()
        runs.append(sim)
    skipping, always = runs
    assert skipping.start_times().tolist() == always.start_times().tolist()
    assert skipping.migration == always.migration
    assert skipping.migration.jobs > 0  # the workload does make jobs move
