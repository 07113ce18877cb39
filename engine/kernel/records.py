"""The value records of a run: running and finished jobs, reservations, migration counts, results
and the immutable snapshot the console renders (DESIGN.md, "Engine")."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import numpy as np

    from meshsim.engine.allocation.allocator import Placement
    from meshsim.engine.core.jobs import Job
    from meshsim.engine.core.policy import Policy
    from meshsim.engine.kernel.events import EventRecord
    from meshsim.engine.kernel.series import SeriesView
    from meshsim.engine.topology.machines import Machine


class FinishedJob(NamedTuple):
    """A job that has left the machine: where it ran, from when to when, and whether it was killed
    (cancelled, or lost with a failed unit) rather than finished."""

    job: Job
    start: float
    end: float
    placement: Placement
    killed: bool


class RunningJob(NamedTuple):
    """A job that holds nodes: when it started, where, and when it is expected to end."""

    job: Job
    start: float
    placement: Placement

    @property
    def expected_end(self) -> float:
        return self.start + self.job.estimate

    @property
    def end(self) -> float:
        return self.start + self.job.runtime


new_running_job: Callable[[tuple[Job, float, Placement]], RunningJob] = partial(
    tuple.__new__, RunningJob
)
"""A :class:`RunningJob` from ``(job, start, placement)``, without the named tuple's Python-level
``__new__`` (one per job started; ``tests/engine/test_records.py`` pins the field order)."""


@dataclass(frozen=True, eq=False)
class Snapshot:
    """An immutable view of a simulation at one event, for display (the console renders only these).
    ``owners`` is a read-only per-cell array (job index, or FREE/DOWN/RESERVED); ``recent`` and
    ``finished`` hold the last events and the last jobs to leave the machine (bounded by the
    ``recent`` argument of the simulation); ``reservations`` the operator reservations that have not
    ended, pending and active; ``waits`` the :class:`~meshsim.engine.kernel.waits.Wait` of the
    waiting jobs the snapshot was asked to explain, by job index."""

    time: float
    event: int
    done: bool
    machine: Machine
    policy: Policy
    free_nodes: int
    owners: np.ndarray
    running: tuple[RunningJob, ...]
    waiting: tuple[Job, ...]
    held: tuple[Job, ...]
    waits: MappingProxyType
    metrics: MappingProxyType
    recent: tuple[EventRecord, ...]
    finished: tuple[FinishedJob, ...]
    series: SeriesView | None
    reservations: tuple[ReservationStatus, ...] = ()


@dataclass(frozen=True)
class Reservation:
    """An operator reservation of ``cells`` over [start, until) (a maintenance drain); ``on_job``
    is what happens to a job still running on its units when it starts: ``wait`` for it, or
    ``kill`` it."""

    number: int
    cells: tuple[int, ...]
    start: float
    until: float
    label: str
    on_job: str


@dataclass(frozen=True)
class ReservationStatus:
    """One operator reservation as the console lists it (Cobalt's ``showres``, Slurm's ``scontrol
    show reservation``): ``state`` is ``pending`` before its start and ``active`` from it;
    ``jobs`` are the numbers of the jobs running on its units now (none on a count-only pool,
    whose nodes have no identity) and ``waits_for`` the units an active reservation still waits
    for (its draining units)."""

    number: int
    label: str
    cells: tuple[int, ...]
    start: float
    until: float
    on_job: str
    state: str
    jobs: tuple[int, ...]
    waits_for: int


@dataclass
class MigrationCounts:
    """What migration did over a run."""

    passes: int = 0
    jobs: int = 0
    node_seconds: float = 0.0


@dataclass(frozen=True)
class Results:
    """What a run produced: the metrics and their breakdowns by size class and by queue."""

    metrics: dict[str, float | int]
    by_size_class: dict[str, dict[str, float | int]]
    by_queue: dict[str, dict[str, float | int]]
