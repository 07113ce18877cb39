"""Queue orders (priorities): which waiting job comes first.

A static order gives every job a fixed sort key, so the waiting queue stays sorted as jobs arrive
(O(log q) per arrival). A dynamic order (WFP) depends on the current time and is re-sorted at every
scheduling pass (O(q log q)). Ties are always broken by (submit time, job index), i.e. by arrival
order."""

from __future__ import annotations

from abc import ABC, abstractmethod
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from heapq import heappop, heappush
from typing import ClassVar

from meshsim.engine.core.jobs import Job
from meshsim.engine.core.registry import Registry
from meshsim.engine.scheduling.tags import TagColumn
from meshsim.engine.topology.machines import Machine


class QueueOrder(ABC):
    """A priority rule. ``score`` is what the console shows in the queue's priority column. Orders
    are built with the machine, whose data some of them read (NQS queue priorities)."""

    def __init__(self, machine: Machine) -> None:
        self.machine = machine

    name: ClassVar[str] = ""
    dynamic: ClassVar[bool] = False
    arrival_order: ClassVar[bool] = False
    description: ClassVar[str] = ""
    section: ClassVar[str] = ""
    """The machine's TOML section the order reads ("" for none)."""

    @abstractmethod
    def key(self, job: Job, now: float) -> tuple:
        """Sort key: smaller runs first."""

    def score(self, job: Job, now: float) -> float:
        """A number for display; larger means more urgent for dynamic orders."""
        return float(self.key(job, now)[0])


QUEUE_ORDERS: Registry[type[QueueOrder]] = Registry("queue order")


@QUEUE_ORDERS.register("fcfs")
class FCFS(QueueOrder):
    """First come, first served: by submit time, then job index."""

    name = "fcfs"
    arrival_order = True
    description = "first come, first served (submit time)"

    def key(self, job: Job, now: float) -> tuple:
        return (job.submit, job.index)


@QUEUE_ORDERS.register("sjf")
class SJF(QueueOrder):
    """Shortest job first, by the user's estimate (requested time); ties by arrival."""

    name = "sjf"
    description = "shortest job first (by estimate)"

    def key(self, job: Job, now: float) -> tuple:
        return (job.estimate, job.submit, job.index)


@QUEUE_ORDERS.register("wfp")
class WFP(QueueOrder):
    """WFP, Cobalt's utility function on Intrepid (Tang et al., seed 000 §V-A):
    ``(wait / estimate)^3 × size``, larger first.

    The estimate is floored at 1 s so a zero-length request cannot divide by zero (our choice; the
    paper's traces have no zero requests). Ties by arrival."""

    name = "wfp"
    dynamic = True
    description = "(wait/estimate)^3 x size, larger first (Tang et al.)"

    def score(self, job: Job, now: float) -> float:
        return ((now - job.submit) / max(job.estimate, 1.0)) ** 3 * job.size

    def key(self, job: Job, now: float) -> tuple:
        return (-self.score(job, now), job.submit, job.index)


class WaitingQueue:
    """The waiting jobs, kept in queue order, with their total and smallest size.

    For static orders the list is kept sorted on insertion, so a pass reads it without sorting; the
    engine defers removals to the end of a pass so a pass may iterate the live list. Under a static
    order ``sizes`` holds the jobs' sizes in the same order (None under a dynamic order). The
    smallest waiting size (for loss of capacity), ``smallest`` (0 when empty), is kept up to date
    from a heap of sizes with lazy deletion, O(log q) when the smallest job leaves. Under a static
    order ``tags``, once :meth:`tag_with` is called, holds an integer per job in the same order
    (None otherwise)."""

    def __init__(self, order: QueueOrder) -> None:
        self.order = order
        self._dynamic = order.dynamic  # read per arrival: kept on the instance
        self.jobs: list[Job] = []
        self.sizes: list[int] | None = None if order.dynamic else []
        self._keys: list[tuple] = []
        self._key_of: dict[int, tuple | None] = {}
        self._size_count: dict[int, int] = {}
        self._size_heap: list[int] = []
        self.demand = 0
        self.smallest = 0
        self._tag: Callable[[Job], int] | None = None
        self.tags: TagColumn | None = None

    def __len__(self) -> int:
        return len(self.jobs)

    # ``jobs`` is the live list in queue order for static orders; read it, never mutate it.
    # ``_key_of`` holds every member's sort key (None under a dynamic order), so a removal finds
    # its position without computing the key again.

    def __contains__(self, job: Job) -> bool:
        return job.index in self._key_of

    def add(self, job: Job) -> None:
        size = job.size
        key_of = self._key_of
        if not key_of or size < self.smallest:
            self.smallest = size
        self.demand += size
        count = self._size_count
        held = count.get(size, 0)
        if held == 0:
            heappush(self._size_heap, size)
        count[size] = held + 1
        if self._dynamic:
            key_of[job.index] = None
            self.jobs.append(job)
            return
        key = key_of[job.index] = self.order.key(job, 0.0)
        keys = self._keys
        if keys and key < keys[-1]:
            i = bisect_right(keys, key)
            keys.insert(i, key)
            self.jobs.insert(i, job)
            self.sizes.insert(i, size)  # type: ignore[union-attr]
        else:
            i = len(keys)
            keys.append(key)
            self.jobs.append(job)
            self.sizes.append(size)  # type: ignore[union-attr]
        if self.tags is not None:
            self.tags.insert(i, self._tag(job))  # type: ignore[misc]

    def remove(self, job: Job) -> None:
        key = self._key_of.pop(job.index)
        size = job.size
        self.demand -= size
        count = self._size_count
        held = count[size] = count[size] - 1
        if not held and size == self.smallest:
            self.smallest = self._lowest()
        if key is None:
            self.jobs.remove(job)
            return
        i = bisect_left(self._keys, key)
        del self._keys[i]
        del self.jobs[i]
        del self.sizes[i]  # type: ignore[union-attr]
        if self.tags is not None:
            self.tags.delete(i)

    def tag_with(self, tag: Callable[[Job], int] | None) -> None:
        """Keep ``tag`` of every job in ``tags``, aligned with ``jobs``, from now on (under a static
        order; a dynamic order re-sorts ``jobs`` each pass and keeps none); None stops tagging."""
        self._tag = tag
        keep = tag is not None and not self._dynamic
        self.tags = TagColumn(tag(j) for j in self.jobs) if keep else None  # type: ignore[misc]

    def ordered(self, now: float) -> list[Job]:
        """The jobs in priority order at ``now``; callers must not mutate the result."""
        if self.order.dynamic:
            key = self.order.key
            self.jobs.sort(key=lambda j: key(j, now))
        return self.jobs

    def _lowest(self) -> int:
        """The smallest size still waiting (0 when none), dropping sizes no job has any more."""
        heap, count = self._size_heap, self._size_count
        while heap and count.get(heap[0], 0) == 0:
            heappop(heap)
        return heap[0] if heap else 0

    def reorder(self, order: QueueOrder) -> None:
        """Switch to another queue order (an operator's policy change)."""
        self.order = order
        self._dynamic = order.dynamic
        if order.dynamic:
            self._keys = []
            self._key_of = dict.fromkeys(self._key_of)
            self.sizes = None
            self.tags = None
            return
        pairs = sorted(((order.key(j, 0.0), j) for j in self.jobs), key=lambda p: p[0])
        self._keys = [k for k, _ in pairs]
        self.jobs = [j for _, j in pairs]
        self.sizes = [j.size for j in self.jobs]
        self._key_of = {j.index: k for k, j in pairs}
        if self._tag is not None:
            self.tag_with(self._tag)
