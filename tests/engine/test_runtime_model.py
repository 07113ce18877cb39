"""The contention runtime model inside the engine (Mache 1999, Ch. VII)."""

import numpy as np
import pytest

from engine.generators import generate
from engine.machines import load_machine
from engine.policy import Policy
from engine.simulation import Simulation
from engine.toml_table import Table
from engine.workload import from_columns


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
