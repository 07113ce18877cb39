"""Operator actions: events in the same calendar as jobs, recorded in the run's action log.

A run is fully defined by its inputs plus its action log (DESIGN.md, "Operator actions"), so a
scenario can be saved, replayed to any event, stepped back and forked. Every action is a frozen
dataclass with the simulated ``time`` it takes effect;
:func:`meshsim.engine.tools.scenario_checks.read_action` reads (and checks) the form
:meth:`Action.as_dict` writes."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.registry import Registry
from meshsim.engine.kernel.outages import ON_JOB_AT_START

if TYPE_CHECKING:
    from meshsim.engine.kernel.operator import Operator

ACTIONS: Registry[type[Action]] = Registry("action")


@dataclass(frozen=True)
class Action(ABC):
    """Something an operator does at simulated time ``time``."""

    kind: ClassVar[str] = ""
    time: float

    @abstractmethod
    def execute(self, operator: Operator) -> str:
        """Carry the action out through ``operator``; return a one-line description for the event
        log."""

    def logged(self) -> Action:
        """The action as the run's log keeps it: with every default that depends on when it is
        applied made explicit (a reservation's start), so the log replays to the same run."""
        return self

    def as_dict(self) -> dict[str, Any]:
        return {"action": self.kind, **asdict(self)}


class LoggedAction(NamedTuple):
    """An action with the number of events the run had processed when it was applied.

    Replaying applies it after the same number of events, so it meets the calendar in the same state
    and takes its turn among that instant's events exactly as it did live (an action an operator
    applies after an instant's arrivals stays after them on replay, although actions scheduled ahead
    of time come before arrivals; DESIGN.md, "Event order at one instant"). ``after_event = 0``
    means "from the start", the form of hand-written scenarios."""

    after_event: int
    action: Action

    def as_dict(self) -> dict[str, Any]:
        return {**self.action.as_dict(), "after_event": self.after_event}


@ACTIONS.register("submit")
@dataclass(frozen=True)
class Submit(Action):
    """Submit a new job now: ``size`` nodes for ``runtime`` seconds (estimate defaults to it)."""

    kind: ClassVar[str] = "submit"
    size: int = 1
    runtime: float = 0.0
    estimate: float = -1.0
    user: int = -1
    queue: int = -1

    def execute(self, operator: Operator) -> str:
        job = operator.submit_job(self.size, self.runtime, self.estimate, self.user, self.queue)
        return f"submitted job {job.job_id} ({job.size} nodes)"


@ACTIONS.register("hold")
@dataclass(frozen=True)
class Hold(Action):
    """Take a waiting job out of the queue until released."""

    kind: ClassVar[str] = "hold"
    job_id: int = -1

    def execute(self, operator: Operator) -> str:
        operator.hold_job(self.job_id)
        return f"held job {self.job_id}"


@ACTIONS.register("release")
@dataclass(frozen=True)
class ReleaseHold(Action):
    """Put a held job back in the queue (at its original priority)."""

    kind: ClassVar[str] = "release"
    job_id: int = -1

    def execute(self, operator: Operator) -> str:
        operator.release_job(self.job_id)
        return f"released job {self.job_id}"


@ACTIONS.register("cancel")
@dataclass(frozen=True)
class Cancel(Action):
    """Cancel a waiting, held or running job."""

    kind: ClassVar[str] = "cancel"
    job_id: int = -1

    def execute(self, operator: Operator) -> str:
        operator.cancel_job(self.job_id)
        return f"cancelled job {self.job_id}"


@ACTIONS.register("set-policy")
@dataclass(frozen=True)
class SetPolicy(Action):
    """Change the queue order, discipline, backfilling or allocator from now on."""

    kind: ClassVar[str] = "set-policy"
    queue: str | None = None
    discipline: str | None = None
    backfill: str | None = None
    allocator: str | None = None

    def execute(self, operator: Operator) -> str:
        changes = {k: v for k, v in asdict(self).items() if k != "time" and v is not None}
        operator.change_policy(**changes)
        return "policy " + ", ".join(f"{k}={v}" for k, v in changes.items())


@ACTIONS.register("fail")
@dataclass(frozen=True)
class Fail(Action):
    """A unit fails: ``unit`` is a midplane name (``R00-M0``), a grid coordinate (``3,4``), a node
    number on flat machines, or a cell index. ``on_job`` says what happens to the job on it:
    ``requeue`` (default: back to the queue, restarted from scratch later) or ``kill``. See
    :meth:`meshsim.engine.kernel.operator.Operator.fail_unit`."""

    kind: ClassVar[str] = "fail"
    unit: str | int = ""
    on_job: str = "requeue"

    def execute(self, operator: Operator) -> str:
        return operator.fail_unit(self.unit, self.on_job)


@ACTIONS.register("repair")
@dataclass(frozen=True)
class Repair(Action):
    """A failed unit is back in service (named as for ``fail``)."""

    kind: ClassVar[str] = "repair"
    unit: str | int = ""

    def execute(self, operator: Operator) -> str:
        return operator.repair_unit(self.unit)


@ACTIONS.register("reserve")
@dataclass(frozen=True)
class Reserve(Action):
    """Reserve a block of units (a maintenance drain), asked for at ``time``, over [``start``,
    ``until``): ``start`` defaults to ``time`` (a reservation that starts when it is applied, the
    only kind before ``start`` existed); until then it is pending. ``block`` is a list of units, a
    box ``"0,0 4x4"`` on grids, a partition name on partition machines (``"1K R00-M0..R00-M1"``), or
    units separated by spaces. ``on_job`` says what happens, at the start, to a job still running
    on its units: ``wait`` for it (default) or ``kill`` it. See
    :meth:`meshsim.engine.kernel.operator.Operator.reserve_units`."""

    kind: ClassVar[str] = "reserve"
    block: str | tuple[str | int, ...] = ""
    until: float = 0.0
    start: float | None = None
    on_job: str = "wait"

    def __post_init__(self) -> None:
        if isinstance(self.block, list):
            object.__setattr__(self, "block", tuple(self.block))
        if self.on_job not in ON_JOB_AT_START:
            raise MeshsimError(
                f"reserve: on_job must be one of {', '.join(ON_JOB_AT_START)}, got {self.on_job!r}"
            )

    @property
    def opens(self) -> float:
        """When the reservation starts: ``start``, or ``time`` when it has none."""
        return self.time if self.start is None else self.start

    def logged(self) -> Reserve:
        return self if self.start is not None else replace(self, start=self.time)

    def as_dict(self) -> dict[str, Any]:
        out = super().as_dict()
        if self.start is None:
            del out["start"]
        return out

    def execute(self, operator: Operator) -> str:
        return operator.reserve_units(self.block, self.until, self.opens, self.on_job)
