"""The console's requests to its engine process: declared messages, one handler per message type.

The engine runs in a process of its own (:mod:`meshsim.tui.engine_process`), so every request the UI
sends crosses a pipe: it is a frozen dataclass declared here (it pickles by value), and
:func:`handle` dispatches it, by its type, to the one handler registered for that type, which works
on the :class:`~meshsim.tui.driver.Driver` (and its :class:`Session`). What a handler returns goes
back in the frame that follows the request; what it raises goes back as the frame's error. This
module does not import Textual, so the engine process never loads it."""

from __future__ import annotations

from dataclasses import dataclass
from functools import singledispatch
from pathlib import Path
from typing import TYPE_CHECKING, Any

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.kernel.actions import Action, Fail, Reserve, SetPolicy
from meshsim.engine.tools.outputs import dumps, jobs_csv_text, schedule_swf
from meshsim.engine.tools.runcase import input_files
from meshsim.engine.tools.scenario import Scenario, save_scenario, scenario_document
from meshsim.engine.tools.session import MetricDelta, Session, compare_results
from meshsim.engine.workloads.swf import swf_bytes
from meshsim.engine.writing import Batch, Target, check_targets

if TYPE_CHECKING:
    from meshsim.tui.driver import Driver


@dataclass(frozen=True)
class Request:
    """Something the console asks of its engine process."""


@dataclass(frozen=True)
class Live(Request):
    """Go live (at ``speed`` simulated seconds per wall second, when given) or pause."""

    live: bool
    speed: float | None = None


@dataclass(frozen=True)
class Step(Request):
    """Process up to ``count`` events."""

    count: int = 1


@dataclass(frozen=True)
class StepToStart(Request):
    """Process events until one starts a job (or the run ends)."""


@dataclass(frozen=True)
class Back(Request):
    """Step back ``count`` events (a replay)."""

    count: int = 1


@dataclass(frozen=True)
class GoToEvent(Request):
    """Go to the state just after event ``number``."""

    number: int


@dataclass(frozen=True)
class GoToTime(Request):
    """Go to simulated time ``time``."""

    time: float


@dataclass(frozen=True)
class GoLater(Request):
    """Go ``seconds`` of simulated time ahead of now."""

    seconds: float


@dataclass(frozen=True)
class InspectJob(Request):
    """The job inspector's view of job ``job_id``."""

    job_id: int


@dataclass(frozen=True)
class InspectUnit(Request):
    """The unit inspector's view of map cell ``cell``."""

    cell: int


@dataclass(frozen=True)
class Act(Request):
    """Apply an operator action now and show its effect."""

    action: Action


@dataclass(frozen=True)
class ReserveBlock(Request):
    """Reserve ``block`` from ``start`` seconds after now for ``length`` seconds."""

    block: str
    start: float
    length: float


@dataclass(frozen=True)
class Undo(Request):
    """Remove the last operator action."""


@dataclass(frozen=True)
class WhatIf(Request):
    """A what-if question: fork the run now, change something in the branch, carry both to the end
    (or to ``until``) and compare their result metrics."""

    policy: dict[str, str]
    fail: str
    until: float | None


@dataclass(frozen=True)
class WhatIfResult:
    question: WhatIf
    forked_at: float
    deltas: tuple[MetricDelta, ...]


@dataclass(frozen=True)
class Save(Request):
    """Write the session as a scenario file."""

    path: Path


@dataclass(frozen=True)
class Export(Request):
    """Carry a copy to the end and write its outputs into ``folder``."""

    folder: Path


@dataclass(frozen=True)
class Query(Request):
    """A read-only question to the session: one of :data:`QUERIES`, with ``args``."""

    name: str
    args: tuple[Any, ...] = ()


QUERIES = ("now", "events", "done", "actions", "waiting", "peek", "explain")
"""The session's read-only properties and methods a :class:`Query` may name."""


@dataclass(frozen=True)
class Unreadable(Request):
    """A request the engine process could not unpickle (``message`` says why)."""

    message: str


# ------------------------------------------------------------------------------ handlers


@singledispatch
def handle(request: Request, driver: Driver) -> Any:
    """Carry out ``request`` on ``driver``'s session (one handler per request type)."""
    raise MeshsimError(f"the engine has no handler for {type(request).__name__}")


