"""The console's commands to its engine process: plain functions of a :class:`Session`.

The engine runs in a process of its own (:mod:`meshsim.tui.engine_process`), so every command the UI
sends crosses a pipe: it is a module-level function here or in :class:`Session`, bound to its
arguments with :func:`functools.partial`, or a method of a frozen dataclass such as
:class:`WhatIf` — never a closure, which cannot be pickled. A command's return value goes back in
the frame that follows it. This module does not import Textual, so the engine process never loads
it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from meshsim.engine.actions import Action, Fail, Reserve, SetPolicy
from meshsim.engine.errors import MeshsimError
from meshsim.engine.history import HistoryPage
from meshsim.engine.outputs import dumps, jobs_csv_text, schedule_swf
from meshsim.engine.runcase import input_files
from meshsim.engine.scenario import Scenario, save_scenario, scenario_document
from meshsim.engine.session import Session
from meshsim.engine.simclock import clock
from meshsim.engine.simulation import Simulation
from meshsim.engine.swf import swf_bytes
from meshsim.engine.units import UnitInfo, unit_cell
from meshsim.engine.validation.action_checks import refusal
from meshsim.engine.whatif import Comparison, ForkPoint, compare_branches
from meshsim.engine.writing import Batch, Target, check_targets
from meshsim.tui.driver import LongCommand, Work


def step(session: Session, count: int) -> None:
    """Process up to ``count`` events."""
    session.step(count)


def step_to_start(session: Session) -> None:
    """Process events until one starts a job (or the run ends)."""
    session.step_to_start()


def unit_info(session: Session, cell: int) -> UnitInfo:
    """The unit inspector's view of map cell ``cell``."""
    return session.sim.unit_info(cell)


@dataclass(frozen=True)
class Vetted:
    """An action the engine found possible now, with the question to ask before applying it."""

    action: Action
    title: str
    question: str


def vet(session: Session, action: Action) -> Vetted:
    """``action`` checked against the run now (a refusal is raised, as applying it would), with
    what it will do in words."""
    problem = refusal(session.sim, replace(action, time=session.now))
    if problem is not None:
        raise MeshsimError(f"{action.kind} refused: {problem}")
    if isinstance(action, Fail):
        info = session.sim.unit_info(unit_cell(session.machine, action.unit))
        hit = f"job {info.job_id} on it is requeued (restarted later)" if info.job_id else ""
        question = f"Fail {info.name}? It is down until repaired (r)"
        return Vetted(action, "Fail unit", question + (f"; {hit}." if hit else "."))
    job_id = getattr(action, "job_id", -1)
    state = session.sim.job_status(job_id)
    question = f"Cancel {state} job {job_id}? It leaves the run (z undoes it)."
    return Vetted(action, "Cancel job", question)


def search_log(session: Session, query: str, before: int | None = None) -> HistoryPage:
    """A page of the event log lines of the whole run that contain ``query`` (the history is kept
    here, in the engine process; the UI holds only the page it shows)."""
    if session.history is None:
        raise MeshsimError("this session keeps no event history")
    return session.history.search(query, before)


def reserve(session: Session, values: dict[str, Any]) -> None:
    """Reserve the block the form asked for, its start and length timed from now."""
    start = session.now + values["start"]
    session.act_now(Reserve(time=start, block=values["block"], until=start + values["length"]))


CHUNK = 2000
"""Events a long command runs between two looks at its progress and at a cancel."""


def advance(
    sim: Simulation,
    work: Work,
    what: str,
    *,
    event: int | None = None,
    until: float | None = None,
    share: tuple[float, float] = (0.0, 1.0),
) -> None:
    """Run ``sim`` in chunks of :data:`CHUNK` events: to ``event`` events processed, else through
    simulated time ``until`` (None: to the end). Between two chunks it reports how far it is,
    mapped into ``share`` of the whole command (by events to an event, else by simulated time
    towards ``until`` or the workload's last submit), and stops if the operator cancelled."""
    e0, t0 = sim.events, sim.now
    end = (
        until if until is not None else float(sim.workload.submit[-1]) if len(sim.workload) else t0
    )
    lo, hi = share
    while True:
        work.check(what)
        before = sim.events
        if event is not None:
            if sim.events >= event:
                return
            sim.run(max_events=min(CHUNK, event - sim.events))
            done = (sim.events - e0) / max(1, event - e0)
        else:
            sim.run(until=until, max_events=CHUNK)
            done = (sim.now - t0) / (end - t0) if end > t0 else 1.0
        if sim.events == before:
            return
        fraction = lo + (hi - lo) * min(done, 0.99)
        work.report(fraction, f"{what}: event {sim.events:,}, {clock(sim.now)}")


