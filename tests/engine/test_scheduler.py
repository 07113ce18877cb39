"""The scheduling pass on its own, against a stub machine state (no calendar, no kernel): what it
starts, in what order, what it leaves waiting and why, and when its fast paths skip work."""

from __future__ import annotations

from bisect import insort

from meshsim.engine.allocation.allocator import Placement
from meshsim.engine.allocation.flat import FlatAllocator
from meshsim.engine.allocation.planning import CountPlanner, Planner, Releases, Shadow, count_shadow
from meshsim.engine.core.jobs import Job
from meshsim.engine.core.policy import Policy
from meshsim.engine.core.seeding import Stream, generator
from meshsim.engine.scheduling.context import RunStats
from meshsim.engine.scheduling.scheduler import Scheduler
from meshsim.engine.topology.machines import load_machine

MACHINE = load_machine("flat:8")


class CountingAllocator(FlatAllocator):
    """The flat allocator, counting the placements asked of it."""

    asked = 0

    def find(self, job: Job) -> Placement | None:
        self.asked += 1
        return super().find(job)


class StubState:
    """A machine state without a kernel: jobs start at ``now`` and never end by themselves;
    :meth:`end` ends one, as a completion would."""

    def __init__(self) -> None:
        self.allocator = CountingAllocator(MACHINE, generator(0, Stream.ALLOCATOR))
        self.now = 0.0
        self.changes = 0
        self.early_releases = 0
        self.running: dict[int, tuple[Job, float, Placement]] = {}
        self.ends: list[tuple[float, int, int]] = []
        self.started: list[int] = []
        self.ahead: list[object] = []

    def start(self, job: Job, placement: Placement) -> None:
        self.allocator.allocate(job, placement)
        self.running[job.index] = (job, self.now, placement)
        insort(self.ends, (self.now + job.estimate, job.index, placement.nodes))
        self.started.append(job.job_id)

    def end(self, index: int) -> None:
        job, start, placement = self.running.pop(index)
        self.allocator.release(job, placement)
        self.ends.remove((start + job.estimate, index, placement.nodes))
        self.changes += 1

    def planner(self) -> Planner:
        free = self.allocator.free_nodes
        return CountPlanner(self.now, free, Releases(self.now, self.ends.copy(), {}))

    def shadow(self, job: Job) -> Shadow:
        return count_shadow(self.now, self.allocator.free_nodes, self.ends, job.size)

    def overran(self, now: float) -> bool:
        return bool(self.ends) and self.ends[0][0] <= now

    def repack(self) -> bool:
        return False

    def windows(self) -> None:
        return None


def job(index: int, size: int, estimate: float, submit: float = 0.0) -> Job:
    return Job(index, index + 1, submit, estimate, estimate, size, size)


def scheduler(**policy: str) -> tuple[Scheduler, StubState]:
    state = StubState()
    return Scheduler(MACHINE, Policy(**policy), state, RunStats()), state


def test_a_strict_pass_starts_in_order_until_the_head_blocks_and_returns_its_starts():
    s, state = scheduler()
    for j in (job(0, 3, 10), job(1, 4, 10), job(2, 5, 10), job(3, 1, 10)):
        s.queue.add(j)
    started = s.run_pass(0.0)
    assert [j.job_id for j in started] == [1, 2] == state.started
    assert [j.job_id for j in s.queue.jobs] == [3, 4]
    assert s.why(s.queue.jobs[1]) == "behind job 3, which blocks the queue (fcfs)"
    assert s.why(s.queue.jobs[0]).startswith("needs 5 nodes, 1 free")


def test_easy_backfills_only_what_does_not_delay_the_head():
    s, state = scheduler(backfill="easy")
    s.queue.add(job(0, 6, 100))
    assert [j.job_id for j in s.run_pass(0.0)] == [1]
    state.now = 10.0
    for j in (job(1, 8, 50, 10), job(2, 1, 200, 10), job(3, 1, 50, 10)):
        s.queue.add(j)
    # the head (job 2, all 8 nodes) is reserved for t=100: job 3 would run past it on nodes the
    # head needs; job 4 ends by then
    assert [j.job_id for j in s.run_pass(10.0)] == [4]
    assert s.why(s.queue.jobs[1]) == "would delay job 2 reserved for day 0 00:01:40 (EASY)"


