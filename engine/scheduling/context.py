"""What a scheduling pass shows the policies: the queue, the allocator and a way to start jobs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.allocation import Allocator, Placement
    from engine.jobs import Job
    from engine.planning import Planner


@dataclass
class PassContext:
    """One scheduling pass at time ``now``: ``queue`` in priority order (read-only during the
    pass; started jobs leave it when the pass ends). ``early_release`` says whether a job ended
    before its estimate since the last pass."""

    now: float
    queue: list[Job]
    allocator: Allocator
    start_job: Callable[[Job, Placement], None]
    make_planner: Callable[[], Planner]
    early_release: bool = False
    started: set[int] = field(default_factory=set)

    def start(self, job: Job, placement: Placement) -> None:
        """Start ``job`` now on ``placement``."""
        self.start_job(job, placement)
        self.started.add(job.index)

    def planner(self) -> Planner:
        """Future availability from the running jobs' expected releases."""
        return self.make_planner()
