"""The console's commands to its engine process: plain functions of a :class:`Session`.

The engine runs in a process of its own (:mod:`meshsim.tui.engine_process`), so every command the UI
sends crosses a pipe: it is a module-level function here or in :class:`Session`, bound to its
arguments with :func:`functools.partial`, or a method of a frozen dataclass such as
:class:`WhatIf` — never a closure, which cannot be pickled. A command's return value goes back in
the frame that follows it. This module does not import Textual, so the engine process never loads
it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from meshsim.engine.kernel.actions import Fail, Reserve, SetPolicy
from meshsim.engine.tools.outputs import dumps, write_jobs_csv, write_schedule_swf, write_text
from meshsim.engine.tools.scenario import Scenario, load_scenario, save_scenario, scenario_document
from meshsim.engine.tools.session import MetricDelta, Session, compare_results
from meshsim.engine.topology.units import UnitInfo


def step(session: Session, count: int) -> None:
    """Process up to ``count`` events."""
    session.step(count)


def step_to_start(session: Session) -> None:
    """Process events until one starts a job (or the run ends)."""
    session.step_to_start()


def goto_later(session: Session, seconds: float) -> None:
    """Go ``seconds`` of simulated time ahead of now."""
    session.goto_time(session.now + seconds)


def unit_info(session: Session, cell: int) -> UnitInfo:
    """The unit inspector's view of map cell ``cell``."""
    return session.sim.unit_info(cell)


def reserve(session: Session, values: dict[str, Any]) -> None:
    """Reserve the block the form asked for, its start and length timed from now."""
    start = session.now + values["start"]
    session.act_now(Reserve(time=start, block=values["block"], until=start + values["length"]))


@dataclass(frozen=True)
class WhatIf:
    """A what-if question: fork the run now, change something in the branch, carry both to the end
    (or to ``until``) and compare their result metrics."""

    policy: dict[str, str]
    fail: str
    until: float | None

    def run(self, session: Session) -> WhatIfResult:
        """Engine side: both branches, side by side (the session itself does not move)."""
        base = session.fork(f"{session.name}-base")
        branch = session.fork(f"{session.name}-what-if")
        if self.policy:
            branch.act_now(SetPolicy(time=0.0, **self.policy))
        if self.fail:
            branch.act_now(Fail(time=0.0, unit=self.fail))
        for s in (base, branch):
            if self.until is None:
                s.sim.run()
            else:
                s.run_until(self.until)
        return WhatIfResult(self, session.now, compare_results(base.sim, branch.sim))


@dataclass(frozen=True)
class WhatIfResult:
    question: WhatIf
    forked_at: float
    deltas: tuple[MetricDelta, ...]


def scenario_of(session: Session) -> Scenario:
    """The session as a scenario: its inputs, its action log and its position."""
    return Scenario(session.options, session.actions, session.events, session.name)


def save(session: Session, path: Path) -> str:
    """Write the scenario file."""
    save_scenario(path, scenario_of(session))
    return f"scenario saved to {path} (event {session.events}, {len(session.actions)} actions)"


def export(session: Session, folder: Path) -> str:
    """Carry a copy to the end and write its result JSON, per-job CSV and simulated schedule as SWF
    — the same bytes ``meshsim run --scenario`` writes."""
    done = session.finished()
    folder.mkdir(parents=True, exist_ok=True)
    write_text(folder / "result.json", dumps(scenario_document(done, scenario_of(session))))
    write_jobs_csv(done, folder / "jobs.csv")
    write_schedule_swf(done, folder / "schedule.swf")
    return f"results exported to {folder}/ (result.json, jobs.csv, schedule.swf)"


def open_scenario(path: Path) -> Session:
    """A session reopened from a scenario file, at its saved position."""
    scenario = load_scenario(path)
    session = Session(scenario.options, tuple(scenario.actions), name=scenario.name)
    session.goto_event(scenario.position)
    return session
