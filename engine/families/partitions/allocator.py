"""Allocation on a partition menu: Cobalt's least-blocking scheme and the walltime-aware schemes of
Tang et al. (seed 000 §II-B, §IV).

- ``least-blocking`` (Base): the job gets the smallest partition size that holds it; among the
  usable partitions of that size, the one whose taking makes the fewest other usable partitions
  unusable (they overlap it or need its cables); ties by menu order.
- ``sl`` (Algorithm 1): among the least-blocking ties, the partition whose neighbour runs a job
  expected to end closest to the new job's expected end (|end(nj) − (now + walltime(sj))|; a
  neighbour with no job counts as infinitely far; the paper's "walltime difference" read as the
  difference of expected completions, which is what "exit around the same time" needs).
- ``pf`` (Algorithm 2): after a job of a paired size (512 nodes by default) is placed, if its
  neighbour partition is idle, the waiting job of the same partition size whose walltime is closest
  to its own starts there at once (priority order breaks ties).
- ``combo``: SL, then PF.
- ``adjest``: Combo with walltimes adjusted from history (the method of the paper's [23] as we read
  it): requested × the mean actual/requested ratio of the user's last 10 finished jobs once the user
  has finished at least 3 (the warm-up), else of the project's (SWF group) last 10 with the same
  warm-up, else the request unchanged.
- ``actrun``: Combo with actual runtimes.

Adjusted and actual runtimes serve only these spatial decisions: priorities and backfilling use the
user's request, as in the paper.

State is a bitset of usable partitions (:mod:`meshsim.engine.families.partitions.menu`). The
least-blocking ties are a pure function of (usable set, partition size): the first decision for a
pair costs one ``bit_count`` per usable partition of the size (at most a few hundred on Intrepid)
and is remembered, so the scheduler's repeated questions between two changes of the busy set (every
waiting job of a pass, every candidate time of a reservation) cost one dictionary look-up. SL's
distinct expected ends of the ties' neighbours' jobs are remembered per tie set until a job starts
or ends, a midplane is withdrawn or restored, or AdjEst's history grows. Whether a job fits at all
(:meth:`LeastBlocking.fits`, EASY's scan of the queue) is one AND of bitsets."""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Sequence
from math import inf

import numpy as np

from meshsim.engine.allocation.allocator import ALLOCATORS, FREE, Allocator, Placement
from meshsim.engine.allocation.free_space import FreeSpace
from meshsim.engine.allocation.planning import Planner, Releases
from meshsim.engine.core.jobs import Job
from meshsim.engine.families.partitions.menu import Menu, Partition, bits, build_menu, size_label
from meshsim.engine.families.partitions.partlist import partlist
from meshsim.engine.families.partitions.planner import PartitionPlanner
from meshsim.engine.topology.machines import Machine

TIES_REMEMBERED = 1 << 14
"""Least-blocking decisions remembered per allocator before the memory starts afresh."""
HISTORY = 10
"""AdjEst: finished jobs remembered per user and per project."""
WARM_UP = 3
"""AdjEst: finished jobs needed before a user's (or project's) history is used."""


