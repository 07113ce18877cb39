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
  places each job on it (:func:`partition_midplanes`).
- An ``A`` before the ``E`` means the walltime ended the job: status 0 whatever its exit status.
- SWF group is the ``account`` (project) when Cobalt wrote ``group=unknown``."""

from __future__ import annotations

import re

from meshsim.engine.logs.accounting import Accounting, Record
from meshsim.engine.logs.values import count
from meshsim.engine.partitions.machine import PartitionSpec

CORES_PER_NODE = 4
"""Cores of a Blue Gene/P node (Intrepid: 40,960 nodes, 163,840 cores)."""

_RACK = re.compile(r"^R(\d)(\d)$")
_MIDPLANE = re.compile(r"^M(\d)$")
_NODE_CARD = re.compile(r"^N(\d\d)$")


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
