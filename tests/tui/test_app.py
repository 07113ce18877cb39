"""Pilot tests of the console: every control and operator action, checked on the engine state
(through the frames the engine process publishes, and its answers to questions) and on the rendered
text. Each app runs its own engine process, as ``meshsim tui`` does."""

from __future__ import annotations

import asyncio
import gc
import itertools
import json
import subprocess
import sys
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widgets._footer import FooterKey

from meshsim.engine.allocation.allocator import DOWN
from meshsim.engine.tools.runcase import RunOptions
from meshsim.engine.tools.session import Session
from meshsim.tui.app import FrameReady, MeshsimApp, make_app
from meshsim.tui.driver import Frame
from meshsim.tui.requests import Query
from meshsim.tui.screens.confirm import ConfirmScreen
from meshsim.tui.screens.form import FormScreen
from meshsim.tui.screens.report import ReportScreen
from meshsim.tui.widgets.event_log import EventLog
from meshsim.tui.widgets.machine_map import MachineMap
from meshsim.tui.widgets.queue_list import QueueList

ROOT = Path(__file__).resolve().parents[2]
MESH = RunOptions(
    machine=str(ROOT / "tests/data/mesh5x4.toml"),
    workload=str(ROOT / "tests/data/mesh-sides-small.toml"),
)
SIZE = (120, 40)


async def until(pilot, test: Callable[[], bool], timeout: float = 15.0) -> None:  # type: ignore[no-untyped-def]
    """Let the UI and the engine worker run until ``test()`` holds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not test():
        assert loop.time() < deadline, "condition not reached in time"
        await pilot.pause(0.02)


_ASKED = itertools.count()


async def ask(pilot, app: MeshsimApp, question: Query) -> Any:  # type: ignore[no-untyped-def]
    """The engine's answer to ``question`` (paused)."""
    label = f"ask {next(_ASKED)}"
    app.send(question, label)
    await until(pilot, lambda: app.frame is not None and app.frame.label == label)
    return app.frame.result


def event(app: MeshsimApp) -> int:
    return app.frame.snapshot.event if app.frame else -1


async def fill(pilot, app: MeshsimApp, values: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    """Type into the open form's fields and submit it."""
    await until(pilot, lambda: isinstance(app.screen, FormScreen))
    for name, value in values.items():
        field = app.screen.query_one(f"#field-{name}")
        field.value = value
    app.screen.query_one(f"#field-{next(iter(values))}").focus()
    await pilot.press("enter")


async def test_opens_with_every_pane_and_status_at_event_zero() -> None:
    app = make_app(MESH)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None)
        for selector in ("#status", "#map", "#running", "#queue", "#lower"):
            assert app.query_one(selector).display
        assert "event 0" in str(app.query_one("#status").render())


async def test_step_keys_move_the_event_counter() -> None:
    app = make_app(MESH)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None)
        await pilot.press("n")
        await until(pilot, lambda: event(app) == 1)
        assert "event 1" in str(app.query_one("#status").render())
        await pilot.press("N")
        await until(pilot, lambda: event(app) == 11)
        await pilot.press("b")
        await until(pilot, lambda: event(app) == 10)
        await pilot.press("s")
        await until(pilot, lambda: event(app) > 10 and bool(app.frame.snapshot.running))
        assert app.frame.snapshot.recent[-1].kind == "start"


async def test_goto_event_and_time_then_back_replays() -> None:
    app = make_app(MESH)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None)
        await pilot.press("g")
        await fill(pilot, app, {"target": "#40"})
        await until(pilot, lambda: event(app) == 40)
        before = app.frame.snapshot
        await pilot.press("g")
        await fill(pilot, app, {"target": "#12"})
        await until(pilot, lambda: event(app) == 12)
        await pilot.press("g")
        await fill(pilot, app, {"target": "#40"})
        await until(pilot, lambda: event(app) == 40)
        again = app.frame.snapshot
        assert again.time == before.time
        assert again.owners.tolist() == before.owners.tolist()
        await pilot.press("g")
        await fill(pilot, app, {"target": "3"})
        await until(pilot, lambda: app.frame.label == "go to" and app.frame.snapshot.time <= 3)
        assert await ask(pilot, app, Query("peek")) > 3


