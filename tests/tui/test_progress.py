"""Issue 22, item 6: long commands (go-to, what-if, export) show their progress and can be
cancelled. Before, a 10,000-event go-to on bgl showed nothing for 10 s and could not be stopped."""

from __future__ import annotations

import threading
import time

from meshsim.engine.tools.runcase import RunOptions
from meshsim.engine.tools.session import Session
from meshsim.tui.app import make_app
from meshsim.tui.driver import Driver, Progress
from meshsim.tui.requests import GoToEvent, GoToTime
from meshsim.tui.screens.progress import ProgressScreen
from tests.conftest import NASA, require_trace

from .test_app import fill, until
from .test_driver import MESH, Recorder


def test_a_long_command_reports_progress_and_stops_when_cancelled() -> None:
    frames, reports = Recorder(), []
    driver = Driver(Session(RunOptions()), frames, progress=reports.append)
    thread = threading.Thread(target=driver.loop, daemon=True)
    thread.start()
    try:
        frames.wait(lambda f: True)
        driver.send(GoToTime(25 * 86400.0, ticket=7), "go to")
        deadline = time.monotonic() + 30
        while len(reports) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        driver.cancel(7)
        frame = frames.wait(lambda f: f.label == "go to")
        assert frame.error == "go to: cancelled"
        assert frame.snapshot.time < 25 * 86400, "it stopped on the way"
        assert all(isinstance(p, Progress) and p.label == "go to" for p in reports)
        done = [p.done for p in reports]
        assert done == sorted(done) and 0 < done[-1] < 1
        driver.send(GoToEvent(40, ticket=8), "again")
        again = frames.wait(lambda f: f.label == "again")
        assert again.error is None and again.snapshot.event == 40, "a cancel stops one command"
    finally:
        driver.stop()
        thread.join(5)


def test_a_cancelled_step_back_leaves_the_session_where_it_was() -> None:
    frames = Recorder()
    session = Session(MESH)
    session.goto_event(80)
    driver = Driver(session, frames)
    driver.cancel(3)
    driver.send(GoToEvent(10, ticket=3), "back")
    thread = threading.Thread(target=driver.loop, daemon=True)
    thread.start()
    try:
        frame = frames.wait(lambda f: f.label == "back")
        assert frame.error == "go to: cancelled" and frame.snapshot.event == 80
    finally:
        driver.stop()
        thread.join(5)


async def test_the_console_shows_a_long_go_to_and_esc_cancels_it() -> None:
    """The issue's case: a 10,000-event go-to on bgl with the NASA log (about 6 s)."""
    nasa = str(require_trace(NASA))
    app = make_app(RunOptions(machine="bgl", workload=nasa, runtime_scale=1.5, migrate=True))
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.frame is not None)
        await pilot.press("g")
        await fill(pilot, app, {"target": "#10000"})
        await until(pilot, lambda: isinstance(app.screen, ProgressScreen), timeout=10)
        await until(pilot, lambda: "event" in str(app.screen.query_one("#progress-text").render()))
        await pilot.press("escape")
        await until(pilot, lambda: app.frame.label == "go to", timeout=20)
        assert app.frame.error == "go to: cancelled"
        assert not isinstance(app.screen, ProgressScreen)
        assert app.frame.snapshot.event < 10_000
        await pilot.press("n")
        await until(pilot, lambda: app.frame.label == "" and app.frame.snapshot.event > 0)
