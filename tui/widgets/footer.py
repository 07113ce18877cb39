"""The key bar at the bottom of the console: Textual's Footer, without its leak.

Textual's Footer rebuilds its keys whenever the screen's bindings change (going live, pausing,
every focus change) and binds each key's ``compact`` to its own. Textual drops such a binding only
when the watched value changes, and the footer's ``compact`` never does, so every key the
footer ever showed stayed alive with its styles: a dozen widgets per change, for as long as the
console runs (textual#6666, open for Textual 8.2). :class:`ConsoleFooter` drops the bindings of
the keys it has just removed.
"""

from __future__ import annotations

from textual.widgets import Footer

_WATCHERS = "__watchers"
"""The attribute where Textual keeps the watchers of an object's reactives, by name."""


class ConsoleFooter(Footer):
    """A Footer that lets go of the keys it replaces."""

    async def recompose(self) -> None:
        await super().recompose()
        bound = getattr(self, _WATCHERS, {}).get("compact")
        if bound:
            bound[:] = [(node, callback) for node, callback in bound if node.is_attached]