@handle.register(Live)
def _live(request: Live, driver: Driver) -> None:
    driver.set_live(request.live, request.speed)


@handle.register(Step)
def _step(request: Step, driver: Driver) -> None:
    driver.session.step(request.count)


@handle.register(StepToStart)
def _step_to_start(request: StepToStart, driver: Driver) -> None:
    driver.session.step_to_start()


@handle.register(Back)
def _back(request: Back, driver: Driver) -> None:
    driver.session.back(request.count)


@handle.register(GoToEvent)
def _goto_event(request: GoToEvent, driver: Driver) -> None:
    driver.session.goto_event(request.number)


@handle.register(GoToTime)
def _goto_time(request: GoToTime, driver: Driver) -> None:
    driver.session.goto_time(request.time)


@handle.register(GoLater)
def _go_later(request: GoLater, driver: Driver) -> None:
    driver.session.goto_time(driver.session.now + request.seconds)


@handle.register(InspectJob)
def _inspect_job(request: InspectJob, driver: Driver) -> Any:
    return driver.session.job_details(request.job_id)


@handle.register(InspectUnit)
def _inspect_unit(request: InspectUnit, driver: Driver) -> Any:
    return driver.session.unit_info(request.cell)


@handle.register(Act)
def _act(request: Act, driver: Driver) -> None:
    driver.session.act_now(request.action)


@handle.register(ReserveBlock)
def _reserve(request: ReserveBlock, driver: Driver) -> None:
    start = driver.session.now + request.start
    reserve = Reserve(time=start, block=request.block, until=start + request.length)
    driver.session.act_now(reserve)


@handle.register(Undo)
def _undo(request: Undo, driver: Driver) -> Action:
    return driver.session.undo()


@handle.register(WhatIf)
def _what_if(request: WhatIf, driver: Driver) -> WhatIfResult:
    """Both branches, side by side (the session itself does not move)."""
    session = driver.session
    base = session.fork(f"{session.name}-base")
    branch = session.fork(f"{session.name}-what-if")
    if request.policy:
        branch.act_now(SetPolicy(time=0.0, **request.policy))
    if request.fail:
        branch.act_now(Fail(time=0.0, unit=request.fail))
    for s in (base, branch):
        s.run(until=request.until)
    return WhatIfResult(request, session.now, compare_results(base, branch))


@handle.register(Save)
def _save(request: Save, driver: Driver) -> str:
    """Write the scenario file (never over one of the run's inputs)."""
    session = driver.session
    check_targets([Target("", request.path)], input_files(session.options))
    save_scenario(request.path, scenario_of(session))
    return (
        f"scenario saved to {request.path} (event {session.events}, {len(session.actions)} actions)"
    )


@handle.register(Export)
def _export(request: Export, driver: Driver) -> str:
    """The result JSON, per-job CSV and simulated schedule as SWF of a copy carried to the end:
    the same bytes ``meshsim run --scenario`` writes."""
    session, folder = driver.session, request.folder
    names = ("result.json", "jobs.csv", "schedule.swf")
    check_targets([Target("", folder, folder=True, files=names)], input_files(session.options))
    done = session.finished()
    with Batch() as batch:
        batch.folder(folder)
        batch.write(folder / "result.json", dumps(scenario_document(done, scenario_of(session))))
        batch.write(folder / "jobs.csv", jobs_csv_text(done))
        batch.write(folder / "schedule.swf", swf_bytes(folder / "schedule.swf", schedule_swf(done)))
        batch.commit()
    return f"results exported to {folder}/ (result.json, jobs.csv, schedule.swf)"


@handle.register(Query)
def _query(request: Query, driver: Driver) -> Any:
    if request.name not in QUERIES:
        raise MeshsimError(f"unknown query '{request.name}' (valid: {', '.join(QUERIES)})")
    value = getattr(driver.session, request.name)
    return value(*request.args) if callable(value) else value


@handle.register(Unreadable)
def _unreadable(request: Unreadable, driver: Driver) -> None:
    raise MeshsimError(f"the engine could not read a command: {request.message}")


def scenario_of(session: Session) -> Scenario:
    """The session as a scenario: its inputs, its action log and its position."""
    return Scenario(session.options, session.actions, session.events, session.name)
