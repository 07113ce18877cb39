"""The machine map: one Line-API picture per topology, drawn from a snapshot's owners.

Each topology has a layout builder (registered by topology name in :data:`LAYOUTS`) that turns
the machine into rows of items: a literal text, or a cell index drawn as one glyph (the job's
letter in its colour, or the idle, down or reserved mark). The layout is built once per machine
and width; a frame only looks owners up, so a redraw costs one pass over the visible cells.

- ``mesh``: x across, y down (the orientation of ``meshsim machines show``), one character per
  node, axis ticks every 8 nodes;
- ``torus``: a 3D torus as its z-planes side by side, in bands as wide as the pane; a 2D torus
  like a mesh;
- ``partitions`` (Intrepid): rows R0–R4 of eight racks, each rack as ``M1`` over ``M0``
  (``[A]`` per midplane), then a legend naming each running job's partition;
- ``flat``: a count-only pool has no per-node owners, so the nodes are drawn as a block where
  each running job holds as many consecutive cells as it has nodes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import numpy as np
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from engine.allocation import DOWN, FREE, RESERVED
from engine.machines import Machine
from engine.simulation import Snapshot
from engine.units import unit_count, unit_name
from tui.jobstyle import DOWN_GLYPH, FREE_GLYPH, RESERVED_GLYPH, job_color, job_letter

Item = int | str
"""A layout item: a cell index, or literal text."""

Layout = list[list[Item]]


def _mesh(machine: Machine, width: int) -> Layout:
    x_size, y_size = machine.spec.dims[:2]
    ticks = "".join(str(x // 8 % 10) if x % 8 == 0 else " " for x in range(x_size))
    rows: Layout = [[f"    {ticks}"]]
    for y in range(y_size):
        label = f"{y:>3} " if y % 4 == 0 else "    "
        rows.append([label, *(machine.spec.cell((x, y)) for x in range(x_size))])
    return rows


def _torus(machine: Machine, width: int) -> Layout:
    dims = machine.spec.dims
    if len(dims) == 2:
        return _mesh(machine, width)
    x_size, y_size, z_size = dims
    per_band = max(1, (width - 2) // (x_size + 2))
    rows: Layout = []
    for first in range(0, z_size, per_band):
        planes = range(first, min(z_size, first + per_band))
        rows.append(["  ".join(f"z={z}".ljust(x_size) for z in planes)])
        for y in range(y_size):
            row: list[Item] = []
            for k, z in enumerate(planes):
                if k:
                    row.append("  ")
                row.extend(machine.spec.cell((x, y, z)) for x in range(x_size))
            rows.append(row)
        rows.append([""])
    return rows


def _partitions(machine: Machine, width: int) -> Layout:
    spec = machine.spec
    names = list(spec.names)
    by_name = {name: i for i, name in enumerate(names)}
    racks = spec.row_racks
    rows: Layout = []
    for r in range(len(names) // (2 * racks)):
        rows.append(["".join(f" R{r}{k:<2}" for k in range(racks))])
        for m in (1, 0):
            row: list[Item] = []
            for k in range(racks):
                row.extend([" [", by_name[f"R{r}{k}-M{m}"], "]"])
            rows.append(row)
    return rows


def _flat(machine: Machine, width: int) -> Layout:
    per_row = max(8, min(64, width - 2))
    n = machine.nodes
    return [[*range(start, min(n, start + per_row))] for start in range(0, n, per_row)]


LAYOUTS: dict[str, Callable[[Machine, int], Layout]] = {
    "mesh": _mesh,
    "torus": _torus,
    "partitions": _partitions,
    "flat": _flat,
}
"""Layout builder per topology name."""


def flat_owners(snapshot: Snapshot) -> np.ndarray:
    """Owners for a count-only pool: each running job on as many consecutive cells as it has
    nodes, in the order of the snapshot's running jobs; the rest idle."""
    owners = np.full(snapshot.machine.nodes, FREE, dtype=np.int64)
    at = 0
    for r in snapshot.running:
        owners[at : at + r.placement.nodes] = r.job.index
        at += r.placement.nodes
    return owners


