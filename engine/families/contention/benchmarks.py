"""Speed benchmarks of the non-contiguous allocators and the contention model (issue 5 targets).

These drive the modules directly, without the simulation engine, so the targets can be measured on
their own and wired into ``meshsim bench``:

- :func:`bench_allocator`: a stream of synthetic jobs (Table 7 sizes) kept "under load": a job that
  does not fit makes the oldest running job leave (FIFO departures) until it fits, so the mesh stays
  nearly full and fragmented. Target: MC on 32 × 32 with 1,000 jobs under 5 s;
- :func:`bench_contention`: 50 jobs with all-to-all (complete bipartite) write I/O placed by Random
  on a 32 × 32 mesh with 32 I/O nodes, routed from scratch, then the running set's contention
  recomputed. Target: under 50 ms.

Times are wall-clock (``time.perf_counter``), best of ``repeat`` runs."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from meshsim.engine.allocation.allocator import ALLOCATORS, Placement
from meshsim.engine.core.jobs import Job
from meshsim.engine.families.contention.io import IOLayout
from meshsim.engine.families.contention.runtime import iteration_times
from meshsim.engine.families.contention.state import contention
from meshsim.engine.families.contention.traffic import Traffic, job_traffic
from meshsim.engine.families.contention.workload import synthetic_io_workload
from meshsim.engine.topology.grid import GridSpec
from meshsim.engine.topology.machines import Machine


@dataclass(frozen=True)
class AllocatorBench:
    """Wall-clock cost of an allocator over one job stream."""

    allocator: str
    dims: tuple[int, int]
    jobs: int
    decisions: int
    seconds: float

    @property
    def per_decision_ms(self) -> float:
        """Mean time of one ``find`` plus, when it succeeds, ``allocate``."""
        return 1e3 * self.seconds / self.decisions

    @property
    def per_allocation_ms(self) -> float:
        """Total time per placed job (a failed ``find`` is a cheap free-count check)."""
        return 1e3 * self.seconds / self.jobs


@dataclass(frozen=True)
class ContentionBench:
    """Wall-clock cost of the contention model for one running set."""

    jobs: int
    nodes: int
    pairs: int
    route_ms: float
    recompute_ms: float
    runtime_ms: float

    @property
    def total_ms(self) -> float:
        """Routing every job from scratch plus the contention and runtime recomputation."""
        return self.route_ms + self.recompute_ms + self.runtime_ms


def mesh_machine(width: int, height: int) -> Machine:
    """An anonymous 2D mesh machine."""
    return Machine(
        name=f"mesh{width}x{height}", topology="mesh", spec=GridSpec((width, height), (False,) * 2)
    )


def bench_allocator(
    name: str, width: int = 32, height: int = 32, jobs: int = 1000, seed: int = 1
) -> AllocatorBench:
    """Run ``jobs`` synthetic jobs through allocator ``name`` under load (FIFO departures)."""
    machine = mesh_machine(width, height)
    sizes = synthetic_io_workload(
        np.random.default_rng(seed), jobs=jobs, max_size=width * height
    ).size
    alloc = ALLOCATORS.get(name)(machine, np.random.default_rng(seed))
    running: list[tuple[Job, Placement]] = []
    decisions = 0
    start = time.perf_counter()
    for i, size in enumerate(sizes.tolist()):
        job = Job(i, i, 0.0, 1.0, 1.0, size, size)
        while True:
            decisions += 1
            placement = alloc.find(job)
            if placement is not None:
                break
            old, where = running.pop(0)
            alloc.release(old, where)
        alloc.allocate(job, placement)
        running.append((job, placement))
    seconds = time.perf_counter() - start
    return AllocatorBench(name, (width, height), jobs, decisions, seconds)


def bench_contention(
    k: int = 32, jobs: int = 50, seed: int = 1, repeat: int = 5
) -> ContentionBench:
    """Route and recompute the write-I/O contention of ``jobs`` Random-placed jobs on k × k."""
    machine = mesh_machine(k, k)
    layout = IOLayout.square(k, k)
    alloc = ALLOCATORS.get("random")(machine, np.random.default_rng(seed))
    size = k * k // jobs
    cells = []
    for i in range(jobs):
        job = Job(i, i, 0.0, 1.0, 1.0, size, size)
        placement = alloc.find(job)
        assert placement is not None
        alloc.allocate(job, placement)
        cells.append(placement.cells)
    traffic = (Traffic("io-write"),)
    rng = np.random.default_rng(seed)
    best = [float("inf")] * 3
    for _ in range(repeat):
        t0 = time.perf_counter()
        routed = [job_traffic(layout, i, c, traffic, rng) for i, c in enumerate(cells)]
        t1 = time.perf_counter()
        contention(layout, routed)
        t2 = time.perf_counter()
        iteration_times(layout, routed)
        t3 = time.perf_counter()
        best = [min(b, v) for b, v in zip(best, (t1 - t0, t2 - t1, t3 - t2), strict=True)]
    return ContentionBench(
        jobs=jobs,
        nodes=jobs * size,
        pairs=jobs * size * layout.count,
        route_ms=1e3 * best[0],
        recompute_ms=1e3 * best[1],
        runtime_ms=1e3 * best[2],
    )
