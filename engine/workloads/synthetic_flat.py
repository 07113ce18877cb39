"""``flat-poisson``: a simple synthetic workload for node-count machines and benchmarks.

- arrivals: a Poisson process whose rate gives the requested offered ``load``:
  mean interarrival = E[size × runtime] / (N × load), with E estimated from the drawn jobs;
- sizes: 1 with probability ``serial_fraction``, else 2^k with k uniform on 1..log2(max_size)
  (parallel workloads favour powers of two; Lublin & Feitelson);
- runtimes: log-normal with median ``runtime_median`` seconds and shape ``runtime_sigma``, capped at
  ``runtime_max``;
- estimates: runtime × U(1, ``overestimate_max``), rounded up to whole minutes, never below the
  runtime (users overestimate; seed 000 §V-A).

Options and defaults are the keys of the ``[workload]`` table below."""

from __future__ import annotations

import numpy as np

from meshsim.engine.core.toml_table import Table
from meshsim.engine.topology.machines import Machine
from meshsim.engine.validation.rules import Rule
from meshsim.engine.validation.swf_columns import MAX_SECONDS
from meshsim.engine.workloads.generators import GENERATORS, check_jobs, generator_section
from meshsim.engine.workloads.workload import Workload, from_columns

FLAT_POISSON = generator_section(
    "flat-poisson",
    (
        Rule("jobs", "int", minimum=1),
        Rule("load", "float", 0.7, minimum=0.01, maximum=1e6, doc="offered load"),
        Rule("max_size", "int", None, minimum=1, doc="at most the machine (default: all of it)"),
        Rule("serial_fraction", "float", 0.25, minimum=0.0, maximum=1.0),
        Rule("runtime_median", "float", 900.0, minimum=1.0, maximum=MAX_SECONDS),
        Rule("runtime_sigma", "float", 1.5, minimum=0.0, maximum=100.0),
        Rule("runtime_max", "float", 43200.0, minimum=1.0, maximum=MAX_SECONDS),
        Rule("overestimate_max", "float", 3.0, minimum=1.0, maximum=1e6),
        Rule("users", "int", 50, minimum=1, maximum=1 << 31),
    ),
    "Poisson arrivals, power-of-two sizes, log-normal runtimes (module docstring)",
)


@GENERATORS.register("flat-poisson")
def flat_poisson(t: Table, machine: Machine, rng: np.random.Generator) -> Workload:
    t = t.follow(FLAT_POISSON)
    t.reject_unknown()
    n = t.get("jobs")
    check_jobs(t, n)
    load = t.get("load")
    max_size = t.get("max_size") or machine.nodes
    if max_size > machine.nodes:
        raise t.error("max_size", f"exceeds the machine's {machine.nodes} nodes")
    serial = t.get("serial_fraction")
    median = t.get("runtime_median")
    sigma = t.get("runtime_sigma")
    cap = t.get("runtime_max")
    over = t.get("overestimate_max")
    users = t.get("users")
    return flat_poisson_columns(
        rng, machine.nodes, n, load, max_size, serial, median, sigma, cap, over, users
    )


def flat_poisson_columns(
    rng: np.random.Generator,
    nodes: int,
    n: int,
    load: float,
    max_size: int,
    serial: float,
    median: float,
    sigma: float,
    cap: float,
    over: float,
    users: int,
) -> Workload:
    """The generator itself, on plain arguments (see the module docstring)."""
    top = max(1, int(np.log2(max_size)))
    exponents = rng.integers(1, top + 1, size=n)
    size = np.where(rng.random(n) < serial, 1, 2**exponents)
    size = np.minimum(size, max_size)
    runtime = np.minimum(np.round(rng.lognormal(np.log(median), sigma, size=n)), cap)
    estimate = np.maximum(np.ceil(runtime * rng.uniform(1.0, over, size=n) / 60.0) * 60.0, runtime)
    mean_gap = float(np.mean(size * runtime)) / (nodes * load)
    submit = np.round(np.cumsum(rng.exponential(mean_gap, size=n)))
    user = rng.integers(1, users + 1, size=n)
    return from_columns(
        f"flat-poisson({n} jobs, load {load:g})",
        submit=submit,
        runtime=runtime,
        estimate=estimate,
        size=size,
        user=user,
    )
