"""The timeline: a Gantt view of recent and running jobs over simulated time.

One row per job, the most recently started first: finished jobs (``snapshot.finished``) as solid
bars in the job's colour from start to end, labelled with the job's id; running jobs solid up to now
and shaded (``░``) up to their expected end; killed jobs ending in ``×``. The fixed first line is
the time axis, labelled relative to now, which it passes by a fifth of the window so expected ends
show. ``window`` is the span in simulated seconds; 0 fits the jobs shown (``+``/``-`` zoom, ``0``
fits again). Only jobs that overlap the axis get a row."""

from __future__ import annotations

from typing import ClassVar, NamedTuple

from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from meshsim.engine.kernel.records import Snapshot
from meshsim.tui.format import duration
from meshsim.tui.jobstyle import KILLED_GLYPH, job_color, job_letter
from meshsim.tui.widgets.scrolling import set_virtual_size

LABEL = 20
"""Columns of the row label: letter, job id and location."""

AHEAD = 0.2
"""How far past now the axis runs, as a fraction of the window."""

HEADER = 1
"""Fixed lines above the rows (the axis)."""

TICK_STEPS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600)
TICK_STEPS += (43200, 86400, 172800, 604800, 2592000)
"""Axis tick spacings in seconds; the smallest at least ``TICK_GAP`` columns apart is used."""

TICK_GAP = 10

MIN_WINDOW = 1.0
MAX_WINDOW = 365 * 86400.0


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
    """Running and recently finished jobs, latest start first (ties by job id)."""
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


def fit_window(rows: list[Bar], now: float) -> float:
    """A window that shows the earliest start among ``rows`` (a minute when there are none)."""
    span = (now - min(b.start for b in rows)) * 1.05 if rows else 60.0
    return min(MAX_WINDOW, max(MIN_WINDOW, span))


