"""The event calendar and the records of what happened.

The calendar is a SimPy :class:`simpy.Environment`, used through its public API only: every instant
that holds a :data:`Tick` (a job's completion, an operator action, a reservation's start or end, a
clock tick) is one SimPy timeout, and SimPy's ``step``/``peek`` bring the instants in order of time.
The calendar keeps the ticks of each instant until SimPy's clock reaches it
(:meth:`Calendar.schedule`), then hands them on in its own order (:meth:`Calendar.next_tick`): a
tick's integer priority encodes DESIGN.md's order at one instant, all job completions, then operator
actions and failures, then reservations that start, then those that end, then clock ticks; ties
inside a kind are broken by job index (which follows job number) or, for actions, by the order they
were applied. Arrivals, which come already ordered by (submit time, job number) from the workload,
are not put on the calendar: the event loop merges them in after every calendar event of their
instant (:meth:`meshsim.engine.kernel.loop.EventLoop.advance`). The one scheduling pass of an
instant runs when its last event has been processed, inside the step that closed the instant; jobs
of zero length started by it end at the same instant, which then closes again with another pass.

SimPy cannot cancel an event: a cancelled tick (a completion that moved, or of a job killed) is
marked stale and dropped unseen when it comes (it neither counts as an event nor moves the run's
clock, ``now``)."""

from __future__ import annotations

from collections.abc import Callable
from heapq import heappop, heappush
from itertools import count
from math import inf, nextafter
from typing import Any, NamedTuple

import simpy

COMPLETION, ACTION = 0, 1
_SHIFT = 40


def priority(kind: int, key: int) -> int:
    """The calendar priority of an event of ``kind`` for job index or action number ``key``."""
    return (kind << _SHIFT) | key


Tick = tuple[float, int, int, Callable[[Any], None], Any]
"""A calendar entry ``(time, priority, sequence, callback, key)``: processing it calls
``callback(key)``; ``key`` is its subject (a job index, an action, ...). ``sequence`` is unique:
it breaks the last ties, and names the tick when it is cancelled."""


def delay_to(now: float, time: float) -> float:
    """The delay that takes SimPy's clock from ``now`` to exactly ``time`` (``now + delay ==
    time``; SimPy adds the delay to its clock): an event meant for time t happens at exactly t, so
    times computed as ``start + runtime`` compare equal wherever they are used. When no delay lands
    exactly (a float sum can step over ``time``), the largest that lands before it: the tick is then
    taken off SimPy early, never late, and keeps its exact time on the calendar."""
    delay = time - now
    if now + delay == time:
        return delay
    while now + delay < time:
        delay = nextafter(delay, inf)
    while delay > 0 and now + delay > time:
        delay = nextafter(delay, -inf)
    return delay


class Calendar:
    """The run's calendar on a SimPy environment (module doc). ``now`` is the time of the tick being
    processed (or last processed); SimPy's own clock may be ahead of it, at the instant whose ticks
    were taken off SimPy but not yet processed. A tick for a time SimPy's clock has reached (a
    zero-length job's end, an action applied now after a look ahead) joins those directly."""

    def __init__(self, initial_time: float = 0.0) -> None:
        self.env = simpy.Environment(initial_time)
        self.now = initial_time
        self.stale: set[int] = set()
        self.due: list[Tick] = []
        """Ticks taken off SimPy (or due before its clock), in calendar order."""
        self._instants: dict[float, list[Tick]] = {}
        """The ticks still on SimPy, by the time of their instant's one timeout."""
        self._sequence = count()
        self._next: Tick | None = None
        self._known = False
        """Whether ``_next`` is what :meth:`next_tick` would return (nothing changed since)."""
        self._clock = initial_time
        """SimPy's clock (:attr:`simpy.Environment.now`), kept: SimPy moves it only in
        :meth:`~simpy.Environment.step`, to the time :meth:`~simpy.Environment.peek` gave."""
        self._upcoming = inf
        """SimPy's :meth:`~simpy.Environment.peek`, kept: SimPy's queue changes only through
        :meth:`schedule` and :meth:`~simpy.Environment.step`, which keep it."""

    def schedule(self, time: float, prio: int, callback: Callable[[Any], None], key: Any) -> Tick:
        """Put a tick for ``callback(key)`` at ``time`` with priority ``prio`` on the calendar: with
        the other ticks of its instant when SimPy already holds a timeout for it, else on a new
        timeout. The next tick stays known when the new one comes after it (a job started now
        ends later than the calendar's next tick, mostly)."""
        tick = (time, prio, next(self._sequence), callback, key)
        clock = self._clock
        if time <= clock:  # SimPy has handed this instant on already
            heappush(self.due, tick)
            if self._known and (self._next is None or tick < self._next):
                self._next = tick
            return tick
        delay = time - clock
        if clock + delay != time:
            delay = delay_to(clock, time)
        at = clock + delay
        ticks = self._instants.get(at)
        if ticks is None:
            self._instants[at] = [tick]
            simpy.Timeout(self.env, delay)
            if at < self._upcoming:
                self._upcoming = at
        else:
            ticks.append(tick)
        if self._known and (self._next is None or at <= self._next[0]):
            self._known = False  # it may come first: SimPy must hand its instant on
        return tick

    def cancel(self, tick: Tick) -> None:
        """Cancel ``tick`` (still on the calendar): it will be dropped unseen."""
        self.stale.add(tick[2])
        if tick is self._next:
            self._known = False

    def pop(self) -> Tick:
        """Take the tick :meth:`next_tick` returned off the calendar."""
        self._known = False
        return heappop(self.due)

    def next_tick(self) -> Tick | None:
        """The next tick that is not cancelled (None when there is none), left on the calendar:
        every SimPy instant up to its time has been taken off SimPy, so no tick of its instant that
        should come first is still there."""
        if self._known:
            return self._next
        due, stale = self.due, self.stale
        while True:
            upcoming = self._upcoming
            if due:
                top = due[0]
                if stale and top[2] in stale:
                    stale.remove(heappop(due)[2])
                    continue
                if top[0] < upcoming:
                    self._next, self._known = top, True
                    return top
            elif upcoming == inf:
                self._next, self._known = None, True
                return None
            # Take the earliest instant off SimPy: step its timeout (SimPy's clock moves to it).
            env = self.env
            env.step()
            self._clock = upcoming
            for tick in self._instants.pop(upcoming):
                heappush(due, tick)
            self._upcoming = env.peek()


class EventRecord(NamedTuple):
    """One line of the event log: ``kind`` is arrival, start, end, killed or action.

    A step's record is its calendar event; ``started`` lists the jobs the scheduling pass that
    closed the instant started (empty when the instant is not closed by this event)."""

    number: int
    time: float
    kind: str
    job_id: int = -1
    detail: str = ""
    started: tuple[int, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "event": self.number,
            "time": self.time,
            "kind": self.kind,
            "job_id": self.job_id,
            "detail": self.detail,
        }