async def test_a_bad_goto_keeps_the_form_open_with_the_error() -> None:
    app = make_app(MESH)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None)
        await pilot.press("g")
        await fill(pilot, app, {"target": "tomorrow"})
        await pilot.pause()
        assert isinstance(app.screen, FormScreen)
        assert "expected a duration" in str(app.screen.query_one("#form-error").render())
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, FormScreen))


async def test_live_mode_runs_and_pauses_and_speed_keys_change_speed() -> None:
    app = make_app(MESH, fps=20)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None)
        await pilot.press(*["minus"] * 7)
        await pilot.press("space")
        await until(pilot, lambda: app.frame.live)
        assert "live ×1 " in str(app.query_one("#status").render())
        await pilot.press("space")
        await until(pilot, lambda: not app.frame.live)
        await pilot.press(*["plus"] * 7, "space")
        await until(pilot, lambda: app.frame.snapshot.done, timeout=30)
        assert "done" in str(app.query_one("#status").render())


async def test_inspect_a_waiting_job_and_find_a_job_by_number() -> None:
    app = make_app(MESH)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None)
        await pilot.press("g")
        await fill(pilot, app, {"target": "#60"})
        await until(pilot, lambda: event(app) == 60 and bool(app.frame.snapshot.waiting))
        app.query_one(QueueList).focus()
        await pilot.pause()
        await pilot.press("i")
        await until(pilot, lambda: isinstance(app.screen, ReportScreen))
        job = app.frame.snapshot.waiting[0]
        body = app.screen.plain_text()
        assert str(job.job_id) in body
        assert app.frame.snapshot.waits[job.index].text in " ".join(body.split())
        await pilot.press("escape")
        await pilot.press("number_sign")
        await fill(pilot, app, {"job": "1"})
        await until(pilot, lambda: isinstance(app.screen, ReportScreen))
        assert "Job 1" in app.screen.plain_text()


async def test_hold_release_cancel_and_undo_go_through_the_action_log() -> None:
    app = make_app(MESH)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None)
        await pilot.press("g")
        await fill(pilot, app, {"target": "#60"})
        await until(pilot, lambda: event(app) == 60 and len(app.frame.snapshot.waiting) > 1)
        queue = app.query_one(QueueList)
        queue.focus()
        await pilot.pause()
        job = queue.selected
        await pilot.press("h")
        await until(pilot, lambda: job.index in {j.index for j in app.frame.snapshot.held})
        assert queue.selected == job, "the cursor follows the held job"
        await pilot.press("u")
        await until(pilot, lambda: not app.frame.snapshot.held)
        queue.cursor = 0
        await pilot.pause()
        target = queue.selected
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await until(
            pilot, lambda: target.index not in {j.index for j in app.frame.snapshot.waiting}
        )
        kinds = [a.action.kind for a in await ask(pilot, app, Query("actions"))]
        assert kinds == ["hold", "release", "cancel"]
        await pilot.press("z")
        await until(pilot, lambda: app.frame.label == "undo")
        assert len(await ask(pilot, app, Query("actions"))) == 2
        assert await ask(pilot, app, Query("explain", (target.job_id,))) != "cancelled"


async def test_submit_a_job_now() -> None:
    app = make_app(MESH)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None)
        await pilot.press("a")
        await fill(pilot, app, {"size": "3", "runtime": "2m", "estimate": ""})
        await until(pilot, lambda: app.frame.label == "submit")
        submitted = (await ask(pilot, app, Query("actions")))[-1].action
        assert (submitted.kind, submitted.size, submitted.runtime) == ("submit", 3, 120.0)


