"""``--alloc recorded``: every job on its recorded partition, never two conflicting partitions at
once, every placeable job started, and every other job rejected by reason."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from meshsim.engine.core.policy import Policy
from meshsim.engine.families.partitions.menu import build_menu
from meshsim.engine.families.partitions.recorded import NO_RECORD, TOO_SMALL, partition_midplanes
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.topology.machines import load_machine
from meshsim.engine.workloads.swf import parse_header
from meshsim.engine.workloads.workload import from_columns

INTREPID = load_machine("intrepid")
MENU = build_menu(INTREPID.spec)
NAMES = ["ANL-R00-M0-512", "ANL-R00-1024", "ANL-R00-R01-2048", "ANL-R02-R03-2048",
         "ANL-R10-R17-8192", "ANL-R00-R17-16384"]  # fmt: skip
NODES = [512, 1024, 2048, 2048, 8192, 16384]
PLACES = [
    next(p.name for p in MENU.partitions if p.midplanes == partition_midplanes(n, INTREPID.spec))
    for n in NAMES
]
"""The menu partition of each name."""


def workload(rows: list[tuple[int, int, int]]):
    """Jobs of (recorded partition number or -1, runtime, backfill-relevant estimate factor)."""
    n = len(rows)
    w = from_columns(
        "recorded",
        submit=np.arange(n) * 20.0,
        size=np.array([NODES[p] if p >= 0 else 512 for p, _, _ in rows]),
        runtime=np.array([float(r) for _, r, _ in rows]),
        estimate=np.array([float(r * f) for _, r, f in rows]),
    )
    lines = [f" Partition: {k + 1} {name}" for k, name in enumerate(NAMES)]
    partition = np.array([p + 1 if p >= 0 else -1 for p, _, _ in rows])
    return replace(w, partition=partition, header=parse_header(lines))


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(-1, len(NAMES) - 1), st.integers(60, 3000), st.integers(1, 3)),
        min_size=1,
        max_size=30,
    ),
    st.sampled_from(["none", "easy", "conservative"]),
)
def test_jobs_run_where_they_ran_and_never_conflict(rows, backfill):
    w = workload(rows)
    sim = Simulation(INTREPID, w, Policy(allocator="recorded", backfill=backfill))
    while sim.step() is not None:
        held = [sim.allocator.partition_of(r.placement) for r in sim.running.values()]
        for i, a in enumerate(held):
            for b in held[i + 1 :]:
                assert not MENU.conflicts[a.index] >> b.index & 1
    table = sim.job_table()
    for job_id, location in zip(table["job_id"].tolist(), table["location"].tolist(), strict=True):
        assert location == PLACES[rows[job_id - 1][0]]
    assert sim.rejected.get(NO_RECORD, 0) == sum(p < 0 for p, _, _ in rows)
    assert len(table["job_id"]) == sum(p >= 0 for p, _, _ in rows)


def test_a_job_larger_than_its_recorded_partition_is_rejected():
    w = workload([(0, 600, 1)])
    w = replace(w, size=np.array([1024]))
    sim = Simulation(INTREPID, w, Policy(allocator="recorded"))
    sim.run()
    assert sim.rejected == {TOO_SMALL: 1}
