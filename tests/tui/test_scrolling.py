"""Panes change their virtual size without a layout of the whole screen (tui/widgets/scrolling):
a scrollbar is repainted only when it looks different, and what is on screen after each frame is
what a full layout and redraw of every pane shows."""

from __future__ import annotations

import asyncio
from math import ceil

import pytest
from textual.scrollbar import ScrollBarRender

from meshsim.engine.tools.runcase import RunOptions
from meshsim.tui.app import MeshsimApp, make_app
from meshsim.tui.widgets.queue_list import QueueList
from meshsim.tui.widgets.scrolling import thumb


def _drawn(length: int, virtual: int, window: int, position: float) -> list[object]:
    """What Textual draws for a scrollbar in this state (``ScrollBar._render_bar``)."""
    return ScrollBarRender.render_bar(
        size=length,
        virtual_size=ceil(virtual),
        window_size=ceil(window if window < virtual else 0),
        position=position,
    ).segments


@pytest.mark.parametrize("length", [1, 5, 22, 37])
def test_scrollbars_with_the_same_thumb_are_drawn_the_same(length: int) -> None:
    seen: dict[object, list[object]] = {}
    for virtual in range(1, 120, 3):
        for window in range(0, 40, 3):
            for position in (0.0, 0.125, 1.0, 2.5, 7.0, 30.0):
                if position > max(0, virtual - window):
                    continue
                key = (length, thumb(length, virtual, window, position))
                drawn = _drawn(length, virtual, window, position)
                assert seen.setdefault(key, drawn) == drawn, (virtual, window, position)


def _screen(app: MeshsimApp) -> str:
    return app.export_screenshot(simplify=True)


async def test_live_frames_show_what_a_full_layout_and_redraw_shows() -> None:
    """Step Intrepid 300 events at a time; after each frame, the screen is compared with the screen
    after every widget is repainted whole and the screen laid out again."""
    app = make_app(RunOptions())
    async with app.run_test(size=(160, 50)) as pilot:
        while app.frame is None:
            await pilot.pause(0.05)
        lengths = set()
        for _ in range(12):
            before = app.frame.snapshot.event
            app.action_step(300)
            while app.frame.snapshot.event == before:
                await pilot.pause(0.02)
            await pilot.pause(0.05)
            queue = app.query_one(QueueList)
            lengths.add(queue.virtual_size.height)
            if queue.show_vertical_scrollbar:
                bar = queue.vertical_scrollbar
                assert bar.window_virtual_size == queue.virtual_size.height
            shown = _screen(app)
            for widget in app.screen.query("*"):
                widget.refresh()
            app.screen.refresh(layout=True)
            await asyncio.sleep(0.1)
            await pilot.pause()
            assert _screen(app) == shown, f"event {app.frame.snapshot.event}"
        assert len(lengths) > 3, "the queue's length changed between frames"
