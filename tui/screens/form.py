"""A modal form: labelled fields, ``enter`` to accept, ``escape`` (or ``q`` when no text input has
the focus: a focused input takes ``q`` as text) to cancel.

A field is a text input, or a choice among fixed values (a :class:`Choice`, Textual's Select):
where the valid values are known — a policy name valid on this machine, what a failure does to the
job — the form offers only those, the current value chosen. ``space`` or the arrow keys open a
choice's list (typing there jumps to a matching entry, ``enter`` takes it); ``enter`` on a closed
choice, like ``enter`` in a text input, accepts the form.

The form only collects values; the caller's ``check`` turns them into a result or raises
:class:`~meshsim.engine.core.errors.MeshsimError` with a message that the form shows under the
fields, so a bad entry is corrected in place instead of closing the form."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Select, Static

from meshsim.engine.core.errors import MeshsimError


@dataclass(frozen=True)
class Field:
    """One field of a form: its name (the key of the values), its label and its starting value;
    ``choices`` (shown text, value) makes it a choice among those values only."""

    name: str
    label: str
    default: str = ""
    choices: tuple[tuple[str, str], ...] | None = None


class Choice(Select[str], inherit_bindings=False):
    """A Select whose ``enter`` accepts the form instead of opening the list."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "space,down,up",
            "show_overlay",
            "Choose",
            show=False,
            id="form-choose",
            tooltip="In a form, open a choice's list (typing jumps to an entry, enter takes it)",
        ),
    ]


class FormScreen(ModalScreen[Any]):
    """Ask for some values; dismiss with ``check(values)`` or None when cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "cancel", "Cancel", id="form-cancel", tooltip="Close the form"),
        Binding("enter", "accept", "Accept", id="form-accept", tooltip="Accept the form"),
    ]
    DEFAULT_CSS = """
    FormScreen { align: center middle; }
    FormScreen > VerticalScroll {
        width: 76; max-width: 100%; height: auto; max-height: 100%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    FormScreen .form-title { text-style: bold; }
    FormScreen .form-help { color: $text-muted; }
    FormScreen .form-error { color: $error; }
    FormScreen Input { margin: 0; }
    FormScreen Label { color: $text-muted; }
    """

    def __init__(
        self,
        title: str,
        fields: Sequence[Field],
        check: Callable[[dict[str, str]], Any],
        help_text: str = "",
    ) -> None:
        super().__init__()
        self._title = title
        self._fields = tuple(fields)
        self._check = check
        self._help = help_text

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(self._title, classes="form-title")
            if self._help:
                yield Static(self._help, classes="form-help")
            for field in self._fields:
                yield Label(field.label)
                if field.choices is None:
                    yield Input(value=field.default, id=f"field-{field.name}", compact=True)
                else:
                    yield Choice(
                        field.choices,
                        value=field.default,
                        allow_blank=False,
                        id=f"field-{field.name}",
                        compact=True,
                    )
            yield Static("", id="form-error", classes="form-error")

    def on_mount(self) -> None:
        self.query_one(f"#field-{self._fields[0].name}").focus()

    def values(self) -> dict[str, str]:
        """Every field's value (text stripped)."""
        out = {}
        for field in self._fields:
            widget = self.query_one(f"#field-{field.name}")
            value = widget.value if isinstance(widget, Input | Select) else ""
            out[field.name] = str(value).strip()
        return out

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_accept()

    def action_accept(self) -> None:
        try:
            result = self._check(self.values())
        except MeshsimError as exc:
            self.query_one("#form-error", Static).update(str(exc))
            return
        self.dismiss(result)

    def action_cancel(self) -> None:
        self.dismiss(None)