class MachineMap(ScrollView, can_focus=True):
    """The machine, one glyph per unit; a cursor selects a unit."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-1, 0)", "Left", show=False),
        Binding("right", "move(1, 0)", "Right", show=False),
        Binding("up", "move(0, -1)", "Up", show=False),
        Binding("down", "move(0, 1)", "Down", show=False),
        Binding("enter", "select", "Inspect unit", id="map-inspect", tooltip="Inspect the unit"),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "machine-map--free",
        "machine-map--down",
        "machine-map--reserved",
        "machine-map--cursor",
        "machine-map--text",
    }
    DEFAULT_CSS = """
    MachineMap > .machine-map--free { color: $text-muted; }
    MachineMap > .machine-map--down { color: $error; text-style: bold; }
    MachineMap > .machine-map--reserved { color: $warning; }
    MachineMap > .machine-map--cursor { text-style: reverse; }
    MachineMap > .machine-map--text { color: $text-muted; }
    """

    cursor: reactive[int] = reactive(0)

    class UnitSelected(Message):
        """The operator chose a unit (``enter``)."""

        def __init__(self, cell: int) -> None:
            super().__init__()
            self.cell = cell

    class CursorMoved(Message):
        """The cursor moved to another unit."""

        def __init__(self, cell: int) -> None:
            super().__init__()
            self.cell = cell

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._snapshot: Snapshot | None = None
        self._owners = np.zeros(0, dtype=np.int64)
        self._layout: Layout = []
        self._where: dict[int, tuple[int, int]] = {}
        self._built_for: tuple[str, int] = ("", -1)
        self._legend: list[str] = []

    # ---------------------------------------------------------------- data in

    def show(self, snapshot: Snapshot) -> None:
        """Remember ``snapshot`` and repaint."""
        machine = snapshot.machine
        width = max(20, self.size.width)
        if self._built_for != (machine.name, width):
            self._build(machine, width)
        owners = snapshot.owners
        self._owners = owners if len(owners) else flat_owners(snapshot)
        self._snapshot = snapshot
        self._legend = self._legend_lines(snapshot)
        self.virtual_size = Size(
            max(self._width(row) for row in self._layout) if self._layout else 0,
            len(self._layout) + 1 + len(self._legend),
        )
        self.refresh()

    def _build(self, machine: Machine, width: int) -> None:
        self._layout = LAYOUTS[machine.topology](machine, width)
        self._where = {}
        for r, row in enumerate(self._layout):
            col = 0
            for item in row:
                if isinstance(item, int):
                    self._where[item] = (r, col)
                    col += 1
                else:
                    col += len(item)
        self._built_for = (machine.name, width)
        self.cursor = min(self.cursor, unit_count(machine) - 1)

    @staticmethod
    def _width(row: list[Item]) -> int:
        return sum(1 if isinstance(i, int) else len(i) for i in row)

    def _legend_lines(self, snapshot: Snapshot) -> list[str]:
        owners = self._owners
        busy = int(np.count_nonzero(owners >= 0))
        down = int(np.count_nonzero(owners == DOWN))
        reserved = int(np.count_nonzero(owners == RESERVED))
        lines = [
            f"{busy} busy · {int(np.count_nonzero(owners == FREE))} idle · {down} down · "
            f"{reserved} reserved   cursor {self.unit_label(self.cursor)}"
        ]
        if snapshot.machine.topology == "partitions":
            lines += [
                f"{job_letter(r.job.index)} job {r.job.job_id}: {r.placement.label}"
                for r in snapshot.running[:12]
            ]
        return lines

    def unit_label(self, cell: int) -> str:
        """The operator's name of ``cell``: ``R00-M0``, ``(x,y)``, ``(x,y,z)``, ``node N``."""
        if self._snapshot is None:
            return str(cell)
        machine = self._snapshot.machine
        name = unit_name(machine, cell)
        if machine.topology in ("mesh", "torus"):
            return f"({name})"
        return f"node {name}" if machine.topology == "flat" else name

    # ---------------------------------------------------------------- cursor

    def action_move(self, dx: int, dy: int) -> None:
        if not self._where:
            return
        row, col = self._where.get(self.cursor, (0, 0))
        best = None
        for cell, (r, c) in self._where.items():
            ahead = (c - col) * dx + (r - row) * dy
            if ahead <= 0:
                continue
            off = abs((r - row) * dx) + abs((c - col) * dy)
            key = (off, ahead)
            if best is None or key < best[0]:
                best = (key, cell)
        if best is not None:
            self.cursor = best[1]

    def watch_cursor(self, cell: int) -> None:
        if cell in self._where:
            r, c = self._where[cell]
            self.scroll_to_region(Region(c, r, 1, 1), animate=False)
        if self._snapshot is not None:
            self._legend = self._legend_lines(self._snapshot)
        self.post_message(self.CursorMoved(cell))
        self.refresh()

    def action_select(self) -> None:
        self.post_message(self.UnitSelected(self.cursor))

    def on_click(self, event: object) -> None:
        x = getattr(event, "x", 0) + int(self.scroll_offset.x)
        y = getattr(event, "y", 0) + int(self.scroll_offset.y)
        for cell, (r, c) in self._where.items():
            if (r, c) == (y, x):
                self.cursor = cell
                return

    # ---------------------------------------------------------------- drawing

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        row = y + int(self.scroll_offset.y)
        text_style = self.get_component_rich_style("machine-map--text")
        if row < len(self._layout):
            segments = [self._segment(item, text_style) for item in self._layout[row]]
            strip = Strip(segments)
        elif row == len(self._layout):
            strip = Strip.blank(0)
        elif row - len(self._layout) - 1 < len(self._legend):
            strip = Strip([Segment(self._legend[row - len(self._layout) - 1], text_style)])
        else:
            return Strip.blank(width)
        return strip.crop_extend(int(self.scroll_offset.x), int(self.scroll_offset.x) + width, None)

    def _segment(self, item: Item, text_style: Style) -> Segment:
        if isinstance(item, str):
            return Segment(item, text_style)
        owner = int(self._owners[item]) if item < len(self._owners) else FREE
        if owner >= 0:
            glyph, style = job_letter(owner), Style(color=job_color(owner), bold=True)
        elif owner == DOWN:
            glyph, style = DOWN_GLYPH, self.get_component_rich_style("machine-map--down")
        elif owner == RESERVED:
            glyph, style = RESERVED_GLYPH, self.get_component_rich_style("machine-map--reserved")
        else:
            glyph, style = FREE_GLYPH, self.get_component_rich_style("machine-map--free")
        if item == self.cursor and self.has_focus:
            style = style + self.get_component_rich_style("machine-map--cursor")
        return Segment(glyph, style)
