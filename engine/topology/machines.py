"""Machines are data: one TOML file each in ``machines/``, read into a frozen :class:`Machine`.

A machine file has a ``[machine]`` table (name, topology, processors per unit, defaults), an
optional ``[metrics]`` table (size classes for the per-class breakdown) and a ``[topology]`` table
whose keys belong to the topology named by ``machine.topology``. Topologies are registered parsers
(``@TOPOLOGIES.register("flat")``) that turn the ``[topology]`` table into a frozen spec object with
at least a ``nodes`` attribute (N, the machine size in nodes, the unit of job sizes and of every
capacity metric).

``flat:N`` names an anonymous flat machine of N nodes without a file."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from meshsim.engine.core.bundled import bundled_folder, resolve_reference
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.registry import Registry, registry_of
from meshsim.engine.core.toml_table import Table, load_toml
from meshsim.engine.topology.units import unit_cell, unit_name
from meshsim.engine.validation.formats import MACHINE_FILE
from meshsim.engine.validation.limits import CELLS
from meshsim.engine.validation.rules import Rule, Section


class TopologySpec(Protocol):
    """What every topology spec offers: the machine size in nodes, a one-line summary, and its
    units (what fails, is repaired or reserved, and what the machine map draws as one cell): how
    many, their operators' names, the topology's own form of a block of them, and a picture."""

    nodes: int

    @property
    def units(self) -> int:
        """How many units (cells 0 .. units - 1)."""
        ...

    def describe(self) -> str: ...

    def unit_name(self, cell: int) -> str:
        """The operator's name of unit ``cell`` (a valid cell)."""
        ...

    def find_unit(self, name: str) -> int | None:
        """The cell of the unit the operator calls ``name`` (not a cell number), or None."""
        ...

    def unit_forms(self) -> str:
        """How units are named here, for an error message."""
        ...

    def block(self, text: str, machine: str) -> list[int] | None:
        """The cells of a block written in this topology's own form (a box, a partition name), or
        None when ``text`` is not one; a malformed one is an error naming ``machine``."""
        ...

    def picture(self) -> list[str]:
        """Lines of text that draw the machine (``meshsim machines show``)."""
        ...


TOPOLOGIES: Registry[Callable[[Table, MachineHeader], TopologySpec]] = Registry("topology")
"""Parsers from a ``[topology]`` table to a topology spec, by topology name."""

SECTIONS: Registry[Callable[[Table, MachineHeader], Any]] = Registry("machine section")
"""Parsers for optional top-level tables of a machine file (I/O nodes, NQS queues, ...).

A machine file may hold ``[machine]``, ``[topology]``, ``[metrics]`` and any registered section; any
other top-level table is an error naming the file and the key. A section's parser reads its table
through the rules it adds to :data:`~meshsim.engine.validation.formats.MACHINE_FILE`; when what it
returns has a ``check(machine)`` method, that is called on the finished machine (for checks that
need the topology, such as I/O nodes that must fit the mesh)."""

ROOT = MACHINE_FILE.add(
    Section(
        "top level",
        (
            Rule("machine", "table", doc="name, topology and defaults"),
            Rule("topology", "table", {}, doc="the keys of the topology named by machine.topology"),
            Rule("metrics", "table", {}, doc="size classes of the per-class breakdown"),
        ),
        doc="Besides these, a registered section (`[io]`, `[nqs]`) may appear.",
        open=True,
    )
)
HEAD = MACHINE_FILE.add(
    Section(
        "[machine]",
        (
            Rule("name", "str"),
            Rule("topology", "str", names="topology"),
            Rule("procs_per_unit", "int", 1, minimum=1, maximum=1 << 31),
            Rule("description", "str", ""),
            Rule("default_allocator", "str", "flat", names="allocator"),
            Rule("default_queue", "str", None, names="queue order"),
            Rule("default_discipline", "str", None, names="discipline"),
            Rule("default_backfill", "str", None, names="backfill"),
            Rule(
                "default_workload",
                "str",
                None,
                doc="a workload file or trace, relative to the machine file, or PACKAGE:NAME",
            ),
        ),
    )
)
METRICS = MACHINE_FILE.add(
    Section("[metrics]", (Rule("size_classes", "tables", []),), doc="per-class breakdown")
)
SIZE_CLASS = MACHINE_FILE.add(
    Section(
        "[[metrics.size_classes]]",
        (
            Rule("min", "int", 1, minimum=1),
            Rule("max", "int", minimum=1, doc="at least min"),
            Rule("label", "str", None, doc="default: MIN-MAX"),
        ),
    )
)
FLAT_TOPOLOGY = MACHINE_FILE.add(
    Section("[topology] flat", (Rule("nodes", "int", minimum=1),), doc="N interchangeable nodes")
)
POLICY_DEFAULTS = ("queue", "discipline", "backfill")


