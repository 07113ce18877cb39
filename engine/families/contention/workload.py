"""The synthetic I/O workload of Mache 1999, Ch. VII, Table 7 (workload I).

Table 7: 1000 jobs, exponential job sizes with "mean = 4 * 4", exponential interarrival times whose
mean varies with the load studied (500 for Table 8; 500 … 20 for Table 9, L2501). Choices:

- *sizes* (extraction ambiguity 5): "4 * 4" is read as a mean of 16 nodes (Ch. IV's "mean of 16",
  L1244), not as w and h each exponential with mean 4. Sizes are the discrete analogue of the
  exponential, the geometric distribution on 1, 2, … with p = 1 / mean (memoryless, mean exactly
  ``mean_size``), capped at ``max_size`` (the machine size);
- *arrivals*: a Poisson process from time 0 (the first job arrives after one interarrival time);
- *service demand*: no computation (L1253, L2258); every job runs the same number of ``iterations``
  of its traffic pattern (L2258), so its message count grows with its size; the time an iteration
  takes comes from :mod:`meshsim.engine.families.contention.runtime`;
- *I/O share*: the same fraction of traffic for every job (L2665; see
  :func:`meshsim.engine.families.contention.traffic.mixed_traffic`).

Randomness: the generator passed in spawns one child stream for arrivals and one for sizes, so the
sizes do not change when the interarrival mean does. Cost O(jobs)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.toml_table import Table
from meshsim.engine.topology.machines import Machine
from meshsim.engine.validation.rules import Rule
from meshsim.engine.validation.swf_columns import MAX_SECONDS
from meshsim.engine.workloads.generators import GENERATORS, check_jobs, generator_section
from meshsim.engine.workloads.workload import Workload, from_columns


@dataclass(frozen=True, eq=False)
class SyntheticIOWorkload:
    """Per-job arrays, in arrival order."""

    arrival: np.ndarray
    size: np.ndarray
    iterations: np.ndarray
    io_share: np.ndarray


def synthetic_io_workload(
    rng: np.random.Generator,
    *,
    jobs: int = 1000,
    mean_interarrival: float = 500.0,
    mean_size: float = 16.0,
    max_size: int = 352,
    iterations: float = 100.0,
    io_share: float = 1.0,
) -> SyntheticIOWorkload:
    """Table 7's workload I: exponential interarrivals and sizes, equal iterations and I/O share."""
    if jobs < 0 or mean_interarrival <= 0 or mean_size < 1 or max_size < 1 or iterations <= 0:
        raise MeshsimError(
            "synthetic I/O workload: need jobs >= 0, mean interarrival > 0, mean size >= 1, "
            "max size >= 1 and iterations > 0"
        )
    if not 0.0 <= io_share <= 1.0:
        raise MeshsimError(f"synthetic I/O workload: I/O share must lie in [0, 1], got {io_share}")
    arrivals_rng, sizes_rng = rng.spawn(2)
    arrival = np.cumsum(arrivals_rng.exponential(mean_interarrival, size=jobs))
    size = np.minimum(sizes_rng.geometric(1.0 / mean_size, size=jobs), max_size).astype(np.int64)
    return SyntheticIOWorkload(
        arrival=arrival,
        size=size,
        iterations=np.full(jobs, float(iterations)),
        io_share=np.full(jobs, float(io_share)),
    )


MACHE_IO = generator_section(
    "mache-io",
    (
        Rule("jobs", "int", 1000, minimum=1),
        Rule("mean_interarrival", "float", 500.0, minimum=1e-9, maximum=MAX_SECONDS),
        Rule("mean_size", "float", 16.0, minimum=1.0, maximum=1 << 31),
        Rule("iterations", "float", 100.0, minimum=1e-9, maximum=MAX_SECONDS),
        Rule("io_share", "float", 1.0, minimum=0.0, maximum=1.0),
    ),
    "Table 7's synthetic I/O workload (Mache); run it with --runtime-model contention",
)


@GENERATORS.register("mache-io")
def mache_io(t: Table, machine: Machine, rng: np.random.Generator) -> Workload:
    """Table 7's workload as a workload file (``kind = "mache-io"``): ``jobs``,
    ``mean_interarrival``, ``mean_size``, ``iterations``, ``io_share``. Runtimes and estimates are
    set to the iteration count; run it with ``--runtime-model contention``, which replaces them by
    the time the iterations take."""
    t = t.follow(MACHE_IO)
    t.reject_unknown()
    check_jobs(t, t.get("jobs"))
    spec = synthetic_io_workload(
        rng,
        jobs=t.get("jobs"),
        mean_interarrival=t.get("mean_interarrival"),
        mean_size=t.get("mean_size"),
        max_size=machine.nodes,
        iterations=t.get("iterations"),
        io_share=t.get("io_share"),
    )
    return from_columns(
        f"mache-io({len(spec.size)} jobs)",
        submit=spec.arrival,
        runtime=spec.iterations,
        size=spec.size,
        attrs={"iterations": spec.iterations, "io_share": spec.io_share},
    )
