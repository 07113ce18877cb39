"""Engine behaviour: event order at one instant, properties of every schedule, conservative
backfilling invariants, operator actions, forks and determinism."""

import math
from typing import ClassVar

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.policy import Policy
from meshsim.engine.kernel.actions import Cancel, Hold, ReleaseHold, SetPolicy, Submit
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.kernel.waits import Wait, Watch
from meshsim.engine.scheduling.backfill import ConservativeBackfill
from meshsim.engine.topology.machines import load_machine
from meshsim.engine.workloads.swf import read_swf
from meshsim.engine.workloads.workload import from_swf
from tests.conftest import DATA, LUBLIN, NASA, require_trace
from tests.engine.helpers import run, workload


def test_completion_frees_nodes_for_an_arrival_at_the_same_instant():
    sim = run(2, [(0, 2, 10), (10, 2, 5)])
    assert sim.start_times().tolist() == [0, 10]


def test_zero_length_jobs_end_at_their_start_and_free_nodes_at_once():
    sim = run(2, [(0, 2, 0), (0, 2, 4)])
    assert sim.start_times().tolist() == [0, 0]
    assert sim.results().metrics["makespan_s"] == 4


def test_step_reports_the_jobs_the_closing_pass_started():
    sim = Simulation(load_machine("flat:2"), workload([(0, 1, 5), (0, 1, 5), (3, 2, 1)]))
    first = sim.step()
    assert (first.kind, first.started) == ("arrival", ())
    second = sim.step()
    assert (second.kind, second.time, second.started) == ("arrival", 0, (1, 2))
    third = sim.step()
    assert (third.kind, third.job_id, third.started) == ("arrival", 3, ())
    assert sim.explain(3) == "needs 2 nodes, 0 free"
    assert [sim.step().kind for _ in range(3)] == ["end", "end", "end"]
    assert sim.step() is None and sim.done


rows = st.lists(
    st.tuples(
        st.integers(0, 50).map(float),
        st.integers(1, 8),
        st.integers(0, 20).map(float),
        st.integers(0, 25).map(float),
    ),
    min_size=1,
    max_size=25,
)


def _check_schedule(sim, nodes):
    w = sim.workload
    start = sim.start_times()
    assert not np.isnan(start).any()
    assert (start >= w.submit).all()
    end = start + w.runtime
    size = w.size
    for t in np.unique(start).tolist():
        assert size[(start <= t) & (t < end)].sum() <= nodes
    table = sim.job_table()
    assert np.array_equal(table["end"] - table["start"], w.runtime)


@settings(max_examples=80, deadline=None)
@given(
    rows, st.sampled_from(["fcfs", "sjf", "wfp"]), st.sampled_from(["none", "easy", "conservative"])
)
def test_schedules_never_overcommit_and_respect_submit_times(rows, queue, backfill):
    nodes = 8
    data = [(t, s, r, max(e, r)) for t, s, r, e in rows]
    sim = run(nodes, data, queue=queue, backfill=backfill)
    _check_schedule(sim, nodes)


@settings(max_examples=60, deadline=None)
@given(rows)
def test_conservative_never_starts_later_than_first_reservation(rows):
    data = [(t, s, r, max(e, r)) for t, s, r, e in rows]  # estimates never too short
    sim = Simulation(load_machine("flat:8"), workload(data), Policy(backfill="conservative"))
    reservations: dict[int, list[float]] = {}
    backfill = sim.scheduler.backfill
    assert isinstance(backfill, ConservativeBackfill)
    while sim.step() is not None:
        for index, slot in backfill.slots.items():
            reservations.setdefault(index, []).append(slot.start)
    start = sim.start_times()
    for index, history in reservations.items():
        assert history == sorted(history, reverse=True), "a reservation moved later"
        assert start[index] <= history[0]
        assert backfill.first_slot[index] == history[0]


def test_conservative_invariants_on_lublin():
    path = require_trace(LUBLIN)
    machine = load_machine("flat:256")
    w = from_swf(read_swf(path), machine)
    first = w.submit[0]
    cut = w.submit < first + 7 * 86400
    rows = list(zip(w.submit[cut], w.size[cut], w.runtime[cut], w.runtime[cut] * 1.5, strict=True))
    sim = Simulation(machine, workload(rows), Policy(backfill="conservative"))
    backfill = sim.scheduler.backfill
    latest: dict[int, float] = {}
    while sim.step() is not None:
        for index, slot in backfill.slots.items():
            assert slot.start <= latest.get(index, math.inf)
            latest[index] = slot.start
    start = sim.start_times()
    assert all(start[i] <= t for i, t in backfill.first_slot.items())