async def test_fail_and_repair_the_unit_under_the_map_cursor() -> None:
    app = make_app(MESH)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None)
        game_map = app.query_one(MachineMap)
        game_map.focus()
        game_map.cursor = 7
        await pilot.pause()
        await pilot.press("f")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await until(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
        assert await ask(pilot, app, Query("actions")) == (), "no is no action"
        await pilot.press("f")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await until(pilot, lambda: int(app.frame.snapshot.owners[7]) == DOWN)
        await pilot.press("i")
        await until(pilot, lambda: isinstance(app.screen, ReportScreen))
        assert "down" in app.screen.plain_text()
        await pilot.press("escape")
        await pilot.press("r")
        await until(pilot, lambda: int(app.frame.snapshot.owners[7]) != DOWN)


async def test_reserve_a_block_and_change_policy_from_now_on() -> None:
    app = make_app(MESH)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None)
        await pilot.press("R")
        await fill(pilot, app, {"block": "0,0 2x2", "start": "0", "length": "1h"})
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await until(pilot, lambda: app.frame.label == "reserve")
        assert (await ask(pilot, app, Query("actions")))[-1].action.kind == "reserve"
        await pilot.press("p")
        await fill(pilot, app, {"backfill": "easy"})
        await until(pilot, lambda: app.frame.snapshot.policy.backfill == "easy")


async def test_what_if_compares_both_branches() -> None:
    app = make_app(MESH)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None)
        await pilot.press("N")
        await pilot.press("w")
        await fill(pilot, app, {"backfill": "easy"})
        await until(pilot, lambda: isinstance(app.screen, ReportScreen), timeout=30)
        body = app.screen.plain_text()
        assert "avg wait" in body and "backfill=easy" in body
        assert event(app) == 10, "the session itself does not move"
        assert await ask(pilot, app, Query("events")) == 10


async def test_help_lists_every_binding_and_tabs_cycle() -> None:
    app = make_app(MESH)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None)
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, ReportScreen))
        body = app.screen.plain_text()
        for binding in app.BINDINGS:
            assert binding.description in body
        await pilot.press("escape")
        await pilot.press("t")
        await until(pilot, lambda: app.query_one("#lower").active == "tab-timeline")
        await pilot.press("t")
        await until(pilot, lambda: app.query_one("#lower").active == "tab-events")
        await pilot.press("n")
        await until(pilot, lambda: event(app) == 1)
        assert any(line.startswith("#1 ") for line in app.query_one(EventLog).lines())


async def test_q_closes_every_dialog_and_never_quits_from_one() -> None:
    """Issue 22: ``q`` inside Help, an inspector or the what-if table quit the whole console."""
    app = make_app(MESH)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None)
        for key in ("question_mark", "f1", "i"):
            if key == "i":
                app.query_one(MachineMap).focus()
                await pilot.pause()
            await pilot.press(key)
            await until(pilot, lambda: isinstance(app.screen, ReportScreen))
            await pilot.press("q")
            await until(pilot, lambda: not isinstance(app.screen, ReportScreen))
            assert app.is_running, f"q after {key} closed the dialog only"
        await pilot.press("g")
        await until(pilot, lambda: isinstance(app.screen, FormScreen))
        await pilot.press("q")
        await pilot.pause()
        assert app.screen.query_one("#field-target").value == "q", "a focused input takes q"
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, FormScreen))
        assert app.is_running


async def test_q_asks_before_quitting_with_unsaved_actions(tmp_path: Path) -> None:
    app = make_app(MESH)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None)
        await pilot.press("a")
        await fill(pilot, app, {"size": "3", "runtime": "2m", "estimate": ""})
        await until(pilot, lambda: app.frame.label == "submit" and app.frame.actions == 1)
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "not saved" in str(app.screen.query_one("#confirm-question").render())
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
        assert app.is_running
        await pilot.press("ctrl+s")
        await fill(pilot, app, {"path": str(tmp_path / "s.json")})
        await until(pilot, lambda: app.frame.label == "saved")
        await pilot.press("q")
        await until(pilot, lambda: not app.is_running)


async def test_a_tab_switch_never_shows_a_result_again() -> None:
    """Issue 22: switching tabs, or ``t``, re-opened the dialog just closed."""
    app = make_app(MESH)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None)
        await pilot.press("number_sign")
        await fill(pilot, app, {"job": "1"})
        await until(pilot, lambda: isinstance(app.screen, ReportScreen))
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ReportScreen))
        for _ in range(3):
            await pilot.press("t")
            await pilot.pause(0.2)
            assert not isinstance(app.screen, ReportScreen)


async def test_live_starts_at_a_watchable_speed() -> None:
    app = make_app(MESH)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None)
        assert app.frame.speed == 3600.0
        assert "speed ×3600" in str(app.query_one("#status").render())
        await pilot.press("space")
        await until(pilot, lambda: app.frame.label == "" and app.frame.snapshot.time > 0)
        assert app.frame.speed == 3600.0