@ALLOCATORS.register("least-blocking")
class LeastBlocking(Allocator):
    """Cobalt's minimum partition blocking (Base)."""

    name = "least-blocking"
    topologies = frozenset({"partitions"})
    complexity = (
        "O(usable partitions of the size) big-integer popcounts per new (usable set, size), "
        "then a dictionary look-up"
    )
    similar_length = False
    paired_sizes: frozenset[int] = frozenset()
    walltime_source = "estimate"

    def __init__(self, machine: Machine, rng: np.random.Generator, *, rotate: bool = False) -> None:
        super().__init__(machine, rng, rotate=rotate)
        self.menu: Menu = build_menu(machine.spec)
        self.all = (1 << len(self.menu.partitions)) - 1
        self._owner: list[int] = [FREE] * machine.spec.midplanes
        self._free = machine.spec.midplanes
        self._running: dict[int, tuple[Job, float]] = {}
        self.running_partitions: dict[int, int] = {}
        """The menu index of each running job's partition, by job index."""
        self._down = 0
        self._out: set[int] = set()
        self.usable = self.all
        self._by_name = {p.name: p.index for p in self.menu.partitions}
        self._neighbour_midplanes = tuple(
            None if q is None else self.menu.partitions[q].midplanes for q in self.menu.neighbour
        )
        self._placements = tuple(
            Placement(p.midplanes, p.nodes, p.name) for p in self.menu.partitions
        )
        self._sizing: dict[int, tuple[int, int]] = {}
        self._by_size = self.menu.by_size
        self._ties: dict[tuple[int, int], tuple[int, ...]] = {}
        self._groups: dict[tuple[int, ...], tuple[tuple[float, int], ...]] = {}
        self._history: dict[tuple[str, int], deque[float]] = defaultdict(
            lambda: deque(maxlen=HISTORY)
        )
        self._means: dict[tuple[str, int], float] = {}

    # ---------------------------------------------------------------- state

    @property
    def free_nodes(self) -> int:
        return self._free * self.menu.spec.midplane_nodes

    def owners(self) -> np.ndarray:
        return np.array(self._owner, dtype=np.int64)

    def _set_owner(self, cells: Sequence[int], owner: int) -> None:
        """Give ``cells`` to ``owner``, keeping the count of FREE midplanes; forget SL's remembered
        neighbour ends, which read the owners."""
        owners = self._owner
        for m in cells:
            self._free += (owner == FREE) - (owners[m] == FREE)
            owners[m] = owner
        self._groups.clear()

    def _recompute(self) -> None:
        taken = self._down
        conflicts = self.menu.conflicts
        for p in self.running_partitions.values():
            taken |= conflicts[p]
        self.usable = self.all & ~taken

    def partition_of(self, placement: Placement) -> Partition:
        return self.menu.partitions[self._by_name[placement.label]]

    def placement(self, index: int) -> Placement:
        return self._placements[index]

    # ---------------------------------------------------------------- walltimes

    def walltime(self, job: Job) -> float:
        """The walltime used for spatial decisions (request, adjusted, or actual)."""
        if self.walltime_source == "actual":
            return job.runtime
        if self.walltime_source == "adjusted":
            return job.estimate * self.adjustment(job)
        return job.estimate

    def adjustment(self, job: Job) -> float:
        """AdjEst's factor for ``job`` (module docstring)."""
        for key in (("user", job.user), ("project", job.group)):
            seen = self._history.get(key)
            if key[1] >= 0 and seen is not None and len(seen) >= WARM_UP:
                mean = self._means.get(key)
                if mean is None:
                    mean = self._means[key] = float(np.mean(seen))
                return mean
        return 1.0

    def finished(self, job: Job) -> None:
        if job.estimate > 0:
            ratio = job.runtime / job.estimate
            for key in (("user", job.user), ("project", job.group)):
                if key[1] >= 0:
                    self._history[key].append(ratio)
                    self._means.pop(key, None)
            self._groups.clear()

    # ---------------------------------------------------------------- decisions

    def sizing(self, nodes: int) -> tuple[int, int]:
        """The smallest partition size that holds ``nodes`` and the bitset of the menu's partitions
        of that size, (0, 0) when none holds it (seed 000 §II-B: a job gets the smallest partition
        size that holds it). Remembered per job size."""
        try:
            return self._sizing[nodes]
        except KeyError:
            size = self.menu.size_for(nodes)
            found = self._sizing[nodes] = (0, 0) if size is None else (size, self._by_size[size])
            return found

    def candidates(self, job: Job) -> int:
        """The bitset of the partitions ``job`` may take: every partition of its size."""
        return self.sizing(job.size)[1]

    def size_for(self, nodes: int) -> int | None:
        """The smallest partition size that holds ``nodes``."""
        return self.sizing(nodes)[0] or None

    def least_blocking(self, usable: int, size: int) -> tuple[int, ...]:
        """The usable partitions of ``size`` whose taking leaves the most others usable, in menu
        order (seed 000 §II-B). A pure function of its arguments, so remembered."""
        key = (usable, size)
        ties = self._ties.get(key)
        if ties is not None:
            return ties
        conflicts = self.menu.conflicts
        mask = usable & self.menu.by_size[size]
        low = -1
        best: list[int] = []
        while mask:
            bit = mask & -mask
            mask ^= bit
            p = bit.bit_length() - 1
            score = (usable & conflicts[p]).bit_count()
            if score < low or low < 0:
                low, best = score, [p]
            elif score == low:
                best.append(p)
        if len(self._ties) >= TIES_REMEMBERED:
            self._ties.clear()
        ties = self._ties[key] = tuple(best)
        return ties

    def choose(self, job: Job, usable: int, now: float) -> int | None:
        """The partition for ``job`` when ``usable`` partitions are available at time ``now``:
        the least-blocking one of the smallest size that holds it; under SL, among the ties, the one
        whose neighbour's job is expected to end closest to ``now + walltime(job)`` (Algorithm 1),
        then menu order."""
        size, mask = self._sizing.get(job.size) or self.sizing(job.size)
        if not usable & mask:
            return None
        ties = self._ties.get((usable, size)) or self.least_blocking(usable, size)
        if self.similar_length and len(ties) > 1:
            groups = self._by_neighbour_end(ties)
            if len(groups) == 1:
                return groups[0][1]
            mine = now + self.walltime(job)
            choice, closest = groups[0][1], inf
            for expected, p in groups:
                if expected != inf and abs(expected - mine) < closest:
                    choice, closest = p, abs(expected - mine)
            return choice
        return ties[0]

    def _by_neighbour_end(self, ties: tuple[int, ...]) -> tuple[tuple[float, int], ...]:
        """Each distinct expected end of the jobs on the ties' neighbours (inf: no neighbour, or an
        idle one) with the first tie in menu order that has it, in menu order: SL's choice is the
        first entry of least finite gap, else the first tie. Remembered until the busy set
        changes."""
        groups = self._groups.get(ties)
        if groups is None:
            first: dict[float, int] = {}
            for p in ties:
                first.setdefault(self._neighbour_end(p), p)
            groups = self._groups[ties] = tuple(first.items())
        return groups

    def _neighbour_end(self, partition: int) -> float:
        """Expected end (start + walltime) of the job on the first busy midplane of ``partition``'s
        neighbour, or inf."""
        midplanes = self._neighbour_midplanes[partition]
        if midplanes is None:
            return inf
        owners = self._owner
        for m in midplanes:
            owner = owners[m]
            if owner >= 0 and owner in self._running:
                job, start = self._running[owner]
                return start + self.walltime(job)
        return inf

    def fits(self, job: Job) -> bool:
        """Whether :meth:`find` would place ``job`` now: some partition of its size is usable (the
        choice among them is not needed to say so)."""
        return bool(self.usable & (self._sizing.get(job.size) or self.sizing(job.size))[1])

    def find(self, job: Job) -> Placement | None:
        choice = self.choose(job, self.usable, self.now)
        return None if choice is None else self._placements[choice]

    def allocate(self, job: Job, placement: Placement) -> None:
        p = self.partition_of(placement)
        self._set_owner(p.midplanes, job.index)
        self._running[job.index] = (job, self.now)
        self.running_partitions[job.index] = p.index
        self.usable &= ~self.menu.conflicts[p.index]

    def release(self, job: Job, placement: Placement) -> None:
        p = self.partition_of(placement)
        self._set_owner(p.midplanes, FREE)
        del self._running[job.index]
        del self.running_partitions[job.index]
        self._recompute()

    def available(self, placement: Placement | None) -> bool:
        if placement is None or placement.label not in self._by_name:
            return False
        return bool(self.usable >> self._by_name[placement.label] & 1)

    def pairs(self) -> bool:
        return bool(self.paired_sizes)

    def companion(
        self, job: Job, placement: Placement, waiting: Sequence[Job]
    ) -> tuple[Job, Placement] | None:
        p = self.partition_of(placement)
        if p.nodes not in self.paired_sizes:
            return None
        neighbour = self.menu.neighbour[p.index]
        if neighbour is None or not self.usable >> neighbour & 1:
            return None
        mine = self.walltime(job)
        best: tuple[float, int, Job] | None = None
        for rank, w in enumerate(waiting):
            if self.size_for(w.size) != p.nodes:
                continue
            gap = abs(self.walltime(w) - mine)
            if best is None or gap < best[0]:
                best = (gap, rank, w)
        if best is None:
            return None
        return best[2], self.placement(neighbour)

    def planner(self, now: float, releases: Releases) -> Planner:
        return PartitionPlanner(self, now, releases)

    # ---------------------------------------------------------------- failures and explanations

    def withdraw(self, cell: int, state: int) -> None:
        """Take midplane ``cell`` out of service: every partition using it becomes unusable."""
        self._set_owner((cell,), state)
        self._out.add(cell)
        self._set_down()

    def restore(self, cell: int) -> None:
        self._set_owner((cell,), FREE)
        self._out.discard(cell)
        self._set_down()

    def _set_down(self) -> None:
        down = 0
        for m in self._out:
            down |= self.menu.by_midplane[m]
        self._down = down
        self._recompute()

    def holders(self, placement: Placement) -> tuple[int, ...]:
        """The running jobs whose partitions conflict with ``placement``'s: they share a midplane
        or a cable segment with it (seed 000 §II-B)."""
        conflicts = self.menu.conflicts[self.partition_of(placement).index]
        return tuple(sorted(i for i, p in self.running_partitions.items() if conflicts >> p & 1))

    def free_space(self, job_id: Callable[[int], int]) -> FreeSpace:
        """Cobalt's ``partlist`` (:func:`~meshsim.engine.families.partitions.partlist.partlist`)."""
        return partlist(self, job_id)

    def explain(self, job: Job) -> str:
        size = self.size_for(job.size)
        if size is None:
            return f"needs {job.size} nodes, more than the largest partition"
        label = size_label(size)
        idle = self.free_nodes
        if idle < size:
            return f"needs {label}, {size_label(idle)} idle"
        owner = self._owner
        wired = []
        for p in bits(self.menu.by_size[size] & ~self.usable):
            part = self.menu.partitions[p]
            if all(owner[m] == FREE for m in part.midplanes):
                wired.append(part)
        if not wired:
            return f"needs {label}, {size_label(idle)} idle but no free {label} partition"
        users = sorted(
            {
                self.menu.partitions[q].name
                for q in self.running_partitions.values()
                if self.menu.conflicts[q] & (1 << wired[0].index)
            }
        )
        return (
            f"needs {label}, {size_label(idle)} idle but no free {label} partition: "
            f"blocked by wiring of {'/'.join(users[:3])}"
        )


@ALLOCATORS.register("sl")
class SimilarLength(LeastBlocking):
    """Least-blocking with the similar-length tie-breaker (Algorithm 1)."""

    name = "sl"
    similar_length = True


@ALLOCATORS.register("pf")
class PairedFilling(LeastBlocking):
    """Least-blocking plus paired job filling for 512-node jobs (Algorithm 2)."""

    name = "pf"
    paired_sizes = frozenset({512})


@ALLOCATORS.register("combo")
class Combo(LeastBlocking):
    """SL then PF."""

    name = "combo"
    similar_length = True
    paired_sizes = frozenset({512})


@ALLOCATORS.register("adjest")
class AdjEst(Combo):
    """Combo with walltimes adjusted from user and project history."""

    name = "adjest"
    walltime_source = "adjusted"


@ALLOCATORS.register("actrun")
class ActRun(Combo):
    """Combo with actual runtimes (the ideal case)."""

    name = "actrun"
    walltime_source = "actual"
