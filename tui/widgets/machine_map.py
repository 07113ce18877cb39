"""The machine map: a Line-API picture of a snapshot's owners, one layout per topology.

The first line is a fixed header (machine, busy/idle/down/reserved counts, the unit under the
cursor); below it scroll the machine picture (:mod:`meshsim.tui.widgets.map_layout`: mesh grid,
torus planes, Intrepid racks, flat block) and a legend naming each running job's location. Each job
is drawn as its letter in its colour (:mod:`meshsim.tui.jobstyle`); equal neighbouring slots are
emitted as one segment. Rendered lines are kept in an LRU cache keyed by the line and the cursor's
column on it; a new snapshot drops only the lines whose units changed owner (and the legend when the
running jobs changed), so a cursor move or a quiet frame redraws from cache.

The pane is as tall as its picture, a few legend lines and its border, leaving the panes under it
``leave`` lines of its container. When the full picture (one line per row of units, each unit a
letter) and :data:`LEGEND_MIN` legend lines do not fit, the map is drawn compact (half blocks, two
rows of units per line, a unit by its colour: :mod:`meshsim.tui.widgets.map_layout`), so at
100 × 30 Intrepid shows every rack row and its legend and a 32 × 32 mesh all 32 rows."""

from __future__ import annotations

from itertools import groupby
from typing import ClassVar

import numpy as np
from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from meshsim.engine.allocation.allocator import DOWN, FREE, RESERVED
from meshsim.engine.kernel.records import Snapshot
from meshsim.engine.topology.machines import Machine
from meshsim.engine.topology.units import unit_count
from meshsim.tui.format import clock
from meshsim.tui.jobstyle import (
    DOWN_GLYPH,
    FREE_GLYPH,
    PENDING_GLYPH,
    RESERVED_GLYPH,
    job_color,
    job_letter,
)
from meshsim.tui.widgets.map_layout import (
    PENDING,
    Halves,
    Join,
    Layout,
    Span,
    Text,
    build_layout,
    slot_owners,
)
from meshsim.tui.widgets.scrolling import set_virtual_size

HEADER = 1
"""Fixed lines above the scrolling picture."""

LEGEND_MAX = 64
"""Most running jobs named in the legend."""

LINK = "━"
"""Drawn between neighbouring midplanes of one job."""

HALF = "▀"
"""A compact cell: the upper unit in the glyph's colour, the lower one in its background."""

LEGEND_MIN = 4
"""Legend lines (a blank one and three of jobs) the full picture must leave room for, else the map
is drawn compact."""

LEGEND_SHOWN = 3
"""Lines of jobs the pane is made tall enough to show under the picture (the rest scroll)."""


MARK = -1000
"""A stand-in owner: the unit under the cursor in a compact cell."""

_STATES = {
    FREE: (FREE_GLYPH, "machine-map--free"),
    DOWN: (DOWN_GLYPH, "machine-map--down"),
    RESERVED: (RESERVED_GLYPH, "machine-map--reserved"),
    PENDING: (PENDING_GLYPH, "machine-map--pending"),
}

RESERVATIONS_SHOWN = 3
"""Reservations named in the legend, one a line, before the running jobs."""


def unit_label(machine: Machine, cell: int) -> str:
    """The operator's name of unit ``cell``: ``R00-M0``, ``(x,y)`` / ``(x,y,z)``, ``node N``."""
    if machine.topology == "partitions":
        return str(machine.spec.names[cell])
    if machine.topology in ("mesh", "torus"):
        return "(" + ",".join(map(str, machine.spec.coord(cell))) + ")"
    return f"node {cell}"


