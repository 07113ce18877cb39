"""Why each waiting job waits and when it is expected to start, in the operator's words (issue 22,
item 4; the views ``squeue --start`` and ``showq`` give).

A :class:`Wait` joins three things the engine knows now:

- *the blocker*: the scheduler's own reason (:meth:`~meshsim.engine.scheduling.scheduler.Scheduler.
  why`: the allocator's explanation when the job does not fit now — ``needs 512 nodes, 300 free``,
  ``no free 8x4 box (largest free 4x4; 40 nodes free)``, a partition menu's ``needs 4K, 10K idle but
  no free 4K partition``, an NQS queue's node sets — or the policy's when it fits but may not start:
  behind a blocked head, or it would delay EASY's reservation), with the jobs that hold the place
  the profile expects it to take (``8K R40-M0..R47-M1 held by 2859``; on a partition menu also the
  jobs whose partitions need its wiring);
- *the expected start*: the reservation the backfilling policy holds for the job when it holds one
  (conservative backfilling: the plan its passes follow), else the job's place in the conservative
  profile of the queue (:mod:`meshsim.engine.scheduling.expected`); when, where, and which job's
  expected end it waits for (``when 3097 ends``);
- *EASY's head*, marked with the reservation EASY holds for it: ``EASY head: reserved for day 10
  16:01:00 on 16K R00-M0..R17-M1 when 3097 ends``; on a node-count machine the shadow time and the
  extra nodes.

Only the jobs a :class:`Watch` names are explained (the console's visible rows), and the profile
places the queue only as deep as the deepest of them, at most :data:`PROFILE_DEPTH` jobs: a queue
of thousands costs what its first rows cost. The profile's planner is the scheduling pass's
(``MachineState.planner``), so whatever future availability the pass plans with — units out of
service, and reservation windows once the planner holds them — the expected starts honour too."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from meshsim.engine.allocation.planning import span_end
from meshsim.engine.core.simclock import clock
from meshsim.engine.scheduling.expected import Expected, profile

if TYPE_CHECKING:
    from meshsim.engine.allocation.allocator import Placement
    from meshsim.engine.core.jobs import Job
    from meshsim.engine.kernel.simulation import Simulation

PROFILE_DEPTH = 100
"""Jobs of the queue, in queue order, the profile places at most; a job further back is given its
blocker and no expected start."""

NAMED = 2
"""Jobs named at most in one list of holders."""


@dataclass(frozen=True)
class Watch:
    """The waiting jobs a snapshot explains: the first ``first`` in queue order, and the jobs of
    ``jobs`` (by index) wherever they stand."""

    first: int = 0
    jobs: frozenset[int] = field(default_factory=frozenset)


@dataclass(frozen=True)
class Wait:
    """Why a waiting job waits (``text``, the whole sentence) and when it is expected to start:
    ``start`` is a time (now or later), ``inf`` when it cannot start while units are out of service
    (down, or held by an active reservation, whose return the profile does not plan on),
    ``nan`` when it lies beyond the profile's depth."""

    start: float
    text: str


def waits(sim: Simulation, queue: Sequence[Job], watch: Watch) -> dict[int, Wait]:
    """The :class:`Wait` of every job of ``queue`` (the waiting queue in order) that ``watch``
    names, by job index."""
    wanted = dict(enumerate(queue[: watch.first]))
    if watch.jobs:
        wanted.update((p, job) for p, job in enumerate(queue) if job.index in watch.jobs)
    if not wanted:
        return {}
    state, scheduler = sim.state, sim.scheduler
    releases = [(end, index) for end, index, _ in state.ends]
    planned = _planned(sim, queue, releases, wanted.values())
    unplanned = [p for p, job in wanted.items() if job.index not in planned]
    depth = min(PROFILE_DEPTH, max(unplanned) + 1) if unplanned else 0
    in_order = scheduler.in_order()
    placed = (
        profile(state.planner(), sim.now, releases, queue[:depth], in_order=in_order)
        if depth
        else []
    )
    head = scheduler.backfill.head
    why = scheduler.why
    out = {}
    for position, job in wanted.items():
        if job == head:
            mine = placed[0] if position == 0 and placed else None
            if mine is None:
                mine = profile(state.planner(), sim.now, releases, [job])[0]
            out[job.index] = _head(sim, job, mine)
        elif job.index in planned:
            out[job.index] = _waiting(sim, job, planned[job.index], why(job))
        elif position >= depth:
            text = f"{why(job)}; expected start not computed: queue position {position + 1:,}, the"
            out[job.index] = Wait(math.nan, f"{text} profile covers the first {PROFILE_DEPTH}")
        else:
            out[job.index] = _waiting(sim, job, placed[position], why(job))
    return out


