"""Operator actions held to the run's state before they are logged (issue 22, item 3): the check
gives the reason the run itself gives, a refused action takes no event number and is not logged,
and undo keeps the simulated clock."""

from __future__ import annotations

import pytest

from meshsim.engine.allocation.allocator import DOWN
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.kernel.action_checks import (
    allocator_choices,
    policy_choices,
    static_refusal,
)
from meshsim.engine.kernel.actions import (
    Action,
    Cancel,
    Fail,
    Hold,
    ReleaseHold,
    Repair,
    Reserve,
    SetPolicy,
    Submit,
)
from meshsim.engine.tools.runcase import RunOptions
from meshsim.engine.tools.session import Session
from meshsim.engine.topology.machines import load_machine

MESH = RunOptions(machine="tests/data/mesh5x4.toml", workload="tests/data/mesh-sides-small.toml")


def _busy_session() -> Session:
    """A session with jobs waiting, running, held and finished, and one unit down."""
    session = Session(MESH)
    while True:
        snap = session.snapshot()
        finished = session.results().metrics["jobs"]
        if len(snap.waiting) >= 2 and snap.running and finished:
            break
        assert session.step(), "the workload builds a queue on the 5x4 mesh"
    session.act_now(Hold(time=0.0, job_id=snap.waiting[-1].job_id))
    free = [c for c, owner in enumerate(session.snapshot().owners.tolist()) if owner < 0]
    session.act_now(Fail(time=0.0, unit=free[0]))
    return session


def _actions(session: Session) -> list[Action]:
    snap = session.snapshot()
    waiting, held, running = snap.waiting[0], snap.held[0], snap.running[0]
    ended = next(j for j in range(1, 1000) if session.job_status(j) == "ended")
    later = next(j for j in range(1, 1000) if session.job_status(j) == "not_arrived")
    owners = snap.owners.tolist()
    free = owners.index(-1)
    busy = next(c for c, owner in enumerate(owners) if owner >= 0)
    down = owners.index(DOWN)
    now = snap.time
    actions: list[Action] = []
    for cls in (Hold, ReleaseHold, Cancel):
        for job in (waiting.job_id, held.job_id, running.job.job_id, ended, later, 99_999):
            actions.append(cls(time=0.0, job_id=job))
    for cls in (Fail, Repair):
        for unit in (free, busy, down, "9,9", "R99-M7"):
            actions.append(cls(time=0.0, unit=unit))
    actions += [
        Reserve(time=0.0, block="0,0 2x2", until=now + 60),
        Reserve(time=0.0, block="4,0 3x3", until=now + 60),
        SetPolicy(time=0.0, backfill="easy"),
        SetPolicy(time=0.0, allocator="no-such"),
        Submit(time=0.0, size=3, runtime=60.0),
        Submit(time=0.0, size=21, runtime=60.0),
    ]
    return actions


def test_the_check_gives_the_reason_the_run_gives() -> None:
    session = _busy_session()
    actions = _actions(session)
    refused = 0
    for action in actions:
        now = session.now
        problem = session.refusal(action)
        branch = session.fork()
        number = len(branch.actions)
        branch.apply(action.__class__(**{**vars(action), "time": now}))
        done = branch.finished()
        rejected = next((r for r in done.action_rejections() if r.index == number), None)
        expected = None if rejected is None else rejected.reason
        assert (None if problem is None else problem.reason) == expected, action
        if problem is not None and action.kind == "set-policy":
            valid = str(problem).split("(valid here: ", 1)[1]
            assert "first-fit" in valid.split(", "), "names what this machine takes"
        elif problem is not None:
            assert str(problem) == rejected.detail, action
            refused += 1
    assert 10 < refused < len(actions), "the battery holds both refused and valid actions"


def test_a_refused_action_is_not_logged_and_takes_no_event_number() -> None:
    session = _busy_session()
    before = (session.events, session.now, session.actions)
    running = session.snapshot().running[0].job.job_id
    with pytest.raises(MeshsimError, match=f"hold refused: job {running} is running, not waiting"):
        session.act_now(Hold(time=0.0, job_id=running))
    with pytest.raises(MeshsimError, match="repair refused: unit 0,0 is not down"):
        session.act_now(Repair(time=0.0, unit="0,0"))
    assert (session.events, session.now, session.actions) == before


def test_unknown_units_and_allocators_are_refused_from_the_machine_alone() -> None:
    intrepid = load_machine("intrepid")
    assert "no unit 'R99-M7'" in static_refusal(intrepid, Fail(time=0.0, unit="R99-M7"))
    assert static_refusal(intrepid, Fail(time=0.0, unit="R47-M1")) == ""
    mesh_only = SetPolicy(time=0.0, allocator="first-fit")
    assert "first-fit" not in allocator_choices(intrepid)
    assert "cannot be used on partitions machine 'intrepid'" in static_refusal(intrepid, mesh_only)


@pytest.mark.parametrize("field", ["queue", "discipline", "allocator"])
def test_policies_that_read_a_machine_section_are_offered_only_where_it_is(field: str) -> None:
    """The nqs queue order, discipline and allocator read the machine's [nqs] section: offered on
    the SDSC Paragon, not on Intrepid or a plain mesh, where a set-policy naming them is refused
    before it is logged."""
    paragon = load_machine("paragon-sdsc-1996")
    assert "nqs" in policy_choices(paragon, field)
    for name in ("intrepid", "mesh32"):
        machine = load_machine(name)
        assert "nqs" not in policy_choices(machine, field)
        refusal = static_refusal(machine, SetPolicy(time=0.0, **{field: "nqs"}))
        assert f"{field} 'nqs' cannot be used on" in refusal
        assert "valid here: " in refusal and "nqs" not in refusal.split("valid here: ")[1]


def test_undo_keeps_the_simulated_clock() -> None:
    """Issue 22: on Intrepid, an action at day 10 12:06:05 undone moved the clock to 12:09:04 (the
    replay ran to the old event count, which had counted the action's own event)."""
    session = Session(RunOptions(machine="intrepid", seed=3))
    session.goto_time(10 * 86400 + 12 * 3600)
    now, events = session.now, session.events
    assert session.peek() > now, "at the end of an instant"
    waiting = session.snapshot().waiting[-1].job_id
    session.act_now(Hold(time=0.0, job_id=waiting))
    assert session.events == events + 1
    session.undo()
    assert (session.now, session.events) == (now, events)
    assert session.job_status(waiting) == "waiting"
