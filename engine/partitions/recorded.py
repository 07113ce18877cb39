"""``--alloc recorded``: every job runs on the partition its log says it ran on.

A Cobalt log names the Blue Gene partition of each job (``ANL-R00-R01-2048``); the conversion keeps
it as the job's SWF partition number, named by a ``Partition:`` header line
(:mod:`meshsim.engine.logs.trace`). This allocator maps each name to the partition of the machine's
menu with the same midplanes (:func:`meshsim.engine.logs.cobalt.partition_midplanes`) and gives
each job that partition and no other: the job waits until it is usable (its midplanes idle and its
cables free), and backfilling reserves it. So a replay of Intrepid's own log on ``intrepid`` places
every job where it really ran, and only the order and times of starts come from the policy.

A job whose log gives no partition, or one that is not a partition of this machine's menu, or one
smaller than the job, is rejected on arrival and counted by that reason (``rejected`` in the result
JSON), never placed elsewhere."""

from __future__ import annotations

import numpy as np

from meshsim.engine.allocation import ALLOCATORS
from meshsim.engine.jobs import Job
from meshsim.engine.logs.cobalt import partition_midplanes
from meshsim.engine.machines import Machine
from meshsim.engine.partitions.allocator import LeastBlocking
from meshsim.engine.workload import Workload

NO_RECORD = "no recorded partition"
NOT_HERE = "recorded partition not on this machine"
TOO_SMALL = "recorded partition smaller than the job"


@ALLOCATORS.register("recorded")
class RecordedPartition(LeastBlocking):
    """The partition each job's log recorded."""

    name = "recorded"
    complexity = "one bitset test per decision"

    def __init__(self, machine: Machine, rng: np.random.Generator, *, rotate: bool = False) -> None:
        super().__init__(machine, rng, rotate=rotate)
        self._recorded: dict[int, int] = {}
        """Menu index of each SWF partition number that names a partition of this machine."""
        self._elsewhere: set[int] = set()

    def prepare(self, workload: Workload) -> None:
        names = workload.header.partitions if workload.header else {}
        by_midplanes = {p.midplanes: p.index for p in self.menu.partitions}
        for number, name in names.items():
            cells = partition_midplanes(name, self.menu.spec)
            index = by_midplanes.get(cells) if cells is not None else None
            if index is None:
                self._elsewhere.add(number)
            else:
                self._recorded[number] = index

    def admit(self, job: Job) -> str | None:
        index = self._recorded.get(job.partition)
        if index is None:
            return NOT_HERE if job.partition in self._elsewhere else NO_RECORD
        if job.size > self.menu.partitions[index].nodes:
            return TOO_SMALL
        return None

    def candidates(self, job: Job) -> int:
        return 1 << self._recorded[job.partition]

    def fits(self, job: Job) -> bool:
        return bool(self.usable >> self._recorded[job.partition] & 1)

    def choose(self, job: Job, usable: int, now: float) -> int | None:
        index = self._recorded[job.partition]
        return index if usable >> index & 1 else None

    def explain(self, job: Job) -> str:
        recorded = self.menu.partitions[self._recorded[job.partition]]
        busy = sorted(
            {
                self.menu.partitions[q].name
                for q in self.running_partitions.values()
                if self.menu.conflicts[q] >> recorded.index & 1
            }
        )
        blocked = f": blocked by {'/'.join(busy[:3])}" if busy else ""
        return f"waits for its recorded partition {recorded.name}{blocked}"
