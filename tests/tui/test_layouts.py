"""The whole console in step mode: SVG snapshots of every machine family (a partition machine, a
mesh, a 32 × 32 mesh, a torus, a flat pool, an NQS mesh) at 100 × 30 and 200 × 55 (issue 22), and
what an 80 × 24 terminal must still show (every pane with room for its content).

The snapshots are pytest-textual-snapshot's; after a deliberate change of the console's look,
regenerate them with ``pytest tests/tui/test_layouts.py --snapshot-update`` and review the SVGs."""

from __future__ import annotations

from pathlib import Path

import pytest

from meshsim.engine.tools.runcase import RunOptions
from meshsim.tui.app import MeshsimApp, make_app
from meshsim.tui.requests import GoToEvent
from meshsim.tui.widgets.queue_list import QueueList
from meshsim.tui.widgets.status_bar import StatusBar

from .test_app import until

NASA_1000 = str(Path(__file__).resolve().parents[2] / "traces" / "nasa-ipsc-1000.swf")
"""A workload for the machines that ship none (the project's own 1,000-job NASA excerpt, its
arrivals twenty times as dense so the machines are busy)."""

LAYOUTS = {
    "intrepid": (RunOptions(), 300),
    "mesh32": (RunOptions(machine="mesh32", seed=1), 700),
    "tflops": (RunOptions(machine="tflops", workload=NASA_1000, load_factor=20), 1270),
    "bgl": (RunOptions(machine="bgl", workload=NASA_1000, load_factor=20), 1260),
    "ipsc860": (RunOptions(machine="ipsc860"), 300),
    "paragon-sdsc": (RunOptions(machine="paragon-sdsc"), 300),
}
"""Machine and event each layout is shown at, one per family: Intrepid (partitions) is the
console's default run; mesh32 and TFLOPS (32 × 32, compact at 100 × 30) are meshes, bgl a torus,
ipsc860 a flat pool, paragon-sdsc an NQS mesh."""

SIZES = {"100x30": (100, 30), "200x55": (200, 55)}


async def go_to(pilot, app: MeshsimApp, event: int) -> None:  # type: ignore[no-untyped-def]
    """Step mode: wait for the first frame, go to ``event``, then until the screen is still (the
    running table sizes its columns when its message queue is idle, and the map its pane when the
    column is laid out: under load these take a few refreshes)."""
    await until(pilot, lambda: app.frame is not None)
    app.send(GoToEvent(event))
    # TFLOPS's go-to takes 3.5 s of processor time: on a busy shared host, far more than 15 s
    await until(pilot, lambda: app.frame.snapshot.event == event, timeout=90)
    app.clear_notifications()  # the go-to's answer (where it ended) is not part of the layout
    shown = ""
    for _ in range(50):
        await pilot.pause(0.1)
        now = app.export_screenshot()
        if now == shown:
            return
        shown = now
    raise AssertionError("the screen never settled")


@pytest.mark.parametrize("size", sorted(SIZES))
@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_main_layout(name: str, size: str, snap_compare) -> None:  # type: ignore[no-untyped-def]
    options, event = LAYOUTS[name]
    app = make_app(options)

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await go_to(pilot, app, event)

    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)


@pytest.mark.parametrize("name", ["intrepid", "mesh32"])
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
        assert snap.waits[snap.waiting[0].index].text[:20] in reason, "the reason under its job"
        running = app.query_one("#running").border_title
        assert running == f"running · {len(snap.running)}"
