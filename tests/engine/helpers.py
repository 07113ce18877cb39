"""Small builders for engine tests."""

import numpy as np

from meshsim.engine.core.policy import Policy
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.topology.machines import load_machine
from meshsim.engine.workloads.workload import Workload, from_columns


def workload(rows: list[tuple], name: str = "test") -> Workload:
    """Jobs from (submit, size, runtime[, estimate]) rows."""
    submit = np.array([r[0] for r in rows], dtype=float)
    size = np.array([r[1] for r in rows])
    runtime = np.array([r[2] for r in rows], dtype=float)
    estimate = np.array([r[3] if len(r) > 3 else r[2] for r in rows], dtype=float)
    return from_columns(name, submit=submit, size=size, runtime=runtime, estimate=estimate)


def run(nodes: int, rows: list[tuple], **policy) -> Simulation:
    """Run ``rows`` on flat:``nodes`` to the end."""
    sim = Simulation(load_machine(f"flat:{nodes}"), workload(rows), Policy(**policy))
    sim.run()
    return sim
