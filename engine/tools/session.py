"""A live simulation and its controls: what the console's one engine worker owns.

A :class:`Session` is a :class:`~meshsim.engine.kernel.simulation.Simulation` together with the run
options that define it, so it can step forward, go to a simulated time or event number, step back,
fork a what-if branch and finish a copy for export or comparison. The console never touches a
session from its UI thread: one worker alone drives it and hands out immutable snapshots (DESIGN.md,
"Console").

Stepping back is a replay. A run is fully defined by its inputs and its action log (DESIGN.md,
"Operator actions"), so going to event ``n < now`` rebuilds the run from its inputs and replays
``n`` events. The action log is kept whole: an action applied after event ``n`` stays scheduled at
its time and happens again when the run passes it (:meth:`Session.undo` removes the last one)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NamedTuple

from meshsim.engine.allocation.free_space import FreeSpace
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.jobs import Job
from meshsim.engine.kernel import views
from meshsim.engine.kernel.action_checks import refusal
from meshsim.engine.kernel.actions import Action, LoggedAction, Reserve
from meshsim.engine.kernel.events import EventRecord
from meshsim.engine.kernel.history import EventHistory
from meshsim.engine.kernel.records import Results, Snapshot
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.kernel.waits import Watch
from meshsim.engine.rejections import ActionRejected
from meshsim.engine.tools.runcase import RunOptions, load_inputs
from meshsim.engine.tools.scenario import load_scenario
from meshsim.engine.tools.whatif import ForkPoint, since_fork
from meshsim.engine.topology.machines import Machine
from meshsim.engine.topology.units import UnitInfo
from meshsim.engine.workloads.workload import Workload

RECENT = 200
"""Events and finished jobs a console session keeps for its event log and timeline."""


@dataclass(frozen=True)
class JobDetails:
    """What the job inspector shows: the record, where the job stands and why, and its events."""

    job: Job
    status: str
    start: float
    end: float
    location: str
    events: tuple[EventRecord, ...]


class Replay(NamedTuple):
    """A run of a session's inputs and its event history (None when the session keeps none)."""

    sim: Simulation
    history: EventHistory | None


