"""The SDSC Paragon NQS scheduler (seed 004): aging, blocking, prime time, node sets, interactive
rejection and queue mapping, on the small machine of tests/data/nqs-small.toml."""

from dataclasses import replace
from datetime import datetime
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.jobs import Job
from meshsim.engine.core.policy import Policy
from meshsim.engine.families.nqs.policy import NQSPriority
from meshsim.engine.families.nqs.queues import map_queues
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.topology.machines import load_machine
from meshsim.engine.workloads.generators import load_workload
from meshsim.engine.workloads.swf import parse_header
from meshsim.engine.workloads.workload import from_columns
from tests.conftest import DATA

CHICAGO = ZoneInfo("America/Chicago")
MONDAY = datetime(2009, 1, 5, tzinfo=CHICAGO)  # a Monday, 00:00 local
HEADER = parse_header(
    [f" UnixStartTime: {int(MONDAY.timestamp())}", " TimeZoneString: America/Chicago"]
)


@pytest.fixture(scope="module")
def machine():
    return load_machine(str(DATA / "nqs-small.toml"))


def at(day: int, hour: float) -> float:
    """Trace seconds of ``day`` days after Monday 00:00, at ``hour`` local time."""
    return day * 86400.0 + hour * 3600.0


def simulate(machine, rows):
    """rows: (submit, queue number, size, runtime)."""
    w = from_columns(
        "nqs-test",
        submit=np.array([r[0] for r in rows], dtype=float),
        queue=np.array([r[1] for r in rows]),
        size=np.array([r[2] for r in rows]),
        runtime=np.array([r[3] for r in rows], dtype=float),
    )
    sim = Simulation(machine, replace(w, header=HEADER), Policy.for_machine(machine))
    return sim


def test_machine_defaults_select_the_nqs_policies(machine):
    policy = Policy.for_machine(machine)
    assert (policy.queue, policy.discipline) == ("nqs", "nqs")
    assert machine.default_allocator == "nqs"


def test_aging_lets_an_old_low_priority_job_pass_a_new_high_priority_one(machine):
    order = NQSPriority(machine)
    old_low = Job(0, 1, 0.0, 10.0, 10.0, 1, 1, queue=1)
    new_high = Job(1, 2, 3 * 3600.0, 10.0, 10.0, 1, 1, queue=2)
    now = 3 * 3600.0
    assert order.score(old_low, now) == 30.0  # 0 + 10/h x 3 h
    assert order.score(new_high, now) == 20.0
    assert sorted([new_high, old_low], key=lambda j: order.key(j, now)) == [old_low, new_high]
    recent_low = old_low._replace(index=2, job_id=3, submit=2.5 * 3600.0)
    assert order.score(recent_low, now) == 5.0
    assert sorted([recent_low, new_high], key=lambda j: order.key(j, now))[0] == new_high


def test_blocking_keeps_nodes_idle_until_the_blocked_job_starts(machine):
    rows = [
        (0, 1, 10, 3600),  # low, 10 of the 16 night-time nodes
        (60, 2, 16, 1000),  # high, needs all 16: waits; passes block_priority 25 after 30 min
        (600, 1, 2, 100),  # not blocked yet (priority 21.5): starts at once
        (2400, 1, 2, 100),  # job 2 is now above 25: this one waits although 6 nodes are idle
    ]
    sim = simulate(machine, rows)
    sim.run(until=3000)
    assert "blocked: nodes are kept idle for job 2" in sim.explain(4)
    assert sim.allocator.free_nodes - 4 == 6  # 6 batch nodes idle (+4 interactive)
    sim.run()
    assert sim.start_times().tolist() == [0, 3600, 600, 4600]


