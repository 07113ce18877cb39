"""Cobalt accounting logs, the scheduler of Argonne's Blue Gene systems (Cobalt ``src/lib/
accounting.py`` and the job state machine of ``src/lib/Components/cqm.py``, read for this reader).

Cobalt writes PBS-style records (:mod:`meshsim.engine.logs.accounting`): keys sorted, values with a
space, quote or comma in double quotes, times in epoch seconds. Its record types: ``Q`` queued,
``QA`` modified, ``S`` started, ``E`` ended, ``D`` deleted, ``A`` aborted (Cobalt writes it when a
job's walltime is over and it starts killing the job), ``R`` rerun, ``C``/``T`` checkpoint and
restart, ``TS``/``TE`` task start and end, ``HA``/``HR`` hold placed and released; ``B``, ``F``,
``K``, ``k``, ``U``, ``Y``, ``YA`` are about reservations and, like any type Cobalt may add, are
counted as ``record_type_unused``, never an error. The job-related types that carry no times of
their own (``QA``, ``TS``, ``TE``, ``HA``, ``HR``, ``C``, ``T``) are ``record_folded``.

An ``E`` record holds ``Resource_List.nodect`` (nodes asked for), ``Resource_List.walltime``
(``HH:MM:SS``), ``exec_host`` (the partition the job ran on, e.g. ``ANL-R00-R01-2048``),
``resources_used.location``/``walltime``, ``Exit_status``, ``mode``, ``queue``, ``user``,
``account`` (the project; Cobalt writes ``group=unknown``) and ``resource`` (the machine).

- Processors are cores, as in the Parallel Workloads Archive's Intrepid trace: requested = nodes
  asked for × :data:`CORES_PER_NODE`; allocated = the nodes of the partition the job ran on (the
  number ending its name) × :data:`CORES_PER_NODE`.
- The partition is the job's location and, since it names the midplanes the job held, an SWF
  partition number with a ``Partition:`` header line; ``--alloc recorded`` on a partition machine
  places each job on it (:mod:`meshsim.engine.families.partitions.recorded`).
- An ``A`` before the ``E`` means the walltime ended the job: status 0 whatever its exit status.
- SWF group is the ``account`` (project) when Cobalt wrote ``group=unknown``."""

from __future__ import annotations

from meshsim.engine.logs import accounting
from meshsim.engine.logs.accounting import Accounting, Record
from meshsim.engine.logs.values import count

CORES_PER_NODE = 4
"""Cores of a Blue Gene/P node (Intrepid: 40,960 nodes, 163,840 cores)."""


class Cobalt(Accounting):
    name = "cobalt"
    job_kinds = frozenset({"Q", "QA", "S", "E", "D", "A", "R", "C", "T", "TS", "TE", "HA", "HR"})
    partitions = True

    def processors(self, fields: dict[str, str]) -> tuple[int, int]:
        nodes = count(fields.get("Resource_List.nodect"))
        requested = -1 if nodes is None else nodes * CORES_PER_NODE
        held = partition_nodes(self.location(fields))
        return requested, requested if held is None else held * CORES_PER_NODE

    def location(self, fields: dict[str, str]) -> str:
        return fields.get("exec_host") or fields.get("resources_used.location", "")

    def group(self, fields: dict[str, str]) -> str:
        group = fields.get("group", "")
        return fields.get("account", "") if group in ("", "unknown") else group

    def computer(self, record: Record) -> str | None:
        return record.fields.get("resource") or None

    def timed_out(self, kinds: list[str]) -> bool:
        return "A" in kinds


def partition_nodes(name: str) -> int | None:
    """The nodes of a Cobalt partition: the number that ends its name (``ANL-R00-R01-2048``)."""
    last = name.rsplit("-", 1)[-1]
    return int(last) if last.isdigit() else None


def sniff(lines: list[str]) -> bool:
    """Whether the first lines are accounting records that only Cobalt writes: a record type of
    its own (``QA``, ``TS``, ``TE``, ``HA``, ``HR``, ``YA``) or its keys ``Resource_List.nodect``
    with ``mode``."""
    if not accounting.sniff(lines):
        return False
    for line in lines:
        match = accounting.LINE.match(line)
        if match is None:
            continue
        if match.group(2) in {"QA", "TS", "TE", "HA", "HR", "YA"}:
            return True
        if "Resource_List.nodect=" in line and " mode=" in f" {match.group(4)}":
            return True
    return False


read = Cobalt().read
