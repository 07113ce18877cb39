"""The event log: the simulation's last events, newest at the bottom, filtered by a text the
operator types (a job number, an event kind such as ``start`` or ``action``, a location)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Static

from meshsim.engine.kernel.events import EventRecord
from meshsim.engine.kernel.records import Snapshot
from meshsim.tui.format import clock


def record_text(record: EventRecord) -> str:
    """One log line for an event record."""
    who = f" job {record.job_id}" if record.job_id >= 0 else ""
    detail = f" {record.detail}" if record.detail else ""
    started = f" → started {', '.join(map(str, record.started))}" if record.started else ""
    return f"#{record.number:<7} {clock(record.time)}  {record.kind}{who}{detail}{started}"


class EventLog(Vertical):
    """Filter box over the latest event lines."""

    DEFAULT_CSS = """
    EventLog { height: 1fr; }
    EventLog Input { height: 3; }
    EventLog #log-lines { height: 1fr; overflow-y: auto; }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._records: tuple[EventRecord, ...] = ()

    def compose(self) -> ComposeResult:
        yield Input(
            placeholder="filter: job id, kind (start, end, action…), location", id="log-filter"
        )
        yield Static(id="log-lines")

    def show(self, snapshot: Snapshot) -> None:
        self._records = snapshot.recent
        self._show_lines()

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._show_lines()

    def lines(self) -> list[str]:
        """The log lines that pass the filter, oldest first."""
        needle = self.query_one("#log-filter", Input).value.strip().lower()
        lines = [record_text(r) for r in self._records]
        if needle:
            lines = [line for line in lines if needle in line.lower()]
        return lines

    def _show_lines(self) -> None:
        lines = self.lines()
        text = Text("\n".join(lines[-100:]) if lines else "(no events yet)")
        widget = self.query_one("#log-lines", Static)
        widget.update(text)
        widget.scroll_end(animate=False)
