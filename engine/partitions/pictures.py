"""Plain-text pictures of partition machines: rows of racks, two midplanes per rack (as operators
see Intrepid), and the menu summary for ``meshsim machines show NAME --partitions``."""

from __future__ import annotations

from meshsim.engine.machines import Machine
from meshsim.engine.partitions.menu import build_menu
from meshsim.engine.pictures import PICTURES


@PICTURES.register("partitions")
def partition_picture(machine: Machine) -> list[str]:
    """Machine rows top to bottom; in each, every rack as ``Rxy`` with its midplanes M1 over M0."""
    spec = machine.spec
    per_row = spec.midplanes // spec.dims[0]
    lines: list[str] = []
    for row in range(spec.dims[0]):
        names = sorted(spec.names[row * per_row : (row + 1) * per_row])
        racks = sorted({n.split("-")[0] for n in names})
        lines.append("  ".join(f"{r:^6}" for r in racks))
        for m in ("M1", "M0"):
            lines.append("  ".join(f"[{m:^4}]" for _ in racks))
    return lines


def menu_summary(machine: Machine) -> list[str]:
    """Count of partitions per size and shape, and the wiring model in one paragraph."""
    menu = build_menu(machine.spec)
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
        "spans two or more midplanes of a line takes the whole ring (skipped midplanes are passed",
        "through); two partitions conflict when they share a midplane or a cable segment.",
        f"cable segments: {len(menu.segment_names)}; neighbours pair along axes "
        + ", ".join("xyz"[a] for a in machine.spec.buddy_axes),
    ]
    return lines
