"""Where each unit of a machine sits on the machine map: one layout builder per topology.

A :class:`Layout` is rows of items laid left to right: literal :class:`Text` (axis ticks, labels,
I/O nodes), :class:`Span` (consecutive *slots*, each drawn ``cell_width`` columns wide) and
:class:`Join` (one column between two slots, drawn as a link when one job holds both). A slot is a
unit (grid node, midplane, node) except on large flat machines, where one slot stands for a run of
nodes (:attr:`Layout.units`). Builders are registered by topology name in :data:`LAYOUTS`; a layout
depends only on the machine and the pane width, so the widget builds it once per machine and width,
and a frame only looks owners up.

- ``mesh``: x across, y down (as ``meshsim machines show``), two columns per node when the mesh
  fits, else one; x ticks every 4 or 8 nodes, y labels every 4 rows; the I/O column of an ``[io]``
  machine on the west side (``I``); NQS node sets bracketed on the east side;
- ``torus``: a 3D torus as its z-planes side by side, in as many bands as the width needs; a 2D
  torus like a mesh. Wrap-around links are marked ``┆`` at the ends of each row (x) and ``┄`` under
  the grid (y, 2D only);
- ``partitions`` (Intrepid): machine rows R0… top to bottom, each with its racks across and the
  rack's midplanes stacked (M1 over M0), each midplane as ``[A]``; neighbouring midplanes of one job
  are joined with ``━``;
- ``flat``: a count-only pool as a block of nodes (at most :data:`FLAT_SLOTS` slots), rows labelled
  with their first node.

Compact layouts (``half=True``) fit a machine into half the lines: :class:`Halves` draws two rows of
units as one line of half blocks (``▀``: the upper unit's colour over the lower one's), so a 32 × 32
mesh takes 16 lines and Intrepid a line per machine row (M1 over M0, one column per rack). The
console's map uses one when the full picture does not fit its pane's height (100 × 30 terminals).

This module is pure (numpy and engine only) so layouts are tested without a terminal."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from math import prod
from typing import Any

import numpy as np

from meshsim.engine.allocation.allocator import FREE
from meshsim.engine.families.contention.io import io_rows
from meshsim.engine.kernel.records import Snapshot
from meshsim.engine.topology.machines import Machine

PENDING = -4
"""A slot owner the map draws but the engine never gives: an idle unit that a pending
reservation will take at its start (the engine's owners are a job index, FREE, DOWN or
RESERVED)."""

FLAT_SLOTS = 4096
"""Most slots a flat machine is drawn with; beyond, one slot stands for several nodes."""

PLANE_GAP = "  "
"""Columns between the z-planes of a 3D torus."""


@dataclass(frozen=True)
class Text:
    """Literal text; ``role`` names the style (``axis``, ``io`` or ``label``)."""

    text: str
    role: str = "axis"

    @property
    def width(self) -> int:
        return len(self.text)


@dataclass(frozen=True, eq=False)
class Span:
    """Consecutive slots, left to right."""

    slots: np.ndarray


@dataclass(frozen=True)
class Join:
    """One column between slots ``left`` and ``right``: a link when one job holds both."""

    left: int
    right: int


@dataclass(frozen=True, eq=False)
class Halves:
    """Two rows of slots drawn as one line: ``top[i]`` in the upper half of column ``i``,
    ``bottom[i]`` in the lower half (-1: nothing there)."""

    top: np.ndarray
    bottom: np.ndarray


Item = Text | Span | Join | Halves
Part = str | Text | Span | Join | Halves | Sequence[int]
"""What builders hand to :func:`_finish`: a bare string is axis text, a list of ints a span."""


@dataclass(frozen=True, eq=False)
class Layout:
    """Rows of items plus the position of every slot and a per-row index for the cursor."""

    rows: tuple[tuple[Item, ...], ...]
    cell_width: int
    boxed: bool
    width: int
    where: np.ndarray
    """``where[slot] = (row, column)`` of the slot's first column."""
    units: np.ndarray | None = None
    """First unit of each slot, or None when slots are units."""
    levels: np.ndarray | None = None
    """In a compact layout, each slot's half of its line (0 upper, 1 lower); None otherwise."""
    _row_cols: dict[int, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    """Per cursor line (a row, or in a compact layout a half row ``2 * row + level``), the columns
    and slots on it, left to right."""

    @property
    def half(self) -> bool:
        """Whether two rows of units share each line (:class:`Halves`)."""
        return self.levels is not None

    def line_of(self, slot: int) -> int:
        """The cursor line of ``slot`` (see ``_row_cols``)."""
        row = int(self.where[slot, 0])
        return row if self.levels is None else 2 * row + int(self.levels[slot])

    @property
    def slots(self) -> int:
        return len(self.where)

    def unit_of(self, slot: int) -> int:
        """The unit a slot stands for (its first unit)."""
        return slot if self.units is None else int(self.units[slot])

    def slot_of(self, unit: int) -> int:
        """The slot that draws ``unit``."""
        if self.units is None:
            return unit
        return int(np.searchsorted(self.units, unit, side="right")) - 1

    def slot_at(self, row: int, col: int) -> int | None:
        """The slot drawn at (row, column), if any (in a compact layout, the upper one)."""
        line = row if self.levels is None else 2 * row
        if line not in self._row_cols:
            return None
        cols, slots = self._row_cols[line]
        k = int(np.searchsorted(cols, col, side="right")) - 1
        if k >= 0 and col < cols[k] + self.cell_width:
            return int(slots[k])
        return None

    def step(self, slot: int, dx: int, dy: int) -> int:
        """The slot one step from ``slot`` (dx, dy ∈ {-1, 0, 1}); the same slot at an edge.

        Sideways: the next slot on the same screen row. Up and down: the nearest slot, by column, on
        the next screen row that has any (across rack, plane and band boundaries); in a compact
        layout each half of a line counts as a row."""
        row, col = self.line_of(slot), int(self.where[slot, 1])
        if dx:
            cols, slots = self._row_cols[row]
            k = int(np.searchsorted(cols, col)) + dx
            return int(slots[k]) if 0 <= k < len(cols) else slot
        rows = sorted(self._row_cols)
        k = rows.index(row) + dy
        if not 0 <= k < len(rows):
            return slot
        cols, slots = self._row_cols[rows[k]]
        return int(slots[int(np.argmin(np.abs(cols - col)))])


def _finish(
    rows: list[list[Part]],
    slots: int,
    *,
    cell_width: int,
    boxed: bool = False,
    units: np.ndarray | None = None,
    half: bool = False,
) -> Layout:
    """Turn builder rows into a :class:`Layout`: items, slot positions and the cursor index."""
    where = np.full((slots, 2), -1, dtype=np.int64)
    levels = np.zeros(slots, dtype=np.int64) if half else None
    out: list[tuple[Item, ...]] = []
    width = 0
    for r, parts in enumerate(rows):
        items: list[Item] = []
        col = 0
        for part in parts:
            item: Item
            if isinstance(part, str):
                item = Text(part)
            elif isinstance(part, Text | Span | Join | Halves):
                item = part
            else:
                item = Span(np.asarray(part, dtype=np.int64))
            if isinstance(item, Span | Halves):
                placed = [(item.slots, 0)] if isinstance(item, Span) else [(item.top, 0)]
                if isinstance(item, Halves):
                    placed.append((item.bottom, 1))
                for refs, level in placed:
                    at = np.flatnonzero(refs >= 0)
                    where[refs[at], 0] = r
                    where[refs[at], 1] = col + cell_width * at
                    if levels is not None:
                        levels[refs[at]] = level
                col += cell_width * len(placed[0][0])
            else:
                col += item.width if isinstance(item, Text) else 1
            items.append(item)
        out.append(tuple(items))
        width = max(width, col)
    row_cols: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    placed_slots = np.flatnonzero(where[:, 0] >= 0)
    lines = where[placed_slots, 0]
    if levels is not None:
        lines = 2 * lines + levels[placed_slots]
    for line in np.unique(lines):
        on_line = placed_slots[lines == line]
        order = np.argsort(where[on_line, 1], kind="stable")
        row_cols[int(line)] = (where[on_line[order], 1], on_line[order])
    return Layout(tuple(out), cell_width, boxed, width, where, units, levels, row_cols)


# --------------------------------------------------------------------------- grids


def _grid(machine: Machine, width: int, half: bool = False) -> Layout:
    """Mesh and torus: 2D as one grid, 3D as z-planes side by side in bands; compact (``half``),
    rows y and y + 1 share a line."""
    spec = machine.spec
    x_size, y_size = spec.dims[0], spec.dims[1]
    planes = spec.dims[2] if len(spec.dims) == 3 else 1
    wrap_x, wrap_y = spec.wrap[0], spec.wrap[1]
    margin = len(str(y_size - 1)) + 1
    io = machine.extras.get("io")
    west = 2 if io is not None else 0
    edge = 1 if wrap_x else 0
    fixed = margin + west + 2 * edge
    cell_width = 2 if not half and fixed + 2 * x_size <= width else 1
    plane_width = x_size * cell_width + 2 * edge
    per_band = max(1, (width - margin - west + len(PLANE_GAP)) // (plane_width + len(PLANE_GAP)))
    io_at = set(io_rows(y_size, io.count, io.placement)) if io is not None else set()
    east = _node_set_marks(machine, y_size)
    step = 2 if half else 1
    rows: list[list[Part]] = []
    for first in range(0, planes, per_band):
        band = range(first, min(planes, first + per_band))
        if first:
            rows.append([""])
        rows.append(_band_header(band, planes, x_size, cell_width, edge, margin, west))
        for y in range(0, y_size, step):
            pair = range(y, min(y_size, y + step))
            row: list[Part] = [f"{y:>{margin - 1}} " if y % 4 == 0 else " " * margin]
            if io is not None:
                row.append(Text("I " if io_at.intersection(pair) else "  ", "io"))
            for k, z in enumerate(band):
                if k:
                    row.append(PLANE_GAP)
                cells = [
                    [spec.cell((x, yy, z) if planes > 1 else (x, yy)) for x in range(x_size)]
                    for yy in pair
                ]
                if half:
                    bottom = cells[1] if len(cells) > 1 else [-1] * x_size
                    part: Part = Halves(np.asarray(cells[0]), np.asarray(bottom))
                else:
                    part = cells[0]
                row += ["┆"] * edge + [part] + ["┆"] * edge
            mark = " ".join(east[yy] for yy in pair if east[yy])
            if mark:
                row.append(Text(" " + mark, "label"))
            rows.append(row)
        if wrap_y and planes == 1:
            rows.append([" " * (margin + west + edge) + "┄" * (x_size * cell_width)])
    return _finish(rows, prod(spec.dims), cell_width=cell_width, half=half)


def _band_header(
    band: range, planes: int, x_size: int, cell_width: int, edge: int, margin: int, west: int
) -> list[Part]:
    """Plane names over a band of a 3D grid; x ticks over a 2D grid (and ``io`` over I/O)."""
    lead = " " * margin + ("io" if west else "")
    if planes > 1:
        plane_width = x_size * cell_width + 2 * edge
        return [lead + PLANE_GAP.join(f"z={z}".ljust(plane_width) for z in band).rstrip()]
    every = 4 if cell_width == 2 else 8
    ticks = [" "] * (x_size * cell_width + 2 * edge)
    for x in range(0, x_size, every):
        for i, ch in enumerate(str(x)):
            at = edge + x * cell_width + i
            if at < len(ticks):
                ticks[at] = ch
    return [lead + "".join(ticks).rstrip()]


def _node_set_marks(machine: Machine, y_size: int) -> list[str]:
    """East-side brackets naming the NQS node sets (and the interactive block) per row."""
    marks = [""] * y_size
    nqs = machine.extras.get("nqs")
    if nqs is None:
        return marks
    blocks = [(s.name, s.rect) for s in nqs.node_sets]
    if nqs.interactive is not None:
        blocks.append(("interactive", nqs.interactive))
    for name, rect in blocks:
        last = rect.y + rect.h - 1
        for y in range(rect.y, min(y_size, last + 1)):
            if rect.h == 1:
                mark = f"] {name}"
            elif y == rect.y:
                mark = f"┐ {name}"
            else:
                mark = "┘" if y == last else "│"
            marks[y] = f"{marks[y]} {mark}".strip()
    return marks


# --------------------------------------------------------------------------- partitions


def _partitions(machine: Machine, width: int, half: bool = False) -> Layout:
    """Machine rows top to bottom; racks across; a rack's midplanes stacked, highest on top. Compact
    (``half``): one line per machine row, each rack a column of half blocks (M1 over M0) under an
    axis of rack numbers."""
    spec = machine.spec
    grid: dict[int, dict[str, dict[str, int]]] = {}
    for index, name in enumerate(spec.names):
        rack, _, level = name.partition("-")
        grid.setdefault(spec.coord(index)[0], {}).setdefault(rack, {})[level] = index
    levels = sorted({lv for racks in grid.values() for r in racks.values() for lv in r})[::-1]
    if half and len(levels) <= 2:
        return _partition_halves(spec, grid, levels)
    margin = max(len(lv) for lv in levels) + 1
    rows: list[list[Part]] = []
    for machine_row in sorted(grid):
        racks = sorted(grid[machine_row])
        slot = max(3, *(len(r) for r in racks))
        rows.append([" " * margin + " ".join(r.ljust(slot) for r in racks).rstrip()])
        for level in levels:
            row: list[Part] = [Text(level.ljust(margin), "axis")]
            left: int | None = None
            for k, rack in enumerate(racks):
                here = grid[machine_row][rack].get(level)
                if k:
                    row.append(Join(left, here) if left is not None and here is not None else " ")
                row.append([here] if here is not None else "   ")
                if here is not None and slot > 3:
                    row.append(" " * (slot - 3))
                left = here
            rows.append(row)
    return _finish(rows, len(spec.names), cell_width=3, boxed=True)


def _partition_halves(
    spec: Any, grid: dict[int, dict[str, dict[str, int]]], levels: list[str]
) -> Layout:
    """The compact partition layout: a line per machine row (labelled with its first rack), racks
    across as two-column cells, the upper level over the lower one."""
    labels = {row: sorted(grid[row])[0] for row in grid}
    margin = max(len(label) for label in labels.values()) + 1
    across = max(len(racks) for racks in grid.values())
    axis = "".join(str(k).ljust(3) for k in range(across)).rstrip()
    rows: list[list[Part]] = [[" " * margin + axis]]
    for machine_row in sorted(grid):
        row: list[Part] = [Text(labels[machine_row].ljust(margin), "axis")]
        for k, rack in enumerate(sorted(grid[machine_row])):
            here = grid[machine_row][rack]
            if k:
                row.append(" ")
            top = here.get(levels[0], -1)
            bottom = here.get(levels[1], -1) if len(levels) > 1 else -1
            row.append(Halves(np.array([top]), np.array([bottom])))
        rows.append(row)
    return _finish(rows, len(spec.names), cell_width=2, half=True)


# --------------------------------------------------------------------------- flat


def _flat(machine: Machine, width: int, half: bool = False) -> Layout:
    """Rows of nodes, each row labelled with its first node; slots merge nodes past FLAT_SLOTS."""
    nodes = machine.nodes
    slots = min(nodes, FLAT_SLOTS)
    units = None if slots == nodes else np.arange(slots, dtype=np.int64) * nodes // slots
    margin = len(str(nodes - 1)) + 1
    per_row = max(8, min(64, (width - margin) // 8 * 8))
    rows: list[list[Part]] = []
    for start in range(0, slots, per_row):
        first = start if units is None else int(units[start])
        rows.append([f"{first:>{margin - 1}} ", list(range(start, min(slots, start + per_row)))])
    return _finish(rows, slots, cell_width=1, units=units)


LAYOUTS: dict[str, Callable[[Machine, int, bool], Layout]] = {
    "mesh": _grid,
    "torus": _grid,
    "partitions": _partitions,
    "flat": _flat,
}
"""Layout builder per topology name: ``(machine, width, half) -> Layout``."""


def build_layout(machine: Machine, width: int, half: bool = False) -> Layout:
    """The layout of ``machine`` for a pane ``width`` columns wide; compact when ``half`` (a flat
    pool is compact already and ignores it)."""
    return LAYOUTS[machine.topology](machine, width, half)


def slot_owners(snapshot: Snapshot, layout: Layout) -> np.ndarray:
    """The owner of every slot: the snapshot's owners, the idle units of pending reservations
    marked :data:`PENDING`; or, on a count-only pool (no owners, no unit identity), each running
    job on as many consecutive nodes as it holds, in the snapshot's order."""
    if len(snapshot.owners):
        ahead = [c for r in snapshot.reservations if r.state == "pending" for c in r.cells]
        if not ahead:
            return snapshot.owners
        owners = snapshot.owners.copy()
        cells = np.asarray(ahead, dtype=np.int64)
        owners[cells[owners[cells] == FREE]] = PENDING
        return owners
    firsts = np.arange(layout.slots, dtype=np.int64) if layout.units is None else layout.units
    running = snapshot.running
    out = np.full(layout.slots, FREE, dtype=np.int64)
    if running:
        ends = np.cumsum([r.placement.nodes for r in running])
        jobs = np.array([r.job.index for r in running], dtype=np.int64)
        k = np.searchsorted(ends, firsts, side="right")
        held = k < len(running)
        out[held] = jobs[k[held]]
    return out
