"""Operator actions on units: fail / repair / reserve on every allocator family, the unit names the
console uses, the unit inspector, and replay determinism of runs with such actions."""

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from meshsim.engine.allocation.allocator import DOWN, FREE, RESERVED
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.policy import Policy
from meshsim.engine.kernel.actions import Fail, Repair, Reserve
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.kernel.waits import Watch
from meshsim.engine.tools.scenario_checks import read_action
from meshsim.engine.topology.machines import load_machine
from meshsim.engine.topology.units import block_cells, unit_cell, unit_count, unit_name
from meshsim.engine.workloads.workload import from_columns
from tests.conftest import DATA
from tests.engine.helpers import workload

MESH = str(DATA / "mesh5x4.toml")
TORUS = str(DATA / "torus4x4.toml")
NQS = str(DATA / "nqs-small.toml")

# (machine, allocator) for every allocator family: count pool, node list on a grid, contiguous
# boxes on a mesh and a torus (2D and 3D), buddy structures, scans, random, shells, partitions,
# and NQS node sets.
FAMILIES = [
    ("flat:16", "flat"),
    (MESH, "flat"),
    (MESH, "first-fit"),
    (MESH, "best-fit"),
    (MESH, "mpl"),
    (TORUS, "max-free-box"),
    ("bgl", "first-fit"),
    (MESH, "mbs"),
    (MESH, "m2db"),
    (MESH, "paging"),
    (MESH, "random"),
    (MESH, "mc"),
    (MESH, "plas"),
    ("intrepid", "least-blocking"),
    ("intrepid", "combo"),
    (NQS, "nqs"),
]

MACHINES: dict[str, object] = {}


def machine(name: str):
    if name not in MACHINES:
        MACHINES[name] = load_machine(name)
    return MACHINES[name]


def jobs_for(m, rows: list[tuple[float, int, float]]):
    """A workload of (submit, size in nodes, runtime) rows; NQS jobs go to queue 'low'."""
    queue = (
        np.ones(len(rows), dtype=np.int64) if m.topology == "mesh" and "nqs" in m.extras else None
    )
    return from_columns(
        "test",
        submit=np.array([r[0] for r in rows], dtype=float),
        size=np.array([r[1] for r in rows]),
        runtime=np.array([r[2] for r in rows], dtype=float),
        queue=queue,
    )


def simulate(name: str, alloc: str, rows, actions=(), **kwargs) -> Simulation:
    m = machine(name)
    policy = Policy.for_machine(m, allocator=alloc)
    return Simulation(m, jobs_for(m, rows), policy, actions=actions, **kwargs)


def usable_units(sim: Simulation) -> int:
    """Units a job may ever get (NQS service nodes never)."""
    owners = sim.allocator.owners()
    return int(np.count_nonzero(owners == FREE)) if len(owners) else sim.machine.nodes


def unit_nodes(m) -> int:
    return m.spec.midplane_nodes if m.topology == "partitions" else 1


# --------------------------------------------------------------------------- unit names


@pytest.mark.parametrize("name", ["flat:16", MESH, TORUS, "bgl", "intrepid", NQS])
def test_unit_names_and_cells_are_inverse(name):
    m = machine(name)
    for cell in range(unit_count(m)):
        label = unit_name(m, cell)
        assert unit_cell(m, label) == cell
        assert unit_cell(m, cell) == cell
        assert unit_cell(m, str(cell)) == cell
        assert m.unit_name(cell) == label


def test_unit_names_operators_use():
    assert unit_name(machine("intrepid"), 0) == "R00-M0"
    assert unit_cell(machine("intrepid"), "r00-m1") == 1
    assert unit_name(machine(MESH), unit_cell(machine(MESH), "3,2")) == "3,2"
    assert unit_cell(machine(MESH), "(3,2)") == 3 * 4 + 2
    assert unit_name(machine("bgl"), 1) == "0,0,1"
    assert unit_name(machine("flat:16"), 5) == "5"


