"""Seed 002 §2 on 3D machines: "If we cannot fit a job of size p in the system, we artificially
increase its size and retry" (issue 23, item 4). A job none of whose boxes is free now takes the
smallest larger volume that has a free box; a job with a given shape and a 2D mesh do not grow; a
reservation plans the job's own boxes; a migrated job keeps the volume it holds."""

import numpy as np

from meshsim.engine.allocation.allocator import ALLOCATORS, Placement
from meshsim.engine.core.jobs import Job
from meshsim.engine.core.policy import Policy
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.topology.machines import load_machine
from meshsim.engine.workloads.shapes import box
from meshsim.engine.workloads.workload import from_columns

BGL = load_machine("bgl")  # a 4 x 4 x 8 torus


def job(index: int, size: int, shape: tuple[int, ...] | None = None) -> Job:
    return Job(index, index, 0.0, 1.0, 1.0, size, size, shape=shape)


def planes_taken(*planes: int):
    """A max-free-box allocator on BG/L with every cell of the given z planes busy."""
    allocator = ALLOCATORS.get("max-free-box")(BGL, np.random.default_rng(0))
    cells = np.arange(BGL.nodes).reshape(4, 4, 8)[:, :, list(planes)].ravel()
    allocator.allocate(job(999, len(cells)), Placement(tuple(cells.tolist()), len(cells)))
    return allocator


def test_a_job_whose_boxes_are_taken_grows_to_the_next_volume_with_a_free_box():
    # with planes z = 3 and z = 7 taken, every 1 x 1 x 7 run of the ring crosses one of them, so no
    # box of 7 nodes is free; 2 x 2 x 2 (8 nodes) between them is
    allocator = planes_taken(3, 7)
    seven = job(1, 7)
    placement = allocator.find(seven)
    assert placement is not None and placement.nodes == 8 and len(placement.cells) == 8
    assert allocator.fits(seven)
    busy = allocator.busy()
    assert allocator.place_on(seven, busy, grow=False) is None
    assert allocator.place_on(seven, busy).nodes == 8
    # the growth takes the smallest volume that fits: 6 nodes (1 x 2 x 3) fit untouched
    assert allocator.find(job(2, 6)).nodes == 6


def test_a_job_with_a_given_shape_does_not_grow():
    allocator = planes_taken(3, 7)
    assert allocator.find(job(1, 7, shape=(1, 1, 7))) is None
    assert not allocator.fits(job(1, 7, shape=(1, 1, 7)))


def test_a_job_grows_no_further_than_the_free_nodes():
    allocator = planes_taken(0, 1, 2, 3, 4, 5, 6)  # 16 free nodes: one 4 x 4 x 1 plane
    assert allocator.find(job(1, 15)).nodes == 16
    assert allocator.find(job(2, 17)) is None


def test_a_2d_mesh_does_not_grow():
    allocator = ALLOCATORS.get("first-fit")(load_machine("mesh32"), np.random.default_rng(0))
    assert not allocator.grows


def test_a_repack_keeps_the_volume_a_job_grew_to():
    allocator = planes_taken(3, 7)
    seven = job(1, 7)
    grown = allocator.find(seven)
    plan = allocator.repack([(seven, grown)])
    assert plan is not None and plan[1].nodes == 8


def test_runs_with_growth_hold_more_nodes_than_asked_and_finish_every_job():
    """Sizes of 1 to 64 nodes, as the SDSC SP2 log has, under FCFS, migration, backfilling and
    both: every job finishes, none holds fewer nodes than its own boxes have, and some grew past
    them."""
    rng = np.random.default_rng(7)
    n = 300
    runtime = rng.exponential(500.0, n)
    workload = from_columns(
        "arbitrary",
        submit=np.sort(rng.uniform(0, 40_000, n)),
        runtime=runtime,
        size=rng.integers(1, 65, n),
        estimate=runtime * 2,
    )
    for backfill, migrate in (("none", False), ("none", True), ("easy", False), ("easy", True)):
        sim = Simulation(BGL, workload, Policy(backfill=backfill, migrate=migrate))
        sim.run()
        assert sim.results().metrics["jobs"] == n
        table = sim.job_table()
        own = np.array([box(int(size), (4, 4, 8)).volume for size in table["size"]])
        assert (table["allocated"] >= own).all()
        assert (table["allocated"] > own).any(), (backfill, migrate)
