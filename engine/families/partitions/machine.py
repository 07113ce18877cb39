"""The ``partitions`` topology: a torus of midplanes cut into partitions from a menu.

A machine file gives the midplane torus (``dims``, x = machine row, then the two axes of a row's
wiring diagram), the nodes per midplane, the midplanes' operator names in coordinate order, the
allowed partition shapes (extent along each axis, per size) and the axis order in which a
partition's neighbour is sought. Nothing about Intrepid is written in Python: another partition
machine is another file.

Wiring model (seed 000 §II-A, Fig. 2): every line of the midplane torus (the midplanes that share
all coordinates but one) is a ring of cable segments, one between each pair of neighbouring
midplanes. A partition that spans two or more midplanes of a line must close a torus along it, so it
takes every segment of that ring — the midplanes it skips are passed through — and a partition that
spans a single midplane of a line takes none of that line's cables. Two partitions conflict when
they share a midplane or a cable segment. With the Intrepid diagram laid out as in
``machines/intrepid.toml`` this reproduces the paper's examples: the 1×2×2 partition on R00/R02
takes the first two rows and columns of the diagram, so R01-M0 and R01-M1 can no longer be joined
while R01-M0 can still pair with R03-M0 or R05-M0, and R04-M0 cannot be joined to R06-M0."""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from meshsim.engine.core.toml_table import Table
from meshsim.engine.families.partitions.menu import build_menu
from meshsim.engine.topology.machines import TOPOLOGIES, MachineHeader
from meshsim.engine.validation.formats import MACHINE_FILE
from meshsim.engine.validation.rules import Rule, Section

AXES = ("x", "y", "z")


@dataclass(frozen=True)
class ShapeSpec:
    """An allowed partition shape: its label (``"2K"``) and extent along each axis."""

    label: str
    extents: tuple[int, ...]
    contiguous: bool = False


@dataclass(frozen=True)
class PartitionSpec:
    """A partition machine: midplane torus, names, allowed shapes, neighbour axis order."""

    dims: tuple[int, ...]
    midplane_nodes: int
    names: tuple[str, ...]
    shapes: tuple[ShapeSpec, ...]
    buddy_axes: tuple[int, ...]
    row_racks: int

    @property
    def midplanes(self) -> int:
        return prod(self.dims)

    @property
    def nodes(self) -> int:
        return self.midplanes * self.midplane_nodes

    def describe(self) -> str:
        dims = "x".join(map(str, self.dims))
        return (
            f"{self.midplanes} midplanes of {self.midplane_nodes} nodes as a {dims} torus, "
            f"{self.nodes} nodes, partitions of {len(self.shapes)} shapes"
        )

    def coord(self, index: int) -> tuple[int, ...]:
        out = []
        for d in reversed(self.dims):
            index, r = divmod(index, d)
            out.append(r)
        return tuple(reversed(out))

    def index(self, coord: tuple[int, ...]) -> int:
        i = 0
        for c, d in zip(coord, self.dims, strict=True):
            i = i * d + c
        return i

    # A unit is a midplane, named as in the machine file (``R00-M0``).

    @property
    def units(self) -> int:
        return self.midplanes

    def unit_name(self, cell: int) -> str:
        return str(self.names[cell])

    def find_unit(self, name: str) -> int | None:
        wanted = name.lower()
        return next((i for i, n in enumerate(self.names) if n.lower() == wanted), None)

    def unit_forms(self) -> str:
        return "a midplane name such as " + self.names[0] + ", or a cell number"

    def block(self, text: str, machine: str) -> list[int] | None:
        """A partition of the menu by its name (``"1K R00-M0..R00-M1"``): its midplanes."""
        for p in build_menu(self).partitions:
            if p.name == text:
                return list(p.midplanes)
        return None

    def picture(self) -> list[str]:
        """Machine rows top to bottom; in each, every rack as ``Rxy`` with its midplanes M1 over M0
        (as operators see Intrepid)."""
        per_row = self.midplanes // self.dims[0]
        lines: list[str] = []
        for row in range(self.dims[0]):
            names = sorted(self.names[row * per_row : (row + 1) * per_row])
            racks = sorted({n.split("-")[0] for n in names})
            lines.append("  ".join(f"{r:^6}" for r in racks))
            for m in ("M1", "M0"):
                lines.append("  ".join(f"[{m:^4}]" for _ in racks))
        return lines

    def menu_summary(self) -> list[str]:
        """Count of partitions per size and shape, and the wiring model in one paragraph (``meshsim
        machines show NAME --partitions``)."""
        menu = build_menu(self)
        lines = [f"partition menu: {len(menu.partitions)} partitions"]
        shapes: dict[tuple[str, tuple[int, ...]], int] = {}
        for p in menu.partitions:
            key = (p.label, p.extents)
            shapes[key] = shapes.get(key, 0) + 1
        for (label, extents), count in shapes.items():
            lines.append(
                f"  {label:>4}  {'x'.join(map(str, extents)):>6} midplanes  {count:4d} placements"
            )
        lines += [
            "wiring: each line of the midplane torus is a ring of cable segments; a partition that",
            "spans two or more midplanes of a line takes the whole ring "
            "(skipped midplanes are passed",
            "through); two partitions conflict when they share a midplane or a cable segment.",
            f"cable segments: {len(menu.segment_names)}; neighbours pair along axes "
            + ", ".join("xyz"[a] for a in self.buddy_axes),
        ]
        return lines


