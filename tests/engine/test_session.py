"""The console's session: stepping, going to a time or event, stepping back by replay, forks,
operator actions applied now, undo, the job inspector's details and what-if comparisons."""

from __future__ import annotations

import math

import pytest

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.kernel.actions import Cancel, Hold, SetPolicy
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.kernel.waits import Watch
from meshsim.engine.tools.runcase import RunOptions, load_inputs
from meshsim.engine.tools.session import Session
from meshsim.engine.tools.whatif import COMPARED, ForkPoint, compare_branches, since_fork

MESH = RunOptions(machine="tests/data/mesh5x4.toml", workload="tests/data/mesh-sides-small.toml")


def state(session: Session) -> tuple:
    """What must agree between two sessions at the same event."""
    snap = session.snapshot(Watch(first=5))
    return (
        snap.event,
        snap.time,
        snap.owners.tolist(),
        [(r.job.job_id, r.start, r.placement) for r in snap.running],
        [j.job_id for j in snap.waiting],
        dict(snap.waits),
    )


def last_waiting(session: Session) -> int:
    """Step until some job waits; return the number of the last one in the queue."""
    while not session.snapshot().waiting:
        assert session.step(), "the workload builds a queue on the 5x4 mesh"
    return session.snapshot().waiting[-1].job_id


@pytest.fixture(scope="module")
def intrepid_options() -> RunOptions:
    return RunOptions(machine="intrepid", seed=3)


def test_step_counts_events_and_stops_at_the_end() -> None:
    session = Session(MESH)
    records = session.step(3)
    assert [r.number for r in records] == [1, 2, 3]
    assert session.events == 3
    rest = session.step(10_000)
    assert session.done
    assert len(rest) == session.events - 3
    assert session.step() == []


def test_step_to_start_stops_at_the_first_event_that_starts_a_job() -> None:
    session = Session(MESH)
    record = session.step_to_start()
    assert record is not None and record.started
    before = session.events
    fresh = Session(MESH)
    starts = [r for r in fresh.step(before) if r.started]
    assert [r.number for r in starts] == [before]


def test_back_replays_to_the_same_state(intrepid_options: RunOptions) -> None:
    session = Session(intrepid_options)
    session.step(400)
    at_400 = state(session)
    session.step(37)
    session.back(37)
    assert session.events == 400
    assert state(session) == at_400


def test_goto_event_forward_and_back_agree_with_plain_stepping() -> None:
    stepped = Session(MESH)
    stepped.step(12)
    session = Session(MESH)
    session.goto_event(20)
    session.goto_event(12)
    assert state(session) == state(stepped)
    with pytest.raises(MeshsimError):
        session.goto_event(-1)


def test_goto_time_processes_every_event_up_to_that_time_and_none_after() -> None:
    session = Session(MESH)
    session.step(10)
    t = session.now
    session.step(10)
    session.goto_time(t)
    assert session.now == t
    assert session.peek() > t


def test_fork_is_independent_and_shares_the_inputs() -> None:
    session = Session(MESH)
    session.step(8)
    twin = session.fork()
    assert twin.workload is session.workload
    assert state(twin) == state(session)
    twin.step(5)
    assert session.events == 8
    assert twin.events == 13


def test_act_now_takes_effect_at_once_and_is_logged() -> None:
    session = Session(MESH)
    job_id = last_waiting(session)
    session.act_now(Hold(time=0.0, job_id=job_id))
    snap = session.snapshot()
    assert job_id in [j.job_id for j in snap.held]
    assert session.actions[-1].action.time == snap.time
    assert session.actions[-1].after_event == snap.event - 1
    assert "held" in session.explain(job_id)


