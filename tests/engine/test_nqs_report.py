"""Table 5 of the NQS report (seed 004 §4): the expansion factor is (Σ execution + Σ wait) /
Σ execution per queue, as every row of the paper's table satisfies."""

from dataclasses import replace

import numpy as np
import pytest

import engine.nqs.report  # noqa: F401
from engine.machines import load_machine
from engine.policy import Policy
from engine.reports import REPORTS
from engine.simulation import Simulation
from engine.workload import from_columns
from tests.conftest import DATA
from tests.engine.test_nqs import HEADER


def test_table5_expansion_factor_is_total_over_total():
    machine = load_machine(str(DATA / "nqs-small.toml"))
    # queue "low": a 16-node job runs 0-3600, a second one waits for it and runs 100 s
    w = from_columns(
        "ef",
        submit=np.zeros(2),
        queue=np.array([1, 1]),
        size=np.array([16, 16]),
        runtime=np.array([3600.0, 100.0]),
    )
    sim = Simulation(machine, replace(w, header=HEADER), Policy.for_machine(machine))
    sim.run()
    assert sim.start_times().tolist() == [0.0, 3600.0]
    table5 = next(t for t in REPORTS.get("nqs")(sim) if t.name == "table5")
    [row] = table5.rows
    assert row[0] == "low" and row[1] == "2"
    assert float(row[5]) == pytest.approx((3600 + 3700) / 3700, abs=0.05)  # not (1 + 37) / 2
