"""``--alloc recorded``: every job runs on the partition its log says it ran on.

A Cobalt log names the Blue Gene partition of each job (``ANL-R00-R01-2048``); the conversion keeps
it as the job's SWF partition number, named by a ``Partition:`` header line
(:mod:`meshsim.engine.logs.trace`). This allocator maps each name to the partition of the machine's
menu with the same midplanes (:func:`partition_midplanes`) and gives
each job that partition and no other: the job waits until it is usable (its midplanes idle and its
cables free), and backfilling reserves it. So a replay of Intrepid's own log on ``intrepid`` places
every job where it really ran, and only the order and times of starts come from the policy.

A job whose log gives no partition, or one that is not a partition of this machine's menu, or one
smaller than the job, is rejected on arrival and counted by that reason (``rejected`` in the result
JSON), never placed elsewhere."""

from __future__ import annotations

import re

import numpy as np

from meshsim.engine.allocation.allocator import ALLOCATORS
from meshsim.engine.core.jobs import Job
from meshsim.engine.families.partitions.allocator import LeastBlocking
from meshsim.engine.families.partitions.machine import PartitionSpec
from meshsim.engine.topology.machines import Machine
from meshsim.engine.workloads.workload import Workload

NO_RECORD = "no recorded partition"
NOT_HERE = "recorded partition not on this machine"
TOO_SMALL = "recorded partition smaller than the job"

_RACK = re.compile(r"^R(\d)(\d)$")
_MIDPLANE = re.compile(r"^M(\d)$")
_NODE_CARD = re.compile(r"^N(\d\d)$")


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


def partition_midplanes(name: str, spec: PartitionSpec) -> tuple[int, ...] | None:
    """The midplanes of ``spec`` a Cobalt Blue Gene/P partition name covers, or None when the name
    does not describe midplanes of this machine.

    Names (Intrepid): ``PREFIX-Rxy-Mk-SIZE`` one midplane; ``PREFIX-Rxy-Mk-Nnn-SIZE`` a block of
    node cards inside it (the machine's smallest partition is a midplane, so it maps to that one);
    ``PREFIX-Rxy-SIZE`` the two midplanes of rack ``Rxy`` (row x, column y); ``PREFIX-Rab-Rcd-SIZE``
    every rack of rows a..c and columns b..d. The midplanes are found by their names in the machine
    file (``Rxy-Mk``), and the count must agree with SIZE."""
    tokens = name.strip().split("-")
    if len(tokens) < 2 or not tokens[-1].isdigit():
        return None
    size = int(tokens[-1])
    body = tokens[:-1]
    while body and not _RACK.match(body[0]):
        body = body[1:]
    index = {n: i for i, n in enumerate(spec.names)}
    if len(body) >= 2 and _MIDPLANE.match(body[1]):
        cell = index.get(f"{body[0]}-{body[1]}")
        sub = len(body) == 3 and _NODE_CARD.match(body[2]) and size < spec.midplane_nodes
        if cell is None or not ((len(body) == 2 and size == spec.midplane_nodes) or sub):
            return None
        return (cell,)
    if len(body) == 1:
        first = last = _RACK.match(body[0])
    elif len(body) == 2:
        first, last = _RACK.match(body[0]), _RACK.match(body[1])
    else:
        return None
    if first is None or last is None:
        return None
    rows = range(int(first[1]), int(last[1]) + 1)
    columns = range(int(first[2]), int(last[2]) + 1)
    racks = {f"R{r}{c}" for r in rows for c in columns}
    cells = tuple(sorted(i for n, i in index.items() if n.split("-", 1)[0] in racks))
    if not cells or len(cells) * spec.midplane_nodes != size:
        return None
    return cells
