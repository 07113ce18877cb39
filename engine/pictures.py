"""Plain-text pictures of machines for ``meshsim machines show`` (no Rich: the CLI colours them).

One renderer per topology, registered by topology name; each returns lines of text."""

from __future__ import annotations

from collections.abc import Callable

from meshsim.engine.grid import GridSpec
from meshsim.engine.machines import Machine
from meshsim.engine.registry import Registry

PICTURES: Registry[Callable[[Machine], list[str]]] = Registry("machine picture")


@PICTURES.register("flat")
def flat_picture(machine: Machine) -> list[str]:
    """Nodes as a block of dots, 64 to a row."""
    n = machine.nodes
    width = min(64, n)
    rows = [("·" * min(width, n - start)) for start in range(0, n, width)]
    if len(rows) > 16:
        rows = [*rows[:15], f"… {len(rows) - 15} more rows of {width} nodes"]
    return [f"{n} interchangeable nodes", *rows]


def _grid_picture(machine: Machine) -> list[str]:
    """A 2D grid with y down and x across; a 3D grid as its z-planes side by side."""
    spec: GridSpec = machine.spec
    x, y = spec.dims[0], spec.dims[1]
    z = spec.dims[2] if len(spec.dims) == 3 else 1
    wrap = "".join("w" if w else "-" for w in spec.wrap)
    planes_note = ", one block per z-plane" if z > 1 else ""
    lines = [f"{spec.describe()} (x across, y down{planes_note}; wrap {wrap})"]
    planes_per_row = max(1, 96 // (x + 2))
    for first in range(0, z, planes_per_row):
        planes = range(first, min(z, first + planes_per_row))
        if z > 1:
            lines.append("  ".join(f"z={p}".ljust(x) for p in planes))
        for _row in range(y):
            lines.append("  ".join("·" * x for _ in planes))
    return lines


PICTURES.register("mesh")(_grid_picture)
PICTURES.register("torus")(_grid_picture)
