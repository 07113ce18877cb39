"""Every key of the console, by where it works, read from the bindings themselves: Help (``?``,
``F1``) and the documentation's key table are generated from here, so neither can list a key that
does nothing or miss one that exists."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from textual.binding import Binding, BindingType
from textual.keys import format_key
from textual.screen import Screen

from meshsim.tui.screens.confirm import ConfirmScreen
from meshsim.tui.screens.form import Choice, FormScreen
from meshsim.tui.screens.progress import ProgressScreen
from meshsim.tui.screens.report import ReportScreen
from meshsim.tui.widgets.event_log import LogLines
from meshsim.tui.widgets.machine_map import MachineMap
from meshsim.tui.widgets.queue_list import QueueList
from meshsim.tui.widgets.timeline import Timeline


@dataclass(frozen=True)
class Key:
    """One binding as Help shows it: its keys, the action's name and what it does."""

    keys: tuple[str, ...]
    action: str
    does: str

    @property
    def display(self) -> str:
        return ", ".join(format_key(k) for k in self.keys)


@dataclass(frozen=True)
class KeySection:
    """The keys that work in one place (the whole console, a focused pane, a dialog)."""

    title: str
    keys: tuple[Key, ...]


def _keys(bindings: Sequence[BindingType]) -> tuple[Key, ...]:
    found = []
    for binding in bindings:
        if not isinstance(binding, Binding) or binding.system:
            continue
        keys = tuple(k.strip() for k in binding.key.split(","))
        found.append(Key(keys, binding.description, binding.tooltip or binding.description))
    return tuple(found)


def key_sections(console: Sequence[BindingType]) -> tuple[KeySection, ...]:
    """Every section of Help; ``console`` is the app's own bindings."""
    focus = [b for b in Screen.BINDINGS if isinstance(b, Binding) and "focus" in b.action]
    return (
        KeySection("console", _keys(console)),
        KeySection("focus", _keys(focus)),
        KeySection("machine map (focused)", _keys(MachineMap.BINDINGS)),
        KeySection("queue and running jobs (focused)", _keys(QueueList.BINDINGS)),
        KeySection(
            "timeline (focused; its + and - zoom instead of the speed)", _keys(Timeline.BINDINGS)
        ),
        KeySection(
            "event log (focused; enter in its box searches the whole run)", _keys(LogLines.BINDINGS)
        ),
        KeySection(
            "dialogs",
            _keys(
                [
                    *ReportScreen.BINDINGS,
                    *ConfirmScreen.BINDINGS,
                    *FormScreen.BINDINGS,
                    *Choice.BINDINGS,
                    *ProgressScreen.BINDINGS,
                ]
            ),
        ),
    )
