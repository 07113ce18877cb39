"""The waiting queue: a virtual list (Line API) that draws only the rows on screen.

A pane too narrow for every column and a readable reason (:data:`REASON_MIN`) shows each job on two
lines, the reason below its row, and keeps only the :data:`NARROW` columns when even those do not
fit, so an 80×24 terminal still tells why each job waits.

With 50,000 waiting jobs a table widget would build 50,000 rows per frame; this list keeps the
snapshot's tuple of waiting jobs and renders the visible slice on demand, so a frame costs the same
for 50 or 50,000 jobs (style anchors §3.4–3.5).

Each job's reason is its :class:`~meshsim.engine.kernel.waits.Wait` — the blocker and the expected
start, led by how long until then (``in 3h05m ·``) — computed in the engine process for the rows on
screen only: the frames carry the waits of the head of the queue, and when rows without one come
into view (scrolled to, sorted or filtered in) the list asks for theirs (:class:`WatchWanted`). The
whole text of the job under the cursor goes to the detail line under the pane
(:class:`DetailChanged`).

The operator sorts it by any column (``o`` the next column, ``O`` the other direction), filters it
(``/``), and sees sections for blocked and held jobs and, with ``U``, the totals per user
(:mod:`meshsim.tui.queue_view`); sorting and filtering cost a pass over the queue per frame, the
default view none."""

from __future__ import annotations