def test_prime_time_switches_node_sets_at_9_and_17_including_weekends(machine):
    rows = [
        (at(0, 10), 1, 16, 600),  # Monday 10:00: 16 nodes need set S, only in non-prime time
        (at(4, 16), 1, 16, 600),  # Friday 16:00: waits for 17:00
        (at(5, 10), 1, 16, 600),  # Saturday 10:00: weekend is non-prime
        (at(7, 8.5), 1, 16, 3600),  # next Monday 8:30: starts before 9:00 and keeps running
    ]
    sim = simulate(machine, rows)
    events = []
    while (r := sim.step()) is not None:
        events.append(r)
    assert sim.start_times().tolist() == [at(0, 17), at(4, 17), at(5, 10), at(7, 8.5)]
    clocks = [
        sim.allocator.clock.at(r.time).strftime("%a %H:%M") for r in events if r.kind == "clock"
    ]
    assert clocks[:2] == ["Mon 17:00", "Fri 17:00"]
    assert sim.allocator.is_prime(at(0, 9)) and not sim.allocator.is_prime(at(0, 17))
    assert not sim.allocator.is_prime(at(6, 12))


def test_two_pass_node_selection(machine):
    sim = simulate(machine, [(0, 1, 3, 100), (0, 1, 10, 100), (at(0, 10), 3, 2, 100)])
    sim.run(until=1)
    where = {r.job.job_id: r.placement.label for r in sim.running.values()}
    # 3 nodes: the sets that hold them whole are B (4 free) and S (4 free) -> fewest free, then
    # the group's order: B. 10 nodes then fit no single set -> A (8), B (1 left), S (1).
    assert where == {1: "B", 2: "A+B+S"}
    sim.run()
    assert sim.job_table()["location"].tolist()[2] == "S"  # a short job in prime time: S first


def test_interactive_jobs_run_at_once_or_are_rejected(machine):
    sim = simulate(machine, [(0, 0, 3, 100), (10, 0, 2, 100), (20, 0, 1, 100)])
    sim.run()
    assert sim.rejected == {"interactive partition full": 1}
    assert sim.explain(2) == "rejected on arrival: interactive partition full"
    starts = sim.start_times()
    assert starts[0] == 0 and starts[2] == 20 and np.isnan(starts[1])
    assert sim.job_table()["location"].tolist() == ["interactive", "interactive"]


def test_queue_mapping_from_the_header(machine, tmp_path):
    rows = [
        "1 0 -1 100 2 -1 -1 2 -1 -1 1 1 1 -1 5 -1 -1 -1",
        "2 5 -1 100 6 -1 -1 6 -1 -1 1 1 1 -1 7 -1 -1 -1",
        "3 9 -1 100 6 -1 -1 6 -1 -1 1 1 1 -1 8 -1 -1 -1",
    ]
    head = "; Queue: 5 high\n; Queue: 7 low\n; Queue: 8 short\n"
    path = tmp_path / "q.swf"
    path.write_text(head + "\n".join(rows[:2]) + "\n")
    w = load_workload(str(path), machine)
    assert w.queue.tolist() == [2, 1]
    path.write_text(head + "\n".join(rows) + "\n")
    with pytest.raises(MeshsimError, match="job 3 in queue short: 6 nodes exceed its 4"):
        load_workload(str(path), machine)
    assert load_workload(str(path), machine, requeue=True).queue.tolist() == [2, 1, 1]
    path.write_text("; Queue: 9 nosuch\n" + rows[0].replace(" 5 -1 -1 -1", " 9 -1 -1 -1") + "\n")
    with pytest.raises(MeshsimError, match="queue 9 'nosuch' is not an NQS queue"):
        load_workload(str(path), machine)


def test_queue_numbers_are_never_matched_to_the_machines(machine):
    """A workload whose queue numbers are the machine's own but unnamed is not placed by number;
    an explicit mapping of the number as written places it."""
    w = from_columns(
        "x", submit=np.zeros(2), runtime=np.ones(2), size=np.array([1, 2]), queue=np.array([1, 3])
    )
    with pytest.raises(MeshsimError, match=r"queue 1 \(the trace header does not name it\) is not"):
        map_queues(w, machine.extras["nqs"])
    mapped = map_queues(w, machine.extras["nqs"], queue_map={"1": "low", "3": "short"})
    assert mapped.queue.tolist() == [1, 3]
    assert [(m.trace_queue, m.machine_queue, m.jobs) for m in mapped.queue_mapping] == [
        ("1", "low", 1),
        ("3", "short", 1),
    ]