def test_easy_starts_a_zero_length_job_beside_a_head_reserved_for_now():
    s, state = scheduler(backfill="easy")
    s.queue.add(job(0, 6, 50))
    s.run_pass(0.0)
    state.now = 60.0  # job 1 has overrun its estimate: the head is reserved for now
    for j in (job(1, 8, 10, 60), job(2, 2, 0, 60), job(3, 1, 5, 60)):
        s.queue.add(j)
    assert [j.job_id for j in s.run_pass(60.0)] == [3]
    assert [j.job_id for j in s.queue.jobs] == [2, 4]


def test_a_settled_pass_tries_only_the_new_arrivals_until_something_changes():
    s, state = scheduler()
    for j in (job(0, 8, 10), job(1, 4, 10), job(2, 4, 10)):
        s.queue.add(j)
    s.run_pass(0.0)
    state.allocator.asked = 0
    s.queue.add(job(3, 1, 10))
    assert s.run_pass(1.0) == []
    assert state.allocator.asked == 0  # settled and idle: no placement asked for
    state.end(0)
    assert [j.job_id for j in s.run_pass(2.0)] == [2, 3]
    assert state.allocator.asked == 3


def test_a_policy_change_reorders_the_waiting_jobs_and_retries_them_all():
    s, state = scheduler()
    for j in (job(0, 8, 10), job(1, 8, 30), job(2, 8, 20)):
        s.queue.add(j)
    s.run_pass(0.0)
    policy = Policy(queue="sjf")
    s.adopt(policy, s.policies_for(policy))
    assert [j.job_id for j in s.queue.jobs] == [3, 2]
    state.end(0)
    assert [j.job_id for j in s.run_pass(10.0)] == [3]


class RepackingState(StubState):
    """A stub whose first re-pack frees the nodes of job ``freed`` (as moving the running jobs
    together would free a box)."""

    def __init__(self, freed: int) -> None:
        super().__init__()
        self.freed = freed
        self.repacks = 0

    def repack(self) -> bool:
        self.repacks += 1
        if self.freed not in self.running:
            return False
        self.end(self.freed)
        return True


def migrating(discipline: str, backfill: str = "none") -> tuple[Scheduler, RepackingState]:
    state = RepackingState(freed=0)
    policy = Policy(discipline=discipline, backfill=backfill, migrate=True)
    return Scheduler(MACHINE, policy, state, RunStats()), state


def test_after_a_repack_the_second_selection_tries_only_the_jobs_left_waiting():
    # strict order: the jobs started before the re-pack are those before the head
    s, state = migrating("fcfs")
    s.queue.add(job(0, 4, 100))
    s.run_pass(0.0)  # job 1 runs on 4 of the 8 nodes
    for j in (job(1, 2, 10), job(2, 6, 10), job(3, 2, 10), job(4, 1, 10)):
        s.queue.add(j)
    # job 2 starts, job 3 is blocked (2 free); the re-pack frees 4: job 3 (6 nodes) starts and
    # job 4 is blocked again (0 free); job 2 is not started twice
    assert [j.job_id for j in s.run_pass(1.0)] == [2, 3]
    assert state.repacks == 1 and state.started == [1, 2, 3]
    assert [j.job_id for j in s.queue.jobs] == [4, 5]
    # out of order: a job behind the head started before the re-pack
    s, state = migrating("oo", "easy")
    s.queue.add(job(0, 4, 100))
    s.run_pass(0.0)
    for j in (job(1, 6, 10), job(2, 3, 10), job(3, 2, 10)):
        s.queue.add(j)
    # job 3 (3 nodes) starts past the blocked head; the re-pack frees 4 (5 free): job 2 (6) does
    # not fit, job 4 (2) starts; job 3 is not started twice
    assert [j.job_id for j in s.run_pass(1.0)] == [3, 4]
    assert state.started == [1, 3, 4]
    assert [j.job_id for j in s.queue.jobs] == [2]