import math
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
from meshsim.engine.kernel.waits import Wait
from meshsim.engine.scheduling.orders import QUEUE_ORDERS, QueueOrder
from meshsim.tui.format import compact, duration, shape_text
from meshsim.tui.jobstyle import PALETTE, job_color
from meshsim.tui.queue_view import SORTS, QueueFilter, Section, queue_rows, user_totals
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
        Binding("o", "sort(1)", "Sort", id="queue-sort", tooltip="Sort by the next column"),
        Binding("O", "reverse", "Reverse", id="queue-reverse", tooltip="Sort the other way round"),
        Binding("U", "users", "Users", id="queue-users", tooltip="Totals per user, or the jobs"),
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

    class WatchWanted(Message):
        """Rows without a wait are on screen: the engine should explain ``jobs`` (indices)."""

        def __init__(self, jobs: frozenset[int]) -> None:
            super().__init__()
            self.jobs = jobs

    class DetailChanged(Message):
        """The whole wait of the job under the cursor changed (``text``; empty: no job)."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._jobs: Sequence[Job | Section] = ()
        self._waits: Mapping[int, Wait] = {}
        self._held: frozenset[int] = frozenset()
        self._watched: frozenset[int] = frozenset()
        """The jobs the list last asked the engine to explain."""
        self._detail = ""
        self.filter: QueueFilter | None = None
        """The operator's filter (``/``); None lists every job."""
        self.sort = "#"
        """The column the list is sorted by (``#``: queue order)."""
        self.descending = False
        self.users = False
        """Whether the pane shows the totals per user instead of the jobs."""
        self._user_lines: list[str] = []
        self._snapshot: Snapshot | None = None
        self._order: QueueOrder | None = None
        self._order_name = ""
        self._now = 0.0
        self._selected_index = -1
        self._styles: tuple[Style, Style, Style] | None = None

    def show(self, snapshot: Snapshot) -> None:
        """Render ``snapshot``'s queue: its sections, filtered and sorted as the operator chose
        (:func:`~meshsim.tui.queue_view.queue_rows`); the cursor stays on the job it was on when
        that job is still listed. Only the rows on screen are drawn; finding the selected job again
        looks near the cursor first, so a frame in the default view does no Python work per
        waiting job."""
        self._snapshot = snapshot
        if snapshot.policy.queue != self._order_name:
            self._order_name = snapshot.policy.queue
            self._order = QUEUE_ORDERS.get(self._order_name)(snapshot.machine)
        self._jobs = queue_rows(snapshot, self.filter, self.sort, self.descending)
        self._waits = snapshot.waits
        self._held = frozenset(job.index for job in snapshot.held) if snapshot.held else frozenset()
        self._now = snapshot.time
        if self.users:
            self._user_lines = _user_lines(snapshot)
        set_virtual_size(self, Size(self.size.width, self._lines_total()))
        position = self._position(self._selected_index)
        if position is not None:
            self.cursor = position
        else:
            self.cursor = min(self.cursor, max(0, len(self._jobs) - 1))
        if self._jobs:
            self._selected_index = self._jobs[self.cursor].index
        self.border_title = self._pane_title(snapshot)
        self.refresh()
        self._follow_up()

    def _follow_up(self) -> None:
        """Ask for the waits of the rows on screen that lack one, and pass the detail on."""
        visible = self._visible_jobs()
        if any(j.index not in self._waits and j.index not in self._held for j in visible):
            wanted = frozenset(j.index for j in visible)
            if wanted != self._watched:
                self._watched = wanted
                self.post_message(self.WatchWanted(wanted))
        detail = self.detail()
        if detail != self._detail:
            self._detail = detail
            self.post_message(self.DetailChanged(detail))

    def _visible_jobs(self) -> list[Job]:
        """The jobs of the rows on screen (none in the per-user view)."""
        if self.users:
            return []
        lines = self._lines_per_job()
        top = int(self.scroll_offset.y) // lines
        rows = self._jobs[top : top + max(1, self.size.height) // lines + 1]
        return [row for row in rows if not isinstance(row, Section)]

    def reason(self, job: Job) -> str:
        """A row's reason: how long until the expected start, then the engine's whole wait."""
        wait = self._waits.get(job.index)
        if wait is None:
            return "held by the operator" if job.index in self._held else ""
        return lead(wait.start, self._now) + wait.text

    def detail(self) -> str:
        """The detail line: the job under the cursor and its whole wait (the row leads with the
        time to its expected start; the wait itself gives the time)."""
        job = self.selected
        if job is None:
            return ""
        wait = self._waits.get(job.index)
        if wait is not None:
            return f"job {job.job_id}: {wait.text}"
        why = "held by the operator" if job.index in self._held else "its wait is being computed"
        return f"job {job.job_id}: {why}"

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if round(old_value) != round(new_value):
            self._follow_up()

    def _pane_title(self, snapshot: Snapshot) -> str:
        """The counts, and the filter and sort in use."""
        held = f" + {len(snapshot.held):,} held" if snapshot.held else ""
        title = f"waiting queue · {len(snapshot.waiting):,}{held}"
        if self.filter is not None:
            title += f" · filter {self.filter.text}"
        if self.sort != "#" or self.descending:
            title += f" · by {self.sort} {'▼' if self.descending else '▲'}"
        return title

    def _lines_total(self) -> int:
        if self.users:
            return len(self._user_lines) + 1
        return len(self._jobs) * self._lines_per_job() + 1

    def _again(self) -> None:
        """Show the last snapshot again after a change of view."""
        if self._snapshot is not None:
            self.show(self._snapshot)

    def set_filter(self, chosen: QueueFilter | None) -> None:
        """List only the jobs ``chosen`` keeps (None: every job)."""
        self.filter = chosen
        self._again()

    def action_sort(self, step: int) -> None:
        """Sort by the next column (``#``, job, user, size, est, wait, and round again)."""
        names = list(SORTS)
        self.sort = names[(names.index(self.sort) + step) % len(names)]
        self.descending = False
        self._again()

    def action_reverse(self) -> None:
        self.descending = not self.descending
        self._again()

    def action_users(self) -> None:
        self.users = not self.users
        self.scroll_to(y=0, animate=False)
        self._again()

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
        """The job under the cursor (None on a section's title or in the per-user view)."""
        if self.users or not self._jobs:
            return None
        row = self._jobs[self.cursor]
        return None if isinstance(row, Section) else row

    def _lines_per_job(self) -> int:
        """1 when the reason fits beside the columns, else 2 (see :func:`fit`)."""
        return fit(self.size.width)[1]

    def on_resize(self) -> None:
        self.virtual_size = Size(self.size.width, self._lines_total())

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
        if self.users:
            self.scroll_to(y=max(0, int(self.scroll_offset.y) + delta), animate=False)
            return
        if self._jobs:
            cursor = max(0, min(len(self._jobs) - 1, self.cursor + delta))
            step = 1 if delta >= 0 else -1
            while isinstance(self._jobs[cursor], Section) and 0 <= cursor + step < len(self._jobs):
                cursor += step
            self.cursor = cursor
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
        if not self.users and y >= 0 and row < len(self._jobs):
            self.cursor = row
            self.action_select()

    def watch_cursor(self, cursor: int) -> None:
        """The cursor follows its job from frame to frame (e.g. when it is held and moves to the end
        of the list); the detail line follows the cursor."""
        if cursor < len(self._jobs):
            self._selected_index = self._jobs[cursor].index
        self.refresh()
        self._follow_up()

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        header_style = self._line_styles()[0]
        if self.users:
            lines = [USER_HEADER, *self._user_lines]
            row = y if y == 0 else y + int(self.scroll_offset.y)
            if row >= len(lines):
                return Strip.blank(width)
            style = header_style if row == 0 else Style()
            return Strip([Segment(lines[row][:width].ljust(width), style)], width)
        columns, lines_per_job = fit(width)
        if y == 0:
            head = "".join(self._title(name).rjust(w) for name, w in columns)
            if lines_per_job == 1:
                head += "  reason"
            return Strip([Segment(head[:width].ljust(width), header_style)], width)
        if not self._jobs:
            text = ("(no job listed)" if self.filter else "(no job waiting)") if y == 1 else ""
            return Strip([Segment(text[:width].ljust(width), Style(dim=True))], width)
        row, part = divmod(y - 1 + int(self.scroll_offset.y), lines_per_job)
        if row >= len(self._jobs):
            return Strip.blank(width)
        entry = self._jobs[row]
        if isinstance(entry, Section):
            text = entry.title if part == 0 else ""
            return Strip([Segment(text[:width].ljust(width), header_style)], width)
        return self._row(row, part, columns, lines_per_job, width)

    def _title(self, name: str) -> str:
        """A column's title, marked when the list is sorted by it."""
        if name != self.sort or (name == "#" and not self.descending):
            return name
        return name + ("▼" if self.descending else "▲")

    def _row(
        self, row: int, part: int, columns: tuple[tuple[str, int], ...], lines: int, width: int
    ) -> Strip:
        """Line ``part`` of job ``row``: its cells and reason, or (two-line rows) its reason."""
        job = self._jobs[row]
        assert isinstance(job, Job)
        _, cursor, muted = self._line_styles()
        base = job_style(job.index)
        if row == self.cursor and self.has_focus:
            base = base + cursor
        reason = self.reason(job)
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
            "prio": compact(score),
        }
        text = "".join(cells[name].rjust(w)[-w:] for name, w in columns)
        segments = [Segment(text, base)]
        if lines == 1:
            segments.append(Segment("  " + reason, muted))
        return Strip(segments).crop_extend(0, width, None)


def lead(start: float, now: float) -> str:
    """How long until an expected start, as a row's reason begins: ``in 3h05m · ``, ``now · ``,
    ``never · `` (not while units are out of service); nothing when none was computed."""
    if math.isnan(start):
        return ""
    if math.isinf(start):
        return "never · "
    return "now · " if start <= now else f"in {duration(start - now)} · "


USER_HEADER = f"{'user':>6} {'waiting':>8} {'nodes':>8} {'held':>5} {'running':>8} {'nodes':>8}"
"""The per-user view's column titles."""


def _user_lines(snapshot: Snapshot) -> list[str]:
    return [
        f"{t.user if t.user >= 0 else '-':>6} {t.waiting:>8,} {t.waiting_nodes:>8,} "
        f"{t.held:>5,} {t.running:>8,} {t.running_nodes:>8,}"
        for t in user_totals(snapshot)
    ]


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
