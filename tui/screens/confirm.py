"""A yes/no question before a destructive or irreversible step (quit with unsaved actions, fail a
unit, cancel a job, drain a block): ``y`` or ``enter`` answers yes; ``n``, ``escape`` or ``q``
answer no, so the keys that close every other dialog never confirm anything."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Static


class ConfirmScreen(ModalScreen[bool]):
    """Ask ``question``; dismiss with True (yes) or False (no)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,enter", "answer(True)", "Yes", id="confirm-yes", tooltip="Go ahead"),
        Binding("n,escape,q", "answer(False)", "No", id="confirm-no", tooltip="Leave it"),
    ]
    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical {
        width: 64; max-width: 100%; height: auto; border: round $warning; background: $surface;
        padding: 0 1;
    }
    ConfirmScreen .confirm-title { text-style: bold; }
    ConfirmScreen .confirm-keys { color: $text-muted; }
    """

    def __init__(self, title: str, question: str) -> None:
        super().__init__()
        self._title = title
        self._question = question

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self._title, classes="confirm-title")
            yield Static(self._question, id="confirm-question")
            yield Static("y yes · n / Esc no", classes="confirm-keys")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