def test_back_keeps_the_action_log_and_undo_removes_the_last_action() -> None:
    session = Session(MESH)
    job_id = last_waiting(session)
    session.act_now(Cancel(time=0.0, job_id=job_id))
    position = session.events
    session.back(2)
    assert len(session.actions) == 1
    session.goto_event(position)
    assert session.explain(job_id) == "cancelled"
    removed = session.undo()
    assert removed.kind == "cancel"
    assert session.actions == ()
    assert session.explain(job_id) != "cancelled"
    with pytest.raises(MeshsimError, match="no operator action"):
        session.undo()


def test_an_action_applied_after_an_arrival_replays_after_it() -> None:
    """Cancel a job in the instant it arrived: actions scheduled ahead run before arrivals, so a
    replay that applied the cancel at the start would find no such job; the logged event count keeps
    it after the arrival, and the replayed run ends exactly like the live one."""
    session = Session(MESH)
    while True:
        record = session.step()[0]
        if record.kind == "arrival" and session.peek() > record.time:
            break
    session.act_now(Cancel(time=0.0, job_id=record.job_id))
    assert session.explain(record.job_id) == "cancelled"
    live = state(session)
    session.back(1)
    session.step(1)
    assert state(session) == live
    assert session.explain(record.job_id) == "cancelled"
    assert session.finished().results().metrics == session.fork().finished().results().metrics


def test_finished_copy_runs_to_the_end_without_moving_the_session() -> None:
    session = Session(MESH)
    session.step(4)
    done = session.finished()
    assert done.done
    assert session.events == 4
    whole = Session(MESH)
    whole.step(1_000_000)
    assert done.results().metrics == whole.results().metrics


def test_job_details_for_waiting_running_and_finished_jobs() -> None:
    session = Session(MESH)
    session.step_to_start()
    running = session.snapshot().running[0]
    details = session.job_details(running.job.job_id)
    assert details.status.startswith("running since")
    assert details.start == running.start and math.isnan(details.end)
    assert any(r.kind == "start" for r in details.events)
    session.step(1_000_000)
    done = session.job_details(running.job.job_id)
    assert done.status.startswith("finished at")
    assert done.end > done.start
    with pytest.raises(MeshsimError, match="no job"):
        session.job_details(999_999)


def test_a_comparison_signs_gains_by_each_metrics_better_direction() -> None:
    base = Session(MESH)
    base.step(20)
    point = base.fork_point()
    branch = base.fork()
    branch.act_now(SetPolicy(time=0.0, backfill="easy"))
    base.run()
    branch.run()
    compared = compare_branches(base, branch, point)
    deltas = {d.name: d for d in compared.since_start}
    assert list(deltas) == [name for name in COMPARED if name in deltas]
    wait, used = deltas["avg_wait_s"], deltas["utilization"]
    assert wait.base == base.results().metrics["avg_wait_s"]
    assert wait.branch == branch.results().metrics["avg_wait_s"]
    assert wait.gain == pytest.approx((wait.base - wait.branch) / wait.base)
    assert used.gain == pytest.approx((used.branch - used.base) / used.base), "higher is better"
    fork = {d.name: d for d in compared.since_fork}
    assert fork["jobs"].base == base.results().metrics["jobs"] - point.finished
    assert "makespan_s" not in fork
    same = compare_branches(base, base, point)
    assert all(d.gain in (0.0, None) for d in (*same.since_fork, *same.since_start))


def test_since_the_fork_counts_only_what_happened_after_it() -> None:
    """Issue 22: the what-if's figures from day 0 hid a change; since the fork they show it."""
    machine, jobs = load_inputs(MESH)
    sim = Simulation(machine, jobs, MESH.policy(machine), MESH.seed)
    sim.run(max_events=30)
    point = ForkPoint.of(sim)
    sim.run()
    since = since_fork(sim, point)
    whole = sim.results().metrics
    acc = sim.time.integrals
    span = acc.last - point.time
    assert since["jobs"] == whole["jobs"] - point.finished
    busy = (acc.busy - point.integrals.busy) / (machine.nodes * span)
    assert since["utilization"] == pytest.approx(busy)
    assert since["avg_wait_s"] != whole["avg_wait_s"]