@dataclass(frozen=True)
class SizeClass:
    """A job-size class for the per-class breakdown: sizes in ``[low, high]`` nodes."""

    label: str
    low: int
    high: int


@dataclass(frozen=True)
class MachineHeader:
    """The ``[machine]`` table, available to topology parsers (e.g. for procs_per_unit)."""

    name: str
    topology: str
    procs_per_unit: int


@dataclass(frozen=True)
class Machine:
    """One machine: its name, size, topology spec, defaults and where it was read from."""

    name: str
    topology: str
    spec: Any
    procs_per_unit: int = 1
    description: str = ""
    default_allocator: str = "flat"
    default_workload: str | None = None
    default_policy: dict[str, str] = field(default_factory=dict, compare=False)
    size_classes: tuple[SizeClass, ...] = ()
    source: str = ""
    extras: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def nodes(self) -> int:
        """N: the number of nodes, the unit of job sizes and capacity metrics."""
        return self.spec.nodes

    def size_class(self, size: int) -> str:
        """The label of the size class holding ``size`` (power-of-two bins by default)."""
        for c in self.size_classes:
            if c.low <= size <= c.high:
                return c.label
        return power_of_two_label(size)

    def unit_name(self, cell: int) -> str:
        """The operator's name of unit ``cell``
        (:func:`meshsim.engine.topology.units.unit_name`)."""
        return unit_name(self, cell)

    def unit_cell(self, text: str | int) -> int:
        """The cell of a unit named ``text`` (:func:`meshsim.engine.topology.units.unit_cell`)."""
        return unit_cell(self, text)

    def default_workload_path(self) -> Path | None:
        """The default workload file: a package-qualified reference (bundled machines), or a path
        relative to the machine file (:func:`meshsim.engine.core.bundled.resolve_reference`)."""
        if self.default_workload is None:
            return None
        base = Path(self.source).parent if self.source else None
        return resolve_reference(self.default_workload, base)


def power_of_two_label(size: int) -> str:
    """The power-of-two bin of ``size``: ``"1"``, ``"2"``, ``"3-4"``, ``"5-8"``, ..."""
    if size <= 2:
        return str(max(size, 1))
    high = 1 << (size - 1).bit_length()
    return f"{high // 2 + 1}-{high}"


def machines_dir() -> Path:
    """The folder of bundled machine files (the package ``meshsim.machines``)."""
    return bundled_folder("meshsim.machines")


def bundled_machines() -> list[str]:
    """Names of the machines shipped in ``machines/``, sorted."""
    return sorted(p.stem for p in machines_dir().glob("*.toml"))


def machine_path(name_or_path: str) -> Path | None:
    """The file of a machine named by bundled name or path (None for ``flat:N`` and unknown
    names)."""
    if name_or_path.startswith("flat:"):
        return None
    path = Path(name_or_path)
    if path.suffix == ".toml" and path.exists():
        return path
    bundled = machines_dir() / f"{name_or_path}.toml"
    return bundled if bundled.exists() else None


def load_machine(name_or_path: str) -> Machine:
    """A machine by bundled name (``mesh32``), by file path, or ``flat:N``."""
    if name_or_path.startswith("flat:"):
        return flat_machine(name_or_path)
    path = machine_path(name_or_path)
    if path is None:
        if name_or_path.endswith(".toml"):
            raise MeshsimError(f"{name_or_path}: no such file")
        valid = ", ".join(bundled_machines())
        raise MeshsimError(
            f"unknown machine '{name_or_path}' (valid: {valid}, flat:N, or a .toml file)"
        )
    return parse_machine(load_toml(path, ROOT))


def flat_machine(text: str) -> Machine:
    """``flat:N``: N interchangeable nodes."""
    count = text.partition(":")[2]
    if not count.isdigit() or int(count) < 1:
        raise MeshsimError(f"machine '{text}': expected flat:N with N a positive integer")
    n = int(count)
    CELLS.check(n, f"machine '{text}'")
    return Machine(
        name=text,
        topology="flat",
        spec=FlatSpec(nodes=n),
        description=f"{n} interchangeable nodes",
    )


