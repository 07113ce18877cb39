"""The ``mesh`` and ``torus`` topologies: a 2D or 3D grid of nodes, with or without wrap-around.

Conventions used everywhere (allocators, maps, contention):
- ``dims`` lists the extent along x, y[, z]; an occupancy array has shape ``dims`` and is indexed
  ``[x, y]`` or ``[x, y, z]``;
- a cell's flat index is ``numpy.ravel_multi_index(coord, dims)`` (C order, x slowest);
- a 2D grid is drawn with y as the row and x as the column, (0, 0) at the top left;
- ``wrap[d]`` says whether dimension d wraps around (a torus link from the last to the first node).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from meshsim.engine.machines import TOPOLOGIES, MachineHeader
from meshsim.engine.toml_table import Table
from meshsim.engine.validation.formats import MACHINE_FILE
from meshsim.engine.validation.rules import Rule, Section


def _grid_section(kind: str, wrap: bool) -> Section:
    return MACHINE_FILE.add(
        Section(
            f"[topology] {kind}",
            (
                Rule("dims", "int list", minimum=1, doc="2 or 3 extents: x, y[, z]"),
                Rule("wrap", "value", wrap, doc="true, false, or one boolean per dimension"),
            ),
            doc=f"a 2D or 3D grid of nodes{' with wrap-around links' if wrap else ''}",
        )
    )


MESH_TOPOLOGY = _grid_section("mesh", False)
TORUS_TOPOLOGY = _grid_section("torus", True)


@dataclass(frozen=True)
class GridSpec:
    """A 2D or 3D grid of nodes (a node may stand for a larger block, e.g. a BG/L supernode)."""

    dims: tuple[int, ...]
    wrap: tuple[bool, ...]

    @property
    def nodes(self) -> int:
        return prod(self.dims)

    @property
    def is_torus(self) -> bool:
        return any(self.wrap)

    def describe(self) -> str:
        kind = "torus" if all(self.wrap) else ("mesh" if not any(self.wrap) else "partial torus")
        return f"{'x'.join(map(str, self.dims))} {kind}, {self.nodes} nodes"

    def coord(self, cell: int) -> tuple[int, ...]:
        """The grid coordinate of a flat cell index."""
        out = []
        for d in reversed(self.dims):
            cell, r = divmod(cell, d)
            out.append(r)
        return tuple(reversed(out))

    def cell(self, coord: tuple[int, ...]) -> int:
        """The flat cell index of a grid coordinate."""
        index = 0
        for c, d in zip(coord, self.dims, strict=True):
            index = index * d + c
        return index


def _parse_grid(t: Table, header: MachineHeader, section: Section) -> GridSpec:
    t = t.follow(section)
    t.reject_unknown()
    dims = t.get("dims")
    if len(dims) not in (2, 3):
        raise t.error("dims", f"expected 2 or 3 extents, got {len(dims)}")
    raw = t.raw("wrap")
    if isinstance(raw, bool):
        wrap = (raw,) * len(dims)
    elif isinstance(raw, list) and len(raw) == len(dims) and all(isinstance(v, bool) for v in raw):
        wrap = tuple(raw)
    else:
        raise t.error("wrap", f"expected true, false or a list of {len(dims)} booleans")
    return GridSpec(dims=tuple(dims), wrap=wrap)


@TOPOLOGIES.register("mesh")
def _parse_mesh(t: Table, header: MachineHeader) -> GridSpec:
    return _parse_grid(t, header, MESH_TOPOLOGY)


@TOPOLOGIES.register("torus")
def _parse_torus(t: Table, header: MachineHeader) -> GridSpec:
    return _parse_grid(t, header, TORUS_TOPOLOGY)
