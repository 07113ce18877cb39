"""``max-free-box`` remembers its placements by busy mask and request (the speed-up of migration,
Krevat et al., seed 002 §2): a re-pack asks, step after step, what earlier re-packs asked, and the
answer is a function of the mask and the job's size and shape alone. Remembering changes no
decision: runs with and without the memo give the same schedule and migration counts, with units
out of service, under FCFS and backfilling."""

import numpy as np
import pytest

from meshsim.engine.actions import Fail, Repair
from meshsim.engine.allocators.contiguous import MaxFreeBox
from meshsim.engine.machines import load_machine
from meshsim.engine.policy import Policy
from meshsim.engine.simulation import Simulation
from meshsim.engine.workload import from_columns


def arbitrary_sizes(seed: int, n: int = 160):
    """Jobs of any size from 1 to 64 nodes (as the SDSC SP2 log has), so boxes fragment the
    torus and migration re-packs often."""
    rng = np.random.default_rng(seed)
    runtime = rng.exponential(400.0, n)
    return from_columns(
        "arbitrary",
        submit=np.sort(rng.uniform(0, 20_000, n)),
        runtime=runtime,
        size=rng.integers(1, 65, n),
        estimate=runtime * 1.5,
    )


def run(backfill: str, monkeypatch: pytest.MonkeyPatch, *, remembers: bool) -> tuple:
    """The start times, migration counts and the number of choices made (placements computed)."""
    choices = []
    choose = MaxFreeBox.choose

    def counted(self, candidates, busy):
        choices.append(len(candidates))
        return choose(self, candidates, busy)

    with monkeypatch.context() as patch:
        patch.setattr(MaxFreeBox, "remembers", remembers)
        patch.setattr(MaxFreeBox, "choose", counted)
        sim = Simulation(
            load_machine("bgl"),
            arbitrary_sizes(5),
            Policy(allocator="max-free-box", backfill=backfill, migrate=True),
            actions=[Fail(3_000.0, unit="1,1,1"), Repair(9_000.0, unit="1,1,1")],
        )
        sim.run()
    return sim.start_times().tolist(), sim.migration, len(choices)


@pytest.mark.parametrize("backfill", ["none", "easy"])
def test_remembered_placements_change_no_decision(backfill, monkeypatch):
    starts, migration, choices = run(backfill, monkeypatch, remembers=True)
    starts_without, migration_without, choices_without = run(backfill, monkeypatch, remembers=False)
    assert starts == starts_without
    assert migration == migration_without
    assert migration.passes > 0  # the workload does re-pack
    assert choices < choices_without  # and the memo answers some of the questions
