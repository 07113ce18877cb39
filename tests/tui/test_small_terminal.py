"""Issue 22, item 7: the console at 100 × 30. Each test fails on the code before the fix: the footer
lost ``? Help`` and ``q Quit`` behind a focused pane's keys, the status bar its counts, the Intrepid
map its last rack row and legend, a 32 × 32 mesh rows 12–31, and times were cut once the day had
two digits (``day 10 10:35:4``)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets._footer import FooterKey

from meshsim.engine.tools.runcase import RunOptions
from meshsim.tui.app import MeshsimApp, make_app
from meshsim.tui.format import clock
from meshsim.tui.requests import GoToEvent, GoToTime
from meshsim.tui.widgets.machine_map import HEADER, MachineMap
from meshsim.tui.widgets.queue_list import QueueList
from meshsim.tui.widgets.running_table import RunningTable
from meshsim.tui.widgets.status_bar import StatusBar

from .test_app import until

ROOT = Path(__file__).resolve().parents[2]
SMALL = (100, 30)


def lines(widget: MachineMap | RunningTable | QueueList) -> list[str]:
    """What the pane shows, line by line."""
    return ["".join(s.text for s in widget.render_line(y)) for y in range(widget.size.height)]


async def settle(pilot, app: MeshsimApp, event: int) -> None:  # type: ignore[no-untyped-def]
    await until(pilot, lambda: app.frame is not None)
    app.send(GoToEvent(event))
    await until(pilot, lambda: app.frame.snapshot.event == event)
    await pilot.pause(0.2)


async def test_the_footer_shows_help_and_quit_first_wherever_the_focus_is() -> None:
    app = make_app(RunOptions())
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot, app, 300)
        for pane in (MachineMap, QueueList, RunningTable):
            app.query_one(pane).focus()

            def shown() -> list[FooterKey]:
                return [k for k in app.screen.query(FooterKey) if k.region.width]

            await until(pilot, lambda: any(k.action == "select" for k in shown()))
            keys = shown()
            assert [k.action for k in keys[:2]] == ["help", "quit"], pane.__name__
            assert all(k.region.right <= SMALL[0] for k in keys[:2])


async def test_the_status_bar_keeps_its_counts() -> None:
    app = make_app(RunOptions())
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot, app, 300)
        status = str(app.query_one(StatusBar).render())
        snap = app.frame.snapshot
        assert f"{len(snap.waiting)} wait · {len(snap.running)} run" in status
        assert "event 300" in status and snap.policy.label() in status


async def test_intrepid_shows_every_rack_row_and_its_legend() -> None:
    app = make_app(RunOptions())
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot, app, 3000)
        shown = "\n".join(lines(app.query_one(MachineMap)))
        for row in ("R00", "R10", "R20", "R30", "R40"):
            assert row in shown, row
        first = app.frame.snapshot.running[0]
        assert f"{first.job.job_id} {first.placement.label}" in shown, "the legend is on screen"


async def test_a_32_by_32_mesh_shows_all_32_rows() -> None:
    workload = str(ROOT / "traces" / "nasa-ipsc-1000.swf")
    app = make_app(RunOptions(machine="tflops", workload=workload))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot, app, 200)
        game_map = app.query_one(MachineMap)
        layout = game_map._layout
        assert layout is not None and layout.half
        assert (layout.where[:, 0] >= 0).all(), "every node is drawn"
        assert HEADER + int(layout.where[:, 0].max()) < game_map.size.height, "rows 0-31 on screen"
        assert int(game_map.scroll_offset.y) == 0
        assert app.query_one(RunningTable).size.height >= 6, "the running jobs keep room"


async def test_times_are_never_cut() -> None:
    app = make_app(RunOptions())
    async with app.run_test(size=SMALL) as pilot:
        await until(pilot, lambda: app.frame is not None)
        app.send(GoToTime(10 * 86400 + 10 * 3600))
        await until(pilot, lambda: app.frame.snapshot.time >= 10 * 86400)
        await pilot.pause(0.2)
        table = app.query_one(RunningTable)
        shown = "\n".join(lines(table))
        for running in app.frame.snapshot.running[: table.size.height - 1]:
            end = clock(running.expected_end)
            assert len(end) == 15 and end in shown, end


async def test_an_empty_queue_says_so_whole_under_its_header() -> None:
    """At event 0 on Intrepid no job waits: the header ran out of room for the message
    (``(no job wa``); it now has a line of its own."""
    app = make_app(RunOptions(machine="intrepid"))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot, app, 0)
        shown = lines(app.query_one(QueueList))
        assert "(no job waiting)" in shown[1]
        assert "(no job" not in shown[0]