def column(t: float, t0: float, t1: float, width: int) -> int:
    """The column of time ``t`` on a ``width``-column axis from ``t0`` to ``t1`` (unclamped)."""
    return int((t - t0) * width // (t1 - t0))


def columns(start: float, end: float, t0: float, t1: float, width: int) -> tuple[int, int]:
    """The half-open column range [a, b) that [start, end] covers on the axis, clamped to it; a bar
    on screen gets at least one column, a bar off screen an empty range."""
    if end < t0 or start > t1:
        return 0, 0
    a = max(0, min(width - 1, column(start, t0, t1, width)))
    b = max(a + 1, min(width, column(end, t0, t1, width)))
    return a, b


def ticks(t0: float, t1: float, now: float, width: int) -> list[tuple[int, str]]:
    """(column, label) of the axis ticks, every step back from now (``now`` itself at now)."""
    per_second = width / (t1 - t0)
    step = next((s for s in TICK_STEPS if s * per_second >= TICK_GAP), TICK_STEPS[-1])
    out = []
    k = 0
    while now - k * step >= t0:
        label = "now" if k == 0 else "-" + _round_duration(k * step)
        out.append((column(now - k * step, t0, t1, width), label))
        k += 1
    return out[::-1]


def _round_duration(seconds: float) -> str:
    """``duration`` without a zero second part: ``12m``, ``3h``, ``2d`` (``3h30m`` stays)."""
    text = duration(seconds)
    return text[:-3] if len(text) > 3 and text[-3:] in ("00s", "00m", "00h") else text


def text_color(background: str) -> str:
    """Black or white, whichever reads better on ``background``."""
    r, g, b = Color.parse(background).get_truecolor()
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "white"


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
        Binding("0", "fit", "Fit", id="timeline-fit", tooltip="Fit the window to the jobs shown"),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {"timeline--axis", "timeline--label", "timeline--now"}
    DEFAULT_CSS = """
    Timeline > .timeline--axis { color: $text-muted; }
    Timeline > .timeline--label { color: $text-secondary; }
    Timeline > .timeline--now { color: $accent; }
    """

    window: reactive[float] = reactive(0.0)
    """Simulated seconds shown up to now; 0 fits the jobs shown."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._snapshot: Snapshot | None = None
        self._all: list[Bar] = []
        self._rows: list[Bar] = []
        self._now = 0.0
        self._span = (0.0, 1.0)
        self._lines: LRUCache[int, Strip] = LRUCache(512)

    def show(self, snapshot: Snapshot) -> None:
        """Remember ``snapshot`` and repaint."""
        if snapshot is self._snapshot:
            return
        self._snapshot = snapshot
        self._all = bars(snapshot)
        self._now = snapshot.time
        self._update()

    def span(self) -> tuple[float, float]:
        """The axis: the window up to now, then a fifth of it ahead."""
        return self._span

    def effective_window(self) -> float:
        """The window in use: ``window``, or the fitted one when ``window`` is 0."""
        return self.window or fit_window(self._all, self._now)

    def _update(self) -> None:
        window = self.effective_window()
        t0, t1 = self._now - window, self._now + window * AHEAD
        self._span = (t0, t1)
        self._rows = [b for b in self._all if b.end >= t0 and b.start <= t1]
        self._lines.clear()
        set_virtual_size(self, Size(self.scrollable_content_region.width, len(self._rows) + HEADER))
        self.refresh()

    def action_zoom(self, factor: float) -> None:
        """Scale the window by ``factor``."""
        self.window = max(MIN_WINDOW, min(MAX_WINDOW, self.effective_window() * factor))

    def action_fit(self) -> None:
        """Fit the window to the jobs again."""
        self.window = 0.0

    def watch_window(self) -> None:
        self._update()

    def on_resize(self, event: events.Resize) -> None:
        self._update()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._lines.clear()

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if y < HEADER:
            return self._axis(width)
        row = y - HEADER + int(self.scroll_offset.y)
        strip = self._lines.get(row)
        if strip is None:
            strip = self._row(row, width)
            self._lines[row] = strip
        return strip

    def _axis(self, width: int) -> Strip:
        plot = max(1, width - LABEL)
        t0, t1 = self._span
        cells = [" "] * plot
        for col, label in ticks(t0, t1, self._now, plot):
            at = max(0, col - (len(label) if label == "now" else 0))
            if all(c == " " for c in cells[max(0, at - 1) : at + len(label) + 1]):
                cells[at : at + len(label)] = label
                cells[col] = "|" if cells[col] == " " else cells[col]
        head = f"window {duration(self.effective_window())}"[: LABEL - 1].ljust(LABEL)
        axis = self.get_component_rich_style("timeline--axis")
        return Strip([Segment(head + "".join(cells)[:plot], axis)]).crop_extend(
            0, width, self.rich_style
        )

    def _row(self, row: int, width: int) -> Strip:
        if row >= len(self._rows):
            return Strip.blank(width, self.rich_style)
        bar = self._rows[row]
        plot = max(1, width - LABEL)
        t0, t1 = self._span
        color = job_color(bar.index)
        job_style = self.rich_style + Style(color=color, bold=True)
        solid = self.rich_style + Style(bgcolor=color, color=text_color(color))
        label = f"{bar.job_id} {bar.location}"[: LABEL - 3].ljust(LABEL - 3)
        segments = [
            Segment(job_letter(bar.index) + " ", job_style),
            Segment(label + " ", self.get_component_rich_style("timeline--label")),
        ]
        a, b = columns(bar.start, bar.end, t0, t1, plot)
        now = column(self._now, t0, t1, plot)
        split = max(a, min(b, now)) if bar.running else b
        text = str(bar.job_id)[: split - a].ljust(split - a)
        if bar.killed and split > a:
            text = text[:-1] + KILLED_GLYPH
        blank = self.rich_style
        now_mark = self.get_component_rich_style("timeline--now")
        segments.append(Segment(" " * a, blank))
        segments.append(Segment(text, solid))
        segments.append(Segment("░" * (b - split), job_style))
        if b <= now < plot:
            segments.append(Segment(" " * (now - b), blank))
            segments.append(Segment("│", now_mark))
            b = now + 1
        segments.append(Segment(" " * (plot - b), blank))
        return Strip(segments).simplify().crop_extend(0, width, self.rich_style)