def test_same_inputs_give_identical_results():
    machine = load_machine("flat:128")
    w = from_swf(read_swf(require_trace(NASA)), machine)
    a = Simulation(machine, w, Policy(queue="wfp", backfill="easy"), seed=3)
    b = Simulation(machine, w, Policy(queue="wfp", backfill="easy"), seed=3)
    a.run()
    b.run()
    assert a.results() == b.results()
    assert np.array_equal(a.start_times(), b.start_times())


def test_operator_actions_hold_release_cancel_submit():
    sim = Simulation(load_machine("flat:2"), workload([(0, 2, 10), (1, 2, 10), (2, 1, 3)]))
    sim.apply(Hold(time=1.5, job_id=2))
    sim.apply(ReleaseHold(time=30, job_id=2))
    sim.apply(Cancel(time=4, job_id=3))
    sim.apply(Submit(time=5, size=1, runtime=7))
    sim.run()
    start = sim.start_times()
    assert start.tolist()[:2] == [0, 30]
    assert math.isnan(start[2])
    assert start[3] == 10  # the submitted job
    assert sim.explain(3) == "cancelled"
    assert [a.action.kind for a in sim.logged_actions()] == ["hold", "release", "cancel", "submit"]


def test_cancel_a_running_job_frees_its_nodes():
    sim = Simulation(load_machine("flat:2"), workload([(0, 2, 100), (1, 2, 10)]))
    sim.apply(Cancel(time=5, job_id=1))
    sim.run()
    assert sim.start_times().tolist() == [0, 5]
    assert sim.results().metrics["jobs"] == 1


def test_actions_in_the_past_are_refused():
    sim = run(2, [(0, 1, 10)])
    with pytest.raises(MeshsimError, match="in the past"):
        sim.apply(Hold(time=1, job_id=1))


def test_fork_and_replay_reach_the_same_state():
    machine = load_machine("flat:4")
    w = workload([(0, 2, 10), (0, 4, 10), (5, 1, 5), (6, 2, 2)])
    sim = Simulation(machine, w, Policy(backfill="easy"))
    sim.apply(SetPolicy(time=5, backfill="none"))
    for _ in range(4):
        sim.step()
    twin = sim.fork()
    assert (twin.events, twin.now) == (sim.events, sim.now)
    back = sim.replayed(sim.events - 1)
    assert back.events == sim.events - 1
    sim.run()
    twin.run()
    assert np.array_equal(sim.start_times(), twin.start_times())
    assert sim.policy.backfill == "none"


def test_policy_change_from_now_on():
    rows = [(0, 2, 10), (0, 4, 10), (5, 1, 5)]
    sim = Simulation(load_machine("flat:4"), workload(rows), Policy(backfill="none"))
    sim.apply(SetPolicy(time=5, backfill="easy"))
    sim.run()
    assert sim.start_times().tolist() == [0, 10, 5]


def test_explanations():
    sim = Simulation(load_machine("flat:4"), workload([(0, 2, 10), (0, 4, 10), (5, 1, 5)]))
    sim.run(until=5)
    assert sim.explain(2) == "needs 4 nodes, 2 free"
    assert sim.explain(3) == "behind job 2, which blocks the queue (fcfs)"
    assert sim.explain(1).startswith("running since day 0 00:00:00")
    sim.run()
    assert sim.explain(3) == "finished at day 0 00:00:25"


def test_unknown_names_list_the_valid_ones():
    machine = load_machine("flat:4")
    with pytest.raises(MeshsimError, match=r"unknown queue order 'lifo' \(valid: fcfs, sjf, wfp"):
        Simulation(machine, workload([(0, 1, 1)]), Policy(queue="lifo"))
    with pytest.raises(MeshsimError, match="unknown backfill 'aggressive'"):
        Simulation(machine, workload([(0, 1, 1)]), Policy(backfill="aggressive"))
    with pytest.raises(MeshsimError, match="unknown allocator"):
        Simulation(machine, workload([(0, 1, 1)]), Policy(allocator="nope"))


