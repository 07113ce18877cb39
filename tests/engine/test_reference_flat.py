"""The engine's flat FCFS and EASY starts equal an independent reference on real traces."""

import numpy as np
import pytest

from meshsim.engine.core.policy import Policy
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.topology.machines import load_machine
from meshsim.engine.workloads.swf import read_swf
from meshsim.engine.workloads.workload import from_swf
from tests.conftest import DATA, LUBLIN, NASA, ROOT, require_trace
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


ZERO_ESTIMATE = ROOT / "tests" / "golden" / "inputs" / "zero-estimate.swf"


@pytest.mark.parametrize(
    ("machine", "allocator"), [("flat:4", None), (str(DATA / "line4.toml"), "first-fit")]
)
def test_a_job_without_estimate_ends_by_a_shadow_time_of_now(machine, allocator):
    """EASY's rule (README, "How it models scheduling"): a later job starts now if it fits and ends
    by the head's shadow time (now + estimate <= shadow) or uses no more than the extra nodes. In
    the file's case the head is reserved for now (job 1 overran its estimate) with no extra node:
    job 3, estimate 0, starts at once on the free node; job 4, estimate 5 s, would run across the
    shadow time and waits. The same as the reference, on the node-count rule and on a mesh's
    planner."""
    m = load_machine(machine)
    workload = from_swf(read_swf(ZERO_ESTIMATE), m)
    sim = Simulation(m, workload, Policy(backfill="easy", allocator=allocator))
    sim.run()
    starts = dict(zip(workload.job_id.tolist(), sim.start_times().tolist(), strict=True))
    assert starts == {1: 0.0, 2: 100.0, 3: 60.0, 4: 110.0}
    assert starts == reference_flat.simulate(reference_flat.read_jobs(ZERO_ESTIMATE), 4, easy=True)
