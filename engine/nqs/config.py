"""The ``[nqs]`` section of a machine file: node sets, node groups, queues, the interactive
partition and the scheduling constants (seed 004 §2.2, §2.3, §3, §4).

Node sets are rectangles of the mesh (``x``, ``y``, ``w``, ``h`` in mesh coordinates, y down). A
node group lists node sets for prime and for non-prime time, in the order the second pass of node
selection uses them. A queue has a name (what a trace's ``Queue:`` header lines are matched
against, :mod:`meshsim.engine.nqs.queue_map`), a number (the machine's own identifier of the queue,
never matched against a trace's queue numbers), a queue priority, a node limit, a time limit and a
node group; ``kind = "interactive"`` queues go to the interactive partition. Values the paper does
not give (priorities, age factor, block priority, coordinates) are chosen in
``machines/paragon-sdsc.toml`` and ``machines/paragon-sdsc-1996.toml`` and documented there."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import time
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from meshsim.engine.machines import SECTIONS, MachineHeader
from meshsim.engine.toml_table import Table

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")

OVER_LIMIT = ("error", "keep")
"""What loading a trace does with a job over its queue's node or time limit (``over_limit``):
``error`` names the job (``--requeue`` moves it to a queue that admits it instead); ``keep`` leaves
it in its queue, counted, for machines whose log shows the limits were not enforced
(``machines/paragon-sdsc-1996.toml``)."""


@dataclass(frozen=True)
class Rect:
    """A rectangle of the mesh: origin (x, y), width w, height h."""

    x: int
    y: int
    w: int
    h: int

    @property
    def nodes(self) -> int:
        return self.w * self.h

    def cells(self, dims: tuple[int, ...]) -> list[int]:
        """Flat cell indices (row-major over [x, y]) of the rectangle, in (y, x) reading order."""
        return [(self.x + i) * dims[1] + (self.y + j) for j in range(self.h) for i in range(self.w)]


@dataclass(frozen=True)
class NodeSet:
    """Nodes with identical attributes (memory), scheduled as one unit of M2DB allocation."""

    name: str
    rect: Rect
    description: str = ""


@dataclass(frozen=True)
class NodeGroup:
    """Node sets a queue may use, in prime and in non-prime time (seed 004 §2.2)."""

    name: str
    prime: tuple[str, ...]
    nonprime: tuple[str, ...]


@dataclass(frozen=True)
class QueueSpec:
    """An NQS queue: its name, the machine's number for it, priority, node and time limits and node
    group."""

    name: str
    number: int
    priority: float
    max_nodes: int
    time_limit_s: float
    group: str
    interactive: bool = False


@dataclass(frozen=True)
class PrimeTime:
    """Prime time: ``start`` to ``end`` local time on the listed weekdays."""

    start: time
    end: time
    days: tuple[int, ...]
    zone: str


@dataclass(frozen=True)
class NQSConfig:
    """Everything the NQS scheduler needs from the machine file."""

    node_sets: tuple[NodeSet, ...]
    groups: tuple[NodeGroup, ...]
    queues: tuple[QueueSpec, ...]
    interactive: Rect | None
    prime: PrimeTime
    age_factor: float
    block_priority: float
    node_allocator: str
    over_limit: str = "error"

    def queue_by_number(self) -> dict[int, QueueSpec]:
        return {q.number: q for q in self.queues}

    def queue_by_name(self) -> dict[str, QueueSpec]:
        return {q.name: q for q in self.queues}

    def node_set(self, name: str) -> NodeSet:
        return next(s for s in self.node_sets if s.name == name)

    def group(self, name: str) -> NodeGroup:
        return next(g for g in self.groups if g.name == name)


def _rect(t: Table) -> Rect:
    return Rect(
        t.int("x", minimum=0), t.int("y", minimum=0), t.int("w", minimum=1), t.int("h", minimum=1)
    )


def _clock(t: Table, key: str, default: str) -> time:
    text = t.str(key, default)
    try:
        hours, minutes = text.split(":")
        return time(int(hours), int(minutes))
    except ValueError:
        raise t.error(key, f"expected HH:MM, got {text!r}") from None


@SECTIONS.register("nqs")
def parse_nqs(t: Table, header: MachineHeader) -> NQSConfig:
    sets = []
    for st in t.tables("node_sets"):
        sets.append(NodeSet(st.str("name"), _rect(st), st.str("description", "")))
        st.reject_unknown()
    names = {s.name for s in sets}
    groups = []
    for gt in t.tables("node_groups"):
        prime = tuple(gt.str_list("prime"))
        nonprime = tuple(gt.str_list("nonprime"))
        for key, listed in (("prime", prime), ("nonprime", nonprime)):
            unknown = [n for n in listed if n not in names]
            if unknown:
                raise gt.error(
                    key, f"unknown node set '{unknown[0]}' (valid: {', '.join(sorted(names))})"
                )
        groups.append(NodeGroup(gt.str("name"), prime, nonprime))
        gt.reject_unknown()
    group_names = {g.name for g in groups}
    queues = []
    for qt in t.tables("queues"):
        kind = qt.str("kind", "batch", choices=["batch", "interactive"])
        group = qt.str("group", "")
        if kind == "batch" and group not in group_names:
            raise qt.error(
                "group", f"unknown node group '{group}' (valid: {', '.join(sorted(group_names))})"
            )
        queues.append(
            QueueSpec(
                name=qt.str("name"),
                number=qt.int("number", minimum=0),
                priority=qt.float("priority", 0.0),
                max_nodes=qt.int("max_nodes", minimum=1),
                time_limit_s=qt.float("time_limit_h", minimum=0.0) * 3600.0,
                group=group,
                interactive=kind == "interactive",
            )
        )
        qt.reject_unknown()
    numbers = [q.number for q in queues]
    if len(set(numbers)) != len(numbers):
        raise t.error("queues", "two queues share a number")
    interactive = None
    if "interactive" in t:
        it = t.table("interactive")
        interactive = _rect(it)
        it.reject_unknown()
    pt = t.table("prime_time")
    days_text = pt.str_list("days", ["mon", "tue", "wed", "thu", "fri"])
    bad = [d for d in days_text if d not in WEEKDAYS]
    if bad:
        raise pt.error("days", f"unknown day '{bad[0]}' (valid: {', '.join(WEEKDAYS)})")
    zone = pt.str("time_zone", "UTC")
    try:
        ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        raise pt.error("time_zone", f"unknown time zone {zone!r}") from None
    prime = PrimeTime(
        _clock(pt, "start", "09:00"),
        _clock(pt, "end", "17:00"),
        tuple(WEEKDAYS.index(d) for d in days_text),
        zone,
    )
    pt.reject_unknown()
    config = NQSConfig(
        node_sets=tuple(sets),
        groups=tuple(groups),
        queues=tuple(queues),
        interactive=interactive,
        prime=prime,
        age_factor=t.float("age_factor", 1.0, minimum=0.0),
        block_priority=t.float("block_priority", 0.0),
        node_allocator=t.str("node_allocator", "m2db"),
        over_limit=t.str("over_limit", "error", choices=list(OVER_LIMIT)),
    )
    t.reject_unknown()
    return config