def test_snapshot_is_immutable_and_explains_the_queue_head():
    sim = Simulation(
        load_machine("flat:4"),
        workload([(0, 2, 10), (0, 4, 10), (5, 1, 5)]),
        history=True,
        recent=8,
    )
    sim.run(until=5)
    snap = sim.snapshot(watch=Watch(first=5))
    assert snap.event == sim.events and snap.time == 5
    assert [j.job_id for j in snap.waiting] == [2, 3]
    assert snap.waits[1] == Wait(10.0, "needs 4 nodes, 2 free; expected day 0 00:00:10 when 1 ends")
    assert snap.waits[2] == Wait(
        20.0,
        "behind job 2, which blocks the queue (fcfs); expected day 0 00:00:20 when 2 (queued "
        "ahead) ends",
    )
    assert [r.job.job_id for r in snap.running] == [1]
    assert snap.metrics["waiting"] == 2 and snap.metrics["finished"] == 0
    assert [e.kind for e in snap.recent][-1] == "arrival"
    assert snap.series.utilization[0] == pytest.approx(0.5)
    with pytest.raises(AttributeError):
        snap.time = 3  # type: ignore[misc]
    sim.run()
    assert snap.metrics["finished"] == 0 and sim.snapshot().metrics["finished"] == 3


def test_series_merges_buckets_and_keeps_time_weighted_means():
    from meshsim.engine.kernel.series import Series

    s = Series(0.0, capacity=4, width=1.0)
    s.add(0.0, 2.0, 1.0, 2.0, 0.0)
    s.add(2.0, 6.0, 0.0, 0.0, 0.5)
    view = s.view()
    assert s.width == 2.0
    assert view.times.tolist() == [0.0, 2.0, 4.0]
    assert view.utilization.tolist() == [1.0, 0.0, 0.0]
    assert view.loc.tolist() == [0.0, 0.5, 0.5]


def test_allocator_hooks_companion_finished_and_clock():
    from meshsim.engine.allocation.flat import FlatAllocator

    class Pairing(FlatAllocator):
        seen: ClassVar[list[int]] = []

        def companion(self, job, placement, waiting):
            mate = next((j for j in waiting if j.size == job.size), None)
            return None if mate is None else (mate, self.find(mate))

        def finished(self, job):
            self.seen.append(job.job_id)

        def next_change(self, now):
            return 100.0 if now < 100 else None

    sim = Simulation(
        load_machine("flat:4"),
        workload([(0, 4, 10), (1, 2, 5), (1, 1, 5), (2, 2, 5)]),
        allocator_class=Pairing,
    )
    records = []
    while (r := sim.step()) is not None:
        records.append(r)
    # job 2 (2 nodes) starts at 10 with its same-size mate job 4 ahead of job 3
    assert sim.start_times().tolist() == [0, 10, 15, 10]
    assert Pairing.seen == [1, 2, 4, 3]
    assert [r.kind for r in records if r.kind == "clock"] == ["clock"]
    assert [r.time for r in records if r.kind == "clock"] == [100.0]


def test_migration_repacks_running_jobs_when_the_head_is_blocked():
    from meshsim.engine.allocation.allocator import FREE, Placement
    from meshsim.engine.allocation.flat import FlatAllocator

    class Line(FlatAllocator):
        """Contiguous runs on a line of 4 cells: first fit; repack packs largest first."""

        topologies = frozenset({"mesh"})

        def find(self, job):
            free = (self._owner == FREE).tolist()
            for start in range(len(free) - job.size + 1):
                if all(free[start : start + job.size]):
                    return Placement(tuple(range(start, start + job.size)), job.size, f"@{start}")
            return None

        def repack(self, running):
            plan, at = {}, 0
            for job, _ in sorted(running, key=lambda p: (-p[0].size, p[0].index)):
                plan[job.index] = Placement(tuple(range(at, at + job.size)), job.size, f"@{at}")
                at += job.size
            return plan

    line = load_machine(str(DATA / "line4.toml"))
    rows = [(0, 1, 10), (0, 1, 100), (0, 1, 10), (1, 1, 100), (20, 2, 5)]
    for migrate, expected in ((False, 100), (True, 20)):
        sim = Simulation(line, workload(rows), Policy(migrate=migrate), allocator_class=Line)
        sim.run()
        # at t=10 jobs 1 and 3 leave holes at cells 0 and 2; the 2-cell job needs them joined
        assert sim.start_times()[4] == expected
        m = sim.results().metrics
        assert (m["migrations"] > 0) == migrate
        assert m["migrated_jobs"] == (2 if migrate else 0)
    with pytest.raises(MeshsimError, match="cannot migrate"):
        Simulation(load_machine("flat:4"), workload(rows), Policy(migrate=True))
