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
from meshsim.engine.core.registry import Registry
from meshsim.engine.core.toml_table import Table, load_toml
from meshsim.engine.topology.units import unit_cell, unit_name


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
other top-level table is an error naming the file and the key. """


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


def load_machine(name_or_path: str) -> Machine:
    """A machine by bundled name (``mesh32``), by file path, or ``flat:N``."""
    if name_or_path.startswith("flat:"):
        return flat_machine(name_or_path)
    path = Path(name_or_path)
    if path.suffix != ".toml" or not path.exists():
        bundled = machines_dir() / f"{name_or_path}.toml"
        if bundled.exists():
            path = bundled
        elif path.suffix == ".toml":
            raise MeshsimError(f"{path}: no such file")
        else:
            valid = ", ".join(bundled_machines())
            raise MeshsimError(
                f"unknown machine '{name_or_path}' (valid: {valid}, flat:N, or a .toml file)"
            )
    return parse_machine(load_toml(path))


def flat_machine(text: str) -> Machine:
    """``flat:N``: N interchangeable nodes."""
    count = text.partition(":")[2]
    if not count.isdigit() or int(count) < 1:
        raise MeshsimError(f"machine '{text}': expected flat:N with N a positive integer")
    n = int(count)
    return Machine(
        name=text,
        topology="flat",
        spec=FlatSpec(nodes=n),
        description=f"{n} interchangeable nodes",
    )


def parse_machine(root: Table) -> Machine:
    """Validate a machine file and build the :class:`Machine`."""
    head = root.table("machine", required=True)
    topology = head.str("topology", choices=TOPOLOGIES.names())
    header = MachineHeader(
        name=head.str("name"),
        topology=topology,
        procs_per_unit=head.int("procs_per_unit", 1, minimum=1),
    )
    description = head.str("description", "")
    default_allocator = head.str("default_allocator", "flat")
    default_policy = {
        key: head.str(f"default_{key}")
        for key in ("queue", "discipline", "backfill")
        if f"default_{key}" in head
    }
    default_workload = head.str("default_workload", None)
    spec = TOPOLOGIES.get(topology)(root.table("topology"), header)
    metrics = root.table("metrics")
    classes = tuple(_size_class(t) for t in metrics.tables("size_classes"))
    metrics.reject_unknown()
    extras = {key: SECTIONS.get(key)(root.table(key), header) for key in root if key in SECTIONS}
    head.reject_unknown()
    root.reject_unknown()
    return Machine(
        name=header.name,
        topology=topology,
        spec=spec,
        procs_per_unit=header.procs_per_unit,
        description=description,
        default_allocator=default_allocator,
        default_workload=default_workload,
        default_policy=default_policy,
        size_classes=classes,
        source=root.source,
        extras=extras,
    )


def _size_class(t: Table) -> SizeClass:
    low = t.int("min", 1, minimum=1)
    high = t.int("max", minimum=low)
    label = t.str("label", f"{low}-{high}" if low != high else str(low))
    t.reject_unknown()
    return SizeClass(label, low, high)


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
    spec = FlatSpec(nodes=t.int("nodes", minimum=1))
    t.reject_unknown()
    return spec
