"""``max-free-box`` remembers its placements by busy mask and request (the speed-up of migration,
Krevat et al., seed 002 §2): a re-pack asks, step after step, what earlier re-packs asked, and the
answer is a function of the mask and the job's size and shape alone. Remembering changes no
decision: runs with and without the memo give the same schedule and migration counts, with units
out of service, under FCFS and backfilling."""

import numpy as np
import pytest

from meshsim.engine.allocation.contiguous_choice import MaxFreeBox
from meshsim.engine.core.policy import Policy
from meshsim.engine.kernel.actions import Fail, Repair
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.topology.machines import load_machine
from meshsim.engine.workloads.workload import from_columns


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
    return sim.start_times().tolist(), sim.state.migration, len(choices)


@pytest.mark.parametrize("backfill", ["none", "easy"])
def test_remembered_placements_change_no_decision(backfill, monkeypatch):
    starts, migration, choices = run(backfill, monkeypatch, remembers=True)
    starts_without, migration_without, choices_without = run(backfill, monkeypatch, remembers=False)
    assert starts == starts_without
    assert migration == migration_without
    assert migration.passes > 0  # the workload does re-pack
    assert choices < choices_without  # and the memo answers some of the questions


def test_the_memo_answers_only_what_it_was_told_and_stays_bounded(monkeypatch):
    from meshsim.engine.allocation import placement_memo
    from meshsim.engine.allocation.allocator import Placement

    monkeypatch.setattr(placement_memo, "PLACEMENTS_KEPT", 2)
    memo = placement_memo.PlacementMemo(enabled=True)
    busy = np.zeros((2, 2), dtype=bool)
    here = Placement((0, 1), 2, "(0,0) 1x2")
    first = memo.key(busy, 2, None)
    memo.keep(first, here)
    assert memo.get(first) is here
    assert memo.get(memo.key(busy, 2, (2, 1))) is placement_memo.UNKNOWN  # another shape
    busy[0, 0] = True
    memo.keep(memo.key(busy, 2, None), None)  # "does not fit" is an answer too
    assert memo.get(memo.key(busy, 2, None)) is None
    memo.keep(memo.key(busy, 1, None), here)  # a third answer empties the full memo first
    assert memo.get(first) is placement_memo.UNKNOWN
    off = placement_memo.PlacementMemo(enabled=False)
    off.keep(off.key(busy, 2, None), here)
    assert off.key(busy, 2, None) is None and off.get(None) is placement_memo.UNKNOWN
