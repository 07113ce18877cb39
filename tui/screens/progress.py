"""A long command's progress (a go-to over many events, a what-if, an export) with a way out:
``escape`` or ``q`` cancels it. The console shows this screen when a long command has run for
:data:`~meshsim.tui.app.PROGRESS_AFTER` seconds and closes it when the command's answer comes."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, ProgressBar, Static

from meshsim.tui.driver import Progress


class ProgressScreen(ModalScreen[None]):
    """How far a long command is; cancelling it calls ``cancel()`` once."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape,q",
            "cancel",
            "Cancel",
            id="progress-cancel",
            tooltip="Stop the go-to, what-if or export that is running",
        ),
    ]
    DEFAULT_CSS = """
    ProgressScreen { align: center middle; }
    ProgressScreen > Vertical {
        width: 64; max-width: 100%; height: auto; border: round $accent; background: $surface;
        padding: 0 1;
    }
    ProgressScreen .progress-title { text-style: bold; }
    ProgressScreen .progress-keys { color: $text-muted; }
    ProgressScreen ProgressBar { margin: 1 0; }
    """

    def __init__(self, title: str, cancel: Callable[[], None]) -> None:
        super().__init__()
        self._title = title
        self._cancel = cancel
        self._cancelled = False
        self._latest: Progress | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self._title, classes="progress-title")
            yield ProgressBar(total=1.0, show_eta=False, id="progress-bar")
            yield Static("starting…", id="progress-text")
            yield Static("Esc cancels", classes="progress-keys")

    def on_mount(self) -> None:
        if self._latest is not None:
            self.show(self._latest)

    def show(self, progress: Progress) -> None:
        """Move the bar to ``progress`` (once the screen is up, if it is not yet)."""
        self._latest = progress
        if not self.is_mounted:
            return
        self.query_one(ProgressBar).update(progress=progress.done)
        if not self._cancelled:
            self.query_one("#progress-text", Static).update(progress.text)

    def action_cancel(self) -> None:
        if not self._cancelled:
            self._cancelled = True
            self._cancel()
            self.query_one("#progress-text", Static).update("cancelling…")
