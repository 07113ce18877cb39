"""The contention runtime model inside the engine (Mache 1999, Ch. VII)."""

import numpy as np
import pytest

from meshsim.engine.core.policy import Policy
from meshsim.engine.core.toml_table import Table
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.topology.machines import load_machine
from meshsim.engine.workloads.generators import ROOT, generate
from meshsim.engine.workloads.workload import from_columns


@pytest.fixture(scope="module")
def machine():
    return load_machine("paragon-io")


def two_jobs(gap: float):
    return from_columns(
        "two",
        submit=np.array([0.0, gap]),
        runtime=np.array([100.0, 100.0]),
        size=np.array([16, 16]),
    )


def test_a_job_alone_keeps_its_runtime(machine):
    sim = Simulation(
        machine, two_jobs(1000.0), Policy(allocator="paging", runtime_model="contention")
    )
    sim.run()
    table = sim.job_table()
    assert table["end"] - table["start"] == pytest.approx([100.0, 100.0])


def test_jobs_sharing_the_io_links_slow_each_other(machine):
    sim = Simulation(
        machine, two_jobs(10.0), Policy(allocator="paging", runtime_model="contention")
    )
    sim.run()
    runtime = sim.job_table()["end"] - sim.job_table()["start"]
    assert (runtime > 100.0 + 1e-6).all()  # both ran longer while they overlapped
    m = sim.results().metrics
    assert m["max_contention_event_mean"] > 0
    assert m["avg_runtime_s"] == pytest.approx(runtime.mean())


def test_moved_completions_leave_no_trace_after_the_last_end(machine):
    """When the second job ends early because the first one left the links, its first-planned
    completion is cancelled: the clock and the time integrals stop at the last real end, so unused
    capacity is never counted past it (it was, before the fix: lost capacity < 0)."""
    sim = Simulation(
        machine, two_jobs(10.0), Policy(allocator="paging", runtime_model="contention")
    )
    sim.run()
    last_end = sim.job_table()["end"].max()
    assert sim.done
    assert sim.now == last_end
    assert sim.time.integrals.last == last_end
    assert sim.events == 4  # two arrivals, two ends; moved completions are not events
    assert sim.results().metrics["lost_capacity"] == pytest.approx(0.0, abs=1e-12)


def test_balance_ranking_of_table_8(machine):
    """Table 8: Paging > MBS > MC > MC Elongated > Random > PLAS in average balance factor."""
    table = Table(
        {
            "workload": {
                "kind": "mache-io",
                "jobs": 400,
                "mean_interarrival": 500,
                "iterations": 40000,
                "io_share": 1.0,
                "seed": 1,
            }
        },
        "test",
        "",
        ROOT,
    )
    workload = generate(table, machine, 0)
    balance = {}
    for name in ("paging", "mbs", "mc", "mc-elongated", "random", "plas"):
        sim = Simulation(machine, workload, Policy(allocator=name, runtime_model="contention"))
        sim.run()
        balance[name] = sim.results().metrics["balance_event_mean"]
    ranked = sorted(balance, key=balance.get, reverse=True)
    assert ranked == ["paging", "mbs", "mc", "mc-elongated", "random", "plas"], balance
    assert balance["plas"] < 1.5
