"""The timeline: bar columns for hand-made jobs, row order, zoom, and one SVG snapshot."""

from __future__ import annotations

import dataclasses

import numpy as np
from textual.app import App, ComposeResult

from meshsim.engine.allocation.allocator import Placement
from meshsim.engine.core.jobs import Job
from meshsim.engine.core.policy import Policy
from meshsim.engine.kernel.records import FinishedJob, RunningJob, Snapshot
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.topology.machines import load_machine
from meshsim.engine.workloads.workload import from_columns
from meshsim.tui.widgets.timeline import LABEL, Timeline, bars, columns, ticks

NOW = 10_000.0


def job(index: int, runtime: float, estimate: float) -> Job:
    return Job(index, 100 + index, 0.0, runtime, estimate, 4, 4)


def hand_made() -> Snapshot:
    """Time 10 000 s: three finished jobs (one killed) and two running ones on mesh5x4."""
    m = load_machine("mesh32")
    jobs = from_columns("t", submit=np.zeros(1), size=np.ones(1), runtime=np.ones(1))
    base = Simulation(m, jobs, Policy.for_machine(m), 1).snapshot()
    here = Placement((0,), 4, "(0,0) 2x2")
    finished = (
        FinishedJob(job(0, 4000.0, 5000.0), 1000.0, 5000.0, here, False),
        FinishedJob(job(1, 3000.0, 3000.0), 4000.0, 7000.0, here, True),
        FinishedJob(job(2, 1000.0, 2000.0), 8000.0, 9000.0, here, False),
    )
    running = (
        RunningJob(job(3, 5000.0, 6000.0), 6000.0, here),
        RunningJob(job(4, 500.0, 1500.0), 9500.0, here),
    )
    return dataclasses.replace(base, time=NOW, running=running, finished=finished)


class Host(App[None]):
    def __init__(self, snap: Snapshot, window: float) -> None:
        super().__init__()
        self.snap = snap
        self.window = window

    def compose(self) -> ComposeResult:
        yield Timeline()

    def on_mount(self) -> None:
        timeline = self.query_one(Timeline)
        timeline.window = self.window
        timeline.show(self.snap)


def test_columns_cover_start_to_end_and_clamp() -> None:
    assert columns(0.0, 50.0, 0.0, 100.0, 100) == (0, 50)
    assert columns(25.0, 26.0, 0.0, 100.0, 10) == (2, 3), "at least one column"
    assert columns(-50.0, 150.0, 0.0, 100.0, 10) == (0, 10)
    assert columns(200.0, 300.0, 0.0, 100.0, 10) == (0, 0), "off screen"


def test_rows_latest_start_first_with_expected_ends() -> None:
    rows = bars(hand_made())
    assert [b.job_id for b in rows] == [104, 102, 103, 101, 100]
    running = {b.job_id: b for b in rows if b.running}
    assert running[103].end == 6000.0 + 6000.0, "running jobs end at their expected end"
    assert [b.killed for b in rows] == [False, False, False, True, False]


def test_ticks_count_back_from_now() -> None:
    marks = ticks(0.0, 12_000.0, NOW, 120)
    assert marks[-1] == (100, "now")
    assert (0, "-2h46m") not in marks and all(col >= 0 for col, _ in marks)
    assert [label for _, label in marks][-3:] == ["-1h", "-30m", "now"]


async def test_bars_sit_at_their_columns() -> None:
    # A 10 000 s window on 100 plot columns: 100 s per column; now at column 100 of 120.
    width = LABEL + 120
    app = Host(hand_made(), window=10_000.0)
    async with app.run_test(size=(width, 12)) as pilot:
        await pilot.pause()
        timeline = app.query_one(Timeline)
        assert timeline.span() == (0.0, 12_000.0)
        lines = ["".join(s.text for s in timeline.render_line(y)) for y in range(7)]
        plot = [line[LABEL:] for line in lines]
        assert plot[0][97:104] == "now|" + " " * 3
        finished_100 = plot[5]
        assert finished_100[10:50] == "100".ljust(40), "job 100 from 1 000 s to 5 000 s"
        killed_101 = plot[4]
        assert killed_101[40:70] == "101".ljust(29) + "×"
        running_103 = plot[3]
        assert running_103[60:100] == "103".ljust(40) and running_103[100:] == "░" * 20
        assert lines[1].startswith("E 104 (0,0) 2x2")


async def test_zoom_keys_halve_and_double_the_window() -> None:
    app = Host(hand_made(), window=0.0)
    async with app.run_test(size=(80, 12)) as pilot:
        timeline = app.query_one(Timeline)
        timeline.focus()
        fitted = timeline.effective_window()
        assert fitted == (NOW - 1000.0) * 1.05
        await pilot.press("plus")
        assert timeline.window == fitted / 2
        await pilot.press("minus", "minus")
        assert timeline.window == fitted * 2
        await pilot.press("0")
        assert timeline.window == 0.0


def test_picture(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(Host(hand_made(), window=10_000.0), terminal_size=(100, 10))
