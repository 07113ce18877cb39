"""The ``nqs`` allocator: node selection of the SDSC Paragon batch scheduler (seed 004 §2.2, §3).

- Batch jobs use the node sets of their queue's node group for the current period (prime time:
  weekdays 9:00-17:00 local time by default; the period switches exactly at the boundaries, and the
  allocator asks the engine for a scheduling pass at each one).
- First pass: the node set of the group with the fewest free nodes that can hold the whole request.
  Second pass: free nodes from the group's node sets in their listed order.
- Inside a node set, nodes are chosen by an inner allocator (``node_allocator``, M2DB by default,
  §2.4) working on that rectangle alone.
- Interactive jobs go to the interactive partition by sequential node assignment (the lowest free
  node numbers) and are rejected at arrival when it has too few free nodes (§1).
- Cells outside every node set and the interactive partition (service and I/O nodes) are never
  allocated; they show as reserved.

Complexity: one decision costs the inner allocator's query for each node set of the group (at most
three here) plus O(nodes of the set) to map cells."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import numpy as np

from meshsim.engine.allocation.allocator import ALLOCATORS, FREE, RESERVED, Allocator, Placement
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.jobs import Job
from meshsim.engine.core.simclock import clock
from meshsim.engine.families.nqs.config import NodeSet, NQSConfig
from meshsim.engine.topology.grid import GridSpec
from meshsim.engine.topology.machines import Machine
from meshsim.engine.workloads.traceclock import TraceClock
from meshsim.engine.workloads.workload import Workload


def nqs_config(machine: Machine) -> NQSConfig:
    """The machine's ``[nqs]`` section, or an error naming the machine."""
    config = machine.extras.get("nqs")
    if config is None:
        raise MeshsimError(
            f"machine '{machine.name}' has no [nqs] section; the nqs policies need one"
        )
    return config


class _SetPool:
    """One node set: an inner allocator on a machine of the set's own rectangle."""

    def __init__(self, node_set: NodeSet, machine: Machine, inner: str, rng: np.random.Generator):
        self.node_set = node_set
        r = node_set.rect
        self.sub = Machine(
            name=f"{machine.name}/{node_set.name}",
            topology="mesh",
            spec=GridSpec((r.w, r.h), (False, False)),
        )
        cls = ALLOCATORS.get(inner)
        if "mesh" not in cls.topologies:
            raise MeshsimError(f"node allocator '{inner}' does not work on meshes")
        self.inner = cls(self.sub, rng)
        height = machine.spec.dims[1]
        self.to_global = np.array(
            [(r.x + i) * height + (r.y + j) for i in range(r.w) for j in range(r.h)], dtype=np.int64
        )

    @property
    def free(self) -> int:
        return self.inner.free_nodes


