"""The key bar at the bottom of the console: Textual's Footer, Help and Quit first, no leak.

Textual's Footer lists the focused pane's keys before the console's, and a narrow terminal drops
keys from the right end: at 100 columns with the map focused, ``? Help`` and ``q Quit`` came after
the map's keys. :class:`ConsoleFooter` always puts the keys of :data:`FIRST` first.

Textual's Footer rebuilds its keys whenever the screen's bindings change (going live, pausing,
every focus change) and binds each key's ``compact`` to its own. Textual drops such a binding only
when the watched value changes, and the footer's ``compact`` never does, so every key the
footer ever showed stayed alive with its styles: a dozen widgets per change, for as long as the
console runs (textual#6666, open for Textual 8.2). :class:`ConsoleFooter` drops the bindings of
the keys it has just removed.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

FIRST = ("help", "quit")
"""The actions whose keys lead the footer, in this order, wherever the focus is."""

_WATCHERS = "__watchers"
"""The attribute where Textual keeps the watchers of an object's reactives, by name."""


class ConsoleFooter(Footer):
    """A Footer that shows Help and Quit first and lets go of the keys it replaces."""

    def compose(self) -> ComposeResult:
        widgets = list(super().compose())

        def rank(widget: object) -> int:
            action = getattr(widget, "action", "") if isinstance(widget, FooterKey) else ""
            return FIRST.index(action) if action in FIRST else len(FIRST)

        yield from sorted(widgets, key=rank)

    async def recompose(self) -> None:
        await super().recompose()
        bound = getattr(self, _WATCHERS, {}).get("compact")
        if bound:
            bound[:] = [(node, callback) for node, callback in bound if node.is_attached]
