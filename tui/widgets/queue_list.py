"""The waiting queue: a virtual list (Line API) that draws only the rows on screen.

A pane too narrow for every column and a readable reason (:data:`REASON_MIN`) shows each job on two
lines, the reason below its row, and keeps only the :data:`NARROW` columns when even those do not
fit, so an 80×24 terminal still tells why each job waits.

With 50,000 waiting jobs a table widget would build 50,000 rows per frame; this list keeps the
snapshot's tuple of waiting jobs and renders the visible slice on demand, so a frame costs the same
for 50 or 50,000 jobs (style anchors §3.4–3.5)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from operator import attrgetter
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from meshsim.engine.core.jobs import Job
from meshsim.engine.kernel.records import Snapshot
from meshsim.engine.scheduling.orders import QUEUE_ORDERS, QueueOrder
from meshsim.tui.format import duration, shape_text
from meshsim.tui.jobstyle import PALETTE, job_color
from meshsim.tui.widgets.scrolling import ROW_CURSOR_BINDINGS, set_virtual_size

COLUMNS = (
    ("#", 5),
    ("job", 7),
    ("user", 5),
    ("size", 6),
    ("shape", 7),
    ("est", 7),
    ("wait", 8),
    ("prio", 10),
)

NARROW = ("#", "job", "size", "est", "wait")
"""The columns a pane narrower than all of them keeps."""

REASON_MIN = 30
"""Columns the reason needs beside the full row; a narrower pane lists jobs on two lines."""


NEAR = 8
"""Rows either side of the cursor searched first for the selected job."""


class QueueList(ScrollView, can_focus=True):
    """Waiting jobs in queue order with the engine's reason each is not running."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *ROW_CURSOR_BINDINGS,
        Binding("enter", "select", "Inspect job", id="queue-inspect", tooltip="Inspect the job"),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "queue-list--header",
        "queue-list--cursor",
        "queue-list--reason",
    }
    DEFAULT_CSS = """
    /* The vertical scrollbar is always there: live, the queue's length crosses the pane's
       height often, and each time a scrollbar came or went the whole screen was laid out
       again and the columns moved sideways. */
    QueueList { overflow-x: hidden; overflow-y: scroll; }
    QueueList > .queue-list--header { text-style: bold; color: $text-accent; }
    QueueList > .queue-list--cursor { background: $accent 40%; }
    QueueList > .queue-list--reason { color: $text-muted; }
    """

    cursor: reactive[int] = reactive(0)

    class JobSelected(Message):
        """The operator chose a waiting job (``enter``)."""

        def __init__(self, job_id: int) -> None:
            super().__init__()
            self.job_id = job_id

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._jobs: Sequence[Job] = ()
        self._reasons: Mapping[int, str] = {}
        self._order: QueueOrder | None = None
        self._order_name = ""
        self._now = 0.0
        self._selected_index = -1
        self._styles: tuple[Style, Style, Style] | None = None

    def show(self, snapshot: Snapshot) -> None:
        """Render ``snapshot``'s queue (held jobs follow the waiting ones); the cursor stays on the
        job it was on when that job is still listed. Only the rows on screen are drawn; finding the
        selected job again looks near the cursor first, so a frame does no Python work per waiting
        job."""
        if snapshot.policy.queue != self._order_name:
            self._order_name = snapshot.policy.queue
            self._order = QUEUE_ORDERS.get(self._order_name)(snapshot.machine)
        if snapshot.held:
            self._jobs = snapshot.waiting + snapshot.held
            self._reasons = dict(snapshot.reasons)
            self._reasons.update((job.index, "held by the operator") for job in snapshot.held)
        else:
            self._jobs = snapshot.waiting
            self._reasons = snapshot.reasons
        self._now = snapshot.time
        set_virtual_size(self, Size(self.size.width, len(self._jobs) * self._lines_per_job() + 1))
        position = self._position(self._selected_index)
        if position is not None:
            self.cursor = position
        else:
            self.cursor = min(self.cursor, max(0, len(self._jobs) - 1))
        if self._jobs:
            self._selected_index = self._jobs[self.cursor].index
        self.refresh()

    def _position(self, index: int) -> int | None:
        """Where job ``index`` is listed: at the cursor or within :data:`NEAR` rows of it (jobs move
        a few rows between frames), else found by a scan in C; None when not listed."""
        jobs = self._jobs
        for k in range(max(0, self.cursor - NEAR), min(len(jobs), self.cursor + NEAR + 1)):
            if jobs[k].index == index:
                return k
        try:
            return list(map(attrgetter("index"), jobs)).index(index)
        except ValueError:
            return None

    @property
    def selected(self) -> Job | None:
        return self._jobs[self.cursor] if self._jobs else None

    def _lines_per_job(self) -> int:
        """1 when the reason fits beside the columns, else 2 (see :func:`fit`)."""
        return fit(self.size.width)[1]

    def on_resize(self) -> None:
        self.virtual_size = Size(self.size.width, len(self._jobs) * self._lines_per_job() + 1)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles = None

    def _line_styles(self) -> tuple[Style, Style, Style]:
        """Header, cursor and reason styles, looked up once per theme or style change (a lookup per
        line was most of a frame's drawing time with a full pane)."""
        if self._styles is None:
            reason = self.get_component_rich_style("queue-list--reason")
            self._styles = (
                self.get_component_rich_style("queue-list--header"),
                self.get_component_rich_style("queue-list--cursor"),
                Style(color=reason.color),
            )
        return self._styles

    def action_move(self, delta: int) -> None:
        if self._jobs:
            self.cursor = max(0, min(len(self._jobs) - 1, self.cursor + delta))
            lines = self._lines_per_job()
            top = self.cursor * lines - (self.size.height - 1 - lines) // 2
            self.scroll_to(y=max(0, top), animate=False)

    def action_select(self) -> None:
        job = self.selected
        if job is not None:
            self.post_message(self.JobSelected(job.job_id))

    def on_click(self, event: object) -> None:
        y = getattr(event, "y", 0) + int(self.scroll_offset.y) - 1
        row = y // self._lines_per_job()
        if y >= 0 and row < len(self._jobs):
            self.cursor = row
            self.action_select()

    def watch_cursor(self, cursor: int) -> None:
        """The cursor follows its job from frame to frame (e.g. when it is held and moves to the end
        of the list)."""
        if cursor < len(self._jobs):
            self._selected_index = self._jobs[cursor].index
        self.refresh()

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        columns, lines = fit(width)
        if y == 0:
            head = "".join(name.rjust(w) for name, w in columns)
            if lines == 1:
                head += "  reason"
            if not self._jobs:
                head += "   (no job waiting)"
            return Strip([Segment(head[:width].ljust(width), self._line_styles()[0])], width)
        row, part = divmod(y - 1 + int(self.scroll_offset.y), lines)
        if row >= len(self._jobs):
            return Strip.blank(width)
        return self._row(row, part, columns, lines, width)

    def _row(
        self, row: int, part: int, columns: tuple[tuple[str, int], ...], lines: int, width: int
    ) -> Strip:
        """Line ``part`` of job ``row``: its cells and reason, or (two-line rows) its reason."""
        job = self._jobs[row]
        _, cursor, muted = self._line_styles()
        base = job_style(job.index)
        if row == self.cursor and self.has_focus:
            base = base + cursor
        reason = self._reasons.get(job.index, "")
        if part == 1:
            return Strip([Segment("    ↳ ", base), Segment(reason, muted)]).crop_extend(
                0, width, None
            )
        score = self._order.score(job, self._now) if self._order else 0.0
        cells = {
            "#": str(row + 1),
            "job": str(job.job_id),
            "user": str(job.user) if job.user >= 0 else "-",
            "size": str(job.size),
            "shape": shape_text(job.shape),
            "est": duration(job.estimate),
            "wait": duration(max(0.0, self._now - job.submit)),
            "prio": f"{score:.3g}",
        }
        text = "".join(cells[name].rjust(w)[-w:] for name, w in columns)
        segments = [Segment(text, base)]
        if lines == 1:
            segments.append(Segment("  " + reason, muted))
        return Strip(segments).crop_extend(0, width, None)


@lru_cache(maxsize=8)
def fit(width: int) -> tuple[tuple[tuple[str, int], ...], int]:
    """The columns and the lines per job at ``width``: every column when they fit, else the
    :data:`NARROW` ones; the reason beside them when :data:`REASON_MIN` more columns fit, else on a
    second line."""
    full = sum(w for _, w in COLUMNS)
    columns = COLUMNS if width >= full else tuple(c for c in COLUMNS if c[0] in NARROW)
    return columns, 1 if width >= full + REASON_MIN else 2


def job_style(index: int) -> Style:
    """A job's text style: its colour (one style per palette colour, however many jobs)."""
    return _colour_style(job_color(index))


@lru_cache(maxsize=len(PALETTE))
def _colour_style(colour: str) -> Style:
    return Style(color=colour)
