"""A modal view of a report (help, an inspector, a what-if comparison); ``escape`` closes it."""

from __future__ import annotations

import io
from typing import ClassVar

from rich.console import Console, RenderableType
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static


class ReportScreen(ModalScreen[None]):
    """A title and a scrollable renderable."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close", id="report-close", tooltip="Close this view"),
    ]
    DEFAULT_CSS = """
    ReportScreen { align: center middle; }
    ReportScreen > VerticalScroll {
        width: 90%; height: 90%; border: round $accent; background: $surface; padding: 0 1;
    }
    ReportScreen .report-title { text-style: bold; }
    """

    def __init__(self, title: str, body: RenderableType) -> None:
        super().__init__()
        self._title = title
        self._body = body

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Label(self._title, classes="report-title")
            yield Static(self._body, id="report-body")

    def plain_text(self, width: int = 120) -> str:
        """The report as plain text (for tests and for copying)."""
        console = Console(file=io.StringIO(), width=width, color_system=None)
        console.print(self._title)
        console.print(self._body)
        return console.file.getvalue()

    def action_close(self) -> None:
        self.dismiss(None)