class Session:
    """One simulation the operator steps through, with the inputs that define it."""

    def __init__(
        self,
        options: RunOptions,
        actions: tuple[Action | LoggedAction, ...] = (),
        *,
        name: str = "console",
        inputs: tuple[Machine, Workload] | None = None,
        keep_history: bool = True,
    ) -> None:
        self.options = options
        self.name = name
        self.machine, self.workload = inputs if inputs is not None else load_inputs(options)
        self.keeps_history = keep_history
        self._sim, self.history = self._build(actions)
        """The run, and every event record of it for the event log's search (None in a fork, which
        runs for its results only)."""

    @classmethod
    def from_scenario(cls, path: Path) -> Session:
        """A session reopened from a scenario file, at its saved position."""
        scenario = load_scenario(path)
        session = cls(scenario.options, tuple(scenario.actions), name=scenario.name)
        session.goto_event(scenario.position)
        return session

    def _build(self, actions: Sequence[Action | LoggedAction]) -> Replay:
        """A fresh run of the inputs with ``actions``, at its start, with an event history of its
        own when this session keeps one."""
        history = EventHistory() if self.keeps_history else None
        sim = Simulation(
            self.machine,
            self.workload,
            self.options.policy(self.machine),
            self.options.seed,
            actions=tuple(actions),
            log=None if history is None else history.add,
            recent=RECENT,
            history=True,
        )
        return Replay(sim, history)

    def replay(self) -> Session:
        """This session rebuilt from its inputs and action log, at its start, as a twin of its own:
        advance the twin to the event wanted, then :meth:`adopt` it (a replay stopped half-way
        leaves this session as it was)."""
        return Session(
            self.options,
            self.actions,
            name=self.name,
            inputs=(self.machine, self.workload),
            keep_history=self.keeps_history,
        )

    def adopt(self, twin: Session) -> None:
        """Take the run of ``twin`` (a :meth:`replay` of this session) as this session's run."""
        self._sim, self.history = twin._sim, twin.history

    # -------------------------------------------------------------------------- position

    @property
    def events(self) -> int:
        return self._sim.events

    @property
    def now(self) -> float:
        return self._sim.now

    @property
    def done(self) -> bool:
        return self._sim.done

    @property
    def actions(self) -> tuple[LoggedAction, ...]:
        """The action log, each action with the event count it was applied after."""
        return tuple(self._sim.logged_actions())

    def step(self, count: int = 1) -> list[EventRecord]:
        """Process up to ``count`` events; return their records."""
        records = []
        for _ in range(count):
            record = self._sim.step()
            if record is None:
                break
            records.append(record)
        return records

    def step_to_start(self, max_events: int = 1_000_000) -> EventRecord | None:
        """Process events until one starts a job (or the run ends); return that event's record."""
        for _ in range(max_events):
            record = self._sim.step()
            if record is None or record.started:
                return record
        return None

    def run(self, until: float | None = None, max_events: int | None = None) -> None:
        """Run to the end, or through every event at times ≤ ``until`` (at most ``max_events``)."""
        self._sim.run(until=until, max_events=max_events)

    def run_until(self, time: float, max_events: int | None = None) -> None:
        """Process every event at times ≤ ``time`` (at most ``max_events`` of them)."""
        self._sim.run(until=time, max_events=max_events)

    def goto_event(self, number: int) -> None:
        """Go to the state just after event ``number`` (replaying when it lies behind)."""
        if number < 0:
            raise MeshsimError(f"event numbers start at 0, got {number}")
        if number < self._sim.events:
            twin = self.replay()
            twin.run_to_event(number)
            self.adopt(twin)
        else:
            self._sim.run_to_event(number)

    def run_to_event(self, number: int) -> None:
        """Process events until ``number`` of them have been processed (or the run ends)."""
        self._sim.run_to_event(number)

    def goto_time(self, time: float) -> None:
        """Go to simulated time ``time``: every event at or before it processed, none after."""
        if time < self._sim.now:
            self.adopt(self.replay())
        self._sim.run(until=time)

    def back(self, count: int = 1) -> None:
        """Step back ``count`` events (a replay from the start)."""
        self.goto_event(max(0, self._sim.events - count))

    # --------------------------------------------------------------------------- actions

    def apply(self, action: Action) -> None:
        """Schedule an operator action (at its time, never before now) and log it."""
        self._sim.apply(action)

    def act_now(self, action: Action) -> None:
        """Apply ``action`` at the current time and process the rest of this instant (the action and
        the scheduling pass after it), so its effect shows at once. An action that could not apply
        now (holding a running job, repairing a unit that is up, a unit the machine does not have)
        is refused before it is logged (:func:`~meshsim.engine.kernel.action_checks.refusal`):
        it takes no event number and leaves nothing to undo."""
        action = replace(action, time=self._sim.now)
        problem = self.refusal(action)
        if problem is not None:
            raise ActionRejected(problem.reason, f"{action.kind} refused: {problem}")
        number = self._sim.apply(action)
        self._sim.run(until=self._sim.now)
        failure = self._sim.action_log.rejected.get(number)
        if failure is not None:
            raise MeshsimError(
                f"{action.kind} failed: {failure.detail} (kept in the log; z undoes it)"
            )

    def refusal(self, action: Action) -> ActionRejected | None:
        """Why ``action``, applied now, would be rejected (None when it would apply:
        :func:`~meshsim.engine.kernel.action_checks.refusal`)."""
        return refusal(self._sim, replace(action, time=self._sim.now))

    def undo(self) -> Action:
        """Remove the last operator action and replay without it, back to the same simulated time:
        to at most the event count of now, less the events the action itself made (its own, and a
        reservation's end), and never past the current time. Undo never moves the clock forward."""
        log = self._sim.logged_actions()
        if not log:
            raise MeshsimError("there is no operator action to undo")
        made = self._events_made(len(log) - 1)
        last = log.pop()
        position, now = self._sim.events, self._sim.now
        sim, history = self._build(log)
        sim.run(until=now, max_events=max(last.after_event, position - made))
        self._sim, self.history = sim, history
        return last.action

    def _events_made(self, number: int) -> int:
        """Events that action ``number`` of the log has made so far: its own when it has been
        carried out, and a reservation's start (when it started after it was made) and end when
        they have come."""
        sim, log = self._sim, self._sim.action_log
        if number >= len(log.applied):
            return 0
        action = log.applied[number]
        if action.time > sim.now:
            return 0
        if not isinstance(action, Reserve) or number in log.rejected:
            return 1
        started = action.time < action.opens <= sim.now
        return 1 + int(started) + int(action.until <= sim.now)

    # --------------------------------------------------------------------------- what-if

    def fork(self, name: str | None = None, *, run: bool = True) -> Session:
        """An independent session at the same event (at its start when not ``run``: advance it to
        :attr:`events` yourself), sharing the loaded inputs."""
        twin = Session(
            self.options,
            self.actions,
            name=name or f"{self.name}-fork",
            inputs=(self.machine, self.workload),
            keep_history=False,
        )
        if run:
            twin._sim.run_to_event(self._sim.events)
        return twin

    def finished(self, carry: Callable[[Session], None] | None = None) -> Simulation:
        """A copy of this run carried to its end (this session does not move): by ``carry`` when
        given, which is handed the copy at its start and must carry it to the end itself (the
        console's export does so in chunks that report progress and stop on a cancel)."""
        copy = self.fork(run=carry is None)
        if carry is None:
            copy.run()
        else:
            carry(copy)
        return copy._sim

    def fork_point(self) -> ForkPoint:
        """What this run has done so far, for a what-if comparison since now."""
        return ForkPoint.of(self._sim)

    def since_fork(self, point: ForkPoint) -> dict[str, float | int | None]:
        """This run's metrics over what happened after ``point``
        (:func:`~meshsim.engine.tools.whatif.since_fork`)."""
        return since_fork(self._sim, point)

    # ----------------------------------------------------------------------------- views

    def snapshot(self, watch: Watch | None = None) -> Snapshot:
        """An immutable view, with the waits of the jobs ``watch`` names (default: none;
        :mod:`meshsim.engine.kernel.waits`)."""
        return self._sim.snapshot(watch=watch)

    def explain(self, job_id: int) -> str:
        return self._sim.explain(job_id)

    def job_status(self, job_id: int) -> str:
        """Where job ``job_id`` stands now (:meth:`Simulation.job_status`)."""
        return self._sim.job_status(job_id)

    def results(self) -> Results:
        """The result metrics and breakdowns of the jobs finished so far."""
        return self._sim.results()

    def free_space(self) -> FreeSpace:
        """The machine's free space now (:func:`meshsim.engine.kernel.views.free_space`)."""
        return views.free_space(self._sim)

    def unit_info(self, cell: int) -> UnitInfo:
        """The unit inspector's view of map cell ``cell``."""
        return self._sim.unit_info(cell)

    @property
    def waiting(self) -> int:
        """How many jobs wait."""
        return len(self._sim.scheduler.queue)

    def job_details(self, job_id: int) -> JobDetails:
        """The inspector's view of job ``job_id`` (its events over the whole run; a fork, which
        keeps no history, gives those among the recent ones); a waiting job's status is its whole
        :class:`~meshsim.engine.kernel.waits.Wait`: the blocker and the expected start."""
        sim = self._sim
        index = sim.job_index(job_id)
        start, end = sim.start_times()[index], math.nan
        running = sim.running.get(index)
        location = running.placement.label if running is not None else ""
        snap = sim.snapshot(watch=Watch(jobs=frozenset({index})))
        for left in snap.finished:
            if left.job.index == index:
                end, location = left.end, left.placement.label
        wait = snap.waits.get(index)
        status = wait.text if wait is not None else sim.explain(job_id)
        return JobDetails(
            job=sim.job(index),
            status=status,
            start=float(start),
            end=end,
            location=location,
            events=(
                tuple(r for r in snap.recent if r.job_id == job_id)
                if self.history is None
                else self.history.of_job(job_id)
            ),
        )

    def peek(self) -> float:
        """Time of the next event (``inf`` at the end)."""
        return self._sim.peek()
