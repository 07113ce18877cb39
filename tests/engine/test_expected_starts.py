"""Issue 22, item 4: the expected starts of the waiting jobs (the conservative profile of
:mod:`meshsim.engine.scheduling.expected`) are the actual starts where the rule is exact — exact
estimates, no further arrival, conservative backfilling or a strict order without backfilling — on a
flat pool, meshes, a torus and a partition menu; the waits name the EASY head's reservation; and
explaining the queue never changes the run."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from meshsim.engine.core.policy import Policy
from meshsim.engine.kernel.actions import Fail, Reserve
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.kernel.waits import PROFILE_DEPTH, Wait, Watch
from meshsim.engine.topology.machines import load_machine
from tests.conftest import DATA
from tests.engine.helpers import workload

MACHINES = {
    "flat": ("flat:16", None),
    "mesh first-fit": (str(DATA / "mesh5x4.toml"), "first-fit"),
    "mesh best-fit": (str(DATA / "mesh5x4.toml"), "best-fit"),
    "torus": (str(DATA / "torus4x4.toml"), None),
}

rows = st.lists(
    st.tuples(
        st.sampled_from([0.0, 0.0, 0.0, 1.0, 2.0, 5.0]),
        st.integers(1, 16),
        st.sampled_from([1.0, 2.0, 3.0, 5.0, 8.0, 13.0]),
    ),
    min_size=1,
    max_size=30,
)


def expected_and_actual(machine: str, allocator: str | None, jobs: list, **policy: str) -> tuple:
    """Every waiting job's expected start just after the last arrival, and its actual start."""
    sim = Simulation(load_machine(machine), workload(jobs), Policy(allocator=allocator, **policy))
    sim.run(until=max(row[0] for row in jobs))
    snap = sim.snapshot(watch=Watch(first=PROFILE_DEPTH))
    expected = {job.job_id: snap.waits[job.index].start for job in snap.waiting}
    sim.run()
    starts = sim.start_times()
    actual = {job.job_id: float(starts[job.index]) for job in snap.waiting}
    return expected, actual


@settings(max_examples=120, deadline=None)
@given(
    jobs=rows,
    machine=st.sampled_from(sorted(MACHINES)),
    policy=st.sampled_from(
        [("fcfs", "conservative"), ("sjf", "conservative"), ("fcfs", "none"), ("sjf", "none")]
    ),
)
def test_expected_starts_are_the_actual_ones_where_the_rule_is_exact(jobs, machine, policy):
    spec, allocator = MACHINES[machine]
    nodes = load_machine(spec).nodes
    jobs = [(submit, min(size, nodes), runtime) for submit, size, runtime in jobs]
    queue, backfill = policy
    expected, actual = expected_and_actual(spec, allocator, jobs, queue=queue, backfill=backfill)
    assert expected == actual


@pytest.mark.parametrize("machine", sorted(MACHINES))
@pytest.mark.parametrize("backfill", ["conservative", "none"])
def test_expected_starts_of_a_long_queue(machine, backfill):
    spec, allocator = MACHINES[machine]
    sizes = (9, 3, 16, 1, 12, 5, 7, 2, 16, 4, 11, 6, 1, 8, 3, 14)
    jobs = [(0.0, k, 1.0 + k % 5) for k in sizes] + [(2.0, 6, 3.0), (2.0, 2, 9.0)]
    expected, actual = expected_and_actual(spec, allocator, jobs, backfill=backfill)
    assert len(expected) >= 10
    assert expected == actual


@pytest.mark.parametrize("backfill", ["conservative", "none"])
def test_expected_starts_on_a_partition_menu(backfill):
    sizes = (32, 16, 32, 8, 16, 4, 2, 32, 1, 8, 16, 2, 64, 1, 4)
    jobs = [(0.0, 512 * k, 600.0 * (1 + k % 3)) for k in sizes]
    policy = {"queue": "fcfs", "backfill": backfill}
    expected, actual = expected_and_actual("intrepid", "least-blocking", jobs, **policy)
    assert len(expected) >= 5
    assert expected == actual


def test_the_easy_head_is_marked_with_its_reservation_on_a_node_count_machine():
    sim = Simulation(
        load_machine("flat:8"),
        workload([(0, 6, 10), (0, 4, 10), (0, 8, 5), (1, 2, 3), (1, 2, 30)]),
        Policy(backfill="easy"),
    )
    sim.run(until=1)
    snap = sim.snapshot(watch=Watch(first=10))
    waits = [snap.waits[job.index] for job in snap.waiting]
    assert [job.job_id for job in snap.waiting] == [2, 3, 5]
    assert waits[0].start == 10.0
    assert waits[0].text == (
        "EASY head: reserved for day 0 00:00:10 when 1 ends (shadow time; 4 extra nodes); "
        "needs 4 nodes, 0 free"
    )
    assert (
        waits[1].text == "needs 8 nodes, 0 free; expected day 0 00:00:20 when 2 (queued ahead) ends"
    )
    # the profile is conservative: job 5 may not delay job 3 either (EASY itself starts it at 4)
    assert waits[2] == Wait(
        25.0, "needs 2 nodes, 0 free; expected day 0 00:00:25 when 3 (queued ahead) ends"
    )


