"""A modal form: labelled inputs, ``enter`` to accept, ``escape`` (or ``q`` when no text input has
the focus: a focused input takes ``q`` as text) to cancel.

The form only collects text; the caller's ``check`` turns it into a value or raises
:class:`~meshsim.engine.core.errors.MeshsimError` with a message that the form shows under the
fields, so a bad entry is corrected in place instead of closing the form."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from meshsim.engine.core.errors import MeshsimError


class FormScreen(ModalScreen[Any]):
    """Ask for some values; dismiss with ``check(values)`` or None when cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "cancel", "Cancel", id="form-cancel", tooltip="Close the form")
    ]
    DEFAULT_CSS = """
    FormScreen { align: center middle; }
    FormScreen > Vertical {
        width: 72; max-width: 100%; height: auto; max-height: 100%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    FormScreen .form-title { text-style: bold; }
    FormScreen .form-help { color: $text-muted; }
    FormScreen .form-error { color: $error; }
    FormScreen Input { margin: 0; }
    """

    def __init__(
        self,
        title: str,
        fields: Sequence[tuple[str, str, str]],
        check: Callable[[dict[str, str]], Any],
        help_text: str = "",
    ) -> None:
        super().__init__()
        self._title = title
        self._fields = fields
        self._check = check
        self._help = help_text

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self._title, classes="form-title")
            if self._help:
                yield Static(self._help, classes="form-help")
            for name, label, default in self._fields:
                yield Label(label)
                yield Input(value=default, id=f"field-{name}")
            yield Static("", id="form-error", classes="form-error")

    def on_mount(self) -> None:
        self.query(Input).first().focus()

    def values(self) -> dict[str, str]:
        return {
            name: self.query_one(f"#field-{name}", Input).value.strip()
            for name, _, _ in self._fields
        }

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            result = self._check(self.values())
        except MeshsimError as exc:
            self.query_one("#form-error", Static).update(str(exc))
            return
        self.dismiss(result)

    def action_cancel(self) -> None:
        self.dismiss(None)
