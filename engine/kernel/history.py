"""The whole run's event history, kept by the console's engine process for the event log's search
(issue 22): the UI holds only the lines on screen, so its memory does not grow with the run, and it
asks the engine for a page of matches.

Records are kept in columns (numbers, times, kinds and job numbers as machine values, details as
shared strings: a start's location is the placement's own label), about 40 bytes per record.

:func:`log_line` is the one text of a record, for the console's log and for the search. A job start
carries the number of the event before the one whose scheduling pass started it (the engine's
numbering, as ``--events-out`` writes it): the line shows it under that event, marked ``↳`` and
without a number of its own, so the numbers of a log read in order."""

from __future__ import annotations

from array import array
from dataclasses import dataclass

import numpy as np

from meshsim.engine.core.simclock import TIME_WIDTH, clock
from meshsim.engine.kernel.events import EventRecord

KINDS = ("arrival", "start", "end", "killed", "action", "rejected", "clock")
"""The kinds of event record (:class:`~meshsim.engine.kernel.events.EventRecord`)."""

PAGE = 200
"""Matches a search returns at most per page."""


def log_line(record: EventRecord) -> str:
    """One line of the event log: ``#N``, the time in a fixed width, the kind, the job and the
    detail; a start is marked ``↳`` under the event that started it."""
    who = f" job {record.job_id}" if record.job_id >= 0 else ""
    detail = f" {record.detail}" if record.detail else ""
    started = f" → started {', '.join(map(str, record.started))}" if record.started else ""
    number = "  ↳" if record.kind == "start" else f"#{record.number}"
    return f"{number:<8} {clock(record.time):<{TIME_WIDTH}} {record.kind}{who}{detail}{started}"


@dataclass(frozen=True)
class HistoryPage:
    """Matches of a search, oldest first: each as (its position in the history, its line);
    ``total`` matches in the whole history, ``older`` whether some come before this page."""

    query: str
    lines: tuple[tuple[int, str], ...]
    total: int
    older: bool


class EventHistory:
    """Every event record of a run, in the order the run made them."""

    def __init__(self) -> None:
        self._number = array("q")
        self._time = array("d")
        self._kind = array("b")
        self._job = array("q")
        self._detail: list[str] = []

    def add(self, record: EventRecord) -> None:
        """Keep ``record`` (the simulation's ``log`` callback)."""
        self._number.append(record.number)
        self._time.append(record.time)
        self._kind.append(KINDS.index(record.kind))
        self._job.append(record.job_id)
        self._detail.append(record.detail)

    def __len__(self) -> int:
        return len(self._number)

    def record(self, position: int) -> EventRecord:
        """The record at ``position`` (0: the run's first)."""
        return EventRecord(
            self._number[position],
            self._time[position],
            KINDS[self._kind[position]],
            self._job[position],
            self._detail[position],
        )

    def of_job(self, job_id: int) -> tuple[EventRecord, ...]:
        """Every record of job ``job_id``, in order."""
        jobs = np.frombuffer(self._job, dtype=np.int64) if len(self) else np.zeros(0, np.int64)
        return tuple(self.record(int(k)) for k in np.flatnonzero(jobs == job_id))

    def search(self, query: str, before: int | None = None, count: int = PAGE) -> HistoryPage:
        """The last ``count`` records before position ``before`` (default: the end) whose
        :func:`log_line` contains ``query`` (case-insensitive), and how many match in all."""
        needle = query.strip().lower()
        end = len(self) if before is None else max(0, min(before, len(self)))
        matches = [k for k in range(len(self)) if needle in log_line(self.record(k)).lower()]
        earlier = [k for k in matches if k < end]
        page = earlier[-count:] if count > 0 else []
        lines = tuple((k, log_line(self.record(k))) for k in page)
        return HistoryPage(query, lines, len(matches), len(earlier) > len(page))
