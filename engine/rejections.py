"""Operator actions that could not apply, and why: the ``rejected_actions`` of the result JSON.

A scenario's actions are checked against the machine and the workload when the file is loaded
(:mod:`meshsim.engine.tools.scenario_checks`), so an unknown unit, job or policy never gets
this far. What remains can only be known when an action's turn comes — its job has ended, its unit
is already down — and such an action is not dropped: it stays in the run's action log (so a replay
meets it again at the same point), the event log says it failed, and the result lists it with one
of the reasons of :data:`REASONS` (docs/boundaries.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from meshsim.engine.core.errors import MeshsimError

REASONS = {
    "job_unknown": "no job has the action's number",
    "job_not_arrived": "the job has not been submitted yet",
    "job_not_waiting": "hold or cancel of a job that is running or held (hold), not waiting",
    "job_ended": "the job has finished, was cancelled, killed or rejected on arrival",
    "job_not_held": "release of a job that is not held",
    "job_refused": "a submitted job the machine cannot run (size beyond the machine)",
    "unit_unknown": "the machine has no such unit or block",
    "unit_down": "fail of a unit that is already down",
    "unit_not_down": "repair of a unit that is not down",
    "unit_never_allocated": "fail of a unit no job is ever placed on (a service node)",
    "reservation_over": "a reservation whose end is not after its start",
    "reservation_start_passed": "a reservation whose start is before the time it is applied",
    "policy_refused": "a policy change the run cannot make (e.g. an allocator that does not work "
    "on the machine or cannot migrate)",
    "time_passed": "the action's time had passed when its turn came (its after_event placed it "
    "later than its time)",
    "event_not_reached": "the run ended before the action's after_event",
}
"""Every reason an action can be rejected, with what it means (the docs list this)."""

DEFAULT_REASON = {
    "submit": "job_refused",
    "hold": "job_unknown",
    "release": "job_unknown",
    "cancel": "job_unknown",
    "fail": "unit_unknown",
    "repair": "unit_unknown",
    "reserve": "unit_unknown",
    "set-policy": "policy_refused",
}
"""The reason of an action kind's failure when the engine gives no more specific one."""


class ActionRejected(MeshsimError):
    """An action that cannot apply now, with its reason from :data:`REASONS`."""

    def __init__(self, reason: str, message: str) -> None:
        if reason not in REASONS:
            raise ValueError(f"unknown rejection reason '{reason}'")
        super().__init__(message)
        self.reason = reason


def reason_of(kind: str, exc: MeshsimError) -> str:
    """The reason an action of ``kind`` failed with ``exc``."""
    if isinstance(exc, ActionRejected):
        return exc.reason
    return DEFAULT_REASON.get(kind, "policy_refused")


@dataclass(frozen=True)
class ActionRejection:
    """One rejected action: its position in the run's action log (``inputs.actions`` of the
    result), its kind and time, when it was rejected, the reason and the engine's message."""

    index: int
    action: str
    time: float
    at: float
    reason: str
    detail: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "action": self.action,
            "time": self.time,
            "rejected_at": self.at,
            "reason": self.reason,
            "detail": self.detail,
        }