def _planned(
    sim: Simulation,
    queue: Sequence[Job],
    releases: list[tuple[float, int]],
    wanted: Iterable[Job],
) -> dict[int, Expected]:
    """The places of the ``wanted`` jobs for which the backfilling policy holds a reservation
    (conservative backfilling holds one for every waiting job that fits the machine): the plan the
    passes follow, made when each job first waited and moved earlier only when a job ends before
    its estimate. Their waits name the ends the reservations wait for, from the running jobs and
    every reservation of the queue."""
    reservation = sim.scheduler.backfill.reservation
    slots = {job.index: slot for job in wanted if (slot := reservation(job)) is not None}
    if not slots:
        return {}
    now = sim.now
    ends: dict[float, list[int]] = {}
    for end, index in releases:
        ends.setdefault(end if end > now else now, []).append(index)
    for job in queue:
        slot = reservation(job)
        if slot is not None:
            ends.setdefault(span_end(slot.start, job.estimate), []).append(job.index)
    return {
        index: Expected(slot, () if slot.start <= now else tuple(ends.get(slot.start, ())))
        for index, slot in slots.items()
    }


def _waiting(sim: Simulation, job: Job, mine: Expected, reason: str) -> Wait:
    """A job the profile placed (or found never to fit)."""
    slot = mine.slot
    if slot is None:
        return Wait(math.inf, f"{reason}; {_never(sim)}")
    if slot.start <= sim.now and not sim.allocator.fits(job):
        free = sim.allocator.free_nodes
        return Wait(
            math.nan,
            f"{reason}; expected start unknown: the plan counts {free:,} free nodes, but the "
            "allocator's rules refuse the job now",
        )
    where: Placement | None = slot.where
    text = f"{reason}; expected {_when(sim, slot.start)}"
    if where is not None and where.label:
        text += f" on {where.label}"
    text += _after(sim, mine.after)
    if mine.alongside is not None:
        text += f" as {_names(sim, [mine.alongside])} (queued ahead) starts"
    if where is not None and where.cells and slot.start > sim.now:
        holders = [i for i in sim.allocator.holders(where) if i not in mine.after]
        if holders:
            text += f" (held now by {_names(sim, holders)})"
    return Wait(slot.start, text)


def _head(sim: Simulation, job: Job, mine: Expected) -> Wait:
    """EASY's head, with the reservation EASY holds for it (on a node-count machine, the shadow
    time and the extra nodes left for jobs that run across it)."""
    slot = mine.slot
    reason = sim.scheduler.why(job)
    if slot is None:
        return Wait(math.inf, f"EASY head, no reservation: {_never(sim)}; {reason}")
    text = f"EASY head: reserved for {_when(sim, slot.start)}"
    if slot.where is not None and slot.where.label:
        text += f" on {slot.where.label}"
    text += _after(sim, mine.after)
    if sim.scheduler.ctx.shadow is not None:
        extra = sim.state.shadow(job)[2]
        text += f" (shadow time; {extra:,} extra node{'' if extra == 1 else 's'})"
    return Wait(slot.start, f"{text}; {reason}")


def _when(sim: Simulation, start: float) -> str:
    return f"{clock(start)} (now)" if start <= sim.now else clock(start)


def _after(sim: Simulation, after: tuple[int, ...]) -> str:
    """`` when 3097 ends`` for running jobs, `` when 3100 (queued ahead) ends`` for jobs the
    profile placed before."""
    if not after:
        return ""
    running = [i for i in after if i in sim.running]
    ends = "ends" if len(running or after) == 1 else "end"
    if running:
        return f" when {_names(sim, running)} {ends}"
    return f" when {_names(sim, after)} (queued ahead) {ends}"


def _names(sim: Simulation, indices: Iterable[int]) -> str:
    """Job numbers, at most :data:`NAMED` of them and a count of the rest."""
    ids = [str(sim.job(i).job_id) for i in indices]
    more = f" and {len(ids) - NAMED} more" if len(ids) > NAMED else ""
    return ", ".join(ids[:NAMED]) + more


def _never(sim: Simulation) -> str:
    """Why the profile finds no place for a job: the units out of service, and when the last
    active reservation ends (the planners count no return of reserved units: docs/model.md,
    "Operator reservations", limitation)."""
    out = sim.outages()
    parts = [f"{len(out[k])} {k}" for k in ("down", "reserved") if out[k]]
    if not parts:
        return "it never fits the machine"
    if out["reserved"]:
        until = max(r.until for r in sim.state.outages.reservations)
        parts[-1] += f" until {clock(until)}"
    return f"it does not fit while units are out of service ({', '.join(parts)})"
