"""What a scheduling pass shows the policies: the queue, the allocator and a way to start jobs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from meshsim.engine.allocation.allocator import Allocator, Placement
    from meshsim.engine.allocation.planning import Planner, Shadow
    from meshsim.engine.allocation.windows import WindowGuard
    from meshsim.engine.core.jobs import Job
    from meshsim.engine.scheduling.orders import WaitingQueue


@dataclass
class RunStats:
    """Online measurements some disciplines use (seed 001 §2.3's λ and W)."""

    arrivals: int = 0
    first_arrival: float = 0.0
    running: int = 0
    running_wait: float = 0.0

    def arrival_rate(self, now: float) -> float:
        """λ: jobs arrived per unit of time since the first arrival."""
        span = now - self.first_arrival
        return self.arrivals / span if span > 0 else 0.0

    def mean_running_wait(self) -> float:
        """W: the average waiting delay of the jobs running now."""
        return self.running_wait / self.running if self.running else 0.0


@dataclass
class PassContext:
    """One scheduling pass at time ``now``: ``queue`` in priority order (read-only during the pass;
    started jobs leave it when the pass ends), ``smallest`` the smallest size in it (no job can
    start when fewer nodes are free). ``settled`` counts the leading jobs of ``queue`` known not to
    start in this pass (0: none known; see :class:`meshsim.engine.scheduling.scheduler.Scheduler`).
    ``early_release`` says whether a job ended before its estimate since the last pass;
    ``arrival_order`` whether the queue order is arrival order (FCFS); ``pairs`` whether the
    allocator pairs jobs (it overrides
    :meth:`~meshsim.engine.allocation.allocator.Allocator.companion`); ``guard``, set by a
    backfilling policy while it starts jobs around reservations, is the planner a companion must
    also satisfy. ``shadow``, when :attr:`planner` would be the node-count planner
    (:class:`~meshsim.engine.allocation.planning.CountPlanner`) and the allocator does not pair
    jobs, gives that planner's :meth:`~meshsim.engine.allocation.planning.Planner.shadow` for a head
    job now without building it. ``sizes``, when not None, lists the sizes of the jobs of ``queue``
    in its order. ``waiting`` is the waiting queue itself (``queue`` is its ``jobs`` unless a pass
    rebuilt it), for a discipline that keeps tags on it (:meth:`WaitingQueue.tag_with`).

    ``find`` is where the policies ask where a job would start now: the allocator's own
    :meth:`~meshsim.engine.allocation.allocator.Allocator.find`, or, while operator reservations
    are pending, ``windows``'s (:class:`~meshsim.engine.allocation.windows.WindowGuard`), which
    also starts the jobs (``start_job``) and checks a companion. ``windows_changed`` says whether
    the pending reservations changed since the last pass (one was made, or one started)."""

    now: float
    queue: list[Job]
    allocator: Allocator
    start_job: Callable[[Job, Placement], None]
    planner: Callable[[], Planner]
    """Future availability from the running jobs' expected releases (a new planner per call)."""
    smallest: int = 0
    settled: int = 0
    early_release: bool = False
    started: dict[int, Job] = field(default_factory=dict)
    """The jobs started in this pass so far, by index, in the order they started."""
    arrival_order: bool = True
    pairs: bool = False
    stats: RunStats = field(default_factory=lambda: RunStats())
    guard: Planner | None = None
    shadow: Callable[[Job], Shadow] | None = None
    sizes: list[int] | None = None
    waiting: WaitingQueue | None = None
    find: Callable[[Job], Placement | None] = field(init=False)
    windows: WindowGuard | None = None
    windows_changed: bool = False

    def __post_init__(self) -> None:
        self.find = self.allocator.find

    def start(self, job: Job, placement: Placement) -> None:
        """Start ``job`` now on ``placement``, and the companion the allocator pairs with it (paired
        job filling), if any. Under a ``guard`` the companion starts out of order like a backfilled
        job: it is chosen among the waiting jobs the guard admits on the companion's partition (so
        it never delays a reservation) and recorded in the guard; while operator reservations are
        pending it is chosen among the jobs that reach none of them on that partition."""
        self.start_job(job, placement)
        started = self.started
        started[job.index] = job
        if not self.pairs:
            return
        waiting = [j for j in self.queue if j.index not in started]
        pair = self.allocator.companion(job, placement, waiting) if waiting else None
        guard = self.guard
        if pair is not None and (guard is not None or self.windows is not None):
            where = pair[1]
            if not self._may_pair(pair[0], where):
                fits = [w for w in waiting if self._may_pair(w, where)]
                pair = self.allocator.companion(job, placement, fits) if fits else None
        if pair is not None and pair[0].index not in started:
            self.start_job(*pair)
            started[pair[0].index] = pair[0]
            if guard is not None:
                guard.start(pair[0], pair[1], pair[0].estimate)

    def _may_pair(self, job: Job, where: Placement) -> bool:
        """Whether ``job`` may start now as a companion on ``where``."""
        guard, windows = self.guard, self.windows
        if guard is not None and not guard.admits(job, where, job.estimate):
            return False
        return windows is None or windows.admits(job, where)
