"""Issue 22, item 2: Help is generated from the bindings (:func:`meshsim.tui.keys.key_sections`),
and this test drives every key it lists. For each section of Help, one console is opened; every key
of the section is pressed in a Textual pilot and its own effect is asserted (a screen opened, a
counter moved, a sort changed, an action logged...). A key Help lists with no check here fails the
test, and so does a key whose check sees no effect."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from meshsim.engine.allocation.allocator import DOWN
from meshsim.engine.tools.runcase import RunOptions
from meshsim.tui.app import SPEEDS, MeshsimApp, make_app
from meshsim.tui.keys import key_sections
from meshsim.tui.screens.confirm import ConfirmScreen
from meshsim.tui.screens.form import Choice, FormScreen
from meshsim.tui.screens.progress import ProgressScreen
from meshsim.tui.screens.report import ReportScreen
from meshsim.tui.widgets.event_log import EventLog, LogLines
from meshsim.tui.widgets.machine_map import MachineMap
from meshsim.tui.widgets.queue_list import QueueList
from meshsim.tui.widgets.running_table import RunningTable
from meshsim.tui.widgets.timeline import Timeline

from .test_app import MESH, SIZE, event, fill, until

SECTIONS = {section.title: section for section in key_sections(MeshsimApp.BINDINGS)}
EVENT = 48
"""MESH at event 48: 18 jobs wait and 2 run."""

Check = Callable[[Any, MeshsimApp, str], Awaitable[None]]


async def opens(pilot, app: MeshsimApp, key: str, kind: type, title: str) -> None:  # type: ignore[no-untyped-def]
    """``key`` opens a ``kind`` screen whose text holds ``title``; escape closes it again."""
    await pilot.press(key)
    await until(pilot, lambda: isinstance(app.screen, kind))
    screen = app.screen
    if isinstance(screen, ReportScreen):
        shown = screen.plain_text()
    elif isinstance(screen, FormScreen):
        shown = str(screen.query_one(".form-title").render())
    else:
        shown = str(screen.query_one(".confirm-title").render())
    assert title in shown, f"{key} opened {shown!r}"
    await pilot.press("escape")
    await until(pilot, lambda: app.screen is not screen)


async def focus(pilot, app: MeshsimApp, widget: Any) -> None:  # type: ignore[no-untyped-def]
    widget.focus()
    await until(pilot, lambda: app.focused is widget)


# ---------------------------------------------------------------------------------- console


async def help_(pilot, app, key):  # type: ignore[no-untyped-def]
    await opens(pilot, app, key, ReportScreen, "Every key")


async def quit_(pilot, app, key):  # type: ignore[no-untyped-def]
    """Run last: with an unsaved action ``q`` asks first (``n`` stays), then ``y`` quits."""
    await pilot.press("a")
    await fill(pilot, app, {"size": "1", "runtime": "1m", "estimate": ""})
    await until(pilot, lambda: app.frame.label == "submit")
    await pilot.press(key)
    await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
    await pilot.press("n")
    await until(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
    assert app.is_running
    await pilot.press(key)
    await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
    await pilot.press("y")
    await until(pilot, lambda: not app.is_running)


async def run_pause(pilot, app, key):  # type: ignore[no-untyped-def]
    app._speed_index = 0  # ×1: the small run does not end while the check looks
    await pilot.press(key)
    await until(pilot, lambda: app.frame.live)
    await pilot.press(key)
    await until(pilot, lambda: not app.frame.live)


def steps(count: int) -> Check:
    async def check(pilot, app, key):  # type: ignore[no-untyped-def]
        before = event(app)
        await pilot.press(key)
        await until(pilot, lambda: event(app) == max(0, before + count))

    return check


async def to_start(pilot, app, key):  # type: ignore[no-untyped-def]
    before = event(app)
    await pilot.press(key)
    await until(pilot, lambda: event(app) > before)
    assert app.frame.snapshot.recent[-1].kind == "start", "stopped where a job started"


async def go_to_key(pilot, app, key):  # type: ignore[no-untyped-def]
    target = event(app) + 5
    await pilot.press(key)
    await fill(pilot, app, {"target": f"#{target}"})
    await until(pilot, lambda: event(app) == target)


def speed(step: int) -> Check:
    async def check(pilot, app, key):  # type: ignore[no-untyped-def]
        app._speed_index = 3
        await pilot.press(key)
        await until(pilot, lambda: app.frame.speed == SPEEDS[3 + step])

    return check


async def filter_(pilot, app, key):  # type: ignore[no-untyped-def]
    queue = app.query_one(QueueList)
    await pilot.press(key)
    await fill(pilot, app, {"filter": "size>=3"})
    await until(pilot, lambda: queue.filter is not None and queue.filter.text == "size>=3")
    assert all(job.size >= 3 for job in queue._jobs)
    await pilot.press(key)
    await fill(pilot, app, {"filter": ""})
    await until(pilot, lambda: queue.filter is None)


async def find_job(pilot, app, key):  # type: ignore[no-untyped-def]
    await pilot.press(key)
    await fill(pilot, app, {"job": "3"})
    await until(pilot, lambda: isinstance(app.screen, ReportScreen))
    assert "Job 3" in app.screen.plain_text()
    await pilot.press("escape")


async def inspect(pilot, app, key):  # type: ignore[no-untyped-def]
    queue = app.query_one(QueueList)
    await focus(pilot, app, queue)
    await opens(pilot, app, key, ReportScreen, f"Job {queue.selected.job_id}")
    await focus(pilot, app, app.query_one(MachineMap))
    await opens(pilot, app, key, ReportScreen, "Unit ")


async def free_space(pilot, app, key):  # type: ignore[no-untyped-def]
    await opens(pilot, app, key, ReportScreen, "largest free boxes")


async def submit(pilot, app, key):  # type: ignore[no-untyped-def]
    before = app.frame.actions
    await pilot.press(key)
    await fill(pilot, app, {"size": "2", "runtime": "3m", "estimate": ""})
    await until(pilot, lambda: app.frame.actions == before + 1)


async def hold(pilot, app, key):  # type: ignore[no-untyped-def]
    queue = app.query_one(QueueList)
    await focus(pilot, app, queue)
    job = queue.selected
    await pilot.press(key)
    await until(pilot, lambda: job in app.frame.snapshot.held)


async def release(pilot, app, key):  # type: ignore[no-untyped-def]
    queue = app.query_one(QueueList)
    await focus(pilot, app, queue)
    if not app.frame.snapshot.held:
        await hold(pilot, app, "h")
    job = queue.selected
    assert job in app.frame.snapshot.held
    await pilot.press(key)
    await until(pilot, lambda: job not in app.frame.snapshot.held)


async def cancel_job(pilot, app, key):  # type: ignore[no-untyped-def]
    await focus(pilot, app, app.query_one(QueueList))
    await opens(pilot, app, key, ConfirmScreen, "Cancel job")


async def fail(pilot, app, key):  # type: ignore[no-untyped-def]
    game_map = app.query_one(MachineMap)
    await focus(pilot, app, game_map)
    game_map.cursor = 19
    await pilot.press(key)
    await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
    await pilot.press("y")
    await until(pilot, lambda: int(app.frame.snapshot.owners[19]) == DOWN)


async def repair(pilot, app, key):  # type: ignore[no-untyped-def]
    game_map = app.query_one(MachineMap)
    if int(app.frame.snapshot.owners[19]) != DOWN:
        await fail(pilot, app, "f")
    game_map.cursor = 19
    await pilot.press(key)
    await until(pilot, lambda: int(app.frame.snapshot.owners[19]) != DOWN)


async def reserve(pilot, app, key):  # type: ignore[no-untyped-def]
    await opens(pilot, app, key, FormScreen, "Reserve a block")


async def reservations(pilot, app, key):  # type: ignore[no-untyped-def]
    await opens(pilot, app, key, ReportScreen, "No reservation is pending or active")


async def policy(pilot, app, key):  # type: ignore[no-untyped-def]
    await pilot.press(key)
    await fill(pilot, app, {"queue": "sjf"})
    await until(pilot, lambda: app.frame.snapshot.policy.queue == "sjf")


async def undo(pilot, app, key):  # type: ignore[no-untyped-def]
    before = app.frame.actions
    assert before > 0, "an earlier check logged an action"
    await pilot.press(key)
    await until(pilot, lambda: app.frame.actions == before - 1)


async def what_if(pilot, app, key):  # type: ignore[no-untyped-def]
    await opens(pilot, app, key, FormScreen, "What if")


async def save(pilot, app, key):  # type: ignore[no-untyped-def]
    await pilot.press(key)
    await fill(pilot, app, {"path": "saved.json"})
    await until(pilot, lambda: Path("saved.json").exists())


async def export(pilot, app, key):  # type: ignore[no-untyped-def]
    await pilot.press(key)
    await fill(pilot, app, {"path": "exported"})
    await until(pilot, lambda: Path("exported/result.json").exists(), timeout=30)


async def screenshot(pilot, app, key):  # type: ignore[no-untyped-def]
    await pilot.press(key)
    await until(pilot, lambda: any(Path().glob("meshsim-*.svg")))


async def next_tab(pilot, app, key):  # type: ignore[no-untyped-def]
    tabs = app.query_one("#lower")
    before = tabs.active
    await pilot.press(key)
    await until(pilot, lambda: tabs.active != before)


# ------------------------------------------------------------------------------------ focus


async def focus_next(pilot, app, key):  # type: ignore[no-untyped-def]
    await focus(pilot, app, app.query_one(MachineMap))
    await pilot.press(key)
    await until(pilot, lambda: app.focused is app.query_one(RunningTable))


async def focus_previous(pilot, app, key):  # type: ignore[no-untyped-def]
    await focus(pilot, app, app.query_one(RunningTable))
    await pilot.press(key)
    await until(pilot, lambda: app.focused is app.query_one(MachineMap))


# ----------------------------------------------------------------------------- machine map


def map_move(dx: int, dy: int) -> Check:
    """The cursor moves one unit (mesh5x4: x across 5 columns, y down 4 rows, cell = x * 4 + y);
    it starts inside the mesh so every direction can move."""

    async def check(pilot, app, key):  # type: ignore[no-untyped-def]
        game_map = app.query_one(MachineMap)
        await focus(pilot, app, game_map)
        game_map.cursor = 9  # x = 2, y = 1
        await pilot.pause()
        await pilot.press(key)
        await until(pilot, lambda: game_map.cursor == 9 + 4 * dx + dy)

    return check


async def inspect_unit(pilot, app, key):  # type: ignore[no-untyped-def]
    game_map = app.query_one(MachineMap)
    await focus(pilot, app, game_map)
    game_map.cursor = 12
    await opens(pilot, app, key, ReportScreen, "Unit 3,0")


# --------------------------------------------------------------------------------- queue


def rows(delta: int | None, where: int) -> Check:
    """A row key moves the cursor of the queue and of the running jobs: ``delta`` rows from row
    ``where`` (None: to the last row)."""

    async def check(pilot, app, key):  # type: ignore[no-untyped-def]
        for pane in (app.query_one(QueueList), app.query_one(RunningTable)):
            await focus(pilot, app, pane)
            last = (len(pane._jobs) if isinstance(pane, QueueList) else len(pane._order)) - 1
            pane.cursor = min(where, last)
            await pilot.pause()
            start = pane.cursor
            wanted = last if delta is None else max(0, min(last, start + delta))
            assert wanted != start, f"{key} must move the cursor of {pane.id}"
            await pilot.press(key)
            await until(pilot, lambda pane=pane, wanted=wanted: pane.cursor == wanted)

    return check


async def inspect_row(pilot, app, key):  # type: ignore[no-untyped-def]
    queue, running = app.query_one(QueueList), app.query_one(RunningTable)
    await focus(pilot, app, queue)
    await opens(pilot, app, key, ReportScreen, f"Job {queue.selected.job_id}")
    await focus(pilot, app, running)
    await opens(pilot, app, key, ReportScreen, f"Job {running.selected_job}")


async def sort(pilot, app, key):  # type: ignore[no-untyped-def]
    queue = app.query_one(QueueList)
    await focus(pilot, app, queue)
    await pilot.press(key)
    await until(pilot, lambda: queue.sort == "job")
    ids = [job.job_id for job in queue._jobs]
    assert ids == sorted(ids)


async def reverse(pilot, app, key):  # type: ignore[no-untyped-def]
    queue = app.query_one(QueueList)
    await focus(pilot, app, queue)
    before = queue.descending
    await pilot.press(key)
    await until(pilot, lambda: queue.descending != before)


async def users(pilot, app, key):  # type: ignore[no-untyped-def]
    queue = app.query_one(QueueList)
    await focus(pilot, app, queue)
    await pilot.press(key)
    await until(pilot, lambda: queue.users)
    header = "".join(s.text for s in queue.render_line(0))
    assert header.split()[:3] == ["user", "waiting", "nodes"]
    await pilot.press(key)
    await until(pilot, lambda: not queue.users)


# ------------------------------------------------------------------------------- timeline


def zoom(factor: float) -> Check:
    async def check(pilot, app, key):  # type: ignore[no-untyped-def]
        app.query_one("#lower").active = "tab-timeline"
        timeline = app.query_one(Timeline)
        await focus(pilot, app, timeline)
        timeline.window = 600.0
        await pilot.press(key)
        await until(pilot, lambda: timeline.window == 600.0 * factor)

    return check


async def fit(pilot, app, key):  # type: ignore[no-untyped-def]
    timeline = app.query_one(Timeline)
    await focus(pilot, app, timeline)
    timeline.window = 600.0
    await pilot.press(key)
    await until(pilot, lambda: timeline.window == 0.0)


# ------------------------------------------------------------------------------ event log


def scroll(to: str) -> Check:
    """A scrolling key of the event log, from the middle of its lines."""

    async def check(pilot, app, key):  # type: ignore[no-untyped-def]
        app.query_one("#lower").active = "tab-events"
        lines = app.query_one(LogLines)
        await until(pilot, lambda: lines.max_scroll_y > 2 * lines.size.height)
        await focus(pilot, app, lines)
        middle = lines.max_scroll_y // 2
        lines.scroll_to(y=middle, animate=False)
        await until(pilot, lambda: int(lines.scroll_offset.y) == middle)
        await pilot.press(key)
        page = lines.size.height
        wanted = {
            "up": middle - 1,
            "down": middle + 1,
            "page up": middle - page,
            "page down": middle + page,
            "top": 0,
            "bottom": lines.max_scroll_y,
        }[to]
        await until(pilot, lambda: int(lines.scroll_offset.y) == wanted)

    return check


async def older(pilot, app, key):  # type: ignore[no-untyped-def]
    app.query_one("#lower").active = "tab-events"
    log = app.query_one(EventLog)
    box = log.query_one("#log-filter")
    box.focus()
    box.value = "end"
    await pilot.press("enter")
    await until(pilot, lambda: log._page is not None and log._page.older)
    first = log._page.lines[0][0]
    await focus(pilot, app, app.query_one(LogLines))
    await pilot.press(key)
    await until(pilot, lambda: log._page.lines[-1][0] < first)


# -------------------------------------------------------------------------------- dialogs


async def close(pilot, app, key):  # type: ignore[no-untyped-def]
    await pilot.press("question_mark")
    await until(pilot, lambda: isinstance(app.screen, ReportScreen))
    await pilot.press(key)
    await until(pilot, lambda: not isinstance(app.screen, ReportScreen))
    assert app.is_running


async def confirm(yes: bool, pilot, app, key):  # type: ignore[no-untyped-def]
    queue = app.query_one(QueueList)
    await focus(pilot, app, queue)
    job = queue.selected
    await pilot.press("c")
    await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
    await pilot.press(key)
    await until(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
    if yes:
        await until(pilot, lambda: job not in app.frame.snapshot.waiting)
    else:
        await pilot.pause(0.3)
        assert job in app.frame.snapshot.waiting and app.is_running


async def yes(pilot, app, key):  # type: ignore[no-untyped-def]
    await confirm(True, pilot, app, key)


async def no(pilot, app, key):  # type: ignore[no-untyped-def]
    await confirm(False, pilot, app, key)


async def cancel_form(pilot, app, key):  # type: ignore[no-untyped-def]
    """``q`` cancels a form whose focus is on a choice (a focused text input takes ``q``)."""
    await pilot.press("p")
    await until(pilot, lambda: isinstance(app.screen, FormScreen))
    form = app.screen
    await until(pilot, lambda: isinstance(app.focused, Choice))
    await pilot.press(key)
    await until(pilot, lambda: app.screen is not form)
    assert app.is_running


async def accept(pilot, app, key):  # type: ignore[no-untyped-def]
    await pilot.press("g")
    await until(pilot, lambda: isinstance(app.screen, FormScreen))
    target = event(app) + 3
    app.screen.query_one("#field-target").value = f"#{target}"
    await pilot.press(key)
    await until(pilot, lambda: event(app) == target)


async def choose(pilot, app, key):  # type: ignore[no-untyped-def]
    await pilot.press("p")
    await until(pilot, lambda: isinstance(app.focused, Choice))
    choice = app.focused
    await pilot.press(key)
    await until(pilot, lambda: choice.expanded)
    await pilot.press("escape")
    await until(pilot, lambda: not choice.expanded)
    await pilot.press("escape")
    await until(pilot, lambda: not isinstance(app.screen, FormScreen))


async def cancel_progress(pilot, app, key):  # type: ignore[no-untyped-def]
    """A what-if runs two copies of the month to its end (seconds): its progress shows, and the
    key stops it."""
    await pilot.press("w")
    await fill(pilot, app, {"backfill": "none"})
    await until(pilot, lambda: isinstance(app.screen, ProgressScreen), timeout=10)
    await pilot.press(key)
    await until(pilot, lambda: (app.frame.error or "").endswith(": cancelled"), timeout=30)
    assert app.frame.label == "what-if"
    await until(pilot, lambda: not isinstance(app.screen, ProgressScreen | ReportScreen))


CHECKS: dict[str, dict[str, Check]] = {
    "console": {
        "Every key and what it does": help_,
        "Run live at the chosen speed, or pause": run_pause,
        "Process one event": steps(1),
        "Process ten events": steps(10),
        "Process events until a job starts": to_start,
        "Step back one event (replays the run)": steps(-1),
        "Step back ten events": steps(-10),
        "Go to a simulated time or an event number": go_to_key,
        "Raise the live speed": speed(1),
        "Lower the live speed": speed(-1),
        "Filter the waiting queue (user=12 size>=512 queue=3 state=held, a job number)": filter_,
        "Inspect a job by its number": find_job,
        "Inspect the selected job or unit": inspect,
        "Partitions by state and what blocks each idle midplane (partlist), or the free boxes "
        "of a mesh or torus": free_space,
        "Submit a job now": submit,
        "Hold the selected waiting job": hold,
        "Release the selected held job": release,
        "Cancel the selected job": cancel_job,
        "Fail the unit under the map cursor": fail,
        "Repair the unit under the map cursor": repair,
        "Reserve a block for a time window": reserve,
        "List the reservations: units, start, end, pending or active, jobs on their units": (
            reservations
        ),
        "Change queue order, backfilling or allocator": policy,
        "Undo the last operator action": undo,
        "Fork, change something, compare both to the end": what_if,
        "Save the scenario (inputs, actions, position)": save,
        "Export results (JSON, CSV, SWF) of the run to its end": export,
        "Save an SVG screenshot": screenshot,
        "Cycle metrics, timeline and event log": next_tab,
        # last: it ends the console
        "Close the open dialog, else quit the console (asks when operator actions are unsaved)": (
            quit_
        ),
    },
    "focus": {"Focus Next": focus_next, "Focus Previous": focus_previous},
    "machine map (focused)": {
        "Left": map_move(-1, 0),
        "Right": map_move(1, 0),
        "Up": map_move(0, -1),
        "Down": map_move(0, 1),
        "Inspect the unit": inspect_unit,
    },
    "queue and running jobs (focused)": {
        "Up": rows(-1, 1),
        "Down": rows(1, 0),
        "Page up": rows(-10, 12),
        "Page down": rows(10, 0),
        "Top": rows(-(10**9), 1),
        "Bottom": rows(None, 0),
        "Inspect the job": inspect_row,
        "Sort by the next column": sort,
        "Sort the other way round": reverse,
        "Totals per user, or the jobs": users,
    },
    "timeline (focused; its + and - zoom instead of the speed)": {
        "Show a shorter time window": zoom(0.5),
        "Show a longer time window": zoom(2.0),
        "Fit the window to the jobs shown": fit,
    },
    "event log (focused; enter in its box searches the whole run)": {
        "Up": scroll("up"),
        "Down": scroll("down"),
        "Page up": scroll("page up"),
        "Page down": scroll("page down"),
        "Top": scroll("top"),
        "Follow the newest line again": scroll("bottom"),
        "The page of search matches before this one": older,
    },
    "dialogs": {
        "Close this view": close,
        "Go ahead": yes,
        "Leave it": no,
        "Close the form": cancel_form,
        "Accept the form": accept,
        "In a form, open a choice's list (typing jumps to an entry, enter takes it)": choose,
        "Stop the go-to, what-if or export that is running": cancel_progress,
    },
}

OPENINGS = {
    "event log (focused; enter in its box searches the whole run)": (RunOptions(), 3000),
    "dialogs": (RunOptions(), 3000),
}
"""Sections that need a longer run than MESH (a search with older pages, a long go-to)."""


def test_every_key_help_lists_has_a_check():
    assert set(CHECKS) == set(SECTIONS)
    for title, section in SECTIONS.items():
        missing = [key.does for key in section.keys if key.does not in CHECKS[title]]
        assert not missing, f"{title}: Help lists keys with no check of their effect: {missing}"


@pytest.mark.parametrize("title", list(SECTIONS))
async def test_every_key_help_lists_does_what_it_says(title: str) -> None:
    options, start = OPENINGS.get(title, (MESH, EVENT))
    app = make_app(options, event=start)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None, timeout=30)
        checks = CHECKS[title]
        for key in sorted(SECTIONS[title].keys, key=lambda k: checks[k.does] is quit_):
            for name in key.keys:
                await checks[key.does](pilot, app, name)
                if not app.is_running:
                    break
                assert not isinstance(app.screen, FormScreen | ReportScreen | ConfirmScreen), (
                    f"{name} ({key.action}) left a dialog open"
                )


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Saved scenarios, exports and screenshots land in a temporary folder."""
    monkeypatch.chdir(tmp_path)