async def test_saved_scenario_replays_headless_to_the_consoles_export(tmp_path: Path) -> None:
    app = make_app(MESH)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None)
        await pilot.press("g")
        await fill(pilot, app, {"target": "#50"})
        await until(pilot, lambda: event(app) == 50)
        app.query_one(QueueList).focus()
        await pilot.pause()
        await pilot.press("h")
        await pilot.press("p")
        await fill(pilot, app, {"queue": "sjf"})
        await until(pilot, lambda: app.frame.label == "policy")
        assert len(await ask(pilot, app, Query("actions"))) == 2
        await pilot.press("ctrl+s")
        await fill(pilot, app, {"path": str(tmp_path / "s.json")})
        await until(pilot, lambda: (tmp_path / "s.json").exists())
        await pilot.press("x")
        await fill(pilot, app, {"path": str(tmp_path / "export")})
        await until(pilot, lambda: (tmp_path / "export" / "result.json").exists(), timeout=30)
        await pilot.press("X")
        await until(pilot, lambda: any(tmp_path.glob("meshsim-*.svg")))
    saved = json.loads((tmp_path / "s.json").read_text())
    assert saved["position"] == 50 + 2 and len(saved["actions"]) == 2
    out = tmp_path / "replayed.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "meshsim",
            "run",
            "--scenario",
            str(tmp_path / "s.json"),
            "--quiet",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == (tmp_path / "export" / "result.json").read_bytes()
    reopened = make_app(MESH, scenario=tmp_path / "s.json")
    async with reopened.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: reopened.frame is not None)
        assert event(reopened) == saved["position"]


def test_bad_input_to_meshsim_tui_is_one_line(tmp_path: Path) -> None:
    for args, needle in (
        (["--machine", "nosuch"], "nosuch"),
        (["--queue", "lifo"], "lifo"),
        (["--scenario", str(tmp_path / "missing.json")], "missing.json"),
        (["--scenario", str(tmp_path / "s.json"), "--seed", "3"], "--seed cannot be combined"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "meshsim", "tui", *args],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
            timeout=60,
        )
        assert done.returncode != 0
        assert needle in done.stderr
        assert "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Screenshots and default file names land in a temporary folder."""
    monkeypatch.chdir(tmp_path)


async def test_live_frames_redraw_the_metrics_tab_only_with_fresh_result_metrics() -> None:
    app = make_app(MESH)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None)
        session = Session(MESH)
        metrics = session.results().metrics
        label = app.query_one("#label-queue")

        def show(steps: int, live: bool, results: dict[str, float | int]) -> str:
            session.step(steps)
            app.show_frame(FrameReady(Frame(session.snapshot(), "console", live, 1.0, 0, results)))
            return str(label.render())

        shown = show(0, True, metrics)
        for _ in range(8):
            assert show(3, True, metrics) == shown, "same result metrics: tab left as it was"
        assert show(0, False, metrics) != shown, "a paused frame redraws it"
        fresh = show(3, True, dict(metrics))
        assert show(0, False, metrics) == fresh, "fresh metrics redraw it while live"


async def test_the_footer_lets_go_of_the_keys_it_replaces() -> None:
    """Textual's Footer rebuilds its keys whenever the bindings change (going live, pausing, a focus
    change), and each key's binding to the footer's ``compact`` kept the removed keys alive
    (textual#6666): twelve widgets per change, for the whole session. The console's footer drops
    them."""
    app = make_app(MESH)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: bool(app.screen.query(FooterKey)))
        replaced: list[weakref.ref[FooterKey]] = []
        for _ in range(4):
            keys = list(app.screen.query(FooterKey))
            replaced += map(weakref.ref, keys)
            app.screen.refresh_bindings()
            await until(pilot, lambda keys=keys: not any(key.is_attached for key in keys))
            await until(pilot, lambda: bool(app.screen.query(FooterKey)))
        del keys

        def released() -> bool:
            gc.collect()
            return all(ref() is None for ref in replaced)

        assert len(replaced) >= 4 * 10
        await until(pilot, released, timeout=5.0)
