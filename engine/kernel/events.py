"""The event calendar and the records of what happened.

The calendar is a SimPy :class:`simpy.Environment`. Its events carry an integer priority that
encodes DESIGN.md's order at one instant: all job completions, then operator actions and failures;
ties inside a kind are broken by job index (which follows job number) or, for actions, by the order
they were applied. Arrivals, which come already ordered by (submit time, job number) from the
workload, are not put on the calendar: the simulation merges them in after every calendar event of
their instant (:meth:`meshsim.engine.kernel.loop.EventLoop.advance`). The one scheduling pass of an
instant runs when its last event has been processed, inside the step that closed the instant; jobs
of zero length started by it end at the same instant, which then closes again with another pass."""

from __future__ import annotations

from collections.abc import Callable
from heapq import heappop, heappush
from typing import Any, NamedTuple

import simpy

COMPLETION, ACTION = 0, 1
_SHIFT = 40


def priority(kind: int, key: int) -> int:
    """The calendar priority of an event of ``kind`` for job index or action number ``key``."""
    return (kind << _SHIFT) | key


class Calendar(simpy.Environment):
    """The SimPy environment whose heap of :data:`Tick` entries is the calendar. Ticks are placed at
    absolute times, which avoids the rounding of ``now + (t - now)``: an event meant for time t
    happens at exactly t, so times computed as ``start + runtime`` compare equal wherever they are
    used. A cancelled tick stays on the heap, its sequence number in ``stale``, until
    :meth:`drop_stale` takes it off the top unprocessed."""

    def __init__(self, initial_time: float = 0) -> None:
        super().__init__(initial_time)
        self.stale: set[int] = set()

    def cancel(self, tick: Tick) -> None:
        """Cancel ``tick`` (still on the calendar): it will be dropped unseen."""
        self.stale.add(tick[2])

    def drop_stale(self) -> None:
        """Pop the cancelled ticks at the top of the calendar."""
        queue, stale = self._queue, self.stale
        while queue and queue[0][2] in stale:
            stale.remove(heappop(queue)[2])


Tick = tuple[float, int, int, Callable[[Any], None], Any]
"""A calendar entry ``(time, priority, sequence, callback, key)``: processing it calls
``callback(key)``; ``key`` is its subject (a job index, an action, ...).

Made and put on the calendar's heap by :func:`schedule` (the engine makes one per job). The
simulation's loop calls ``callback`` directly, never SimPy's ``step``, so an entry carries none of
SimPy's event state. A tick is cancelled (a completion that moved, or whose job was killed) by its
owner remembering its ``sequence``, unique on the calendar: the owner drops it unprocessed when it
reaches the top. A plain tuple: building an object per job cost more than the rest of scheduling it.
"""


def schedule(
    env: Calendar, time: float, prio: int, callback: Callable[[Any], None], key: Any
) -> Tick:
    """A :data:`Tick` at ``time`` with priority ``prio``, pushed on the calendar's heap."""
    tick = (time, prio, next(env._eid), callback, key)
    heappush(env._queue, tick)
    return tick


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
