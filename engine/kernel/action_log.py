"""The operator actions of one run, in the order they were applied (DESIGN.md, "Operator actions").

Each applied action is kept with the number of events processed before it was applied, so a
replay (stepping back, a fork, a scenario file) applies it at the same point: a replay's actions
wait in :attr:`ActionLog.pending` until the run has processed their ``after_event`` events. An
action whose time has passed by then, or that cannot apply when its event comes (a unit that is
not down, a job that is not waiting), is kept with the reason in :attr:`ActionLog.rejected`; it
changes nothing, and the event log says why."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.simclock import clock
from meshsim.engine.kernel.actions import Action, LoggedAction
from meshsim.engine.kernel.events import ACTION, priority
from meshsim.engine.rejections import ActionRejected, ActionRejection, reason_of

if TYPE_CHECKING:
    from meshsim.engine.kernel.loop import EventLoop
    from meshsim.engine.kernel.operator import Operator


class ActionLog:
    """The run's actions: ``applied`` (with ``applied_after``, the events processed before each),
    the ``pending`` ones a replay holds for later events, and the ``rejected`` ones by number."""

    def __init__(
        self, loop: EventLoop, operator: Operator, replayed: Sequence[Action | LoggedAction]
    ) -> None:
        self.loop, self.operator = loop, operator
        self.applied: list[Action] = []
        self.applied_after: list[int] = []
        self.rejected: dict[int, ActionRejection] = {}
        """Actions that could not apply, by their number in the log."""
        logged = [a if isinstance(a, LoggedAction) else LoggedAction(0, a) for a in replayed]
        self.pending = deque(sorted(logged, key=lambda a: a.after_event))

    def apply(self, action: Action) -> int:
        """Schedule ``action`` at its time (not earlier than now) and log it, in the form that
        replays to the same run (:meth:`Action.logged`); return its number in the log."""
        now = self.loop.now
        if action.time < now:
            raise MeshsimError(
                f"action '{action.kind}' at {clock(action.time)} is in the past (now {clock(now)})"
            )
        number = self._log(action.logged())
        self.loop.calendar.schedule(action.time, priority(ACTION, number), self._carry_out, number)
        return number

    def apply_due(self) -> None:
        """Apply the pending actions whose ``after_event`` the run has reached; one whose time has
        passed by then is rejected (its place in the log comes after its time). Before the first
        event the run's clock stands at the first arrival: an action timed earlier is applied at
        that time (nothing could happen before it), as it is logged."""
        pending, loop = self.pending, self.loop
        while pending and pending[0].after_event <= loop.events:
            action = pending.popleft().action
            if action.time < loop.now and loop.events == 0:
                action = replace(action, time=loop.now)
            if action.time < loop.now:
                number = self._log(action.logged())
                message = f"its time {clock(action.time)} had passed (now {clock(loop.now)})"
                self._reject(number, action, ActionRejected("time_passed", message))
            else:
                self.apply(action)

    def logged(self) -> list[LoggedAction]:
        """Every action with the event count it was applied after: those applied so far, then those
        a replay still holds for later events."""
        pairs = zip(self.applied_after, self.applied, strict=True)
        return [*(LoggedAction(*pair) for pair in pairs), *self.pending]

    def rejections(self, done: bool) -> list[ActionRejection]:
        """Every action that could not apply, in log order; once the run is ``done`` this includes
        the pending actions whose ``after_event`` it never reached (numbered after the applied ones,
        as :meth:`logged` lists them)."""
        out = [self.rejected[k] for k in sorted(self.rejected)]
        if done:
            loop, first = self.loop, len(self.applied)
            for k, logged in enumerate(self.pending):
                action = logged.action
                message = f"after_event {logged.after_event} but the run ended at {loop.events}"
                reason = "event_not_reached"
                out.append(
                    ActionRejection(first + k, action.kind, action.time, loop.now, reason, message)
                )
        return out

    def _log(self, action: Action) -> int:
        self.applied.append(action)
        self.applied_after.append(self.loop.events)
        return len(self.applied) - 1

    def _carry_out(self, number: int) -> None:
        """The action's calendar event: carry it out, or reject it; either way the event log says
        what happened and a scheduling pass follows."""
        action = self.applied[number]
        try:
            text = action.execute(self.operator)
        except MeshsimError as exc:
            text = f"{action.kind} failed: {exc}"
            self._reject(number, action, exc)
        self.loop.log.emit("action", detail=text)
        self.loop.request_pass()

    def _reject(self, number: int, action: Action, exc: MeshsimError) -> None:
        now = self.loop.now
        reason = reason_of(action.kind, exc)
        self.rejected[number] = ActionRejection(
            number, action.kind, action.time, now, reason, str(exc)
        )
