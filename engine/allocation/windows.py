"""Maintenance windows ahead: the units of an operator reservation that has not started yet, kept
from every job that would still run when it opens (docs/model.md, "Operator reservations").

A pending reservation holds its units over [start, until). As Slurm and Cobalt do (Cobalt's
scheduler forbids a job the partitions of every reservation its walltime overlaps; Slurm's
reservations take nodes from the jobs whose time limit reaches into them), a job may start on those
units only if its estimate ends by the window's start: a job *reaches* a window when
``now + estimate > start``, and then never starts on its units, whichever path starts it.

- :class:`WindowGuard` is the scheduling pass's ``find`` and ``start`` while windows are pending. A
  job that reaches no window is placed as the allocator places it; one that reaches a window keeps
  the allocator's choice when that touches none of the window's units, else the allocator chooses
  again with those units out of service: a *fence*, the windows' idle units withdrawn as reserved.
  A fenced choice is committed under the same fence (buddy allocators commit only the plan they
  made in the state they made it in), so the fence stays up from that :meth:`WindowGuard.find`
  until :meth:`WindowGuard.start`, the next find or :meth:`WindowGuard.lift`, which the pass calls
  when it ends.
- On a count-only pool (a flat machine: nodes have no identity) a window is a number of nodes: a
  job that reaches it starts only if, by the running jobs' expected ends, enough nodes are left for
  every window it reaches (the node-count planner's rule with the windows held): the pool's
  capacity is lowered by the window's nodes over [start, until).
- Every planner holds the windows (:meth:`~meshsim.engine.allocation.planning.Planner.hold`), so
  EASY's and conservative reservations plan around them; a re-pack (migration) is made with the
  windows' idle units fenced and refused when it would move a job onto the units of a window the
  job reaches (:meth:`WindowGuard.repack`); a paired companion and a conservative reservation's
  own placement are checked with :meth:`WindowGuard.admits`.

Cost: nothing while no reservation is pending (the pass keeps the allocator's own ``find``). While
one is, a job that reaches no window costs a comparison per window; one whose choice touches a
window costs a second allocator query with the fence up (a withdraw and a restore per idle unit of
the windows it reaches)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from meshsim.engine.allocation.allocator import FREE, RESERVED
from meshsim.engine.allocation.planning import CountPlanner, Releases
from meshsim.engine.core.simclock import clock

if TYPE_CHECKING:
    from meshsim.engine.allocation.allocator import Allocator, Placement
    from meshsim.engine.core.jobs import Job


class Window(NamedTuple):
    """A pending reservation as the scheduler sees it: ``cells`` unavailable over [start, until);
    ``nodes`` is what they count in a node-count planner (the cells in service now, in nodes);
    ``label`` names the reservation in explanations."""

    start: float
    until: float
    cells: tuple[int, ...]
    nodes: int
    label: str


class WindowGuard:
    """The starts of one pass at ``now`` kept out of pending ``windows`` (module doc), on
    ``allocator``; ``releases`` gives the running jobs' expected releases now and ``start_job``
    starts a job (the machine state's ``start``)."""

    def __init__(
        self,
        allocator: Allocator,
        windows: Sequence[Window],
        now: float,
        releases: Callable[[], Releases],
        start_job: Callable[[Job, Placement], None],
    ) -> None:
        self.allocator = allocator
        self.windows = tuple(windows)
        self.now = now
        self._releases = releases
        self._start_job = start_job
        self._fence: list[int] = []
        """The idle cells withdrawn for the last fenced choice, until it starts or is dropped."""
        self._fenced: tuple[int, Placement] | None = None
        """The job index and placement of the last fenced choice."""

    # ------------------------------------------------------------------ the rule

    def reached(self, end: float) -> tuple[Window, ...]:
        """The windows a job running until ``end`` reaches (its end is after their start)."""
        return tuple(w for w in self.windows if w.start < end)

    def admits(self, job: Job, placement: Placement, end: float | None = None) -> bool:
        """Whether ``job`` may run on ``placement`` until ``end`` (default: now + its estimate)
        without reaching a window on its units (on a count-only pool: without leaving a window
        short of nodes)."""
        reached = self.reached(self.now + job.estimate if end is None else end)
        if not reached:
            return True
        if not placement.cells:
            return self._counts_admit(job, placement)
        return _cells_of(reached).isdisjoint(placement.cells)

    def _counts_admit(self, job: Job, placement: Placement) -> bool:
        """The count-only rule: the node-count planner with the windows held admits the job."""
        planner = CountPlanner(self.now, self.allocator.free_nodes, self._releases())
        for window in self.windows:
            planner.hold(window)
        return planner.admits(job, placement, job.estimate)

    # ------------------------------------------------------------------ the pass's find and start

    def find(self, job: Job) -> Placement | None:
        """Where ``job`` may start now (None: nowhere the windows allow): the allocator's choice
        when it keeps out of every window the job reaches, else its choice with the fence up."""
        self.lift()
        allocator = self.allocator
        placement = allocator.find(job)
        if placement is None:
            return None
        reached = self.reached(self.now + job.estimate)
        if not reached:
            return placement
        if not placement.cells:
            return placement if self._counts_admit(job, placement) else None
        cells = _cells_of(reached)
        if cells.isdisjoint(placement.cells):
            return placement
        self._raise(cells)
        placement = allocator.find(job)
        if placement is None:
            self.lift()
            return None
        self._fenced = (job.index, placement)
        return placement

    def start(self, job: Job, placement: Placement) -> None:
        """Start ``job`` on ``placement`` (under the fence it was chosen with), then lift the
        fence."""
        if self._fence and self._fenced != (job.index, placement):
            self.lift()
        try:
            self._start_job(job, placement)
        finally:
            self.lift()

    def lift(self) -> None:
        """Put the fenced units back in service."""
        fence, allocator = self._fence, self.allocator
        while fence:
            allocator.restore(fence.pop())
        self._fenced = None

    def _raise(self, cells: frozenset[int]) -> None:
        """Withdraw the idle ones of ``cells`` (busy ones cannot be chosen anyway)."""
        allocator = self.allocator
        owners = allocator.owners()
        for cell in sorted(cells):
            if owners[cell] == FREE:
                allocator.withdraw(cell, RESERVED)
                self._fence.append(cell)

    # ------------------------------------------------------------------ migration and reasons

    def repack(
        self, running: Sequence[tuple[Job, Placement]], expected_end: Callable[[Job], float]
    ) -> dict[int, Placement] | None:
        """The allocator's re-pack of ``running`` with the idle units of the windows the running
        jobs reach fenced; None (no migration) when it fails or would move a job onto the units of
        a window the job reaches by its ``expected_end``."""
        self.lift()
        allocator = self.allocator
        latest = max((expected_end(job) for job, _ in running), default=self.now)
        reached = self.reached(latest)
        if not reached:
            return allocator.repack(running)
        self._raise(_cells_of(reached))
        try:
            plan = allocator.repack(running)
        finally:
            self.lift()
        if plan is None:
            return None
        for job, held in running:
            new = plan[job.index]
            if new.cells != held.cells and not self.admits(job, new, expected_end(job)):
                return None
        return plan

    def refusal(self, job: Job) -> str:
        """Why ``job``, which the allocator would place now, may not start because of a window
        ("" when it may)."""
        if self.find(job) is not None:
            self.lift()
            return ""
        end = self.now + job.estimate
        first = self.reached(end)[0]
        when = f"{first.label} from {clock(first.start)} (its estimate ends {clock(end)})"
        if self.allocator.owners().size == 0:
            return f"would leave too few nodes for the reservation of {when}"
        return f"would run into the reservation of {when}"


def _cells_of(windows: Sequence[Window]) -> frozenset[int]:
    return frozenset(cell for window in windows for cell in window.cells)
