"""What the waiting-queue pane lists, apart from drawing it: the filter an operator types, the sort
order, the sections (waiting, blocked, held) and the per-user totals — the views ``squeue`` and
``showq`` give (issue 22, item 5). Pure functions of a snapshot; no Textual.

**Filter** (``/``): words separated by spaces, all of which a job must meet. ``user=12``,
``queue=3``, ``job=1450``, ``size>=512`` (also ``=``, ``<``, ``<=``, ``>``, ``>=`` on any field),
``state=held`` (``waiting``, ``blocked`` or ``held``; ``held`` alone also works), or a bare number
(a job number).

**Sections**: *waiting* jobs in queue order; *blocked* ones, larger than the nodes in service now
(units down or reserved), which cannot start until a repair or a reservation's end; *held* ones,
taken out of the queue by the operator. The first section's title is shown only when another one
follows.

**Sort**: by queue position (``#``, the default) or by any column: job, user, size, estimate,
wait; ascending or descending. Sorting and filtering cost a pass over the queue per frame, so the
default view (queue order, no filter) stays free of per-job work."""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from meshsim.engine.allocation.allocator import DOWN, RESERVED
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.jobs import Job
from meshsim.engine.kernel.records import Snapshot
from meshsim.engine.topology.units import unit_count


class Section(NamedTuple):
    """A section's title line among the jobs (its ``index`` is never a job's)."""

    index: int
    title: str


FIELDS: dict[str, Callable[[Job], int]] = {
    "job": operator.attrgetter("job_id"),
    "user": operator.attrgetter("user"),
    "size": operator.attrgetter("size"),
    "queue": operator.attrgetter("queue"),
}
"""The job fields a filter compares, by name."""

STATES = ("waiting", "blocked", "held")

_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "<=": operator.le,
    ">=": operator.ge,
    "=": operator.eq,
    "<": operator.lt,
    ">": operator.gt,
}
_TERM = re.compile(r"^([a-z]+)\s*(<=|>=|=|<|>|:)\s*(\S+)$")

SORTS: dict[str, Callable[[Job], float] | None] = {
    "#": None,
    "job": operator.attrgetter("job_id"),
    "user": operator.attrgetter("user"),
    "size": operator.attrgetter("size"),
    "est": operator.attrgetter("estimate"),
    "wait": lambda job: -job.submit,
}
"""Sort keys by column (``#``: the queue's own order); ``wait`` sorts by time waited."""


@dataclass(frozen=True)
class QueueFilter:
    """A parsed filter: comparisons on job fields, and the states (sections) kept."""

    text: str
    terms: tuple[tuple[str, Callable[[Any, Any], bool], int], ...] = ()
    states: frozenset[str] = frozenset(STATES)

    def keeps(self, job: Job) -> bool:
        return all(op(FIELDS[name](job), value) for name, op, value in self.terms)


def parse_filter(text: str) -> QueueFilter:
    """The filter ``text`` means (see the module's rules); a word it cannot read is a
    :class:`MeshsimError` naming it and the fields."""
    terms = []
    states: set[str] = set()
    for word in text.lower().split():
        if word.isdigit():
            terms.append(("job", operator.eq, int(word)))
            continue
        if word in STATES:
            states.add(word)
            continue
        match = _TERM.match(word)
        if match is None:
            raise MeshsimError(
                f"filter: cannot read '{word}' (e.g. user=12, size>=512, queue=3, state=held, "
                "or a job number)"
            )
        name, op, value = match.groups()
        if name == "state":
            if value not in STATES or op not in ("=", ":"):
                raise MeshsimError(f"filter: state is one of {', '.join(STATES)}, got '{value}'")
            states.add(value)
            continue
        if name not in FIELDS:
            raise MeshsimError(f"filter: unknown field '{name}' ({', '.join(FIELDS)}, state)")
        if not value.lstrip("-").isdigit():
            raise MeshsimError(f"filter: {name} takes a whole number, got '{value}'")
        terms.append((name, _OPS["=" if op == ":" else op], int(value)))
    return QueueFilter(text.strip(), tuple(terms), frozenset(states) or frozenset(STATES))


def in_service(snapshot: Snapshot) -> int:
    """Nodes neither down nor reserved now (count-only pools report none out of service)."""
    owners = snapshot.owners
    machine = snapshot.machine
    if not len(owners):
        return machine.nodes
    out = int(np.count_nonzero((owners == DOWN) | (owners == RESERVED)))
    return machine.nodes - out * machine.nodes // unit_count(machine)


def queue_rows(
    snapshot: Snapshot, chosen: QueueFilter | None, sort: str, descending: bool
) -> Sequence[Job | Section]:
    """The rows the pane lists: the sections' titles and jobs, filtered and sorted. With no held
    or blocked job, no filter and the queue's own order, the snapshot's tuple itself."""
    waiting, held = snapshot.waiting, snapshot.held
    service = in_service(snapshot)
    plain = chosen is None and sort == "#" and not descending
    if plain and not held and service >= snapshot.machine.nodes:
        return waiting
    blocked: list[Job] = []
    if service < snapshot.machine.nodes:
        blocked = [job for job in waiting if job.size > service]
        if blocked:
            waiting = tuple(job for job in waiting if job.size <= service)
    sections = [
        ("waiting", waiting, "waiting"),
        ("blocked", blocked, f"blocked: larger than the {service:,} nodes in service"),
        ("held", held, "held by the operator"),
    ]
    key = SORTS[sort]
    rows: list[Job | Section] = []
    shown = [s for s in sections if s[1] and (chosen is None or s[0] in chosen.states)]
    for name, jobs, title in shown:
        kept = [job for job in jobs if chosen.keeps(job)] if chosen is not None else list(jobs)
        if key is not None:
            kept.sort(key=key, reverse=descending)
        elif descending:
            kept.reverse()
        if len(shown) > 1 or name != "waiting":
            rows.append(Section(-1, f"── {title} · {len(kept):,} ──"))
        rows.extend(kept)
    return rows


@dataclass(frozen=True)
class UserTotals:
    """One user's line of the per-user view."""

    user: int
    waiting: int
    waiting_nodes: int
    held: int
    running: int
    running_nodes: int


def user_totals(snapshot: Snapshot) -> list[UserTotals]:
    """Per user: jobs and nodes waiting, jobs held, jobs and nodes running; most nodes waiting
    first (``showq``'s per-user summary)."""
    table: dict[int, list[int]] = {}
    for job in snapshot.waiting:
        row = table.setdefault(job.user, [0, 0, 0, 0, 0])
        row[0] += 1
        row[1] += job.size
    for job in snapshot.held:
        table.setdefault(job.user, [0, 0, 0, 0, 0])[2] += 1
    for running in snapshot.running:
        row = table.setdefault(running.job.user, [0, 0, 0, 0, 0])
        row[3] += 1
        row[4] += running.job.size
    totals = [UserTotals(user, *row) for user, row in table.items()]
    totals.sort(key=lambda t: (-t.waiting_nodes, -t.running_nodes, t.user))
    return totals
