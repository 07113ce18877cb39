"""The event log: the run's latest events, newest at the bottom, and a search over the whole run.

Typing in the box filters the latest events at once (a job number, a kind such as ``start`` or
``action``, a location); ``enter`` asks the engine process for the matching lines of the whole run
(its history is kept there, :mod:`meshsim.engine.kernel.history`, so the UI's memory does not
grow with the run), and the log shows the newest page of matches, ``[`` the page before. Clearing
the box goes back to the latest events.

The lines are drawn by a Line-API list that follows the newest line while it is scrolled to the
bottom (scroll up to stop it, ``end`` to follow again). Lines and their numbers read in order: a job
start is shown under the event whose scheduling pass started it
(:func:`~meshsim.engine.kernel.history.log_line`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.segment import Segment
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Input, Static

from meshsim.engine.kernel.events import EventRecord
from meshsim.engine.kernel.history import HistoryPage, log_line
from meshsim.engine.kernel.records import Snapshot
from meshsim.tui.widgets.scrolling import set_virtual_size


class LogLines(ScrollView, can_focus=True):
    """Lines drawn one by one; the view follows the last line while it is at the bottom."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "scroll_up", "Up", show=False),
        Binding("down,j", "scroll_down", "Down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("home", "scroll_home", "Top", show=False),
        Binding(
            "end", "scroll_end", "Newest", id="log-newest", tooltip="Follow the newest line again"
        ),
        Binding(
            "left_square_bracket",
            "older",
            "Older matches",
            id="log-older",
            tooltip="The page of search matches before this one",
        ),
    ]
    DEFAULT_CSS = """
    LogLines { height: 1fr; overflow-x: hidden; overflow-y: scroll; }
    """

    class OlderWanted(Message):
        """The operator asked for the page of matches before the one shown."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.lines: Sequence[str] = ()

    def set_lines(self, lines: Sequence[str]) -> None:
        """Show ``lines``; stay on the newest one when the view was there."""
        following = self.scroll_offset.y >= self.max_scroll_y
        self.lines = lines
        set_virtual_size(self, Size(self.size.width, len(lines)))
        if following:
            self.scroll_to(y=max(0, len(lines) - self.size.height), animate=False)
        self.refresh()

    def render_line(self, y: int) -> Strip:
        row = y + int(self.scroll_offset.y)
        if row >= len(self.lines):
            return Strip.blank(self.size.width)
        return Strip([Segment(self.lines[row])]).crop_extend(0, self.size.width, None)

    def action_older(self) -> None:
        self.post_message(self.OlderWanted())


class EventLog(Vertical):
    """A filter box, a status line and the log's lines."""

    DEFAULT_CSS = """
    EventLog { height: 1fr; }
    EventLog Input { height: 1; }
    EventLog #log-status { height: 1; color: $text-muted; }
    """

    class SearchWanted(Message):
        """The operator asked to search the whole run for ``query`` (before a history position)."""

        def __init__(self, query: str, before: int | None = None) -> None:
            super().__init__()
            self.query = query
            self.before = before

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._records: tuple[EventRecord, ...] = ()
        self._page: HistoryPage | None = None

    def compose(self) -> ComposeResult:
        yield Input(
            placeholder="filter: job, kind (start, end, action…), location; enter searches the run",
            id="log-filter",
            compact=True,
        )
        yield Static("", id="log-status")
        yield LogLines(id="log-lines")

    def show(self, snapshot: Snapshot) -> None:
        """The latest events of ``snapshot`` (unless a search's matches are shown)."""
        self._records = snapshot.recent
        if self._page is None:
            self._show_lines()

    def show_page(self, page: HistoryPage) -> None:
        """Show a page of search matches from the engine's history."""
        if page.query.strip().lower() != self._needle():
            return  # the box changed since: that search is stale
        self._page = page
        first = page.lines[0][0] if page.lines else None
        older = "; [ shows older ones" if page.older and first is not None else ""
        self.query_one("#log-status", Static).update(
            f"whole run: {page.total:,} lines match '{page.query}'; "
            f"{len(page.lines):,} shown{older}"
        )
        lines = self.query_one(LogLines)
        lines.set_lines([text for _, text in page.lines])
        lines.scroll_end(animate=False)

    def _needle(self) -> str:
        return self.query_one("#log-filter", Input).value.strip().lower()

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._page = None
        self._show_lines()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self._needle():
            self.post_message(self.SearchWanted(event.value.strip()))

    def on_log_lines_older_wanted(self, event: LogLines.OlderWanted) -> None:
        event.stop()
        page = self._page
        if page is not None and page.older and page.lines:
            self.post_message(self.SearchWanted(page.query, page.lines[0][0]))

    def lines(self) -> list[str]:
        """The latest events' lines that pass the filter, oldest first."""
        needle = self._needle()
        lines = [log_line(r) for r in self._records]
        if needle:
            lines = [line for line in lines if needle in line.lower()]
        return lines

    def _show_lines(self) -> None:
        lines = self.lines()
        needle = self._needle()
        status = f"latest {len(self._records):,} events"
        if needle:
            status = f"{len(lines):,} of the latest {len(self._records):,} events match; enter "
            status += "searches the whole run"
        self.query_one("#log-status", Static).update(status if self._records else "no events yet")
        self.query_one(LogLines).set_lines(lines)
