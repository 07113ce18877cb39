"""``mesh-sides``: the synthetic workloads of seed 001 §5.1 (after Lo et al. and others).

Jobs arrive as a Poisson process with ``arrival_rate`` jobs per time unit; service times are
exponential with mean ``mean_service`` time units (simulation time units, not seconds). Each job
asks for a w × h submesh, w and h drawn independently:

- ``uniform``: w uniform over [1, W], h uniform over [1, H] (the machine's width and height);
- ``uniform-decreasing``: with ``probabilities`` p1..p4 and ``bounds`` l1 < l2 < l3, a side falls in
  [1, l1], [l1+1, l2], [l2+1, l3] or [l3+1, L] with probabilities p1..p4, uniformly within the range
  (L = W for widths, H for heights; ranges are cut at L).

Shapes are given (the workload's ``shapes`` column), so ``--shape`` does not change them; requested
time = service time (the paper assumes no estimates; EASY then uses exact ones). Options and
defaults are the keys read below; the seed drives the workload stream."""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from meshsim.engine.core.toml_table import Table
from meshsim.engine.topology.machines import Machine
from meshsim.engine.validation.rules import Rule
from meshsim.engine.validation.swf_columns import MAX_SECONDS
from meshsim.engine.workloads.generators import GENERATORS, check_jobs, generator_section
from meshsim.engine.workloads.workload import Workload, from_columns

MESH_SIDES = generator_section(
    "mesh-sides",
    (
        Rule("jobs", "int", minimum=1),
        Rule("arrival_rate", "float", minimum=1e-9, maximum=1e9, doc="jobs per time unit"),
        Rule("mean_service", "float", 1.0, minimum=1e-9, maximum=MAX_SECONDS),
        Rule("side_distribution", "str", "uniform", choices=("uniform", "uniform-decreasing")),
        Rule(
            "probabilities",
            "float list",
            [0.4, 0.2, 0.2, 0.2],
            minimum=0.0,
            maximum=1.0,
            doc="p1..p4, summing to 1",
        ),
        Rule("bounds", "int list", [4, 8, 16], minimum=1, doc="l1 < l2 < l3"),
    ),
    "w x h submeshes with Poisson arrivals and exponential service (seed 001 §5.1); needs a "
    "2D mesh",
)


def draw_sides(
    rng: np.random.Generator,
    n: int,
    limit: int,
    distribution: str,
    probabilities: list[float],
    bounds: list[int],
) -> np.ndarray:
    """``n`` side lengths in [1, limit] from the named distribution."""
    if distribution == "uniform":
        return rng.integers(1, limit + 1, size=n)
    edges = [0, *bounds, limit]
    ranges = [(lo + 1, min(hi, limit)) for lo, hi in pairwise(edges)]
    weights = np.array(
        [p if lo <= hi else 0.0 for p, (lo, hi) in zip(probabilities, ranges, strict=True)]
    )
    which = rng.choice(len(ranges), size=n, p=weights / weights.sum())
    lows = np.array([lo for lo, _ in ranges])[which]
    highs = np.array([hi for _, hi in ranges])[which]
    return lows + np.floor(rng.random(n) * (highs - lows + 1)).astype(np.int64)


@GENERATORS.register("mesh-sides")
def mesh_sides(t: Table, machine: Machine, rng: np.random.Generator) -> Workload:
    t = t.follow(MESH_SIDES)
    t.reject_unknown()
    dims = tuple(machine.spec.dims) if hasattr(machine.spec, "dims") else ()
    if len(dims) != 2:
        raise t.error("kind", f"mesh-sides needs a 2D mesh, machine '{machine.name}' is not one")
    n = t.get("jobs")
    check_jobs(t, n)
    rate = t.get("arrival_rate")
    service = t.get("mean_service")
    distribution = t.get("side_distribution")
    probabilities = t.get("probabilities")
    bounds = t.get("bounds")
    if len(probabilities) != 4 or abs(sum(probabilities) - 1.0) > 1e-9:
        raise t.error("probabilities", "expected four probabilities that sum to 1")
    if len(bounds) != 3 or bounds != sorted(set(bounds)):
        raise t.error("bounds", "expected three increasing integers")
    arrivals_rng, service_rng, sides_rng = rng.spawn(3)
    submit = np.cumsum(arrivals_rng.exponential(1.0 / rate, size=n))
    runtime = service_rng.exponential(service, size=n)
    width = draw_sides(sides_rng, n, dims[0], distribution, probabilities, bounds)
    height = draw_sides(sides_rng, n, dims[1], distribution, probabilities, bounds)
    return from_columns(
        f"mesh-sides({distribution}, {n} jobs, rate {rate:g})",
        submit=submit,
        runtime=runtime,
        size=width * height,
        shapes=np.stack([width, height], axis=1),
    )