PARTITIONS_TOPOLOGY = MACHINE_FILE.add(
    Section(
        "[topology] partitions",
        (
            Rule("dims", "int list", minimum=1, doc="3 extents of the midplane torus (x, y, z)"),
            Rule("midplane_nodes", "int", minimum=1),
            Rule("midplane_names", "str list", doc="one distinct name per midplane"),
            Rule("buddy_axes", "str list", ["z", "y", "x"], choices=AXES),
            Rule("row_racks", "int", 1, minimum=1),
            Rule("shapes", "tables", [], doc="at least one"),
        ),
        doc="a torus of midplanes cut into partitions from a menu (Blue Gene/P)",
    )
)
SHAPE = MACHINE_FILE.add(
    Section(
        "[[topology.shapes]]",
        (
            Rule("label", "str"),
            Rule("extents", "int list", minimum=1, doc="3 extents within dims"),
            Rule("contiguous", "bool", False),
        ),
    )
)


@TOPOLOGIES.register("partitions")
def _parse_partitions(t: Table, header: MachineHeader) -> PartitionSpec:
    t = t.follow(PARTITIONS_TOPOLOGY)
    t.reject_unknown()
    dims = tuple(t.get("dims"))
    if len(dims) != 3:
        raise t.error("dims", f"expected 3 extents (x, y, z), got {len(dims)}")
    names = tuple(t.get("midplane_names"))
    if len(names) != prod(dims):
        raise t.error("midplane_names", f"expected {prod(dims)} names, got {len(names)}")
    if len(set(names)) != len(names):
        raise t.error("midplane_names", "names must be distinct")
    buddy = t.get("buddy_axes")
    if sorted(buddy) != sorted(AXES):
        raise t.error("buddy_axes", f"expected an order of {', '.join(AXES)}")
    shapes = []
    for st in t.tables("shapes", SHAPE):
        st.reject_unknown()
        extents = tuple(st.get("extents"))
        if len(extents) != 3 or any(e > d for e, d in zip(extents, dims, strict=True)):
            raise st.error(
                "extents", f"expected 3 extents within {list(dims)}, got {list(extents)}"
            )
        shapes.append(ShapeSpec(st.get("label"), extents, st.get("contiguous")))
    if not shapes:
        raise t.error("shapes", "at least one partition shape is required")
    spec = PartitionSpec(
        dims=dims,
        midplane_nodes=t.get("midplane_nodes"),
        names=names,
        shapes=tuple(shapes),
        buddy_axes=tuple(AXES.index(a) for a in buddy),
        row_racks=t.get("row_racks"),
    )
    return spec