@pytest.mark.parametrize(
    ("name", "text"),
    [("intrepid", "R99-M0"), (MESH, "5,0"), (MESH, "1,2,3"), ("flat:16", "16"), (MESH, "x")],
)
def test_unknown_units_are_errors_naming_them(name, text):
    with pytest.raises(MeshsimError, match=f"no unit '?{text}'?"):
        unit_cell(machine(name), text)


def test_blocks_boxes_partitions_and_lists():
    mesh, torus, intrepid = machine(MESH), machine(TORUS), machine("intrepid")
    assert block_cells(mesh, "1,1 2x2") == (1 * 4 + 1, 1 * 4 + 2, 2 * 4 + 1, 2 * 4 + 2)
    assert block_cells(torus, "3,3 2x1") == (3, 15)
    assert block_cells(mesh, ["0,0", 1, "0,0"]) == (0, 1)
    assert block_cells(intrepid, "1K R00-M0..R00-M1") == (0, 1)
    assert block_cells(intrepid, "R00-M0 R01-M1") == (0, 3)
    with pytest.raises(MeshsimError, match="does not fit"):
        block_cells(mesh, "4,0 2x2")


# ------------------------------------------------------------------- fail on every family


@pytest.mark.parametrize(("name", "alloc"), FAMILIES)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_down_unit_is_never_allocated(name, alloc, data):
    m = machine(name)
    probe = simulate(name, alloc, [(0, 1, 1)])
    usable = [
        c
        for c in range(unit_count(m))
        if probe.state.outages.occupant(c, probe.allocator.owners()) == FREE
    ]
    down = data.draw(st.lists(st.sampled_from(usable), max_size=4, unique=True), label="down")
    fail_time = data.draw(st.sampled_from([0.0, 7.0]), label="fail at")
    up = (len(usable) - len(down)) * unit_nodes(m)
    count = data.draw(st.integers(1, 8), label="jobs")
    rows = [
        (
            data.draw(st.integers(0, 20)),
            data.draw(st.integers(1, max(1, min(up, 8 * unit_nodes(m))))),
            data.draw(st.integers(1, 30)),
        )
        for _ in range(count)
    ]
    rows[0] = (0, *rows[0][1:])
    actions = [Fail(fail_time, unit_name(m, c)) for c in down]
    sim = simulate(name, alloc, sorted(rows), actions)
    cells = set(down)
    while sim.step() is not None:
        now_down = set(sim.outages()["down"])
        assert now_down <= cells
        owners = sim.allocator.owners()
        if len(owners):
            assert all(owners[c] == DOWN for c in now_down)
        for r in sim.running.values():
            assert not now_down & set(r.placement.cells)
        held = sum(r.placement.nodes for r in sim.running.values())
        assert held <= (len(usable) - len(now_down)) * unit_nodes(m)
    assert sim.outages()["down"] == tuple(sorted(cells))


