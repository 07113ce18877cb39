"""The whole console in step mode at 80×24 and 160×50: SVG snapshots of the main layouts, and what
an 80×24 terminal must still show (every pane with room for its content)."""

from __future__ import annotations

import pytest

from meshsim.engine.tools.runcase import RunOptions
from meshsim.tui.app import MeshsimApp, make_app
from meshsim.tui.requests import GoToEvent
from meshsim.tui.widgets.queue_list import QueueList
from meshsim.tui.widgets.status_bar import StatusBar

from .test_app import until

LAYOUTS = {
    "intrepid": (RunOptions(), 300),
    "mesh32": (RunOptions(machine="mesh32", seed=1), 700),
}
"""Machine and event each layout is shown at: Intrepid is the console's default run."""

SIZES = {"80x24": (80, 24), "160x50": (160, 50)}


async def go_to(pilot, app: MeshsimApp, event: int) -> None:  # type: ignore[no-untyped-def]
    """Step mode: wait for the first frame, go to ``event``, let the frame be drawn (the running
    table sizes its columns when its message queue is idle, after the frame)."""
    await until(pilot, lambda: app.frame is not None)
    app.send(GoToEvent(event))
    await until(pilot, lambda: app.frame.snapshot.event == event)
    await pilot.pause(0.1)
    await pilot.pause()


@pytest.mark.parametrize("size", sorted(SIZES))
@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_main_layout(name: str, size: str, snap_compare) -> None:  # type: ignore[no-untyped-def]
    options, event = LAYOUTS[name]
    app = make_app(options)

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await go_to(pilot, app, event)

    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)


@pytest.mark.parametrize("name", sorted(LAYOUTS))
async def test_80x24_keeps_every_pane_readable(name: str) -> None:
    options, event = LAYOUTS[name]
    app = make_app(options)
    async with app.run_test(size=(80, 24)) as pilot:
        await go_to(pilot, app, event)
        snap = app.frame.snapshot
        status = str(app.query_one(StatusBar).render())
        assert f"event {event}" in status and snap.policy.label() in status
        for pane, width, height in (("#map", 30, 8), ("#running", 30, 6), ("#queue", 30, 6)):
            region = app.query_one(pane).region
            assert region.width >= width and region.height >= height, pane
        values = app.query_one("#metric-values").region
        assert values.height >= 2, "current metric values below the sparklines"
        queue = app.query_one(QueueList)
        assert len(snap.waiting) >= 2
        first, reason = ("".join(s.text for s in queue.render_line(y)) for y in (1, 2))
        assert str(snap.waiting[0].job_id) in first
        assert snap.reasons[snap.waiting[0].index][:20] in reason, "the reason under its job"
        running = app.query_one("#running").border_title
        assert running == f"running · {len(snap.running)}"
