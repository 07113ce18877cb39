"""Setting a scrolling pane's virtual size without a layout pass of the whole screen.

Textual's ``Widget.virtual_size`` is a reactive with ``layout=True``: every change asks for a
layout of the whole screen, which then repaints every pane the layout touched, and each change
repaints the pane's scrollbars. A live pane's virtual size changes nearly every frame (the
waiting queue and the running table change length, the map's legend gains and loses jobs), so
each live frame paid for a layout, a second compositor pass and the redraw of every scrollbar.

A pane's size on screen does not depend on its virtual size here (the panes have fixed or
fractional heights), so only the scrollbars need to follow: :func:`set_virtual_size` stores the
new size and updates the scrollbars as Textual's ``Widget._scroll_update`` does (their lengths,
and the scroll offset clamped to the new range), but repaints a scrollbar only when its thumb
is drawn differently (:func:`thumb`, the arithmetic of Textual's ``ScrollBarRender``). When a
scrollbar appears or disappears, the pane's content area changes: Textual's scrollbar
reactives then ask for the layout themselves, so the screen is laid out exactly when it must.
"""

from __future__ import annotations

from math import ceil

from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.widget import Widget

ROW_CURSOR_BINDINGS: tuple[BindingType, ...] = (
    Binding("up,k", "move(-1)", "Up", show=False),
    Binding("down,j", "move(1)", "Down", show=False),
    Binding("pageup", "move(-10)", "Page up", show=False),
    Binding("pagedown", "move(10)", "Page down", show=False),
    Binding("home", "move(-1000000000)", "Top", show=False),
    Binding("end", "move(1000000000)", "Bottom", show=False),
)
"""Keys of a scrolling list with a row cursor: its ``action_move(delta)`` moves the cursor by
``delta`` rows, clamped to the list."""

GLYPHS = len(ScrollBarRender.VERTICAL_BARS)
"""Steps per cell with which a scrollbar's thumb is drawn."""


def thumb(length: int, virtual: float, window: float, position: float) -> tuple[int, int] | None:
    """Where a scrollbar of ``length`` cells draws its thumb, in eighths of a cell (None: no
    thumb): ``ScrollBar._render_bar`` and ``ScrollBarRender.render_bar``'s arithmetic, so that
    two states with the same answer draw the same scrollbar."""
    window = ceil(window if window < virtual else 0)
    virtual = ceil(virtual)
    if not (window and length and virtual and length != virtual):
        return None
    size = max(1, window / (virtual / length))
    start = int((length - size) * (position / (virtual - window)) * GLYPHS)
    return start, start + ceil(size * GLYPHS)


def _thumb_of(bar: ScrollBar) -> tuple[int, tuple[int, int] | None]:
    length = bar.size.height if bar.vertical else bar.size.width
    return length, thumb(length, bar.window_virtual_size, bar.window_size, bar.position)


def _follow(bar: ScrollBar, virtual: int, window: int) -> None:
    """Give ``bar`` a new virtual and window size; repaint it only when it looks different."""
    before = _thumb_of(bar)
    bar.set_reactive(ScrollBar.window_virtual_size, virtual)
    bar.set_reactive(ScrollBar.window_size, window)
    if _thumb_of(bar) != before:
        bar.refresh()


def set_virtual_size(widget: Widget, size: Size) -> None:
    """Set ``widget.virtual_size`` to ``size``; a layout pass only when a scrollbar appears or
    disappears (or before the widget has been laid out once)."""
    old = widget.virtual_size
    if size == old:
        return
    if not widget.container_size:
        widget.virtual_size = size
        return
    widget.set_reactive(Widget.virtual_size, size)
    widget._refresh_scrollbars()
    width, height = widget.container_size
    if widget.show_vertical_scrollbar and widget.styles.scrollbar_size_vertical:
        _follow(widget.vertical_scrollbar, size.height, height - widget.scrollbar_size_horizontal)
    if widget.show_horizontal_scrollbar and widget.styles.scrollbar_size_horizontal:
        _follow(widget.horizontal_scrollbar, size.width, width - widget.scrollbar_size_vertical)
    widget.scroll_x = widget.validate_scroll_x(widget.scroll_x)
    widget.scroll_y = widget.validate_scroll_y(widget.scroll_y)
    widget.refresh()