@pytest.mark.parametrize(("name", "alloc"), FAMILIES)
def test_requeue_kill_and_repair(name, alloc):
    """A whole-machine job runs when one of its units fails: it is requeued (restarted from scratch
    after the repair, its original submit time kept) or killed; the unit is DOWN until repaired, and
    the next whole-machine job starts only after the repair."""
    m = machine(name)
    probe = simulate(name, alloc, [(0, 1, 1)])
    whole = 16 if alloc == "nqs" else usable_units(probe) * unit_nodes(m)
    rows = [(0, whole, 100), (1, whole, 10)]
    for on_job in ("requeue", "kill"):
        sim = simulate(name, alloc, rows)
        sim.run(until=0)
        cells = sim.running[0].placement.cells
        cell = cells[len(cells) // 2] if cells else 3
        unit = unit_name(m, cell)
        sim.apply(Fail(10, unit, on_job))
        sim.apply(Repair(50, unit))
        sim.run(until=10)
        assert sim.unit_info(cell).state == "down"
        if sim.allocator.owners().size:
            assert sim.snapshot().owners[cell] == DOWN
        assert not sim.running
        sim.run(until=49)
        assert not sim.running
        sim.run()
        start, end = sim.start_times(), sim.ledger.finish
        metrics = sim.results().metrics
        if on_job == "requeue":
            assert metrics["requeued_jobs"] == 1
            assert metrics["jobs"] == 2
            assert start[0] >= 50 and end[0] == start[0] + 100
        else:
            assert metrics["requeued_jobs"] == 0
            assert metrics["jobs"] == 1
            assert sim.explain(1) == "cancelled"
        assert start[1] >= 50
        assert sim.unit_info(cell).state == "free"


def test_failing_twice_and_repairing_an_up_unit_are_action_errors():
    sim = simulate(MESH, "first-fit", [(0, 1, 10)], recent=20)
    for action in (Fail(1, "0,0"), Fail(2, "0,0"), Repair(3, "1,1"), Fail(4, "9,9")):
        sim.apply(action)
    sim.apply(Fail(5, "1,1", on_job="x"))  # a file could not say this (read_action refuses it)
    sim.run()
    details = [r.detail for r in sim.snapshot().recent if r.kind == "action"]
    assert details[0] == "unit 0,0 failed; job 1 requeued"
    assert details[1] == "fail failed: unit 0,0 is already down"
    assert details[2] == "repair failed: unit 1,1 is not down"
    assert details[3].startswith("fail failed: no unit '9,9' on machine 'mesh5x4'")
    assert details[4].startswith("fail failed: on_job must be one of requeue, kill")


def test_nqs_service_nodes_cannot_fail():
    sim = simulate(NQS, "nqs", [(0, 1, 10)], recent=20)
    sim.apply(Fail(1, "0,0"))
    sim.run()
    assert "fail failed: unit 0,0 is never allocated" in [r.detail for r in sim.snapshot().recent]


def test_flat_pool_takes_an_idle_node_else_the_last_started_job():
    sim = simulate("flat:4", "flat", [(0, 2, 100), (1, 1, 100)], [Fail(0, 3), Fail(2, 0)])
    sim.run(until=1)
    assert sim.allocator.free_nodes == 0 and len(sim.running) == 2
    sim.run(until=2)
    assert sim.requeues == 1 and sim.unit_info(0).state == "down"
    assert [r.job.job_id for r in sim.running.values()] == [1]
    assert sim.allocator.free_nodes == 0


def test_paragon_sdsc_m2db_node_sets_skip_a_failed_node():
    m = machine("paragon-sdsc")
    probe = simulate("paragon-sdsc", "nqs", [(0, 1, 1)])
    free = np.flatnonzero(probe.allocator.owners() == FREE)
    down = [int(c) for c in free[:3]]
    rows = [(0, 16, 50), (0, 32, 50), (5, 8, 50)]
    sim = simulate("paragon-sdsc", "nqs", rows, [Fail(0, unit_name(m, c)) for c in down])
    while sim.step() is not None:
        for r in sim.running.values():
            assert not set(down) & set(r.placement.cells)
    assert sim.results().metrics["jobs"] == 3


def test_switching_allocator_keeps_units_down():
    actions = [
        Fail(0, "0,0"),
        read_action({"action": "set-policy", "time": 1, "allocator": "paging"}, "s", 0).action,
    ]
    sim = simulate(MESH, "first-fit", [(0, 19, 10), (3, 1, 10)], actions)
    sim.run(until=0)
    assert not sim.running  # no free 19-node box around the down corner
    while sim.step() is not None:
        for r in sim.running.values():
            assert 0 not in r.placement.cells
    assert sim.allocator.name == "paging" and sim.allocator.owners()[0] == DOWN
    assert sim.start_times()[0] == 1.0
    assert sim.results().metrics["jobs"] == 2


def test_migration_repacks_around_down_units():
    rows = [(0, 4, 100), (0, 4, 10), (0, 4, 100), (20, 8, 10)]
    sim = simulate(MESH, "first-fit", rows, [Fail(0, "4,3")])
    sim = Simulation(
        sim.machine, sim.workload, replace(sim.policy, migrate=True), actions=[Fail(0, "4,3")]
    )
    while sim.step() is not None:
        for r in sim.running.values():
            assert 4 * 4 + 3 not in r.placement.cells
    assert sim.results().metrics["jobs"] == 4


# ------------------------------------------------------------------------------ reserve


def test_reserve_drains_a_block_and_releases_it_at_until():
    """Job 1 holds (0,0) 2x2 until 100; the block 0,0 2x4 is reserved from 10 to 200: its idle half
    at once, job 1's cells when it ends; a whole-machine job starts at 200."""
    rows = [(0, 4, 100), (20, 20, 10)]
    sim = simulate(MESH, "first-fit", rows, [Reserve(10, "0,0 2x4", 200.0)])
    block = set(block_cells(sim.machine, "0,0 2x4"))
    sim.run(until=10)
    owners = sim.snapshot().owners
    assert {c for c in block if owners[c] == RESERVED} == block - set(
        sim.running[0].placement.cells
    )
    info = sim.unit_info(0)
    assert (info.state, info.job_id, info.until) == ("busy", 1, 200.0)
    sim.run(until=100)
    assert all(sim.snapshot().owners[c] == RESERVED for c in block)
    assert sim.unit_info(0).state == "reserved"
    assert sim.outages()["reserved"] == tuple(sorted(block))
    sim.run(until=199)
    assert np.isnan(sim.start_times()[1])
    sim.run(until=200)
    assert sim.start_times()[1] == 200.0
    sim.run()
    assert sim.outages() == {"down": (), "reserved": (), "draining": ()}


def test_reserve_on_a_count_pool_and_overlapping_failures():
    """flat:4, a 2-node job from 0: the reservation of nodes 0-2 at 1 takes the two idle nodes and
    waits for the job's; a failure inside the block turns reserved into down, a repair during the
    window gives it back to the reservation, a failure of the draining node requeues the job; at 50
    the reserved nodes return, the down one stays down."""
    actions = [Reserve(1, [0, 1, 2], 50.0), Fail(5, 1), Repair(20, 1), Fail(30, 2), Repair(60, 2)]
    sim = simulate("flat:4", "flat", [(0, 2, 100)], actions)
    sim.run(until=1)
    assert sim.allocator.free_nodes == 0
    assert sim.outages() == {"down": (), "reserved": (0, 1), "draining": (2,)}
    sim.run(until=5)
    assert sim.unit_info(1).state == "down"
    sim.run(until=20)
    assert sim.unit_info(1).state == "reserved"
    sim.run(until=30)
    assert sim.requeues == 1 and not sim.running
    assert sim.outages() == {"down": (2,), "reserved": (0, 1), "draining": ()}
    sim.run(until=50)
    assert sim.start_times()[0] == 50.0
    assert sim.outages() == {"down": (2,), "reserved": (), "draining": ()}
    sim.run(until=60)
    assert sim.allocator.free_nodes == 2


def test_reserve_errors():
    sim = simulate(MESH, "first-fit", [(0, 1, 10)], recent=20)
    sim.apply(Reserve(5, "0,0 2x2", 5.0))
    sim.apply(Reserve(5, "3,3 4x4", 50.0))
    sim.run()
    details = [r.detail for r in sim.snapshot().recent if r.kind == "action"]
    assert details[0].startswith("reserve failed: a reservation must end after it starts")
    assert details[1].startswith("reserve failed: box '3,3 4x4' does not fit")


# ----------------------------------------------------------------------------- intrepid


def test_intrepid_unit_inspector_names_blocked_partitions():
    m = machine("intrepid")
    sim = simulate("intrepid", "least-blocking", [(0, 512, 100), (0, 1024, 100)])
    sim.run(until=0)
    small = next(r for r in sim.running.values() if r.job.size == 512)
    cell = small.placement.cells[0]
    info = sim.unit_info(cell)
    assert (info.name, info.state, info.job_id) == (m.spec.names[cell], "busy", small.job.job_id)
    assert info.placement == small.placement.label
    assert info.blocks and small.placement.label not in info.blocks
    assert any(m.spec.names[cell] in name for name in info.blocks)
    sim.apply(Fail(1, "R47-M1"))
    sim.run(until=1)
    down = sim.unit_info(unit_cell(m, "R47-M1"))
    assert down.state == "down" and "R47-M1" in down.blocks
    assert sim.snapshot().owners[unit_cell(m, "R47-M1")] == DOWN


def test_intrepid_reserve_a_partition_by_name():
    m = machine("intrepid")
    rows = [(0, 512, 100), (10, 40960, 10)]
    sim = simulate("intrepid", "least-blocking", rows, [Reserve(5, "1K R46-M0..R46-M1", 500.0)])
    sim.run()
    assert sim.start_times()[1] == 500.0
    assert sim.unit_info(unit_cell(m, "R46-M0")).state == "free"


# ---------------------------------------------------------------------------- replay


@settings(max_examples=10, deadline=None)
@given(
    event=st.integers(0, 30),
    on_job=st.sampled_from(["requeue", "kill"]),
    unit=st.sampled_from(["0,0", "2,1", "4,3"]),
)
def test_replay_to_any_event_gives_equal_snapshots_and_results(event, on_job, unit):
    rows = [(0, 4, 40), (3, 6, 20), (5, 9, 15), (8, 2, 60), (12, 20, 5), (15, 3, 30)]
    actions = [
        Fail(4, unit, on_job),
        Reserve(6, "2,0 2x2", 70.0),
        Repair(45, unit),
        Fail(50, "1,1"),
    ]
    sim = simulate(MESH, "best-fit", rows, actions)
    sim.run_to_event(event)
    twin = sim.replayed(event)
    a, b = sim.snapshot(watch=Watch(first=5)), twin.snapshot(watch=Watch(first=5))
    assert (a.time, a.event, a.free_nodes) == (b.time, b.event, b.free_nodes)
    assert np.array_equal(a.owners, b.owners)
    assert a.running == b.running and a.waiting == b.waiting
    assert dict(a.waits) == dict(b.waits) and dict(a.metrics) == dict(b.metrics)
    assert sim.outages() == twin.outages()
    sim.run()
    twin.run()
    assert sim.results() == twin.results()
    assert sim.fork().results() == sim.results()


def test_actions_round_trip_through_dicts():
    for action in (
        Fail(1.5, "R00-M0", "kill"),
        Repair(2, "3,4"),
        Reserve(3, "0,0 4x4", 10.0),
        Reserve(3, ("0,0", 7), 10.0),
    ):
        assert read_action(action.as_dict(), "s", 0).action == action
    assert read_action(
        {"action": "reserve", "time": 0, "block": [1, 2], "until": 5}, "s", 0
    ).action.block == (1, 2)


def test_an_action_timed_before_the_first_arrival_applies_when_the_run_starts():
    """The run's clock starts at the first arrival: a scenario's action at t=0 on a trace whose
    first job arrives at 100 is applied (and logged) at 100, not rejected as passed."""
    sim = Simulation(
        load_machine("flat:16"),
        workload([(100.0, 4, 10.0), (100.0, 12, 5.0)]),
        Policy(),
        actions=[Reserve(0.0, "0 1 2 3", 50.0, start=20.0), Fail(0.0, "3")],
    )
    sim.run(until=100.0)
    assert sim.action_log.rejected[0].reason == "reservation_start_passed", "its start had passed"
    assert 1 not in sim.action_log.rejected
    (failed,) = [a.action for a in sim.logged_actions() if a.action.kind == "fail"]
    assert failed.time == 100.0
    assert sim.outages()["down"] == (3,)
    sim.run()
    assert sim.start_times().tolist() == [100.0, 110.0]
