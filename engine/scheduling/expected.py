"""Expected starts: a conservative profile of the waiting queue on the users' estimates (issue 22,
item 4).

The rule: the running jobs end at their expected ends (start + estimate, or now for a job past its
estimate); then every waiting job, in queue order, is placed at the earliest time it fits for its
estimate, given the running jobs and the jobs placed before it, and holds that place. This is
conservative backfilling's reservation rule (Mu'alem & Feitelson, as
:mod:`meshsim.engine.scheduling.backfill` implements it) applied to the whole queue at once, on the
planner the machine's allocator gives the scheduling pass (node counts on a flat pool, concrete
boxes on meshes and tori, concrete partitions on a partition menu:
:mod:`meshsim.engine.allocation.planning`), so it is topology-aware wherever the pass is. Whatever
that planner withholds (units down or reserved, and any reservation window it is told of) the
profile withholds too.

A policy that starts jobs only in queue order (a strict discipline without backfilling:
:meth:`~meshsim.engine.scheduling.scheduler.Scheduler.in_order`) places no job before the one ahead
of it: the profile says so too (``in_order``), and a job behind one that can never start is not
placed at all.

Where the rule is exact: with exact estimates, no further arrival and no operator action, every job
starts at the time the profile gives under a strict order without backfilling (a job starts at the
first release, at or after the start of the job ahead of it, at which it fits; nothing placed before
it starts later). Conservative backfilling keeps a plan of its own, the same rule applied as jobs
arrive (each job reserved when it first waits, around the reservations made before): under an order
other than arrival order a job that arrived later may stand ahead in the queue yet behind in that
plan, so the console gives such a policy's own reservations
(:func:`meshsim.engine.kernel.waits.waits`). Elsewhere the profile is an estimate: EASY protects
only the head, so a job may start earlier than the profile (backfilled) or later (a job behind it
started first); an out-of-order discipline starts whatever fits; a dynamic queue order (WFP)
reorders the queue as time passes; runs shorter than their estimates start the queue earlier. The
profile covers the first jobs of the queue only (the caller's depth), as Slurm's backfill scheduler
tests only the first jobs of its queue.

Cost: one :meth:`~meshsim.engine.allocation.planning.Planner.earliest` and one ``reserve`` per job
placed; each costs more as the profile grows (the planners keep reservations as a list), so the
depth is bounded."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from math import inf
from typing import TYPE_CHECKING

from meshsim.engine.allocation.planning import span_end

if TYPE_CHECKING:
    from meshsim.engine.allocation.planning import Planner, Slot
    from meshsim.engine.core.jobs import Job


@dataclass(frozen=True)
class Expected:
    """One job's place in the profile: its ``slot`` (None when it never fits the machine as the
    planner sees it), the jobs whose expected ends the slot waits for (``after``: indices of the
    running or profiled jobs that end at the slot's start; empty when it starts now) and, when no
    end comes then, the job ahead of it in a strict order whose start it waits for
    (``alongside``)."""

    slot: Slot | None
    after: tuple[int, ...] = ()
    alongside: int | None = None


def profile(
    planner: Planner,
    now: float,
    releases: Iterable[tuple[float, int]],
    jobs: Sequence[Job],
    *,
    in_order: bool = False,
) -> list[Expected]:
    """The profile of ``jobs`` (in queue order) on ``planner`` (fresh, as of ``now``), whose running
    jobs end at ``releases`` (``(expected end, job index)``): each job's slot, reserved in the
    planner before the next job is placed (see the module's rule). ``in_order``: the policy starts
    jobs only in queue order, so no job is placed before the one ahead of it."""
    ends: dict[float, list[int]] = {}
    for end, index in releases:
        ends.setdefault(end if end > now else now, []).append(index)
    placed = []
    floor, ahead = -inf, -1
    for job in jobs:
        slot = planner.earliest(job, job.estimate, floor)
        if slot is None:
            placed.append(Expected(None))
            if in_order:
                floor = inf
            continue
        planner.reserve(job, slot, job.estimate)
        after = () if slot.start <= now else tuple(ends.get(slot.start, ()))
        alongside = ahead if slot.start == floor > now and not after else None
        placed.append(Expected(slot, after, alongside))
        ends.setdefault(span_end(slot.start, job.estimate), []).append(job.index)
        if in_order:
            floor, ahead = slot.start, job.index
    return placed
