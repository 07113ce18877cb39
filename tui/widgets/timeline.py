"""The timeline: a Gantt view of recent and running jobs over simulated time.

One row per job, the most recently started first: finished jobs (``snapshot.finished``) as solid
bars from start to end, running jobs solid up to now and shaded up to their expected end,
killed jobs ending in ``×``. The window shows ``window`` simulated seconds up to now plus a tenth
of that ahead; ``+`` and ``-`` zoom.
"""

from __future__ import annotations

from typing import ClassVar, NamedTuple

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from engine.simulation import Snapshot
from tui.format import duration
from tui.jobstyle import job_color, job_letter

LABEL = 18
"""Columns for the row label (job number and location)."""


class Bar(NamedTuple):
    """One job's row: who, where, and from when to when."""

    index: int
    job_id: int
    location: str
    start: float
    end: float
    running: bool
    killed: bool


def bars(snapshot: Snapshot) -> list[Bar]:
    """The rows of ``snapshot``: running and recently finished jobs, latest start first."""
    rows = [
        Bar(r.job.index, r.job.job_id, r.placement.label, r.start, r.expected_end, True, False)
        for r in snapshot.running
    ]
    rows += [
        Bar(f.job.index, f.job.job_id, f.placement.label, f.start, f.end, False, f.killed)
        for f in snapshot.finished
    ]
    rows.sort(key=lambda b: (-b.start, b.job_id))
    return rows


def columns(start: float, end: float, t0: float, t1: float, width: int) -> tuple[int, int]:
    """The half-open column range [a, b) that [start, end] covers on a ``width``-column axis
    from ``t0`` to ``t1`` (clamped; at least one column when the bar is on screen)."""
    scale = width / (t1 - t0)
    a = max(0, min(width, int((start - t0) * scale)))
    b = max(0, min(width, int((end - t0) * scale + 0.999999)))
    if b <= a and t0 <= end and start <= t1 and a < width:
        b = a + 1
    return a, b


class Timeline(ScrollView, can_focus=True):
    """Gantt rows of the snapshot's running and recently finished jobs."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "plus,equals_sign",
            "zoom(0.5)",
            "Zoom in",
            id="timeline-zoom-in",
            tooltip="Show a shorter time window",
        ),
        Binding(
            "minus",
            "zoom(2)",
            "Zoom out",
            id="timeline-zoom-out",
            tooltip="Show a longer time window",
        ),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {"timeline--axis", "timeline--ahead"}
    DEFAULT_CSS = """
    Timeline > .timeline--axis { color: $text-muted; }
    Timeline > .timeline--ahead { color: $text-muted; }
    """

    window: reactive[float] = reactive(6 * 3600.0)

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._bars: list[Bar] = []
        self._now = 0.0

    def show(self, snapshot: Snapshot) -> None:
        self._bars = bars(snapshot)
        self._now = snapshot.time
        self.virtual_size = Size(self.size.width, len(self._bars) + 1)
        self.refresh()

    def action_zoom(self, factor: float) -> None:
        self.window = max(60.0, min(365 * 86400.0, self.window * factor))

    def watch_window(self) -> None:
        self.refresh()

    def span(self) -> tuple[float, float]:
        """The time axis: ``window`` seconds up to now, a tenth of it ahead."""
        return self._now - self.window, self._now + self.window / 10

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        plot = max(1, width - LABEL)
        t0, t1 = self.span()
        axis = self.get_component_rich_style("timeline--axis")
        if y == 0:
            now_col = columns(self._now, self._now, t0, t1, plot)[0]
            head = f"{'job  location':<{LABEL}}" + f"-{duration(self.window)}".ljust(now_col)
            return Strip([Segment((head + "|now")[:width].ljust(width), axis)])
        row = y - 1 + int(self.scroll_offset.y)
        if row >= len(self._bars):
            return Strip.blank(width)
        bar = self._bars[row]
        label = f"{bar.job_id:>6} {bar.location[: LABEL - 8]:<{LABEL - 8}} "
        style = Style(color=job_color(bar.index))
        a, b = columns(bar.start, bar.end, t0, t1, plot)
        now = columns(self._now, self._now, t0, t1, plot)[0] if bar.running else b
        solid_end = max(a, min(b, now))
        cells = [" "] * plot
        for c in range(a, solid_end):
            cells[c] = "█"
        for c in range(solid_end, b):
            cells[c] = "░"
        if bar.killed and b > a:
            cells[b - 1] = "×"
        if a < plot and b > a:
            cells[a] = job_letter(bar.index)
        segments = [Segment(label, axis), Segment("".join(cells), style)]
        return Strip(segments).crop_extend(0, width, None)
