"""Operator reservations ahead of time (issue 22, item 1): pending until their start, active from
it; a pending one protects its window on every start path and every machine family; what happens
at its start to the jobs still on its units (wait or kill); the boundaries of the action."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from meshsim.engine.allocation.allocator import RESERVED
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.policy import Policy
from meshsim.engine.kernel.action_checks import refusal
from meshsim.engine.kernel.actions import Reserve
from meshsim.engine.kernel.events import EventRecord
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.rejections import ActionRejected
from meshsim.engine.topology.machines import load_machine
from meshsim.engine.topology.units import unit_cell, unit_count
from meshsim.engine.workloads.workload import from_columns
from tests.conftest import DATA

MESH = str(DATA / "mesh5x4.toml")
TORUS = str(DATA / "torus4x4.toml")
NQS = str(DATA / "nqs-small.toml")
_MACHINES: dict[str, object] = {}


def machine(name: str):
    if name not in _MACHINES:
        _MACHINES[name] = load_machine(name)
    return _MACHINES[name]


def simulate(name, rows, actions=(), log=None, **policy) -> Simulation:
    """``rows`` of (submit, size, runtime, estimate) on machine ``name``; NQS jobs go to queue
    'low'."""
    m = machine(name)
    queue = np.ones(len(rows), dtype=np.int64) if "nqs" in m.extras else None
    jobs = from_columns(
        "test",
        submit=np.array([r[0] for r in rows], dtype=float),
        size=np.array([r[1] for r in rows]),
        runtime=np.array([r[2] for r in rows], dtype=float),
        estimate=np.array([r[3] for r in rows], dtype=float),
        queue=queue,
    )
    return Simulation(m, jobs, Policy.for_machine(m, **policy), actions=actions, log=log)


def action_lines(records: list[EventRecord]) -> list[str]:
    return [r.detail for r in records if r.kind == "action"]


# ------------------------------------------------------------------ pending, then active


def test_a_reservation_ahead_is_pending_until_its_start_then_active():
    """On the 5x4 mesh, made at 5 for [200, 400): until 200 nothing is reserved and a job that ends
    by 200 may use the block; a job that would run past 200 is placed beside it; at 200 the block
    is reserved at once (no job is on it), at 400 it returns."""
    rows = [(0, 4, 100, 100), (0, 4, 500, 500), (10, 8, 50, 50), (10, 4, 300, 300)]
    records: list[EventRecord] = []
    sim = simulate(
        MESH,
        rows,
        [Reserve(5, "0,0 2x4", 400.0, start=200.0)],
        log=records.append,
        allocator="first-fit",
    )
    block = set(range(8))
    sim.run(until=5)
    (status,) = sim.snapshot().reservations
    assert (status.state, status.start, status.until, status.jobs) == ("pending", 200, 400, (1,))
    assert not set(sim.outages()["reserved"]) and not sim.outages()["draining"]
    assert sim.unit_info(2).ahead == ((200.0, 400.0),) and sim.unit_info(2).state == "free"
    sim.run(until=199)
    started = {r.job.job_id: set(r.placement.cells) for r in sim.running.values()}
    assert started[4].isdisjoint(block), "job 4 reaches past 200: never on the block"
    assert sim.start_times()[2] == 100.0, "job 3 ends by 150: it may use the block before 200"
    sim.run(until=200)
    (status,) = sim.snapshot().reservations
    assert status.state == "active" and status.waits_for == 0
    owners = sim.snapshot().owners
    assert all(owners[c] == RESERVED for c in block)
    sim.run()
    assert action_lines(records) == [
        "reserved 0,0 2x4 (8 units) from day 0 00:03:20 until day 0 00:06:40: pending (wait for "
        "its jobs then)",
        "reservation of 0,0 2x4 started",
        "reservation of 0,0 2x4 ended",
    ]
    assert sim.snapshot().reservations == ()
    assert sim.logged_actions()[0].action.start == 200.0


def test_a_reservation_without_a_start_starts_when_applied_as_before():
    sim = simulate(MESH, [(0, 4, 100, 100)], [Reserve(10, "0,0 2x4", 50.0)], allocator="first-fit")
    sim.run(until=10)
    (status,) = sim.snapshot().reservations
    assert status.state == "active" and status.start == 10.0
    assert sim.logged_actions()[0].action == Reserve(10, "0,0 2x4", 50.0, start=10.0)


def test_the_scheduler_says_why_a_job_waits_for_a_window():
    rows = [(0, 20, 10, 10), (1, 4, 300, 300)]
    sim = simulate(MESH, rows, [Reserve(0, "0,0 5x4", 400.0, start=100.0)], allocator="first-fit")
    sim.run(until=10)
    assert sim.explain(2) == (
        "would run into the reservation of 0,0 5x4 from day 0 00:01:40 "
        "(its estimate ends day 0 00:05:10)"
    )
    window = [Reserve(0, "0 1 2 3 4 5", 400.0, 100)]
    flat = simulate("flat:8", [rows[0], (1, 4, 300, 300)], window)
    flat.run(until=10)
    assert flat.explain(2).startswith("would leave too few nodes for the reservation of 0 1 2")


# --------------------------------------------------------- the window on every start path

FAMILIES = [
    ("flat:16", "flat", False),
    (MESH, "first-fit", True),
    (MESH, "best-fit", False),
    (MESH, "mbs", False),
    (MESH, "paging", False),
    (TORUS, "max-free-box", True),
    ("intrepid", "least-blocking", False),
    ("intrepid", "pf", False),
    (NQS, "nqs", False),
]


def _sizes(name: str) -> list[int]:
    m = machine(name)
    if m.topology == "partitions":
        return [512, 1024, 2048, 4096, 8192]
    if "nqs" in m.extras:
        return list(range(1, 9))
    return list(range(1, m.nodes + 1))


def _block(name: str, data) -> list[int]:
    m = machine(name)
    units = list(range(unit_count(m)))
    if "nqs" in m.extras:
        units = [c for c in units if c % 6 != 0]  # y = 0 is the service row
    if m.topology == "partitions":
        units = units[:16]  # the first eight racks: where small jobs go
    k = data.draw(st.integers(1, min(8, len(units))), label="units")
    return sorted(data.draw(st.lists(st.sampled_from(units), min_size=k, max_size=k, unique=True)))


@pytest.mark.parametrize(("name", "alloc", "migrates"), FAMILIES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_no_job_that_reaches_a_window_ever_starts_on_its_units(name, alloc, migrates, data):
    """A random workload whose jobs keep to their estimates (runtime <= estimate) and a reservation
    made at a random time before its start, under every discipline and backfilling policy (and
    migration where the allocator re-packs): no job started, or moved, after the reservation was
    made is put on one of its units unless it ends by the window's start. So when the window opens
    the only jobs it has to wait for are those that started before it was made: on a count-only
    pool it waits for no more nodes than those jobs hold."""
    m = machine(name)
    policy: dict[str, object] = {"allocator": alloc}
    if "nqs" not in m.extras:
        policy["discipline"] = data.draw(st.sampled_from(["fcfs", "oo", "window"]), label="disc")
        policy["backfill"] = data.draw(st.sampled_from(["none", "easy", "conservative"]))
        policy["window"] = 3
    if migrates:
        policy["migrate"] = data.draw(st.booleans(), label="migrate")
    sizes = _sizes(name)
    count = data.draw(st.integers(2, 14), label="jobs")
    rows = []
    for _ in range(count):
        runtime = data.draw(st.integers(1, 120))
        estimate = runtime + data.draw(st.integers(0, 200))
        rows.append(
            (data.draw(st.integers(0, 150)), data.draw(st.sampled_from(sizes)), runtime, estimate)
        )
    rows[0] = (0, *rows[0][1:])
    rows.sort()
    made = float(data.draw(st.sampled_from([0, 0, 20, 60]), label="made at"))
    start = made + data.draw(st.integers(5, 250), label="lead")
    until = start + data.draw(st.integers(5, 200), label="length")
    block = _block(name, data)
    records: list[EventRecord] = []
    sim = simulate(name, rows, [Reserve(made, block, until, start=start)], records.append, **policy)
    window = set(block)
    seen: dict[int, tuple[int, ...]] = {}
    before: set[int] = set()
    while sim.step() is not None:
        if not any(r.detail.startswith("reserved ") for r in records):
            before = set(sim.running)
            continue
        for index, r in sim.running.items():
            cells = r.placement.cells
            if seen.get(index) == cells or sim.now >= start:
                continue
            seen[index] = cells
            if r.expected_end > start and index not in before:
                assert window.isdisjoint(cells), (
                    f"job {r.job.job_id} (expected end {r.expected_end}) put on the window at "
                    f"{sim.now} on {cells}"
                )
        if any(r.detail.startswith("reservation of") for r in records):
            break
    (status,) = sim.snapshot().reservations
    assert status.state == "active"
    old = [r for i, r in sim.running.items() if i in before]
    if len(sim.allocator.owners()):
        assert set(status.jobs) <= {r.job.job_id for r in old}
    else:
        assert status.waits_for <= sum(r.placement.nodes for r in old)


def test_a_paired_companion_that_reaches_a_window_is_not_put_on_it():
    """Intrepid with paired filling: job 2 would start as job 1's companion on R00-M1 (as it does
    without a reservation); R00-M1 is reserved from 500 and job 2 runs to 1000, so it goes
    elsewhere."""
    rows = [(0, 512, 1000, 1000), (0, 512, 1000, 1000)]
    alone = simulate("intrepid", rows, allocator="pf")
    alone.run(until=0)
    assert [r.placement.label for r in alone.running.values()] == ["R00-M0", "R00-M1"]
    sim = simulate("intrepid", rows, [Reserve(0, "R00-M1", 2000.0, start=500.0)], allocator="pf")
    sim.run(until=0)
    labels = {r.job.job_id: r.placement.label for r in sim.running.values()}
    assert labels[1] == "R00-M0" and labels[2] != "R00-M1"


def test_a_conservative_reservation_made_before_the_window_moves_around_it():
    """Conservative backfilling on the 5x4 mesh: job 2 (the whole machine for 300 s) holds the
    slot at 100; a reservation of one node over [150, 500) made at 10 moves it to 500."""
    rows = [(0, 20, 100, 100), (1, 20, 300, 300)]
    records: list[EventRecord] = []
    sim = simulate(
        MESH,
        rows,
        [Reserve(10, "0,0", 500.0, start=150.0)],
        records.append,
        allocator="first-fit",
        backfill="conservative",
    )
    sim.run()
    assert sim.start_times().tolist() == [0.0, 500.0]
    assert "reservation of 0,0 started" in action_lines(records)


# ------------------------------------------------------------- jobs on its units at its start


@pytest.mark.parametrize("name", ["flat:4", MESH, "intrepid"])
def test_at_its_start_a_reservation_waits_for_a_job_still_on_its_units(name):
    """A job that started before the reservation was made runs past its start: the reservation
    waits for it (its units are reserved when it ends), and says so."""
    m = machine(name)
    size = 512 if m.topology == "partitions" else 4
    records: list[EventRecord] = []
    block = [unit_cell(m, 0)] if m.topology != "flat" else [0, 1, 2, 3]
    sim = simulate(
        name, [(0, size, 300, 300)], [Reserve(10, block, 400.0, start=100.0)], records.append
    )
    sim.run(until=100)
    (status,) = sim.snapshot().reservations
    assert status.state == "active" and status.waits_for >= 1
    if m.topology != "flat":
        assert status.jobs == (1,)
    sim.run(until=300)
    assert sim.outages()["draining"] == ()
    assert sim.results().metrics["jobs"] == 1
    assert (
        action_lines(records)[1] == f"reservation of {' '.join(map(str, block))} started; "
        "waits for job 1 on its units"
    )


@pytest.mark.parametrize("name", ["flat:4", MESH, "intrepid"])
def test_with_on_job_kill_the_jobs_on_its_units_are_killed_at_its_start(name):
    m = machine(name)
    size = 512 if m.topology == "partitions" else 4
    records: list[EventRecord] = []
    block = [unit_cell(m, 0)] if m.topology != "flat" else [0, 1]
    rows = [(0, size, 300, 300), (1, 1 if size == 4 else 512, 500, 500)]
    sim = simulate(
        name, rows, [Reserve(10, block, 400.0, start=100.0, on_job="kill")], records.append
    )
    sim.run(until=100)
    (status,) = sim.snapshot().reservations
    assert status.state == "active" and status.waits_for == 0 and status.jobs == ()
    assert sim.job_status(1) == "ended" and 0 in sim.ledger.cancelled
    owners = sim.snapshot().owners
    if len(owners):
        assert all(owners[c] == RESERVED for c in block)
    else:
        assert sim.allocator.free_nodes == 4 - len(block) - sum(
            r.placement.nodes for r in sim.running.values()
        )
    assert action_lines(records)[1] == (
        f"reservation of {' '.join(map(str, block))} started; killed job 1 on its units"
    )
    sim.run()
    assert sim.results().metrics["jobs"] == 1


def test_a_reservation_made_now_says_which_jobs_it_waits_for_or_kills():
    records: list[EventRecord] = []
    sim = simulate(
        MESH,
        [(0, 4, 300, 300)],
        [Reserve(10, "0,0 2x2", 400.0), Reserve(20, "2,0 2x2", 400.0, on_job="kill")],
        records.append,
        allocator="first-fit",
    )
    sim.run(until=20)
    assert action_lines(records) == [
        "reserved 0,0 2x2 (4 units) until day 0 00:06:40; waits for job 1 on its units",
        "reserved 2,0 2x2 (4 units) until day 0 00:06:40",
    ]


# ----------------------------------------------------------------------------- boundaries


def test_boundaries_of_the_reserve_action():
    sim = simulate(MESH, [(0, 1, 20, 20), (50, 1, 10, 10)], allocator="first-fit")
    sim.run(until=20)
    assert sim.now == 20
    cases = {
        Reserve(0, "0,0 2x2", 100.0, start=10.0): "reservation_start_passed",
        Reserve(0, "0,0 2x2", 100.0, start=200.0): "reservation_over",
        Reserve(0, "9,9 2x2", 100.0, start=30.0): "unit_unknown",
    }
    for action, reason in cases.items():
        problem = refusal(sim, action)
        assert isinstance(problem, ActionRejected) and problem.reason == reason, action
    assert refusal(sim, Reserve(0, "0,0 2x2", 100.0, start=30.0)) is None
    with pytest.raises(MeshsimError, match="on_job must be one of wait, kill, got 'later'"):
        Reserve(0, "0,0 2x2", 100.0, on_job="later")
    sim.apply(Reserve(30, "0,0 2x2", 100.0, start=25.0))
    sim.run(until=30)
    (rejection,) = sim.action_rejections()
    assert rejection.reason == "reservation_start_passed"
    assert rejection.detail == (
        "a reservation cannot start in the past (day 0 00:00:25, now day 0 00:00:30)"
    )


def test_undo_of_a_reservation_ahead_keeps_the_clock():
    from meshsim.engine.tools.runcase import RunOptions
    from meshsim.engine.tools.session import Session

    session = Session(RunOptions(machine=MESH, workload=str(DATA / "mesh-sides-small.toml")))
    session.step(5)
    now = session.now
    session.act_now(Reserve(0, "0,0 2x2", now + 7200, start=now + 3600))
    session.run_until(now + 4000)
    at, events = session.now, session.events
    assert session.snapshot().reservations[0].state == "active"
    session.undo()
    assert session.now <= at and session.events <= events
    assert session.snapshot().reservations == ()
    assert RESERVED not in session.snapshot().owners.tolist()
