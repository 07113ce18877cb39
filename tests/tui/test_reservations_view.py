"""Pilot tests of reservations in the console (issue 22, item 1): a reservation two hours ahead is
pending until then — on the map, in the unit inspector and in the reservations list (``v``) — and
active after; the saved scenario holds its window and replays headless to the console's export,
byte for byte."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from meshsim.engine.allocation.allocator import RESERVED
from meshsim.engine.tools.runcase import RunOptions
from meshsim.engine.topology.units import unit_cell
from meshsim.tui.app import make_app
from meshsim.tui.screens.confirm import ConfirmScreen
from meshsim.tui.screens.report import ReportScreen
from meshsim.tui.widgets.machine_map import MachineMap
from tests.tui.test_app import ROOT, fill, until

INTREPID = RunOptions(machine="intrepid", workload=str(ROOT / "tests/data/intrepid-mini.swf"))
SIZE = (160, 50)


def _map_text(machine_map: MachineMap) -> str:
    return "\n".join(machine_map.render_line(y).text for y in range(machine_map.size.height))


async def test_a_reservation_two_hours_ahead_is_pending_until_then_and_active_after(
    tmp_path: Path,
) -> None:
    app = make_app(INTREPID)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None)
        cell = unit_cell(app.machine, "R47-M1")
        now = app.frame.snapshot.time
        await pilot.press("R")
        await fill(pilot, app, {"block": "R47-M1", "start": "2h", "length": "1h"})
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        question = str(app.screen.query_one("#confirm-question").render())
        assert "for 1h00m of maintenance, starting in 2h00m" in question
        assert "are waited for" in question
        await pilot.press("y")
        await until(pilot, lambda: app.frame.label == "reserve")
        snap = app.frame.snapshot
        (status,) = snap.reservations
        assert (status.state, status.start, status.until) == ("pending", now + 7200, now + 10800)
        assert int(snap.owners[cell]) != RESERVED, "pending: the unit stays in service"
        machine_map = app.query_one(MachineMap)
        machine_map.cursor = cell
        machine_map.focus()
        await until(pilot, lambda: "R47-M1 pending" in _map_text(machine_map))
        text = _map_text(machine_map)
        assert "1 pending" in text and "◌ R47-M1 pending day 0 02:00:00" in text

        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ReportScreen))
        assert "pending reservation" in app.screen.plain_text()
        await pilot.press("escape")

        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, ReportScreen))
        listed = app.screen.plain_text(width=200)
        assert "R47-M1" in listed and "pending, in 2h00m" in listed
        await pilot.press("escape")

        await pilot.press("ctrl+s")
        await fill(pilot, app, {"path": str(tmp_path / "s.json")})
        await until(pilot, lambda: (tmp_path / "s.json").exists())
        await pilot.press("x")
        await fill(pilot, app, {"path": str(tmp_path / "export")})
        await until(pilot, lambda: (tmp_path / "export" / "result.json").exists(), timeout=30)

        await pilot.press("g")
        await fill(pilot, app, {"target": "+1h"})
        await until(pilot, lambda: app.frame.snapshot.time >= now + 3600)
        assert app.frame.snapshot.reservations[0].state == "pending"
        await pilot.press("g")
        await fill(pilot, app, {"target": "+1h"})
        await until(pilot, lambda: app.frame.snapshot.time >= now + 7200)
        (status,) = app.frame.snapshot.reservations
        assert status.state == "active"
        assert int(app.frame.snapshot.owners[cell]) == RESERVED
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, ReportScreen))
        assert "active, 1h00m left" in app.screen.plain_text(width=200)

    (saved,) = json.loads((tmp_path / "s.json").read_text())["actions"]
    assert saved == {
        "action": "reserve",
        "time": now,
        "block": "R47-M1",
        "until": now + 10800,
        "start": now + 7200,
        "on_job": "wait",
        "after_event": 0,
    }
    out = tmp_path / "replayed.json"
    command = [sys.executable, "-m", "meshsim", "run", "--scenario", str(tmp_path / "s.json")]
    done = subprocess.run(
        [*command, "--quiet", "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == (tmp_path / "export" / "result.json").read_bytes()


async def test_the_form_refuses_a_bad_reservation_and_offers_wait_or_kill() -> None:
    app = make_app(INTREPID)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None)
        await pilot.press("R")
        await fill(pilot, app, {"block": "R99-M7", "start": "2h", "length": "1h"})
        error = str(app.screen.query_one("#form-error").render())
        assert "no unit 'R99-M7'" in error
        await fill(pilot, app, {"block": "R47-M1", "start": "soon", "length": "1h"})
        assert "starts in: expected a duration" in str(app.screen.query_one("#form-error").render())
        await fill(pilot, app, {"block": "R47-M1", "start": "0", "length": "1h", "on_job": "kill"})
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "are killed" in str(app.screen.query_one("#confirm-question").render())
        await pilot.press("y")
        await until(pilot, lambda: app.frame.label == "reserve")
        (status,) = app.frame.snapshot.reservations
        assert (status.state, status.on_job) == ("active", "kill")