def parse_machine(root: Table) -> Machine:
    """Validate a machine file and build the :class:`Machine`: every key against its rule, the
    machine's size against the cell limit, and its defaults as a run would use them (the default
    allocator must work on the topology)."""
    head = root.table("machine", HEAD)
    head.reject_unknown()
    topology = head.get("topology")
    header = MachineHeader(
        name=head.get("name"),
        topology=topology,
        procs_per_unit=head.get("procs_per_unit"),
    )
    default_policy = {
        key: head.get(f"default_{key}")
        for key in POLICY_DEFAULTS
        if head.get(f"default_{key}") is not None
    }
    spec = TOPOLOGIES.get(topology)(root.table("topology"), header)
    CELLS.check(spec.nodes, root.where("topology"))
    metrics = root.table("metrics", METRICS)
    metrics.reject_unknown()
    classes = tuple(_size_class(t) for t in metrics.tables("size_classes", SIZE_CLASS))
    unknown = [key for key in root if key not in ROOT.key_list() and key not in SECTIONS]
    if unknown:
        valid = ", ".join([*ROOT.key_list(), *SECTIONS.names()])
        raise root.error(unknown[0], f"unknown key (valid: {valid})")
    extras = {key: SECTIONS.get(key)(root.table(key), header) for key in root if key in SECTIONS}
    machine = Machine(
        name=header.name,
        topology=topology,
        spec=spec,
        procs_per_unit=header.procs_per_unit,
        description=head.get("description"),
        default_allocator=head.get("default_allocator"),
        default_workload=head.get("default_workload"),
        default_policy=default_policy,
        size_classes=classes,
        source=root.source,
        extras=extras,
    )
    check_allocator(machine, machine.default_allocator, head.where("default_allocator"))
    path = machine.default_workload_path()
    if path is not None and not path.is_file():
        raise head.error("default_workload", f"no such file {path}")
    for config in extras.values():
        check = getattr(config, "check", None)
        if check is not None:
            check(machine)
    return machine


def check_allocator(machine: Machine, name: str, where: str) -> None:
    """Refuse allocator ``name`` unless it works on ``machine``'s topology; ``where`` names the key
    or option that chose it. The allocators are looked up by kind (:func:`registry_of`): their
    registry sits in the allocation layer, above the topology."""
    allocators = registry_of("allocator")
    if machine.topology not in allocators.get(name).topologies:
        valid = [n for n in allocators.names() if machine.topology in allocators.get(n).topologies]
        raise MeshsimError(
            f"{where}: allocator '{name}' does not work on {machine.topology} machine "
            f"'{machine.name}' (valid here: {', '.join(valid)})"
        )


def _size_class(t: Table) -> SizeClass:
    t.reject_unknown()
    low = t.get("min")
    high = t.get("max")
    if high < low:
        raise t.error("max", f"must be at least min ({low}), got {high}")
    label = t.get("label")
    return SizeClass(label or (f"{low}-{high}" if low != high else str(low)), low, high)


@dataclass(frozen=True)
class FlatSpec:
    """The ``flat`` topology: N interchangeable nodes (the "fully connected" baseline); a unit is a
    node, named by its number."""

    nodes: int

    @property
    def units(self) -> int:
        return self.nodes

    def describe(self) -> str:
        return f"flat, {self.nodes} interchangeable nodes"

    def unit_name(self, cell: int) -> str:
        return str(cell)

    def find_unit(self, name: str) -> int | None:
        return None

    def unit_forms(self) -> str:
        return f"a node number 0..{self.nodes - 1}"

    def block(self, text: str, machine: str) -> list[int] | None:
        return None

    def picture(self) -> list[str]:
        """Nodes as a block of dots, 64 to a row."""
        n = self.nodes
        width = min(64, n)
        rows = [("·" * min(width, n - start)) for start in range(0, n, width)]
        if len(rows) > 16:
            rows = [*rows[:15], f"… {len(rows) - 15} more rows of {width} nodes"]
        return [f"{n} interchangeable nodes", *rows]


@TOPOLOGIES.register("flat")
def _parse_flat(t: Table, header: MachineHeader) -> FlatSpec:
    t = t.follow(FLAT_TOPOLOGY)
    t.reject_unknown()
    return FlatSpec(nodes=t.get("nodes"))
