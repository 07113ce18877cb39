"""Start disciplines: which jobs of the ordered queue may start now.

A discipline starts what it may and returns the position in the queue of the first job that is
blocked (the job a backfilling policy reserves for), or None when nothing is blocked. It can say
afterwards why a job that would fit did not start (:meth:`Discipline.why`), computed on demand
from what it remembers of the last pass, so passes never pay for explanations.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

from engine.jobs import Job
from engine.policy import Policy
from engine.registry import Registry
from engine.scheduling.context import PassContext


class Discipline(ABC):
    """A start rule over the queue in priority order."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.blocked: Job | None = None

    @abstractmethod
    def select(self, ctx: PassContext) -> int | None:
        """Start the jobs this discipline allows; return the blocked head's queue position."""

    def why(self, job: Job) -> str | None:
        """Why ``job``, which would fit now, did not start (None: not this discipline's doing)."""
        if self.blocked is not None and job != self.blocked:
            return f"behind job {self.blocked.job_id}, which blocks the queue ({self.name})"
        return None


DISCIPLINES: Registry[type[Discipline]] = Registry("discipline")


@DISCIPLINES.register("fcfs")
class Strict(Discipline):
    """Strict order (FCFS when the queue order is FCFS; window size K = 1 in seed 001's terms):
    start jobs in priority order while each one fits, and stop at the first that does not."""

    name = "fcfs"
    description = "strict order: the first job that does not fit blocks all others"

    def select(self, ctx: PassContext) -> int | None:
        find = ctx.allocator.find
        for position, job in enumerate(ctx.queue):
            placement = find(job)
            if placement is None:
                self.blocked = job
                return position
            ctx.start(job, placement)
        self.blocked = None
        return None
