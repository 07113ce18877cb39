"""Intrepid (seed 000): the partition menu, the wiring examples of §II-A and Fig. 2, least-blocking
(§II-B), SL (Fig. 3), PF (Fig. 4), AdjEst, and the properties of partition allocation."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from meshsim.engine.allocation.allocator import ALLOCATORS
from meshsim.engine.core.jobs import Job
from meshsim.engine.core.policy import Policy
from meshsim.engine.families.partitions.menu import build_menu
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.topology.machines import load_machine
from meshsim.engine.workloads.workload import from_columns

INTREPID = load_machine("intrepid")
MENU = build_menu(INTREPID.spec)
NAMES = {n: i for i, n in enumerate(INTREPID.spec.names)}


def allocator(name="least-blocking"):
    return ALLOCATORS.get(name)(INTREPID, np.random.default_rng(0))


def partition(*midplanes):
    """The menu partition made of exactly these midplanes."""
    wanted = tuple(sorted(NAMES[m] for m in midplanes))
    return next(p for p in MENU.partitions if p.midplanes == wanted)


def job(index, nodes, estimate=3600.0, runtime=None, user=-1, group=-1):
    return Job(index, index + 1, 0.0, runtime or estimate, estimate, nodes, nodes * 4, user, group)


def take(alloc, index, *midplanes, start=0.0, estimate=3600.0):
    p = partition(*midplanes)
    alloc.now = start
    j = job(index, p.nodes, estimate)
    alloc.allocate(j, alloc.placement(p.index))
    return j


def usable(alloc, *midplanes):
    return bool(alloc.usable >> partition(*midplanes).index & 1)


def test_menu_counts_per_size():
    assert MENU.counts() == {
        "512": 80,
        "1K": 240,
        "2K": 220,
        "4K": 60,
        "8K": 5,
        "16K": 10,
        "32K": 5,
        "40K": 1,
    }
    assert INTREPID.nodes == 40960 and INTREPID.procs_per_unit == 4
    assert INTREPID.spec.names[0] == "R00-M0" and INTREPID.spec.names[-1] == "R47-M1"


def test_fig2_wiring_examples():
    alloc = allocator()
    take(alloc, 0, "R00-M0", "R00-M1", "R02-M0", "R02-M1")  # the 1x2x2 partition of Fig. 2(a)
    assert not usable(alloc, "R01-M0", "R01-M1")  # its column wiring is taken
    assert usable(alloc, "R01-M0", "R03-M0")
    assert usable(alloc, "R01-M0", "R05-M0")
    assert usable(alloc, "R01-M1", "R05-M1")
    assert not usable(alloc, "R04-M0", "R06-M0")  # its row wiring is taken
    assert usable(alloc, "R01-M0") and usable(alloc, "R04-M0")
    # The 1x1x4 partition of R04/R05 uses only wiring inside itself.
    before = alloc.usable
    take(alloc, 1, "R04-M0", "R04-M1", "R05-M0", "R05-M1")
    lost = [
        MENU.partitions[q]
        for q in range(len(MENU.partitions))
        if before >> q & 1 and not alloc.usable >> q & 1
    ]
    assert all(
        set(p.midplanes) & set(partition("R04-M0", "R04-M1", "R05-M0", "R05-M1").midplanes)
        for p in lost
    )


def test_least_blocking_example_of_section_2b():
    alloc = allocator()
    take(alloc, 0, "R00-M0", "R00-M1", "R02-M0", "R02-M1")
    take(alloc, 1, "R04-M0", "R04-M1", "R05-M0", "R05-M1")
    for r in range(1, 5):
        for rack in range(8):
            for m in (0, 1):
                take(alloc, 100 + r * 16 + rack * 2 + m, f"R{r}{rack}-M{m}")
    chosen = alloc.find(job(9, 1024))
    assert chosen.label in ("1K R01-M0..R03-M0", "1K R01-M1..R03-M1")
    # the alternatives all fragment the 1x1x4 block of R06/R07
    vertical = partition("R06-M0", "R06-M1")
    score = lambda p: (alloc.usable & MENU.conflicts[p.index]).bit_count()  # noqa: E731
    assert score(alloc.partition_of(chosen)) < score(vertical)
    assert score(alloc.partition_of(chosen)) < score(partition("R07-M0", "R01-M0"))


def test_similar_length_scenario_of_fig3():
    alloc = allocator("sl")
    # Jobs a (R00-M0, ends soon), c (R02-M1, ends with e), b and d fill R01 and R03-M0's pair...
    take(alloc, 0, "R00-M0", estimate=600.0)  # job a
    take(alloc, 1, "R02-M1", estimate=7000.0)  # job c
    take(alloc, 2, "R03-M0", estimate=30000.0)
    e = job(9, 512, estimate=7200.0)
    # Candidates of equal blocking: R00-M1 (next to a), R02-M0 (next to c), R03-M1 (next to the
    # long job). SL picks the one whose neighbour ends closest to e: R02-M0.
    base = allocator()
    for other in (base,):
        take(other, 0, "R00-M0", estimate=600.0)
        take(other, 1, "R02-M1", estimate=7000.0)
        take(other, 2, "R03-M0", estimate=30000.0)
    alloc.now = 100.0
    restricted = sum(1 << partition(m).index for m in ("R00-M1", "R02-M0", "R03-M1"))
    assert MENU.partitions[alloc.choose(e, restricted, 100.0)].name == "R02-M0"
    assert MENU.partitions[base.choose(e, restricted, 100.0)].name == "R00-M1"  # menu order


def test_paired_job_filling_of_fig4():
    alloc = allocator("pf")
    c = job(2, 512, estimate=3600.0)
    waiting = [
        job(3, 2048, estimate=3600.0),
        job(4, 512, estimate=20000.0),
        job(5, 512, estimate=4000.0),
    ]
    placement = alloc.placement(partition("R00-M0").index)
    alloc.allocate(c, placement)
    mate, where = alloc.companion(c, placement, waiting)
    assert (
        mate.job_id == 6 and where.label == "R00-M1"
    )  # same size, closest walltime, on the idle neighbour
    # no pairing when the neighbour is busy
    take(alloc, 7, "R01-M1")
    other = alloc.placement(partition("R01-M0").index)
    alloc.allocate(job(8, 512), other)
    assert alloc.companion(job(8, 512), other, waiting) is None


def test_pf_end_to_end_starts_the_pair_together():
    w = from_columns(
        "pairs",
        submit=np.array([0.0, 0.0, 1.0]),
        runtime=np.array([100.0, 100.0, 100.0]),
        size=np.array([40960, 512, 512]),
        estimate=np.array([100.0, 500.0, 520.0]),
    )
    sim = Simulation(INTREPID, w, Policy(allocator="pf"))
    sim.run()
    assert sim.start_times().tolist() == [0.0, 100.0, 100.0]
    where = sim.job_table()["location"].tolist()
    assert sorted(where[1:]) == ["R00-M0", "R00-M1"]


def test_adjest_uses_user_then_project_history():
    alloc = allocator("adjest")
    new = job(50, 512, estimate=1000.0, user=7, group=3)
    assert alloc.walltime(new) == 1000.0  # no history yet
    for k, runtime in enumerate([300.0, 500.0]):
        alloc.finished(job(k, 512, estimate=1000.0, runtime=runtime, user=8, group=3))
    assert alloc.walltime(new) == 1000.0  # project has 2 < 3 finished jobs: warm-up
    alloc.finished(job(2, 512, estimate=1000.0, runtime=400.0, user=9, group=3))
    assert alloc.walltime(new) == pytest.approx(400.0)  # project mean ratio 0.4
    for k, runtime in enumerate([100.0, 200.0, 300.0]):
        alloc.finished(job(10 + k, 512, estimate=1000.0, runtime=runtime, user=7, group=4))
    assert alloc.walltime(new) == pytest.approx(200.0)  # the user's own mean ratio 0.2 wins
    assert allocator("actrun").walltime(job(1, 512, estimate=1000.0, runtime=123.0)) == 123.0


def test_explanations_name_the_blocking_wiring():
    alloc = allocator()
    take(alloc, 0, "R00-M0", "R00-M1", "R02-M0", "R02-M1")
    for rack in (4, 5, 6, 7):
        for m in (0, 1):
            take(alloc, 10 + rack * 2 + m, f"R0{rack}-M{m}")
    for r in range(1, 5):
        for rack in range(8):
            for m in (0, 1):
                take(alloc, 100 + r * 16 + rack * 2 + m, f"R{r}{rack}-M{m}")
    text = alloc.explain(job(9, 2048))
    assert text == (
        "needs 2K, 2K idle but no free 2K partition: blocked by wiring of 2K R00-M0..R02-M1"
    )


PARTITION_ALLOCATORS = sorted(
    n for n in ALLOCATORS if "partitions" in ALLOCATORS.get(n).topologies and n != "recorded"
)
"""Every allocator of the least-blocking family (Base, SL, PF, Combo, AdjEst, ActRun); ``recorded``
places only jobs whose log names their partition (tests/logs/test_recorded_placement.py)."""


def test_the_property_samples_the_whole_family():
    assert PARTITION_ALLOCATORS == ["actrun", "adjest", "combo", "least-blocking", "pf", "sl"]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([300, 512, 1000, 2048, 3000, 8192, 16384]),
            st.integers(60, 5000),
            st.sampled_from([1.0, 1.5, 2.0, 4.0]),
            st.integers(0, 3),
        ),
        min_size=1,
        max_size=40,
    ),
    st.sampled_from(PARTITION_ALLOCATORS),
)
def test_running_partitions_never_conflict(rows, name):
    """Estimates overstate runtimes by a sampled factor and four users share two projects, so
    AdjEst's history warms up and ActRun's actual runtimes differ from the requests."""
    n = len(rows)
    w = from_columns(
        "random",
        submit=np.arange(n) * 30.0,
        size=np.array([r[0] for r in rows]),
        runtime=np.array([float(r[1]) for r in rows]),
        estimate=np.array([float(r[1]) * r[2] for r in rows]),
        user=np.array([r[3] for r in rows]),
        group=np.array([r[3] % 2 for r in rows]),
    )
    sim = Simulation(INTREPID, w, Policy(allocator=name, backfill="easy", queue="wfp"))
    while sim.step() is not None:
        held = [sim.allocator.partition_of(r.placement) for r in sim.running.values()]
        for i, a in enumerate(held):
            for b in held[i + 1 :]:
                assert not MENU.conflicts[a.index] >> b.index & 1
        for r in sim.running.values():
            assert r.placement.nodes >= r.job.size
    assert not np.isnan(sim.start_times()).any()


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([300, 512, 1000, 2048, 4096]),
            st.integers(60, 20000),
            st.sampled_from([1.0, 1.5, 3.0]),
            st.integers(0, 3),
        ),
        min_size=1,
        max_size=60,
    ),
    st.sampled_from(PARTITION_ALLOCATORS),
)
def test_remembered_decisions_match_a_fresh_allocator(rows, name):
    """The allocators remember least-blocking ties, SL's neighbour ends and AdjEst's means between
    changes of the busy set; after every event an allocator rebuilt from the running jobs alone
    (nothing remembered) places every waiting job where the simulation's would, and counts the same
    idle nodes."""
    n = len(rows)
    w = from_columns(
        "random",
        submit=np.arange(n) * 5.0,
        size=np.array([r[0] for r in rows]),
        runtime=np.array([float(r[1]) for r in rows]),
        estimate=np.array([float(r[1]) * r[2] for r in rows]),
        user=np.array([r[3] for r in rows]),
        group=np.array([r[3] % 2 for r in rows]),
    )
    sim = Simulation(INTREPID, w, Policy(allocator=name, backfill="easy", queue="fcfs"))
    while sim.step() is not None:
        used = sim.allocator
        fresh = allocator(name)
        for r in sorted(sim.running.values(), key=lambda r: (r.start, r.job.index)):
            fresh.now = r.start
            fresh.allocate(r.job, r.placement)
        for key, seen in used._history.items():
            fresh._history[key].extend(seen)
        fresh.now = used.now
        assert fresh.usable == used.usable
        assert fresh.free_nodes == used.free_nodes
        assert (fresh.owners() == used.owners()).all()
        for job in sim.scheduler.queue.ordered(used.now):
            assert used.find(job) == fresh.find(job)


def test_sl_forgets_neighbour_ends_when_jobs_start_end_or_history_grows():
    """SL's remembered neighbour ends (one tie set, asked again under the same usable set) follow
    every start and end on a neighbour, and AdjEst's follow its history."""
    alloc = allocator("adjest")
    a, b = partition("R00-M0"), partition("R01-M0")
    usable = 1 << a.index | 1 << b.index
    new = job(50, 512, estimate=1000.0, user=7, group=7)

    def put(index, midplane, estimate, user):
        j = job(index, 512, estimate=estimate, user=user, group=user)
        alloc.allocate(j, alloc.placement(partition(midplane).index))
        return j

    put(1, "R00-M1", 5000.0, user=5)
    assert alloc.choose(new, usable, 0.0) == a.index  # gaps 4000 and inf
    second = put(2, "R01-M1", 3000.0, user=6)
    assert alloc.choose(new, usable, 0.0) == b.index  # gaps 4000 and 2000
    for k in range(3):
        alloc.finished(job(10 + k, 512, estimate=5000.0, runtime=2500.0, user=5, group=5))
    assert alloc.choose(new, usable, 0.0) == a.index  # user 5's walltimes halved: gap 1500
    for k in range(3):
        alloc.finished(job(20 + k, 512, estimate=5000.0, runtime=5000.0, user=5, group=5))
    assert alloc.choose(new, usable, 0.0) == b.index  # now 0.75 x: gap 2750
    alloc.release(second, alloc.placement(partition("R01-M1").index))
    assert alloc.choose(new, usable, 0.0) == a.index  # gaps 2750 and inf