def test_a_partition_wait_names_the_partition_its_holders_and_the_end_it_waits_for():
    sim = Simulation(
        load_machine("intrepid"),
        workload([(0, 8192, 100.0), (0, 32768, 50.0), (1, 32768, 10.0), (1, 512, 10.0)]),
        Policy(queue="fcfs", backfill="easy"),
    )
    sim.run(until=1)
    snap = sim.snapshot(watch=Watch(first=10))
    head, behind = (snap.waits[job.index] for job in snap.waiting)
    assert head.start == 50.0
    assert head.text.startswith("EASY head: reserved for day 0 00:00:50 on 32K ")
    assert " when 2 ends; needs 32K, 0 idle" in head.text
    assert behind.start == 60.0 and "when 3 (queued ahead) ends" in behind.text


def test_jobs_beyond_the_profile_get_their_blocker_and_no_expected_start():
    jobs = [(0, 4, 10)] + [(0, 4, 1)] * (PROFILE_DEPTH + 5)
    sim = Simulation(load_machine("flat:4"), workload(jobs))
    sim.run(until=0)
    last = sim.scheduler.queue.jobs[-1]
    snap = sim.snapshot(watch=Watch(jobs=frozenset({last.index})))
    assert list(snap.waits) == [last.index]
    wait = snap.waits[last.index]
    assert math.isnan(wait.start)
    assert wait.text == (
        f"needs 4 nodes, 0 free; expected start not computed: queue position "
        f"{PROFILE_DEPTH + 5}, the profile covers the first {PROFILE_DEPTH}"
    )


def test_a_job_larger_than_the_units_in_service_never_starts_while_they_are_out():
    sim = Simulation(
        load_machine(str(DATA / "mesh5x4.toml")),
        workload([(0, 20, 10), (1, 20, 5)]),
        actions=[Fail(0.5, "0,0")],
    )
    sim.run(until=1)
    snap = sim.snapshot(watch=Watch(first=5))
    assert len(snap.waits) == 2, "the failure requeued job 1"
    for wait in snap.waits.values():
        assert wait.start == math.inf
        assert wait.text.endswith("; it does not fit while units are out of service (1 down)")


@settings(max_examples=40, deadline=None)
@given(jobs=rows, machine=st.sampled_from(sorted(MACHINES)), backfill=st.sampled_from(["easy"]))
def test_explaining_the_queue_changes_nothing_in_the_run(jobs, machine, backfill):
    spec, allocator = MACHINES[machine]
    nodes = load_machine(spec).nodes
    jobs = [(submit, min(size, nodes), runtime, runtime * 2) for submit, size, runtime in jobs]
    policy = Policy(allocator=allocator, backfill=backfill)
    plain = Simulation(load_machine(spec), workload(jobs), policy)
    plain.run()
    watched = Simulation(load_machine(spec), workload(jobs), policy)
    while watched.step() is not None:
        watched.snapshot(watch=Watch(first=PROFILE_DEPTH))
    assert watched.start_times().tolist() == plain.start_times().tolist()
    assert watched.results() == plain.results()


BLOCKS = {
    "flat": "0 1 2 3",
    "mesh first-fit": "0,0 2x2",
    "mesh best-fit": "0,0 2x2",
    "torus": "0,0 2x2",
}
"""A block of four units on each machine of MACHINES."""


@settings(max_examples=60, deadline=None)
@given(
    jobs=rows,
    machine=st.sampled_from(sorted(MACHINES)),
    window=st.tuples(st.sampled_from([3.0, 6.0, 10.0]), st.sampled_from([2.0, 4.0, 7.0])),
)
def test_expected_starts_honour_a_pending_reservation(jobs, machine, window):
    """A reservation made at 0 for [start, start + length) is pending when the queue is explained
    (after the last arrival): the profile holds its window as the pass does, so under a strict
    order without backfilling the expected starts are still the actual ones."""
    spec, allocator = MACHINES[machine]
    nodes = load_machine(spec).nodes
    jobs = [(submit, min(size, nodes - 4), runtime) for submit, size, runtime in jobs]
    start, length = window
    reserve = Reserve(0.0, BLOCKS[machine], start + length, start=start)
    sim = Simulation(
        load_machine(spec), workload(jobs), Policy(allocator=allocator), actions=[reserve]
    )
    last = max(row[0] for row in jobs)
    assume(last < start)
    sim.run(until=last)
    snap = sim.snapshot(watch=Watch(first=PROFILE_DEPTH))
    assert [status.state for status in snap.reservations] == ["pending"]
    expected = {job.index: snap.waits[job.index].start for job in snap.waiting}
    sim.run()
    starts = sim.start_times()
    assert expected == {index: float(starts[index]) for index in expected}