def slot_rows(layout: Layout) -> tuple[np.ndarray, np.ndarray]:
    """Every (slot, row) pair where the row's drawing depends on the slot's owner (its spans and the
    joins beside them), as two arrays: a new snapshot redraws only the rows of slots whose owner
    changed."""
    slots: list[np.ndarray] = []
    rows: list[np.ndarray] = []
    for row, items in enumerate(layout.rows):
        for item in items:
            if isinstance(item, Span):
                refs = np.asarray(item.slots, dtype=np.int64)
            elif isinstance(item, Halves):
                refs = np.concatenate([item.top, item.bottom[item.bottom >= 0]])
            elif isinstance(item, Join):
                refs = np.array([item.left, item.right], dtype=np.int64)
            else:
                continue
            slots.append(refs)
            rows.append(np.full(len(refs), row, dtype=np.int64))
    if not slots:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(slots), np.concatenate(rows)


class MachineMap(ScrollView, can_focus=True):
    """The machine, one glyph per unit, with a cursor that selects a unit."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left,h", "move(-1, 0)", "Left", show=False),
        Binding("right,l", "move(1, 0)", "Right", show=False),
        Binding("up,k", "move(0, -1)", "Up", show=False),
        Binding("down,j", "move(0, 1)", "Down", show=False),
        Binding("enter", "select", "Inspect unit", id="map-inspect", tooltip="Inspect the unit"),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "machine-map--free",
        "machine-map--down",
        "machine-map--reserved",
        "machine-map--pending",
        "machine-map--cursor",
        "machine-map--axis",
        "machine-map--io",
        "machine-map--label",
        "machine-map--header",
        "machine-map--mark",
    }
    DEFAULT_CSS = """
    MachineMap > .machine-map--free { color: $text-muted; }
    MachineMap > .machine-map--down { color: $error; text-style: bold; }
    MachineMap > .machine-map--reserved { color: $warning; }
    MachineMap > .machine-map--pending { color: $secondary; text-style: bold; }
    MachineMap > .machine-map--cursor { text-style: underline; }
    MachineMap:focus > .machine-map--cursor { text-style: reverse bold; }
    MachineMap > .machine-map--axis { color: $text-muted; }
    MachineMap > .machine-map--io { color: $accent; text-style: bold; }
    MachineMap > .machine-map--label { color: $text-secondary; }
    MachineMap > .machine-map--header { color: $text; }
    MachineMap > .machine-map--mark { color: $foreground 60%; }
    MachineMap:focus > .machine-map--mark { color: $foreground; }
    """

    cursor: reactive[int] = reactive(0, always_update=True)
    """The selected unit (a cell index, as :mod:`meshsim.engine.topology.units` counts them)."""

    class UnitSelected(Message):
        """The operator chose a unit (``enter`` or a click)."""

        def __init__(self, cell: int) -> None:
            super().__init__()
            self.cell = cell

    class CursorMoved(Message):
        """The cursor moved to another unit."""

        def __init__(self, cell: int) -> None:
            super().__init__()
            self.cell = cell

    def __init__(self, *, leave: int = 0, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.leave = leave
        """Lines of the container the map leaves to the panes under it."""
        self._snapshot: Snapshot | None = None
        self._machine: Machine | None = None
        self._layout: Layout | None = None
        self._built_width = -1
        self._owners = np.zeros(0, dtype=np.int64)
        self._legend: list[tuple[tuple[int, str], ...]] = []
        self._counts = ""
        self._lines: LRUCache[tuple[int, int, bool], Strip] = LRUCache(1024)
        self._slot_rows = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
        self._job_styles: dict[str, Style] = {}
        """Job styles by colour: a dozen, however many jobs a long run starts."""
        self._components: dict[tuple[str, bool, bool], Style] = {}
        self._half_styles: dict[tuple[str, int | None, int | None], Style] = {}
        """Compact cells' styles by (upper, lower) owner, jobs by index; cleared with the theme."""
        self._full_rows: dict[tuple[str, int], int] = {}
        """Lines of each machine's full picture by pane width (to choose full or compact)."""
        self._height = 0

    # ------------------------------------------------------------------ data in

    def show(self, snapshot: Snapshot) -> None:
        """Remember ``snapshot`` and repaint (the layout is rebuilt only for a new machine or
        width)."""
        if snapshot is self._snapshot:
            return
        self._snapshot = snapshot
        if snapshot.machine is not self._machine:
            self._machine = snapshot.machine
            self._layout = None
            self.cursor = min(self.cursor, unit_count(snapshot.machine) - 1)
        self._update()

    def _update(self) -> None:
        """Recompute everything derived from the snapshot and the width, then repaint."""
        snapshot = self._snapshot
        if snapshot is None:
            return
        # The width left by a vertical scrollbar, whether one shows or not: the picture chosen
        # (full or compact) decides whether the pane scrolls, and a width that changed with the
        # scrollbar would change the choice again.
        width = max(self.content_region.width - self.styles.scrollbar_size_vertical, 20)
        before, legend = self._owners, self._legend
        half = self._compact(snapshot.machine, width)
        if self._layout is None or width != self._built_width or half != self._layout.half:
            self._layout = build_layout(snapshot.machine, width, half)
            self._built_width = width
            self._slot_rows = slot_rows(self._layout)
            self.call_after_refresh(self._scroll_to_cursor)
            before = np.zeros(0, dtype=np.int64)
        self._owners = slot_owners(snapshot, self._layout)
        self._counts = self._count_text(snapshot)
        self._legend = self._legend_rows(snapshot, width)
        stale: set[int] | None = None
        if before.shape != self._owners.shape:
            self._lines.clear()
        else:
            slots, rows = self._slot_rows
            stale = set(np.unique(rows[np.isin(slots, np.flatnonzero(before != self._owners))]))
            if legend != self._legend:
                first = len(self._layout.rows)
                stale.update(range(first, first + 1 + max(len(legend), len(self._legend))))
            for key in [k for k in self._lines.keys() if k[0] in stale]:  # noqa: SIM118
                self._lines.discard(key)
        rows = len(self._layout.rows) + (1 + len(self._legend) if self._legend else 0)
        scroll = self.scroll_offset
        set_virtual_size(self, Size(self._layout.width, rows + HEADER))
        self._fit_height()
        if stale is None or self.scroll_offset != scroll:
            self.refresh()
        else:
            self._refresh_rows(stale)

    def _available(self) -> int:
        """Lines of its container the map may take (0 before the container is laid out)."""
        parent = self.parent
        height = parent.size.height if isinstance(parent, Widget) else 0
        return max(0, height - self.leave)

    def _compact(self, machine: Machine, width: int) -> bool:
        """Whether the map is drawn compact: the full picture, its header, border and
        :data:`LEGEND_MIN` legend lines do not fit the lines available."""
        available = self._available()
        if not available:  # the column is not laid out yet: choose again once it is
            self.call_after_refresh(self._update)
            return False
        if machine.topology == "flat":
            return False
        key = (machine.name, width)
        if key not in self._full_rows:
            self._full_rows[key] = len(build_layout(machine, width).rows)
        return self.styles.gutter.height + HEADER + self._full_rows[key] + LEGEND_MIN > available

    def _fit_height(self) -> None:
        """Make the pane as tall as its picture and up to :data:`LEGEND_SHOWN` legend lines, within
        the lines available (set only when it changes: each change lays the screen out again)."""
        available = self._available()
        if not available or self._layout is None:
            return
        legend = 1 + min(LEGEND_SHOWN, len(self._legend)) if self._legend else 0
        wanted = self.styles.gutter.height + HEADER + len(self._layout.rows) + legend
        height = min(available, wanted)
        if height != self._height:
            self._height = height
            self.styles.height = height

    def refit(self) -> None:
        """The column's height changed (the terminal was resized): choose the picture again."""
        self._update()

    def _refresh_rows(self, rows: set[int]) -> None:
        """Repaint the header and the lines of layout rows ``rows`` that are on screen, not the
        whole pane: on Intrepid about half the rows change owner between two live frames, and
        Textual restyles every line of a pane that is repainted whole."""
        width, height = self.size
        top = int(self.scroll_offset.y)
        lines = sorted(y for y in (HEADER + int(row) - top for row in rows) if HEADER <= y < height)
        self.refresh(Region(0, 0, width, HEADER), *(Region(0, y, width, 1) for y in lines))

    def _count_text(self, snapshot: Snapshot) -> str:
        owners = snapshot.owners
        if len(owners):
            busy = int(np.count_nonzero(owners >= 0))
            idle = int(np.count_nonzero(owners == FREE))
            down = int(np.count_nonzero(owners == DOWN))
            reserved = int(np.count_nonzero(owners == RESERVED))
        else:
            busy, idle = snapshot.machine.nodes - snapshot.free_nodes, snapshot.free_nodes
            down = reserved = 0
        text = f"{busy} busy · {idle} idle · {down} down"
        ahead = sum(1 for r in snapshot.reservations if r.state == "pending")
        text += f" · {reserved} rsvd" if reserved else ""
        return text + (f" · {ahead} pending" if ahead else "")

    def _legend_rows(self, snapshot: Snapshot, width: int) -> list[tuple[tuple[int, str], ...]]:
        """The reservations, one a line (``◌ R47-M1 pending day 10 14:06:05 → ...``), then the
        running jobs as ``A 1234 R00-M0..R01-M1`` entries, as many per row as fit."""
        return self._reservation_rows(snapshot) + self._job_rows(snapshot, width)

    def _reservation_rows(self, snapshot: Snapshot) -> list[tuple[tuple[int, str], ...]]:
        rows: list[tuple[tuple[int, str], ...]] = []
        for r in snapshot.reservations[:RESERVATIONS_SHOWN]:
            owner = PENDING if r.state == "pending" else RESERVED
            text = f"{_STATES[owner][0]} {r.label} {r.state} {clock(r.start)} → {clock(r.until)}"
            rows.append(((owner, text),))
        if len(snapshot.reservations) > RESERVATIONS_SHOWN:
            more = len(snapshot.reservations) - RESERVATIONS_SHOWN
            rows.append(((FREE, f"… {more} more reservations (v lists them)"),))
        return rows

    def _job_rows(self, snapshot: Snapshot, width: int) -> list[tuple[tuple[int, str], ...]]:
        entries = [
            (r.job.index, f"{job_letter(r.job.index)} {r.job.job_id} {r.placement.label}".strip())
            for r in snapshot.running[:LEGEND_MAX]
        ]
        if len(snapshot.running) > LEGEND_MAX:
            entries.append((FREE, f"… {len(snapshot.running) - LEGEND_MAX} more"))
        if not entries:
            return []
        cell = max(len(text) for _, text in entries) + 2
        per_row = max(1, width // cell)
        padded = [(index, text.ljust(cell)) for index, text in entries]
        return [tuple(padded[i : i + per_row]) for i in range(0, len(padded), per_row)]

    def on_resize(self, event: events.Resize) -> None:
        self._update()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._lines.clear()
        self._job_styles.clear()
        self._components.clear()
        self._half_styles.clear()

    # ------------------------------------------------------------------ units and cursor

    def unit_label(self, cell: int) -> str:
        """The operator's name of ``cell``: ``R00-M0``, ``(x,y)`` / ``(x,y,z)``, ``node N``."""
        return str(cell) if self._machine is None else unit_label(self._machine, cell)

    def _cursor_slot(self) -> int | None:
        layout = self._layout
        if layout is None or not 0 <= self.cursor < unit_count(self._machine):
            return None
        return layout.slot_of(self.cursor)

    def action_move(self, dx: int, dy: int) -> None:
        """Move the cursor one unit on screen; it stays put at an edge."""
        slot = self._cursor_slot()
        if slot is not None:
            self.cursor = self._layout.unit_of(self._layout.step(slot, dx, dy))

    def validate_cursor(self, cell: int) -> int:
        if self._machine is not None:
            cell = min(cell, unit_count(self._machine) - 1)
        return max(0, cell)

    def _scroll_to_cursor(self) -> None:
        slot = self._cursor_slot()
        if slot is not None:
            row, col = (int(v) for v in self._layout.where[slot])
            # Two lines tall: the fixed header hides one line of the scrolled area.
            self.scroll_to_region(Region(col, row, self._layout.cell_width, 2), animate=False)

    def watch_cursor(self, old: int, cell: int) -> None:
        self._scroll_to_cursor()
        if old != cell:
            self.post_message(self.CursorMoved(cell))
        self.refresh()

    def action_select(self) -> None:
        """Inspect the unit under the cursor."""
        self.post_message(self.UnitSelected(self.cursor))

    def on_click(self, event: events.Click) -> None:
        layout = self._layout
        if layout is None or event.y < HEADER:
            return
        row = event.y - HEADER + int(self.scroll_offset.y)
        slot = layout.slot_at(row, event.x + int(self.scroll_offset.x))
        if slot is not None:
            self.cursor = layout.unit_of(slot)
            self.post_message(self.UnitSelected(self.cursor))

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    # ------------------------------------------------------------------ drawing

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if y < HEADER:
            return self._header().crop_extend(0, width, self._base())
        row = y - HEADER + int(self.scroll_offset.y)
        slot = self._cursor_slot()
        layout = self._layout
        on_row = slot is not None and layout is not None and int(layout.where[slot, 0]) == row
        key = (row, slot if on_row else -1, self.has_focus)
        strip = self._lines.get(key)
        if strip is None:
            strip = self._line(row, slot if on_row else None)
            self._lines[key] = strip
        x = int(self.scroll_offset.x)
        return strip.crop_extend(x, x + width, self._base())

    def _header(self) -> Strip:
        style = self._component("machine-map--header")
        if self._machine is None:
            return Strip([Segment("no machine", style)])
        muted = self._component("machine-map--axis")
        segments = [
            Segment(self._machine.name + "  ", style + Style(bold=True)),
            Segment(self._counts, style),
        ]
        slot = self._cursor_slot()
        if slot is not None:
            owner = int(self._owners[slot])
            state = f"job {job_letter(owner)}" if owner >= 0 else _STATES[owner][1].split("--")[1]
            segments.append(Segment(f"  {self.unit_label(self.cursor)} {state}", muted))
        return Strip(segments)

    def _line(self, row: int, cursor: int | None) -> Strip:
        """Layout row ``row`` (or a legend row) at full width, the cursor on slot ``cursor``."""
        layout = self._layout
        if layout is None:
            return Strip.blank(0)
        if row >= len(layout.rows):
            return self._legend_line(row - len(layout.rows) - 1)
        segments: list[Segment] = []
        for item in layout.rows[row]:
            if isinstance(item, Span):
                segments += self._span(item, cursor)
            elif isinstance(item, Halves):
                segments += self._halves(item, cursor)
            elif isinstance(item, Join):
                a, b = int(self._owners[item.left]), int(self._owners[item.right])
                joined = a == b and a >= 0
                segments.append(
                    Segment(LINK, self._job_style(a)) if joined else Segment(" ", self._base())
                )
            elif isinstance(item, Text):
                segments.append(Segment(item.text, self._role(item.role)))
        return Strip(segments).simplify()

    def _span(self, span: Span, cursor: int | None) -> list[Segment]:
        """Runs of equal owners as one segment each (the cursor slot split out). Spans are short (a
        row of a mesh, a rack's midplanes), so plain lists beat NumPy calls here."""
        at = -1
        if cursor is not None:
            hits = np.flatnonzero(span.slots == cursor)
            at = int(hits[0]) if len(hits) else -1
        cursor_style = self._component("machine-map--cursor", partial=True)
        segments: list[Segment] = []
        a = 0
        for owner, run in groupby(self._owners[span.slots].tolist()):
            b = a + sum(1 for _ in run)
            art, style = self._art(owner), self._state_style(owner)
            if a <= at < b:
                if at > a:
                    segments.append(Segment(art * (at - a), style))
                segments.append(Segment(art, style + cursor_style))
                if b > at + 1:
                    segments.append(Segment(art * (b - at - 1), style))
            else:
                segments.append(Segment(art * (b - a), style))
            a = b
        return segments

    def _halves(self, halves: Halves, cursor: int | None) -> list[Segment]:
        """A compact line: each column a half block, the upper unit's colour over the lower
        one's; the cursor's unit in the mark colour. Runs of equal columns are one segment."""
        width = self._layout.cell_width if self._layout is not None else 1
        owners = self._owners

        def owner(slot: int) -> int | None:
            return None if slot < 0 else MARK if slot == cursor else int(owners[slot])

        tops = [owner(slot) for slot in halves.top.tolist()]
        bottoms = [owner(slot) for slot in halves.bottom.tolist()]
        segments = []
        for pair, run in groupby(zip(tops, bottoms, strict=True)):
            count = sum(1 for _ in run) * width
            segments.append(Segment(HALF * count, self._half_style(*pair)))
        return segments

    def _half_style(self, top: int | None, bottom: int | None) -> Style:
        """The upper unit's colour on the lower one's (the pane's background when none)."""
        key = ("half", top, bottom)
        style = self._half_styles.get(key)
        if style is None:
            back = self._colour(bottom) if bottom is not None else self._base().bgcolor
            front = self._colour(top) if top is not None else self._base().bgcolor
            style = Style(color=front, bgcolor=back)
            self._half_styles[key] = style
        return style

    def _colour(self, owner: int) -> Color | None:
        """A unit's colour in a compact cell: its job's, or its state's."""
        if owner == MARK:
            return self._component("machine-map--mark").color
        if owner >= 0:
            return Color.parse(job_color(owner))
        return self._component(_STATES.get(owner, _STATES[FREE])[1]).color

    def _art(self, owner: int) -> str:
        """What one slot looks like: ``A`` / ``A `` / ``[A]`` by cell width."""
        glyph = job_letter(owner) if owner >= 0 else _STATES.get(owner, _STATES[FREE])[0]
        layout = self._layout
        if layout is not None and layout.boxed:
            return f"[{glyph}]"
        if layout is not None and layout.cell_width == 2:
            return glyph * 2 if owner in (RESERVED, PENDING) else glyph + " "
        return glyph

    def _state_style(self, owner: int) -> Style:
        if owner >= 0:
            return self._job_style(owner)
        return self._component(_STATES.get(owner, _STATES[FREE])[1])

    def _job_style(self, index: int) -> Style:
        color = job_color(index)
        style = self._job_styles.get(color)
        if style is None:
            style = self._base() + Style(color=color, bold=True)
            self._job_styles[color] = style
        return style

    def _base(self) -> Style:
        """The map's own style (``rich_style``), kept like the component styles: computing it walks
        the widget's ancestors, and each drawn line needs it."""
        key = ("", False, self.has_focus)
        style = self._components.get(key)
        if style is None:
            style = self._components[key] = self.rich_style
        return style

    def _role(self, role: str) -> Style:
        return self._component(f"machine-map--{role}")

    def _component(self, name: str, *, partial: bool = False) -> Style:
        """A component class's style, looked up once per theme or style change and focus state (the
        cursor looks different when the map has focus; a lookup per drawn span cost most of a redraw
        of the Intrepid map)."""
        key = (name, partial, self.has_focus)
        style = self._components.get(key)
        if style is None:
            style = self.get_component_rich_style(name, partial=partial)
            self._components[key] = style
        return style

    def _legend_line(self, index: int) -> Strip:
        if not 0 <= index < len(self._legend):
            return Strip.blank(0)
        return Strip(
            [
                Segment(text, self._job_style(owner) if owner >= 0 else self._legend_style(owner))
                for owner, text in self._legend[index]
            ]
        )

    def _legend_style(self, owner: int) -> Style:
        """A legend entry that is not a job: a reservation in its state's style, else muted."""
        if owner in (RESERVED, PENDING):
            return self._component(_STATES[owner][1])
        return self._role("axis")
