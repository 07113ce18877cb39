"""Issue 22, item 3: operator actions checked before they are logged. Each test drives the console
as an operator would and fails on the code before the fix: an impossible action was logged, took an
event number and offered an undo; forms took any text; undo moved the clock."""

from __future__ import annotations

from textual.widgets import Select

from meshsim.engine.allocation.allocator import DOWN
from meshsim.engine.tools.runcase import RunOptions
from meshsim.tui.app import MeshsimApp, make_app
from meshsim.tui.requests import Query
from meshsim.tui.screens.confirm import ConfirmScreen
from meshsim.tui.screens.form import FormScreen
from meshsim.tui.widgets.machine_map import MachineMap
from meshsim.tui.widgets.running_table import RunningTable

from .test_app import MESH, SIZE, ask, event, fill, until


def messages(app: MeshsimApp) -> list[str]:
    """The text of every notification shown so far."""
    return [n.message for n in app._notifications]


async def test_repairing_a_healthy_unit_is_refused_and_not_logged() -> None:
    app = make_app(MESH)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None)
        app.query_one(MachineMap).focus()
        await pilot.press("r")
        await until(pilot, lambda: app.frame.label == "repair")
        assert app.frame.error == "repair refused: unit 0,0 is not down"
        assert event(app) == 0, "a refused action takes no event number"
        assert await ask(pilot, app, Query("actions")) == ()
        assert not any("undo" in m for m in messages(app)), "nothing to undo, none offered"


async def test_holding_a_running_job_is_refused_and_not_logged() -> None:
    app = make_app(MESH)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None)
        await pilot.press("g")
        await fill(pilot, app, {"target": "#40"})
        await until(pilot, lambda: event(app) == 40 and bool(app.frame.snapshot.running))
        table = app.query_one(RunningTable)
        table.focus()
        await pilot.pause()
        job_id = table.selected_job
        await pilot.press("h")
        await until(pilot, lambda: app.frame.label == "hold")
        assert app.frame.error == f"hold refused: job {job_id} is running, not waiting"
        assert event(app) == 40
        assert await ask(pilot, app, Query("actions")) == ()


async def test_failing_a_down_unit_asks_nothing_and_is_refused() -> None:
    app = make_app(MESH)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None)
        app.query_one(MachineMap).focus()
        await pilot.press("f")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        question = str(app.screen.query_one("#confirm-question").render())
        assert question.startswith("Fail 0,0? It is down until repaired")
        await pilot.press("y")
        await until(pilot, lambda: int(app.frame.snapshot.owners[0]) == DOWN)
        down_at = event(app)
        await pilot.press("f")
        await until(pilot, lambda: app.frame.label == "fail" and app.frame.error is not None)
        assert not isinstance(app.screen, ConfirmScreen), "an impossible action asks nothing"
        assert app.frame.error == "fail refused: unit 0,0 is already down"
        assert event(app) == down_at
        assert len(await ask(pilot, app, Query("actions"))) == 1


async def test_a_unit_the_machine_lacks_is_refused_in_the_what_if_form() -> None:
    app = make_app(RunOptions())
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None)
        await pilot.press("w")
        await fill(pilot, app, {"fail": "R99-M7"})
        await pilot.pause()
        assert isinstance(app.screen, FormScreen), "the form stays open"
        error = str(app.screen.query_one("#form-error").render())
        assert "no unit 'R99-M7' on machine 'intrepid'" in error


async def test_forms_offer_only_the_policies_valid_here_with_the_current_ones_chosen() -> None:
    app = make_app(RunOptions())
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None)
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, FormScreen))
        policy = app.frame.snapshot.policy
        allocator = app.screen.query_one("#field-allocator", Select)
        offered = [value for _, value in allocator._options]
        assert "first-fit" not in offered and "mbs" not in offered, "no mesh allocator on Intrepid"
        assert allocator.value == app.machine.default_allocator
        for name in ("queue", "discipline", "backfill"):
            assert app.screen.query_one(f"#field-{name}", Select).value == getattr(policy, name)
        await pilot.press("enter")
        await pilot.pause()
        assert "nothing changed" in str(app.screen.query_one("#form-error").render())
        await pilot.press("escape")
        await pilot.press("w")
        await until(pilot, lambda: isinstance(app.screen, FormScreen))
        allocator = app.screen.query_one("#field-allocator", Select)
        assert allocator.value == "" and "first-fit" not in [v for _, v in allocator._options]


async def test_undo_keeps_the_clock() -> None:
    app = make_app(MESH)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None)
        await pilot.press("g")
        await fill(pilot, app, {"target": "#60"})
        await until(pilot, lambda: event(app) == 60 and len(app.frame.snapshot.waiting) > 1)
        await pilot.press("g")
        await fill(pilot, app, {"target": "+0"})
        await until(pilot, lambda: app.frame.label == "go to")
        before = (app.frame.snapshot.time, event(app))
        await pilot.press("a")
        await fill(pilot, app, {"size": "1", "runtime": "1h"})
        await until(pilot, lambda: app.frame.label == "submit")
        await pilot.press("z")
        await until(pilot, lambda: app.frame.label == "undo")
        assert (app.frame.snapshot.time, event(app)) == before


async def test_space_in_a_form_is_text_or_opens_a_choice_and_never_starts_the_run() -> None:
    """Issue 22: ``space`` (a priority key) reached the app from a form and started the run."""
    app = make_app(MESH)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None)
        await pilot.press("g", "d", "a", "y", "space", "1")
        await until(pilot, lambda: isinstance(app.screen, FormScreen))
        assert app.screen.query_one("#field-target").value == "day 1"
        await pilot.press("escape", "w")
        await until(pilot, lambda: isinstance(app.screen, FormScreen))
        await pilot.press("space")
        await pilot.pause(0.2)
        assert app.screen.query_one("#field-queue", Select).expanded, "space opens the list"
        assert not app.frame.live, "and does not start the run"
