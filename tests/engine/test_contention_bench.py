"""The speed-benchmark drivers measure what they claim (timings themselves are not asserted)."""

import meshsim.engine.allocation.mc
import meshsim.engine.allocation.random_nodes  # noqa: F401
from meshsim.engine.families.contention.benchmarks import bench_allocator, bench_contention


def test_bench_allocator_places_every_job() -> None:
    b = bench_allocator("mc", 8, 8, jobs=30, seed=2)
    assert (b.allocator, b.dims, b.jobs) == ("mc", (8, 8), 30)
    assert b.decisions >= 30
    assert b.per_allocation_ms >= b.per_decision_ms > 0


def test_bench_contention_counts_pairs() -> None:
    b = bench_contention(k=8, jobs=4, repeat=1)
    assert (b.jobs, b.nodes, b.pairs) == (4, 64, 64 * 8)
    assert b.total_ms == b.route_ms + b.recompute_ms + b.runtime_ms > 0
