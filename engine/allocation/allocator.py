"""The allocator interface: where a job runs.

An allocator is a stateful object, one per simulation, created from the machine and the run's random
generator. The scheduler asks :meth:`Allocator.find` where a job would go *now* (a pure query), then
commits with :meth:`Allocator.allocate`; :meth:`Allocator.release` undoes it when the job ends.
Allocators are registered by name (``@ALLOCATORS.register("first-fit")``) and declare the topologies
they work on; every allocator states its complexity in :attr:`Allocator.complexity`.

Property tests hold every allocator to three rules (DESIGN.md, "Allocation"): a cell is never booked
twice, a placement holds at least the requested nodes, and release restores the state."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, ClassVar, NamedTuple

import numpy as np

from meshsim.engine.allocation.planning import CountPlanner, Planner, Releases
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.registry import Registry

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from meshsim.engine.allocation.free_space import FreeSpace
    from meshsim.engine.allocation.request_fits import RequestFits
    from meshsim.engine.core.jobs import Job
    from meshsim.engine.topology.machines import Machine
    from meshsim.engine.workloads.workload import Workload

FREE = -1
"""Cell owner value for an idle cell in :meth:`Allocator.owners`."""
DOWN = -2
"""Cell owner value for a failed cell."""
RESERVED = -3
"""Cell owner value for a cell held by an operator reservation."""


class Placement(NamedTuple):
    """Where one job runs.

    ``cells`` are topology cells (grid nodes in row-major order, midplanes of a partition machine,
    ...); it is empty on a count-only pool such as the flat machine. ``nodes`` is what the job
    holds, at least its size (more when a request is rounded up to a box or a partition). ``label``
    is the operator-facing location (``"R00-M0"``, ``"(3,4) 4x2"``)."""

    cells: tuple[int, ...]
    nodes: int
    label: str = ""


class Allocator(ABC):
    """Decides where jobs run on one machine; owns the occupancy of that machine.

    ``stable_refusals``: a job :meth:`find` refuses stays refused while nothing is released,
    whatever else arrives or time passes; the engine may then skip re-trying such jobs in later
    passes, when backfilling plans on node counts (:meth:`planner` is this class's) or not at all
    (:class:`meshsim.engine.scheduling.scheduler.Scheduler`).

    ``fits_by_count``: :meth:`fits` is exactly ``job.size <= free_nodes`` (interchangeable nodes),
    so a caller that has compared the two need not ask; a subclass that overrides
    :meth:`fits` differently must clear it."""

    name: ClassVar[str] = ""
    topologies: ClassVar[frozenset[str]] = frozenset()
    complexity: ClassVar[str] = ""
    stable_refusals: ClassVar[bool] = False
    fits_by_count: ClassVar[bool] = False
    section: ClassVar[str] = ""
    """The machine's TOML section the allocator reads ("" for none): it works only on machines
    that have it (as ``nqs`` needs ``[nqs]``)."""

    def __init__(self, machine: Machine, rng: np.random.Generator, *, rotate: bool = False) -> None:
        self.machine = machine
        self.rng = rng
        self.rotate = rotate
        self.now = 0.0
        """The simulated time; the engine sets it before every scheduling pass."""

    @property
    @abstractmethod
    def free_nodes(self) -> int:
        """Nodes that are idle and usable now."""

    @abstractmethod
    def find(self, job: Job) -> Placement | None:
        """Where ``job`` would run now, or None if it cannot start now. Changes nothing."""

    def fits(self, job: Job) -> bool:
        """Whether :meth:`find` would place ``job`` now. Changes nothing; allocators that can tell
        without choosing a placement override it."""
        return self.find(job) is not None

    @abstractmethod
    def allocate(self, job: Job, placement: Placement) -> None:
        """Commit ``placement`` (a result of :meth:`find` in the current state) to ``job``."""

    @abstractmethod
    def release(self, job: Job, placement: Placement) -> None:
        """Free what ``job`` held."""

    def owners(self) -> np.ndarray:
        """Per-cell owner (a job index, or FREE, DOWN, RESERVED); empty for count-only pools."""
        return np.empty(0, dtype=np.int64)

    def withdraw(self, cell: int, state: int) -> None:
        """Take unit ``cell`` out of service as ``state`` (DOWN or RESERVED): it is never allocated
        until :meth:`restore`. The unit is idle (FREE) or already withdrawn (then only its state
        changes); the simulation ends or waits for the job on it first. On a count-only pool the
        cell is a node number and only the free count changes."""
        raise MeshsimError(f"allocator '{self.name}' cannot take units out of service")

    def restore(self, cell: int) -> None:
        """Bring a unit taken out by :meth:`withdraw` back into service (FREE)."""
        raise MeshsimError(f"allocator '{self.name}' cannot take units out of service")

    def available(self, placement: Placement | None) -> bool:
        """Whether a planned ``placement`` (a reservation's box, or None for a node count) can be
        taken as it is now."""
        if placement is None or not placement.cells:
            return False
        owners = self.owners()
        return len(owners) > 0 and bool((owners[list(placement.cells)] == FREE).all())

    def free_space(self, job_id: Callable[[int], int]) -> FreeSpace | None:
        """This allocator's own view of the machine's free space now (a partition menu's
        ``partlist``; ``job_id`` names a job by its index), or None for the generic view of its
        topology (:mod:`meshsim.engine.allocation.free_space`)."""
        return None

    def holders(self, placement: Placement) -> tuple[int, ...]:
        """The running jobs (by index, in order) that keep ``placement`` from being taken now:
        those holding any of its cells (none on a count-only pool, whose placements name no
        cells). A partition menu adds the jobs whose partitions need its wiring."""
        owners = self.owners()
        if not placement.cells or not len(owners):
            return ()
        held = owners[np.fromiter(placement.cells, dtype=np.intp, count=len(placement.cells))]
        return tuple(sorted(set(held[held >= 0].tolist())))

    def planner(self, now: float, releases: Releases) -> Planner:
        """Future availability for backfilling, from the running jobs' ``releases``. The default
        counts nodes, which is exact for allocators that never fragment; topology-aware allocators
        return a planner that holds concrete placements."""
        return CountPlanner(now, self.free_nodes, releases)

    def prepare(self, workload: Workload) -> None:  # noqa: B027 - optional hook
        """See the workload before the run (e.g. its header's time zone)."""

    def admit(self, job: Job) -> str | None:
        """Why ``job`` is rejected on arrival (never queued), or None to queue it."""
        return None

    def companion(
        self, job: Job, placement: Placement, waiting: Sequence[Job]
    ) -> tuple[Job, Placement] | None:
        """A waiting job to start together with ``job``, which has just been placed (paired job
        filling, Tang et al.); None by default."""
        return None

    def pairs(self) -> bool:
        """Whether :meth:`companion` may ever start a job (then jobs may start out of queue
        order)."""
        return type(self).companion is not Allocator.companion

    def finished(self, job: Job) -> None:  # noqa: B027 - optional hook
        """``job`` ended normally (allocators that learn from history override this)."""

    def next_change(self, now: float) -> float | None:
        """The next time the allocator's rules change by themselves (a prime-time boundary), so the
        engine can schedule a pass then; None when they never do."""
        return None

    def request_fits(self) -> RequestFits | None:
        """Which requests of waiting jobs may fit now, all at once, for disciplines that try the
        whole queue (:mod:`meshsim.engine.allocation.request_fits`); None when this allocator
        cannot tell (the discipline then asks :meth:`find` of every job). A request it excludes is
        one :meth:`find` refuses now, and the same until cells are released."""
        return None

    def repack(self, running: Sequence[tuple[Job, Placement]]) -> dict[int, Placement] | None:
        """Migration (Krevat et al., seed 002 §2): new placements for the running jobs, placed
        largest first into an empty machine by this allocator's own rule, keyed by job index; None
        when the allocator cannot migrate or the jobs do not all fit. Changes nothing."""
        return None

    def explain(self, job: Job) -> str:
        """Why ``job`` cannot start now, in the operator's terms."""
        free = self.free_nodes
        need = f"needs {job.size} node{'' if job.size == 1 else 's'}, {free} free"
        return need if job.size > free else f"{need} but no suitable placement"


ALLOCATORS: Registry[type[Allocator]] = Registry("allocator")
"""Every allocator, by the name ``--alloc`` accepts."""
