"""The detail line under the waiting queue: the whole wait of the job under the queue's cursor —
its expected start, where, the job whose end it waits for, and what blocks it now (issue 22,
item 4) — wrapped over as many lines as it needs (at most :data:`LINES`), where the queue's rows
cut it to the pane's width."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

LINES = 5
"""Lines the detail takes at most (the queue pane keeps the rest): at 100 columns the longest
waits (an NQS queue's node sets, a partition and the jobs holding it) take five."""


class QueueDetail(Static):
    """The text of :meth:`~meshsim.tui.widgets.queue_list.QueueList.detail`."""

    DEFAULT_CSS = f"""
    QueueDetail {{ height: auto; max-height: {LINES}; padding: 0 1; color: $text-muted; }}
    """

    def show(self, text: str) -> None:
        """Show ``text`` as it is (partition names hold brackets, never markup); hide when empty."""
        self.update(Text(text))
        self.display = bool(text)
