"""I/O nodes: the ``[io]`` machine section and the geometry of the I/O column.

Model (Mache 1999, Ch. VI L1606, L1817; Ch. VII L2260; extraction §1.6): the compute nodes form a W
× H mesh (``topology.dims = [W, H]``); the I/O nodes sit in one extra column on the west side, at x
= -1, one router per row y = 0 … H-1, of which ``count`` carry an I/O node. The I/O column has links
between vertically adjacent routers and one link from router (-1, y) to compute node (0, y); every
link is two unidirectional channels of ``link_mb_s`` MB/s each (L460, L1221). With ``count == H``
this is exactly the model that reproduces Tables 5 and 6.

A machine file describes it as data::

    [io] side = "west"          # the only side the dissertation analyses count = 16             #
    m, the number of I/O nodes link_mb_s = 380.0      # B_l, per direction (TFLOPS, L460) node_mb_s
    = 64.0       # B_0, sustained per I/O node (TFLOPS, L460) routing = "xy"         #
    dimension-ordered: along x first, then along y (L436) placement = "center"   # where m < H I/O
    nodes sit in the column (see io_rows)

Ambiguity 2 of the extraction (placement of m < H I/O nodes) is a choice here: ``center`` puts them
in a contiguous block centred in the column, ``spread`` spaces them evenly. The middle I/O link
(L1950) lies between I/O node m/2 - 1 and m/2 (0-based, in row order); compute rows at or beyond the
row of I/O node m/2 form the *high* side, the others the *low* side. Mache's y grows upward (L839),
so his "above the middle link" is our high side."""

from __future__ import annotations

from dataclasses import dataclass

from meshsim.engine.core.errors import MeshsimError, where
from meshsim.engine.core.toml_table import Table
from meshsim.engine.topology.machines import SECTIONS, Machine, MachineHeader
from meshsim.engine.validation.formats import MACHINE_FILE
from meshsim.engine.validation.rules import Rule, Section

PLACEMENTS = ("center", "spread")
"""How ``count < H`` I/O nodes are placed in the column (see :func:`io_rows`)."""


@dataclass(frozen=True)
class IOSpec:
    """The ``[io]`` section of a machine file, as written."""

    count: int
    link_mb_s: float
    node_mb_s: float
    side: str = "west"
    routing: str = "xy"
    placement: str = "center"

    @property
    def f(self) -> float:
        """f = B_l / B_0 (Table 4)."""
        return self.link_mb_s / self.node_mb_s

    def check(self, machine: Machine) -> None:
        """The checks a run makes when it lays the I/O column out (the mesh is 2D and tall
        enough), made when the machine file is read."""
        IOLayout.from_machine(machine)


IO_SECTION = MACHINE_FILE.add(
    Section(
        "[io]",
        (
            Rule("side", "str", "west", choices=("west",)),
            Rule("count", "int", minimum=1, doc="m, I/O nodes; at most the mesh height"),
            Rule("link_mb_s", "float", above=0, doc="B_l, MB/s per link and direction"),
            Rule("node_mb_s", "float", above=0, doc="B_0, MB/s per I/O node"),
            Rule("routing", "str", "xy", choices=("xy",)),
            Rule("placement", "str", "center", choices=PLACEMENTS),
        ),
        doc="I/O nodes in a column beside a 2D mesh (Mache Ch. VI)",
    )
)


@SECTIONS.register("io")
def _parse_io(t: Table, header: MachineHeader) -> IOSpec:
    if header.topology != "mesh":
        raise MeshsimError(
            f"{where(t.source, key=t.prefix)}: I/O nodes need topology 'mesh', "
            f"got '{header.topology}'"
        )
    t = t.follow(IO_SECTION)
    t.reject_unknown()
    return IOSpec(**{key: t.get(key) for key in IO_SECTION.key_list()})


def io_rows(height: int, count: int, placement: str = "center") -> tuple[int, ...]:
    """The rows of the I/O column that hold an I/O node, ascending.

    ``center``: rows ``(H - m) // 2 … (H - m) // 2 + m - 1``; ``spread``: row ``floor((i + 1/2) · H
    / m)`` for I/O node i. Both give every row when m = H."""
    if not 1 <= count <= height:
        raise MeshsimError(f"{count} I/O nodes do not fit a column of height {height}")
    if placement == "center":
        first = (height - count) // 2
        return tuple(range(first, first + count))
    if placement == "spread":
        return tuple((2 * i + 1) * height // (2 * count) for i in range(count))
    raise MeshsimError(f"unknown I/O placement '{placement}' (valid: {', '.join(PLACEMENTS)})")


@dataclass(frozen=True)
class IOLayout:
    """A W × H compute mesh plus its west I/O column: everything routing and metrics need."""

    width: int
    height: int
    rows: tuple[int, ...]
    link_mb_s: float = 380.0
    node_mb_s: float = 64.0

    @property
    def count(self) -> int:
        """m, the number of I/O nodes."""
        return len(self.rows)

    @property
    def boundary(self) -> int:
        """First row of the high side: the row of I/O node m/2 (L1950)."""
        return self.rows[self.count // 2]

    @property
    def nodes(self) -> int:
        """Compute nodes."""
        return self.width * self.height

    @classmethod
    def square(
        cls,
        k: int,
        m: int,
        *,
        link_mb_s: float = 380.0,
        node_mb_s: float = 64.0,
        placement: str = "center",
    ) -> IOLayout:
        """The k × k mesh with m I/O nodes of Ch. VI."""
        if k < 1:
            raise MeshsimError(f"mesh side must be at least 1, got {k}")
        return cls(k, k, io_rows(k, m, placement), link_mb_s, node_mb_s)

    @classmethod
    def from_machine(cls, machine: Machine) -> IOLayout:
        """The layout of a mesh machine with an ``[io]`` section."""
        spec = machine.extras.get("io")
        if spec is None:
            raise MeshsimError(f"machine '{machine.name}' has no [io] section")
        dims = machine.spec.dims
        if len(dims) != 2:
            raise MeshsimError(
                f"{where(machine.source, key='topology.dims')}: I/O nodes need a 2D mesh, "
                f"got {len(dims)} dimensions"
            )
        width, height = dims
        if spec.count > height:
            raise MeshsimError(
                f"{where(machine.source, key='io.count')}: {spec.count} I/O nodes do not fit "
                f"the west column of height {height}"
            )
        return cls(
            width,
            height,
            io_rows(height, spec.count, spec.placement),
            spec.link_mb_s,
            spec.node_mb_s,
        )


def balance_boundary(machine: Machine) -> int:
    """The first high-side row of a 2D mesh machine: from ``[io]`` if present, else H // 2."""
    if "io" in machine.extras:
        return IOLayout.from_machine(machine).boundary
    return machine.spec.dims[1] // 2