@dataclass(frozen=True)
class GoTo(LongCommand):
    """Go to an event (``kind`` ``event``), a simulated time (``time``) or that much later
    (``later``); going back replays the run from its start."""

    kind: str
    value: float
    ticket: int = 0

    def run(self, session: Session, work: Work) -> str:
        what = "go to"
        if self.kind == "event":
            number = int(self.value)
            if number < 0:
                raise MeshsimError(f"event numbers start at 0, got {number}")
            if number >= session.events:
                advance(session.sim, work, what, event=number)
            else:
                replay = session.replay()
                advance(replay.sim, work, what, event=number)
                session.adopt(replay)
        else:
            target = session.now + self.value if self.kind == "later" else self.value
            if target >= session.now:
                advance(session.sim, work, what, until=target)
            else:
                replay = session.replay()
                advance(replay.sim, work, what, until=target)
                session.adopt(replay)
        return f"at event {session.events:,}, {clock(session.now)}"


def _fork(
    session: Session, name: str, work: Work, what: str, share: tuple[float, float]
) -> Session:
    """A fork of ``session`` replayed to its event in chunks (cancellable)."""
    twin = session.fork(name, run=False)
    advance(twin.sim, work, what, event=session.events, share=share)
    return twin


@dataclass(frozen=True)
class WhatIf(LongCommand):
    """A what-if question: fork the run now, change something in the branch, carry both to the end
    (or to ``until``) and compare their result metrics."""

    policy: dict[str, str]
    fail: str
    until: float | None
    ticket: int = 0

    def run(self, session: Session, work: Work) -> WhatIfResult:
        """Engine side: both branches, side by side (the session itself does not move)."""
        point = ForkPoint.of(session.sim)
        base = _fork(session, f"{session.name}-base", work, "what-if: base", (0.0, 0.1))
        branch = _fork(session, f"{session.name}-what-if", work, "what-if: branch", (0.1, 0.2))
        if self.policy:
            branch.act_now(SetPolicy(time=0.0, **self.policy))
        if self.fail:
            branch.act_now(Fail(time=0.0, unit=self.fail))
        advance(base.sim, work, "what-if: base", until=self.until, share=(0.2, 0.6))
        advance(branch.sim, work, "what-if: branch", until=self.until, share=(0.6, 1.0))
        return WhatIfResult(self, session.now, compare_branches(base.sim, branch.sim, point))


@dataclass(frozen=True)
class WhatIfResult:
    question: WhatIf
    forked_at: float
    comparison: Comparison


def scenario_of(session: Session) -> Scenario:
    """The session as a scenario: its inputs, its action log and its position."""
    return Scenario(session.options, session.actions, session.events, session.name)


def save(session: Session, path: Path) -> str:
    """Write the scenario file (never over one of the run's inputs)."""
    check_targets([Target("", path)], input_files(session.options))
    save_scenario(path, scenario_of(session))
    return f"scenario saved to {path} (event {session.events}, {len(session.actions)} actions)"


@dataclass(frozen=True)
class Export(LongCommand):
    """Carry a copy to the end and write its result JSON, per-job CSV and simulated schedule as SWF
    into ``folder`` — the same bytes ``meshsim run --scenario`` writes."""

    folder: Path
    ticket: int = 0

    def run(self, session: Session, work: Work) -> str:
        folder = self.folder
        names = ("result.json", "jobs.csv", "schedule.swf")
        check_targets([Target("", folder, folder=True, files=names)], input_files(session.options))
        copy = _fork(session, f"{session.name}-export", work, "export", (0.0, 0.2))
        advance(copy.sim, work, "export", share=(0.2, 1.0))
        done = copy.sim
        with Batch() as batch:
            batch.folder(folder)
            document = dumps(scenario_document(done, scenario_of(session)))
            batch.write(folder / "result.json", document)
            batch.write(folder / "jobs.csv", jobs_csv_text(done))
            swf = swf_bytes(folder / "schedule.swf", schedule_swf(done))
            batch.write(folder / "schedule.swf", swf)
            batch.commit()
        return f"results exported to {folder}/ (result.json, jobs.csv, schedule.swf)"
