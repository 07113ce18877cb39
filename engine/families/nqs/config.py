"""The ``[nqs]`` section of a machine file: node sets, node groups, queues, the interactive
partition and the scheduling constants (seed 004 §2.2, §2.3, §3, §4).

Node sets are rectangles of the mesh (``x``, ``y``, ``w``, ``h`` in mesh coordinates, y down). A
node group lists node sets for prime and for non-prime time, in the order the second pass of node
selection uses them. A queue has a name (what a trace's ``Queue:`` header lines are matched against,
:mod:`meshsim.engine.families.nqs.queue_map`), a number (the machine's own identifier of the queue,
never matched against a trace's queue numbers), a queue priority, a node limit, a time limit and a
node group; ``kind = "interactive"`` queues go to the interactive partition. Values the paper does
not give (priorities, age factor, block priority, coordinates) are chosen in
``machines/paragon-sdsc.toml`` and ``machines/paragon-sdsc-1996.toml`` and documented there."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import time
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from meshsim.engine.core.errors import MeshsimError, where
from meshsim.engine.core.toml_table import Table
from meshsim.engine.topology.machines import SECTIONS, Machine, MachineHeader
from meshsim.engine.validation.formats import MACHINE_FILE
from meshsim.engine.validation.rules import Rule, Section

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

    def check(self, machine: Machine) -> None:
        """What the NQS allocator needs of the machine, checked when the file is read: every
        rectangle inside the mesh, and a node allocator that works on meshes."""
        from meshsim.engine.allocation.allocator import ALLOCATORS

        dims = getattr(machine.spec, "dims", ())
        if len(dims) != 2:
            raise MeshsimError(f"{where(machine.source, key='nqs')}: NQS needs a 2D mesh")
        named = [(f"nqs.node_sets[{k}]", s.rect) for k, s in enumerate(self.node_sets)]
        if self.interactive is not None:
            named.append(("nqs.interactive", self.interactive))
        for key, r in named:
            if r.x + r.w > dims[0] or r.y + r.h > dims[1]:
                raise MeshsimError(
                    f"{where(machine.source, key=key)}: rectangle x={r.x}, y={r.y}, {r.w}x{r.h} "
                    f"lies outside the {dims[0]}x{dims[1]} mesh"
                )
        inner = self.node_allocator
        if inner == "nqs" or "mesh" not in ALLOCATORS.get(inner).topologies:
            raise MeshsimError(
                f"{where(machine.source, key='nqs.node_allocator')}: node allocator '{inner}' "
                "does not work inside a node set (a mesh allocator other than nqs is needed)"
            )

    def queue_by_number(self) -> dict[int, QueueSpec]:
        return {q.number: q for q in self.queues}

    def queue_by_name(self) -> dict[str, QueueSpec]:
        return {q.name: q for q in self.queues}

    def node_set(self, name: str) -> NodeSet:
        return next(s for s in self.node_sets if s.name == name)

    def group(self, name: str) -> NodeGroup:
        return next(g for g in self.groups if g.name == name)


RECT_RULES = (
    Rule("x", "int", minimum=0),
    Rule("y", "int", minimum=0),
    Rule("w", "int", minimum=1),
    Rule("h", "int", minimum=1),
)
NQS_SECTION = MACHINE_FILE.add(
    Section(
        "[nqs]",
        (
            Rule("node_sets", "tables", []),
            Rule("node_groups", "tables", []),
            Rule("queues", "tables", []),
            Rule("interactive", "table", None, doc="the interactive partition's rectangle"),
            Rule("prime_time", "table", {}),
            Rule("age_factor", "float", 1.0, minimum=0.0),
            Rule("block_priority", "float", 0.0),
            Rule("node_allocator", "str", "m2db", names="allocator"),
            Rule(
                "over_limit",
                "str",
                "error",
                choices=OVER_LIMIT,
                doc="a trace's job over its queue's limits: an error, or kept in its queue",
            ),
        ),
        doc="NQS queues, node sets and groups of the SDSC Paragon (seed 004)",
    )
)
NODE_SET = MACHINE_FILE.add(
    Section(
        "[[nqs.node_sets]]",
        (Rule("name", "str"), *RECT_RULES, Rule("description", "str", "")),
    )
)
NODE_GROUP = MACHINE_FILE.add(
    Section(
        "[[nqs.node_groups]]",
        (
            Rule("name", "str"),
            Rule("prime", "str list", doc="node sets, in the order they are tried"),
            Rule("nonprime", "str list"),
        ),
    )
)
QUEUE = MACHINE_FILE.add(
    Section(
        "[[nqs.queues]]",
        (
            Rule("name", "str"),
            Rule("kind", "str", "batch", choices=("batch", "interactive")),
            Rule("group", "str", "", doc="a node group (batch queues)"),
            Rule(
                "number",
                "int",
                minimum=0,
                doc="the machine's own number; a trace's queues are matched by name",
            ),
            Rule("priority", "float", 0.0),
            Rule("max_nodes", "int", minimum=1),
            Rule("time_limit_h", "float", minimum=0.0),
        ),
    )
)
INTERACTIVE = MACHINE_FILE.add(Section("[nqs.interactive]", RECT_RULES))
PRIME_TIME = MACHINE_FILE.add(
    Section(
        "[nqs.prime_time]",
        (
            Rule("start", "str", "09:00", doc="HH:MM"),
            Rule("end", "str", "17:00", doc="HH:MM"),
            Rule("days", "str list", ["mon", "tue", "wed", "thu", "fri"], choices=WEEKDAYS),
            Rule("time_zone", "str", "UTC", doc="an IANA time zone"),
        ),
    )
)


def _rect(t: Table) -> Rect:
    return Rect(t.get("x"), t.get("y"), t.get("w"), t.get("h"))


def _clock(t: Table, key: str) -> time:
    text = t.get(key)
    try:
        hours, minutes = text.split(":")
        return time(int(hours), int(minutes))
    except ValueError:
        raise t.error(key, f"expected HH:MM, got {text!r}") from None


@SECTIONS.register("nqs")
def parse_nqs(t: Table, header: MachineHeader) -> NQSConfig:
    t = t.follow(NQS_SECTION)
    t.reject_unknown()
    sets = []
    for st in t.tables("node_sets", NODE_SET):
        st.reject_unknown()
        sets.append(NodeSet(st.get("name"), _rect(st), st.get("description")))
    names = {s.name for s in sets}
    groups = []
    for gt in t.tables("node_groups", NODE_GROUP):
        gt.reject_unknown()
        prime = tuple(gt.get("prime"))
        nonprime = tuple(gt.get("nonprime"))
        for key, listed in (("prime", prime), ("nonprime", nonprime)):
            unknown = [n for n in listed if n not in names]
            if unknown:
                raise gt.error(
                    key, f"unknown node set '{unknown[0]}' (valid: {', '.join(sorted(names))})"
                )
        groups.append(NodeGroup(gt.get("name"), prime, nonprime))
    group_names = {g.name for g in groups}
    queues = []
    for qt in t.tables("queues", QUEUE):
        qt.reject_unknown()
        kind = qt.get("kind")
        group = qt.get("group")
        if kind == "batch" and group not in group_names:
            raise qt.error(
                "group", f"unknown node group '{group}' (valid: {', '.join(sorted(group_names))})"
            )
        queues.append(
            QueueSpec(
                name=qt.get("name"),
                number=qt.get("number"),
                priority=qt.get("priority"),
                max_nodes=qt.get("max_nodes"),
                time_limit_s=qt.get("time_limit_h") * 3600.0,
                group=group,
                interactive=kind == "interactive",
            )
        )
    numbers = [q.number for q in queues]
    if len(set(numbers)) != len(numbers):
        raise t.error("queues", "two queues share a number")
    interactive = None
    if "interactive" in t:
        it = t.table("interactive", INTERACTIVE)
        it.reject_unknown()
        interactive = _rect(it)
    pt = t.table("prime_time", PRIME_TIME)
    pt.reject_unknown()
    days_text = pt.get("days")
    zone = pt.get("time_zone")
    try:
        ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        raise pt.error("time_zone", f"unknown time zone {zone!r}") from None
    prime = PrimeTime(
        _clock(pt, "start"),
        _clock(pt, "end"),
        tuple(WEEKDAYS.index(d) for d in days_text),
        zone,
    )
    return NQSConfig(
        node_sets=tuple(sets),
        groups=tuple(groups),
        queues=tuple(queues),
        interactive=interactive,
        prime=prime,
        age_factor=t.get("age_factor"),
        block_priority=t.get("block_priority"),
        node_allocator=t.get("node_allocator"),
        over_limit=t.get("over_limit"),
    )
