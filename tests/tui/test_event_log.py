"""Issue 22, item 5 (event log): the log follows the newest event, its numbers read in order, and
a search covers the whole run, asked of the engine process. Before, the newest ~50 events sat
below the fold, numbers ran backwards (``#6154 end`` then ``#6153 start``), and the filter saw only
the last ~100 records."""

from __future__ import annotations

import re

from meshsim.engine.kernel.events import EventRecord
from meshsim.engine.kernel.history import EventHistory, log_line
from meshsim.engine.tools.runcase import RunOptions
from meshsim.engine.tools.session import Session
from meshsim.tui.app import make_app
from meshsim.tui.requests import Step
from meshsim.tui.widgets.event_log import EventLog, LogLines

from .test_app import until

SMALL = (100, 30)


def numbers(lines: list[str]) -> list[int]:
    return [int(m.group(1)) for line in lines if (m := re.match(r"#(\d+) ", line))]


def test_a_start_is_shown_under_the_event_that_started_it() -> None:
    session = Session(RunOptions(machine="intrepid"))
    session.goto_event(400)
    lines = [log_line(r) for r in session.snapshot().recent]
    assert any(line.lstrip().startswith("↳") and " start job " in line for line in lines)
    shown = numbers(lines)
    assert shown == sorted(shown) and len(set(shown)) == len(shown), "numbers in order, once"
    assert shown[-1] == 400


def test_the_history_keeps_every_record_and_pages_the_matches() -> None:
    history = EventHistory()
    for n in range(1, 501):
        history.add(EventRecord(n, float(n), "arrival", n % 7))
    assert len(history) == 500 and history.record(0).number == 1
    page = history.search("job 3", count=20)
    assert page.total == sum(1 for n in range(1, 501) if n % 7 == 3)
    assert len(page.lines) == 20 and page.older
    older = history.search("job 3", before=page.lines[0][0], count=20)
    assert older.lines[-1][0] < page.lines[0][0]
    assert [r.number for r in history.of_job(3)] == [n for n in range(1, 501) if n % 7 == 3]


async def test_the_log_follows_the_newest_event_in_order() -> None:
    app = make_app(RunOptions(), event=3000)
    async with app.run_test(size=SMALL) as pilot:
        await until(pilot, lambda: app.frame is not None)
        await pilot.press("t", "t")
        await until(pilot, lambda: len(app.query_one(LogLines).lines) > 50)
        view = app.query_one(LogLines)
        await pilot.pause(0.2)
        top = int(view.scroll_offset.y)
        shown = list(view.lines[top : top + view.size.height])
        assert shown[-1] == log_line(app.frame.snapshot.recent[-1]), "the newest line is on screen"
        assert numbers(list(view.lines)) == sorted(numbers(list(view.lines)))
        app.send(Step(5))
        await until(pilot, lambda: app.frame.snapshot.event == 3005)
        await pilot.pause(0.2)
        top = int(view.scroll_offset.y)
        assert view.lines[top + view.size.height - 1] == log_line(app.frame.snapshot.recent[-1])


async def test_a_search_covers_the_whole_run() -> None:
    app = make_app(RunOptions(), event=3000)
    async with app.run_test(size=SMALL) as pilot:
        await until(pilot, lambda: app.frame is not None)
        await pilot.press("t", "t")
        log = app.query_one(EventLog)
        first = "arrival job 3 "
        assert not any(first in line + " " for line in log.lines()), "long gone from the latest"
        log.query_one("#log-filter").value = "arrival job 3"
        log.query_one("#log-filter").focus()
        await pilot.press("enter")
        await until(pilot, lambda: app.frame.label == "search")
        lines = app.query_one(LogLines).lines
        assert any(line.endswith("arrival job 3") for line in lines)
        status = str(log.query_one("#log-status").render())
        assert status.startswith("whole run: ")