@ALLOCATORS.register("nqs")
class NQSAllocator(Allocator):
    """Node sets, node groups, prime time and the interactive partition of the SDSC Paragon."""

    name = "nqs"
    topologies = frozenset({"mesh"})
    section = "nqs"
    complexity = "inner allocator query per node set of the job's group, plus O(set nodes)"

    def __init__(self, machine: Machine, rng: np.random.Generator, *, rotate: bool = False) -> None:
        super().__init__(machine, rng, rotate=rotate)
        self.config = nqs_config(machine)
        self.queues = self.config.queue_by_number()
        self.pools = {
            s.name: _SetPool(s, machine, self.config.node_allocator, rng)
            for s in self.config.node_sets
        }
        dims = machine.spec.dims
        self._owner = np.full(machine.nodes, RESERVED, dtype=np.int64)
        for pool in self.pools.values():
            self._owner[pool.to_global] = FREE
        rect = self.config.interactive
        self._interactive = np.array(rect.cells(dims) if rect else [], dtype=np.int64)
        self._owner[self._interactive] = FREE
        self._parts: dict[int, list[tuple[str, Job, Placement]]] = {}
        self._pending: dict[int, list[tuple[str, Job, Placement]]] = {}
        self.clock = TraceClock(0, ZoneInfo(self.config.prime.zone), True)
        self._period_time = float("nan")
        self._period_prime = False

    def prepare(self, workload: Workload) -> None:
        """Read prime time in the trace's own time zone when its header gives one."""
        header = workload.header
        if header is not None and header.unix_start_time is not None:
            clock = TraceClock.from_header(header)
            zone = clock.zone if header.time_zone_string else ZoneInfo(self.config.prime.zone)
            self.clock = TraceClock(clock.unix_start, zone, True)

    # ---------------------------------------------------------------------- periods

    def is_prime(self, t: float) -> bool:
        """Whether trace time ``t`` falls in prime time (remembered for the last time asked)."""
        if t != self._period_time:
            local = self.clock.at(t)
            p = self.config.prime
            self._period_time = t
            self._period_prime = local.weekday() in p.days and p.start <= local.time() < p.end
        return self._period_prime

    def next_change(self, now: float) -> float | None:
        """The next prime-time boundary after ``now``."""
        local = self.clock.at(now)
        p = self.config.prime
        day = local.replace(hour=0, minute=0, second=0, microsecond=0)
        for offset in range(8):
            date = day + timedelta(days=offset)
            if date.weekday() not in p.days:
                continue
            for edge in (p.start, p.end):
                moment = datetime.combine(date.date(), edge, tzinfo=local.tzinfo)
                t = self.clock.seconds(moment)
                if t > now:
                    return t
        return None

    def sets_for(self, job: Job) -> list[str]:
        """The node sets ``job``'s queue may use now, in the group's order."""
        queue = self.queues.get(job.queue)
        if queue is None or queue.interactive:
            return []
        group = self.config.group(queue.group)
        return list(group.prime if self.is_prime(self.now) else group.nonprime)

    def is_interactive(self, job: Job) -> bool:
        queue = self.queues.get(job.queue)
        return queue is not None and queue.interactive

    # -------------------------------------------------------------------- allocation

    @property
    def free_nodes(self) -> int:
        interactive = int(np.count_nonzero(self._owner[self._interactive] == FREE))
        return sum(p.free for p in self.pools.values()) + interactive

    def admit(self, job: Job) -> str | None:
        if self.is_interactive(job):
            free = int(np.count_nonzero(self._owner[self._interactive] == FREE))
            if job.size > free:
                return "interactive partition full"
        return None

    def find(self, job: Job) -> Placement | None:
        if self.is_interactive(job):
            free = self._interactive[self._owner[self._interactive] == FREE]
            if len(free) < job.size:
                return None
            return Placement(tuple(free[: job.size].tolist()), job.size, "interactive")
        names = self.sets_for(job)
        fitting = [n for n in names if self.pools[n].free >= job.size]
        for name in sorted(fitting, key=lambda n: (self.pools[n].free, names.index(n))):
            part = self.pools[name].inner.find(job)
            if part is not None:
                return self._placement(job, [(name, job, part)])
        if sum(self.pools[n].free for n in names) < job.size:
            return None
        parts = []
        remaining = job.size
        for name in names:
            pool = self.pools[name]
            take = min(pool.free, remaining)
            if take == 0:
                continue
            piece = job._replace(size=take, shape=None)
            part = pool.inner.find(piece)
            if part is None:
                return None
            parts.append((name, piece, part))
            remaining -= take
            if remaining == 0:
                break
        return self._placement(job, parts)

    def _placement(self, job: Job, parts: list[tuple[str, Job, Placement]]) -> Placement:
        cells: list[int] = []
        for name, _, part in parts:
            cells.extend(self.pools[name].to_global[list(part.cells)].tolist())
        self._pending[job.index] = parts
        label = "+".join(name for name, _, _ in parts)
        return Placement(tuple(cells), job.size, label)

    def allocate(self, job: Job, placement: Placement) -> None:
        self._owner[list(placement.cells)] = job.index
        if self.is_interactive(job):
            return
        parts = self._pending.pop(job.index)
        for name, piece, part in parts:
            self.pools[name].inner.allocate(piece, part)
        self._parts[job.index] = parts

    def release(self, job: Job, placement: Placement) -> None:
        self._owner[list(placement.cells)] = FREE
        for name, piece, part in self._parts.pop(job.index, ()):
            self.pools[name].inner.release(piece, part)

    def owners(self) -> np.ndarray:
        return self._owner.copy()

    def withdraw(self, cell: int, state: int) -> None:
        """Take a node of a node set or of the interactive partition out of service; service and I/O
        nodes (outside both) are never allocated anyway and cannot be withdrawn."""
        where = self._home(cell)
        if self._owner[cell] == FREE and where is not None:
            pool, local = where
            pool.inner.withdraw(local, state)
        self._owner[cell] = state

    def restore(self, cell: int) -> None:
        where = self._home(cell)
        if where is not None:
            pool, local = where
            pool.inner.restore(local)
        self._owner[cell] = FREE

    def _home(self, cell: int) -> tuple[_SetPool, int] | None:
        """The node set holding ``cell`` and its local cell there; None in the interactive
        partition; an error for service nodes."""
        for pool in self.pools.values():
            hit = np.flatnonzero(pool.to_global == cell)
            if len(hit):
                return pool, int(hit[0])
        if cell in self._interactive:
            return None
        raise MeshsimError(f"node {cell} is a service node, never allocated")

    def explain(self, job: Job) -> str:
        if self.is_interactive(job):
            return super().explain(job) + " in the interactive partition"
        names = self.sets_for(job)
        free = sum(self.pools[n].free for n in names)
        period = "prime" if self.is_prime(self.now) else "non-prime"
        change = self.next_change(self.now)
        until = "" if change is None else f" (until {clock(change)})"
        queue = self.queues[job.queue]
        return (
            f"needs {job.size} nodes; queue {queue.name} may use {', '.join(names)} in "
            f"{period} time{until}, {free} free there"
        )
