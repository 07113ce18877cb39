"""The ``mesh`` and ``torus`` topologies: a 2D or 3D grid of nodes, with or without wrap-around.

Conventions used everywhere (allocators, maps, contention):
- ``dims`` lists the extent along x, y[, z]; an occupancy array has shape ``dims`` and is indexed
  ``[x, y]`` or ``[x, y, z]``;
- a cell's flat index is ``numpy.ravel_multi_index(coord, dims)`` (C order, x slowest);
- a 2D grid is drawn with y as the row and x as the column, (0, 0) at the top left;
- ``wrap[d]`` says whether dimension d wraps around (a torus link from the last to the first node).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import product
from math import prod

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.toml_table import Table
from meshsim.engine.topology.machines import TOPOLOGIES, MachineHeader
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

    # A unit is a grid node, named by its coordinate ``x,y`` or ``x,y,z``.

    @property
    def units(self) -> int:
        return self.nodes

    def unit_name(self, cell: int) -> str:
        return ",".join(str(c) for c in self.coord(cell))

    def find_unit(self, name: str) -> int | None:
        parts = name.strip("()").split(",")
        if len(parts) == len(self.dims) and all(p.strip().isdigit() for p in parts):
            coord = tuple(int(p) for p in parts)
            if all(c < d for c, d in zip(coord, self.dims, strict=True)):
                return self.cell(coord)
        return None

    def unit_forms(self) -> str:
        return f"a coordinate such as {','.join('0' * len(self.dims))}, or a cell number"

    def block(self, text: str, machine: str) -> list[int] | None:
        """A box ``"x,y WxH"`` / ``"x,y,z AxBxC"`` (its corner, then its extents): it wraps around
        on a torus and must fit on a mesh."""
        box = _BOX.match(text)
        if box is None:
            return None
        start = [int(v) for v in box.group(1).split(",")]
        extent = [int(v) for v in box.group(2).split("x")]
        dims = self.dims
        if len(start) != len(dims) or len(extent) != len(dims):
            raise MeshsimError(f"box '{text}' needs {len(dims)} coordinates and extents")
        for s, e, d, w in zip(start, extent, dims, self.wrap, strict=True):
            if s >= d or e < 1 or e > d or (not w and s + e > d):
                raise MeshsimError(f"box '{text}' does not fit machine '{machine}' {dims}")
        axes = [
            [(s + k) % d for k in range(e)] for s, e, d in zip(start, extent, dims, strict=True)
        ]
        return [self.cell(c) for c in product(*axes)]

    def picture(self) -> list[str]:
        """A 2D grid with y down and x across; a 3D grid as its z-planes side by side."""
        x, y = self.dims[0], self.dims[1]
        z = self.dims[2] if len(self.dims) == 3 else 1
        wrap = "".join("w" if w else "-" for w in self.wrap)
        planes_note = ", one block per z-plane" if z > 1 else ""
        lines = [f"{self.describe()} (x across, y down{planes_note}; wrap {wrap})"]
        planes_per_row = max(1, 96 // (x + 2))
        for first in range(0, z, planes_per_row):
            planes = range(first, min(z, first + planes_per_row))
            if z > 1:
                lines.append("  ".join(f"z={p}".ljust(x) for p in planes))
            for _row in range(y):
                lines.append("  ".join("·" * x for _ in planes))
        return lines


_BOX = re.compile(r"^\(?\s*(\d+(?:\s*,\s*\d+)*)\s*\)?\s+(\d+(?:\s*x\s*\d+)*)$")
"""A box: ``x,y WxH`` (optionally ``(x,y) WxH``), any number of dimensions."""


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
