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
from dataclasses import dataclass, replace
from pathlib import Path

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.jobs import Job
from meshsim.engine.kernel.actions import Action, LoggedAction
from meshsim.engine.kernel.events import EventRecord
from meshsim.engine.kernel.records import Results, Snapshot
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.tools.experiments.stats import relative_gain
from meshsim.engine.tools.runcase import RunOptions, load_inputs
from meshsim.engine.tools.scenario import load_scenario
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


@dataclass(frozen=True)
class MetricDelta:
    """One metric of a what-if comparison: the base and branch values and the relative gain
    ``(V_base − V_new) / V_base`` (Tang et al., Figs. 6–8: positive when the branch is lower)."""

    name: str
    base: float | None
    branch: float | None
    gain: float


COMPARED = (
    "avg_wait_s",
    "max_wait_s",
    "avg_response_s",
    "avg_bsld",
    "utilization",
    "allocated_utilization",
    "unused_capacity",
    "lost_capacity",
    "loss_of_capacity",
    "makespan_s",
)
"""The result metrics a what-if comparison lists, in this order."""


def compare_results(base: Session, branch: Session) -> tuple[MetricDelta, ...]:
    """The :data:`COMPARED` metrics of two sessions (usually both carried to their end); the gain
    is NaN when either value is undefined (None)."""
    a, b = base.results().metrics, branch.results().metrics
    return tuple(
        MetricDelta(name, a[name], b[name], _gain(a[name], b[name]))
        for name in COMPARED
        if name in a and name in b
    )


def _gain(base: float | None, new: float | None) -> float:
    return math.nan if base is None or new is None else relative_gain(base, new)


class Session:
    """One simulation the operator steps through, with the inputs that define it."""

    def __init__(
        self,
        options: RunOptions,
        actions: tuple[Action | LoggedAction, ...] = (),
        *,
        name: str = "console",
        inputs: tuple[Machine, Workload] | None = None,
    ) -> None:
        self.options = options
        self.name = name
        self.machine, self.workload = inputs if inputs is not None else load_inputs(options)
        self._sim = self._build(actions)

    @classmethod
    def from_scenario(cls, path: Path) -> Session:
        """A session reopened from a scenario file, at its saved position."""
        scenario = load_scenario(path)
        session = cls(scenario.options, tuple(scenario.actions), name=scenario.name)
        session.goto_event(scenario.position)
        return session

    def _build(self, actions: tuple[Action | LoggedAction, ...] | list[LoggedAction]) -> Simulation:
        return Simulation(
            self.machine,
            self.workload,
            self.options.policy(self.machine),
            self.options.seed,
            actions=tuple(actions),
            recent=RECENT,
            history=True,
        )

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
            self._sim = self._sim.replayed(number)
        else:
            self._sim.run_to_event(number)

    def goto_time(self, time: float) -> None:
        """Go to simulated time ``time``: every event at or before it processed, none after."""
        if time < self._sim.now:
            self._sim = self._sim.replayed(0)
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
        the scheduling pass after it), so its effect shows at once. An action that fails (e.g.
        holding a job that is not waiting) stays in the log, as it would on replay, and its failure
        is raised as a :class:`MeshsimError` for the operator to see."""
        action = replace(action, time=self._sim.now)
        number = self._sim.apply(action)
        self._sim.run(until=self._sim.now)
        failure = self._sim.action_log.rejected.get(number)
        if failure is not None:
            raise MeshsimError(
                f"{action.kind} failed: {failure.detail} (kept in the log; z undoes it)"
            )

    def undo(self) -> Action:
        """Remove the last operator action and replay to the current event without it."""
        log = self._sim.logged_actions()
        if not log:
            raise MeshsimError("there is no operator action to undo")
        last = log.pop()
        position = self._sim.events
        sim = self._build(log)
        sim.run_to_event(position)
        self._sim = sim
        return last.action

    # --------------------------------------------------------------------------- what-if

    def fork(self, name: str | None = None) -> Session:
        """An independent session at the same event, sharing the loaded inputs."""
        twin = Session(
            self.options,
            self.actions,
            name=name or f"{self.name}-fork",
            inputs=(self.machine, self.workload),
        )
        twin._sim.run_to_event(self._sim.events)
        return twin

    def finished(self) -> Simulation:
        """A copy of this run carried to its end (this session does not move)."""
        copy = self.fork()._sim
        copy.run()
        return copy

    # ----------------------------------------------------------------------------- views

    def snapshot(self, reasons: int = 40) -> Snapshot:
        """An immutable view, with the waiting reasons of the first ``reasons`` jobs."""
        return self._sim.snapshot(reasons=reasons)

    def explain(self, job_id: int) -> str:
        return self._sim.explain(job_id)

    def results(self) -> Results:
        """The result metrics and breakdowns of the jobs finished so far."""
        return self._sim.results()

    def unit_info(self, cell: int) -> UnitInfo:
        """The unit inspector's view of map cell ``cell``."""
        return self._sim.unit_info(cell)

    @property
    def waiting(self) -> int:
        """How many jobs wait."""
        return len(self._sim.scheduler.queue)

    def job_details(self, job_id: int) -> JobDetails:
        """The inspector's view of job ``job_id`` (its events among the recent ones)."""
        sim = self._sim
        index = sim.job_index(job_id)
        start, end = sim.start_times()[index], math.nan
        running = sim.running.get(index)
        location = running.placement.label if running is not None else ""
        snap = sim.snapshot()
        for left in snap.finished:
            if left.job.index == index:
                end, location = left.end, left.placement.label
        return JobDetails(
            job=sim.job(index),
            status=sim.explain(job_id),
            start=float(start),
            end=end,
            location=location,
            events=tuple(r for r in snap.recent if r.job_id == job_id),
        )

    def peek(self) -> float:
        """Time of the next event (``inf`` at the end)."""
        return self._sim.peek()
