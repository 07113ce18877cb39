"""The console's requests to its engine process: declared messages, one handler per message type.

The engine runs in a process of its own (:mod:`meshsim.tui.engine_process`), so every request the UI
sends crosses a pipe: it is a frozen dataclass declared here (it pickles by value), and
:func:`handle` dispatches it, by its type, to the one handler registered for that type, which works
on the :class:`~meshsim.tui.driver.Driver` (and its :class:`Session`). What a handler returns goes
back in the frame that follows the request; what it raises goes back as the frame's error. This
module does not import Textual, so the engine process never loads it.

A :class:`LongRequest` (a go-to, a what-if, an export) carries a ``ticket``: its handler runs the
simulation in chunks of :data:`PROGRESS_CHUNK` events (:func:`advance`), reports how far it is
between two and stops when the operator cancelled that ticket (:class:`CancelLong`, handed to the
driver at once rather than queued behind the request it stops)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import singledispatch
from pathlib import Path
from typing import TYPE_CHECKING, Any

from meshsim.engine.allocation.free_space import FreeSpace
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.simclock import clock
from meshsim.engine.kernel.actions import Action, Fail, Reserve, SetPolicy
from meshsim.engine.kernel.history import HistoryPage
from meshsim.engine.tools.outputs import dumps, jobs_csv_text, schedule_swf
from meshsim.engine.tools.runcase import input_files
from meshsim.engine.tools.scenario import Scenario, save_scenario, scenario_document
from meshsim.engine.tools.session import Session
from meshsim.engine.tools.whatif import Comparison, compare_branches
from meshsim.engine.topology.units import unit_cell
from meshsim.engine.workloads.swf import swf_bytes
from meshsim.engine.writing import Batch, Target, check_targets

if TYPE_CHECKING:
    from meshsim.tui.driver import Driver, Work


@dataclass(frozen=True)
class Request:
    """Something the console asks of its engine process."""


@dataclass(frozen=True)
class LongRequest:
    """What makes a request long: it reports its progress and can be cancelled by its ``ticket`` (a
    number the UI gives each one it sends). A long request is declared as ``(Request,
    LongRequest)``."""

    ticket: int = field(default=0, kw_only=True)


@dataclass(frozen=True)
class CancelLong(Request):
    """Stop the long request with ``ticket``, running now or still queued."""

    ticket: int


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
class GoToEvent(Request, LongRequest):
    """Go to the state just after event ``number``."""

    number: int


@dataclass(frozen=True)
class GoToTime(Request, LongRequest):
    """Go to simulated time ``time``."""

    time: float


@dataclass(frozen=True)
class GoLater(Request, LongRequest):
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
class ShowFreeSpace(Request):
    """The machine's free space now: partitions by state on a partition menu (``partlist``), the
    free boxes of a mesh or torus, the free nodes of a pool."""


@dataclass(frozen=True)
class WatchJobs(Request):
    """Carry the waits of ``jobs`` (job indices: the queue rows the console shows) in every
    frame, as well as those of the head of the queue."""

    jobs: frozenset[int]


@dataclass(frozen=True)
class Act(Request):
    """Apply an operator action now and show its effect."""

    action: Action


@dataclass(frozen=True)
class ReserveBlock(Request):
    """Reserve ``block`` from ``start`` seconds after now for ``length`` seconds; ``on_job`` says
    what happens at the start to the jobs still on its units (``wait`` or ``kill``)."""

    block: str
    start: float
    length: float
    on_job: str = "wait"


@dataclass(frozen=True)
class Undo(Request):
    """Remove the last operator action."""


@dataclass(frozen=True)
class WhatIf(Request, LongRequest):
    """A what-if question: fork the run now, change something in the branch, carry both to the end
    (or to ``until``) and compare their result metrics."""

    policy: dict[str, str]
    fail: str
    until: float | None


@dataclass(frozen=True)
class WhatIfResult:
    question: WhatIf
    forked_at: float
    comparison: Comparison


@dataclass(frozen=True)
class Vet(Request):
    """Check ``action`` against the run now, before the console asks the operator to confirm it."""

    action: Action


@dataclass(frozen=True)
class Vetted:
    """An action the engine found possible now, with the question to ask before applying it."""

    action: Action
    title: str
    question: str


@dataclass(frozen=True)
class SearchLog(Request):
    """A page of the event log lines of the whole run that contain ``query`` (before line
    ``before`` when given)."""

    query: str
    before: int | None = None


@dataclass(frozen=True)
class Save(Request):
    """Write the session as a scenario file."""

    path: Path


@dataclass(frozen=True)
class Export(Request, LongRequest):
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


@handle.register(CancelLong)
def _cancel(request: CancelLong, driver: Driver) -> None:
    driver.cancel(request.ticket)


@handle.register(GoToEvent)
def _goto_event(request: GoToEvent, driver: Driver) -> str:
    number = request.number
    if number < 0:
        raise MeshsimError(f"event numbers start at 0, got {number}")
    return _go(driver, request, event=number)


@handle.register(GoToTime)
def _goto_time(request: GoToTime, driver: Driver) -> str:
    return _go(driver, request, until=request.time)


@handle.register(GoLater)
def _go_later(request: GoLater, driver: Driver) -> str:
    return _go(driver, request, until=driver.session.now + request.seconds)


def _go(
    driver: Driver, request: LongRequest, *, event: int | None = None, until: float | None = None
) -> str:
    """Go to ``event`` events processed, else through simulated time ``until``, in chunks;
    going back replays the run from its start, and a replay stopped half-way (cancelled) leaves
    the session where it was."""
    session, work, what = driver.session, driver.work(request.ticket), "go to"
    if event is not None:
        behind = event < session.events
    else:
        behind = until is not None and until < session.now
    if behind:
        twin = session.replay()
        advance(twin, work, what, event=event, until=until)
        session.adopt(twin)
    else:
        advance(session, work, what, event=event, until=until)
    return f"at event {session.events:,}, {clock(session.now)}"


@handle.register(InspectJob)
def _inspect_job(request: InspectJob, driver: Driver) -> Any:
    return driver.session.job_details(request.job_id)


@handle.register(InspectUnit)
def _inspect_unit(request: InspectUnit, driver: Driver) -> Any:
    return driver.session.unit_info(request.cell)


@handle.register(ShowFreeSpace)
def _free_space(request: ShowFreeSpace, driver: Driver) -> FreeSpace:
    return driver.session.free_space()


@handle.register(WatchJobs)
def _watch_jobs(request: WatchJobs, driver: Driver) -> None:
    driver.watch_jobs(request.jobs)


@handle.register(Act)
def _act(request: Act, driver: Driver) -> None:
    driver.session.act_now(request.action)


@handle.register(ReserveBlock)
def _reserve(request: ReserveBlock, driver: Driver) -> str:
    """The reservation made now, for a window that starts now or later; the toast says what it
    did (pending until its start, or the jobs it waits for or killed)."""
    session = driver.session
    now = session.now
    start = now + request.start
    reserve = Reserve(
        time=now,
        block=request.block,
        until=start + request.length,
        start=start,
        on_job=request.on_job,
    )
    session.act_now(reserve)
    made = [
        r.detail
        for r in session.snapshot(reasons=0).recent
        if r.kind == "action" and r.time == now and r.detail.startswith("reserved ")
    ]
    return made[-1] if made else f"reserved {request.block}"


@handle.register(Undo)
def _undo(request: Undo, driver: Driver) -> Action:
    return driver.session.undo()


@handle.register(Vet)
def _vet(request: Vet, driver: Driver) -> Vetted:
    """The action checked against the run now (a refusal is raised, as applying it would), with
    what it will do in words."""
    session, action = driver.session, request.action
    problem = session.refusal(action)
    if problem is not None:
        raise MeshsimError(f"{action.kind} refused: {problem}")
    if isinstance(action, Fail):
        info = session.unit_info(unit_cell(session.machine, action.unit))
        hit = f"job {info.job_id} on it is requeued (restarted later)" if info.job_id else ""
        question = f"Fail {info.name}? It is down until repaired (r)"
        return Vetted(action, "Fail unit", question + (f"; {hit}." if hit else "."))
    job_id = getattr(action, "job_id", -1)
    state = session.job_status(job_id)
    question = f"Cancel {state} job {job_id}? It leaves the run (z undoes it)."
    return Vetted(action, "Cancel job", question)


@handle.register(SearchLog)
def _search_log(request: SearchLog, driver: Driver) -> HistoryPage:
    """The history is kept here, in the engine process; the UI holds only the page it shows."""
    history = driver.session.history
    if history is None:
        raise MeshsimError("this session keeps no event history")
    return history.search(request.query, request.before)


@handle.register(WhatIf)
def _what_if(request: WhatIf, driver: Driver) -> WhatIfResult:
    """Both branches, side by side, compared since the fork and since day 0 (the session itself
    does not move)."""
    session, work = driver.session, driver.work(request.ticket)
    point = session.fork_point()
    base = _fork(session, f"{session.name}-base", work, "what-if: base", (0.0, 0.1))
    branch = _fork(session, f"{session.name}-what-if", work, "what-if: branch", (0.1, 0.2))
    if request.policy:
        branch.act_now(SetPolicy(time=0.0, **request.policy))
    if request.fail:
        branch.act_now(Fail(time=0.0, unit=request.fail))
    advance(base, work, "what-if: base", until=request.until, share=(0.2, 0.6))
    advance(branch, work, "what-if: branch", until=request.until, share=(0.6, 1.0))
    return WhatIfResult(request, session.now, compare_branches(base, branch, point))


def _fork(
    session: Session, name: str, work: Work, what: str, share: tuple[float, float]
) -> Session:
    """A fork of ``session`` replayed to its event in chunks (cancellable)."""
    twin = session.fork(name, run=False)
    advance(twin, work, what, event=session.events, share=share)
    return twin


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
    session, folder, work = driver.session, request.folder, driver.work(request.ticket)
    names = ("result.json", "jobs.csv", "schedule.swf")
    check_targets([Target("", folder, folder=True, files=names)], input_files(session.options))

    def carry(copy: Session) -> None:
        advance(copy, work, "export", event=session.events, share=(0.0, 0.2))
        advance(copy, work, "export", share=(0.2, 1.0))

    done = session.finished(carry)
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


PROGRESS_CHUNK = 2000
"""Events a long request runs between two looks at its progress and at a cancel."""


def advance(
    session: Session,
    work: Work,
    what: str,
    *,
    event: int | None = None,
    until: float | None = None,
    share: tuple[float, float] = (0.0, 1.0),
) -> None:
    """Run ``session`` in chunks of :data:`PROGRESS_CHUNK` events: to ``event`` events processed,
    else through simulated time ``until`` (None: to the end). Between two chunks it reports how far
    it is, mapped into ``share`` of the whole request (by events to an event, else by simulated
    time towards ``until`` or the workload's last submit), and stops if the operator cancelled."""
    e0, t0 = session.events, session.now
    submits = session.workload.submit
    end = until if until is not None else float(submits[-1]) if len(submits) else t0
    lo, hi = share
    while True:
        work.check(what)
        before = session.events
        if event is not None:
            if session.events >= event:
                return
            session.run(max_events=min(PROGRESS_CHUNK, event - session.events))
            done = (session.events - e0) / max(1, event - e0)
        else:
            session.run(until=until, max_events=PROGRESS_CHUNK)
            done = (session.now - t0) / (end - t0) if end > t0 else 1.0
        if session.events == before:
            return
        fraction = lo + (hi - lo) * min(done, 0.99)
        work.report(fraction, f"{what}: event {session.events:,}, {clock(session.now)}")
