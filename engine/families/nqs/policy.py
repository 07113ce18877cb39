"""NQS job priority with aging and large-job blocking (seed 004 §2.3).

``job_priority = queue_priority + age_factor × hours waiting``; jobs are tried in priority order and
a job that does not fit is skipped (not strict FCFS). Blocking: when ``block_priority`` > 0 and the
highest-priority batch job's priority exceeds it but the job does not fit, no other batch job starts
until it does, so idle nodes accrue for it. Interactive jobs are never held back by blocking: they
run in their own partition."""

from __future__ import annotations

from meshsim.engine.core.jobs import Job
from meshsim.engine.core.policy import Policy
from meshsim.engine.families.nqs.allocator import nqs_config
from meshsim.engine.scheduling.context import PassContext
from meshsim.engine.scheduling.disciplines import DISCIPLINES, Discipline
from meshsim.engine.scheduling.orders import QUEUE_ORDERS, QueueOrder
from meshsim.engine.topology.machines import Machine

INTERACTIVE_PRIORITY = 1e12
"""Interactive jobs come first: they are started at once or rejected (seed 004 §1)."""


@QUEUE_ORDERS.register("nqs")
class NQSPriority(QueueOrder):
    """``queue_priority + age_factor × hours waiting``, larger first; ties by arrival."""

    name = "nqs"
    section = "nqs"
    dynamic = True
    description = "NQS: queue priority + age factor x hours waiting (Wan et al.)"

    def __init__(self, machine: Machine) -> None:
        super().__init__(machine)
        config = nqs_config(machine)
        self.age_factor = config.age_factor
        self.queues = config.queue_by_number()

    def score(self, job: Job, now: float) -> float:
        queue = self.queues.get(job.queue)
        if queue is None:
            return self.age_factor * (now - job.submit) / 3600.0
        if queue.interactive:
            return INTERACTIVE_PRIORITY
        return queue.priority + self.age_factor * (now - job.submit) / 3600.0

    def key(self, job: Job, now: float) -> tuple:
        return (-self.score(job, now), job.submit, job.index)


@DISCIPLINES.register("nqs")
class NQSBlocking(Discipline):
    """Skip jobs that do not fit; block behind a top job above ``block_priority``."""

    name = "nqs"
    section = "nqs"
    description = "NQS: skip jobs that do not fit; block for a top job above block_priority"

    def __init__(self, policy: Policy) -> None:
        super().__init__(policy)
        self._order: NQSPriority | None = None
        self.block_priority = 0.0

    def select(self, ctx: PassContext) -> int | None:
        allocator = ctx.allocator
        if self._order is None:
            self._order = NQSPriority(allocator.machine)
            self.block_priority = nqs_config(allocator.machine).block_priority
        order = self._order
        find = ctx.find
        first_batch: int | None = None
        self.blocked = None
        head: int | None = None
        for position, job in enumerate(ctx.queue):
            if job.index in ctx.started:
                continue
            interactive = order.score(job, ctx.now) >= INTERACTIVE_PRIORITY
            if self.blocked is not None and not interactive:
                continue
            placement = find(job)
            if placement is not None:
                ctx.start(job, placement)
                continue
            if head is None:
                head = position
            if interactive or first_batch is not None:
                continue
            first_batch = position
            if self.block_priority > 0 and order.score(job, ctx.now) > self.block_priority:
                self.blocked = job
        return head

    def why(self, job: Job) -> str | None:
        if self.blocked is not None and job != self.blocked:
            return f"blocked: nodes are kept idle for job {self.blocked.job_id} (NQS blocking)"
        return None
