"""The engine's flat FCFS and EASY starts equal an independent reference on real traces."""

import numpy as np
import pytest

from meshsim.engine.machines import load_machine
from meshsim.engine.policy import Policy
from meshsim.engine.simulation import Simulation
from meshsim.engine.swf import read_swf
from meshsim.engine.workload import from_swf
from tests.conftest import LUBLIN, NASA, require_trace
from tests.engine import reference_flat

CASES = [
    (NASA, 128, 1.0),
    (NASA, 128, 1.5),
    (LUBLIN, 256, 1.0),
    (LUBLIN, 256, 1.5),
]


@pytest.mark.parametrize("backfill", ["none", "easy"])
@pytest.mark.parametrize(
    ("trace", "nodes", "scale"), CASES, ids=lambda v: str(getattr(v, "name", v))
)
def test_start_times_equal_reference(trace, nodes, scale, backfill):
    path = require_trace(trace)
    machine = load_machine(f"flat:{nodes}")
    workload = from_swf(read_swf(path), machine).scaled(runtime_scale=scale)
    sim = Simulation(machine, workload, Policy(queue="fcfs", backfill=backfill))
    sim.run()
    engine_start = dict(zip(workload.job_id.tolist(), sim.start_times().tolist(), strict=True))
    jobs = reference_flat.read_jobs(path, runtime_scale=scale)
    expected = reference_flat.simulate(jobs, nodes, easy=backfill == "easy")
    assert len(expected) == len(engine_start)
    mismatches = [j for j, t in expected.items() if engine_start[j] != t]
    assert mismatches == [], f"{len(mismatches)} jobs differ, first {mismatches[:5]}"
    assert not np.isnan(sim.start_times()).any()
