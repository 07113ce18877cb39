"""The running-jobs table: rows keyed by job id, redrawn only when their cells change, a cursor that
stays on its job, and ``enter`` to inspect."""

from __future__ import annotations

from itertools import pairwise

from textual.app import App, ComposeResult

from meshsim.engine.kernel.records import Snapshot
from meshsim.engine.tools.runcase import RunOptions
from meshsim.engine.tools.session import Session
from meshsim.tui.widgets.running_table import RunningTable

MESH = RunOptions(machine="tests/data/mesh5x4.toml", workload="tests/data/mesh-sides-small.toml")


class Host(App[None]):
    """Mounts only the table; keeps the jobs it reports as selected."""

    def __init__(self) -> None:
        super().__init__()
        self.selected: list[int] = []

    def compose(self) -> ComposeResult:
        yield RunningTable()

    def on_running_table_job_selected(self, message: RunningTable.JobSelected) -> None:
        self.selected.append(message.job_id)


def snapshots() -> list[Snapshot]:
    """Snapshots of one run, one per event, while jobs run."""
    session = Session(MESH)
    out = []
    while not session.done and len(out) < 60:
        session.step(1)
        out.append(session.snapshot())
    return [snap for snap in out if snap.running]


def text(table: RunningTable) -> list[str]:
    return ["".join(s.text for s in table.render_line(y)) for y in range(table.size.height)]


async def test_rows_follow_the_running_jobs_and_match_a_fresh_table() -> None:
    snaps = snapshots()
    changed = [b for a, b in pairwise(snaps) if a.running != b.running]
    assert len(changed) >= 3
    app, fresh = Host(), Host()
    async with app.run_test(size=(100, 20)):
        table = app.query_one(RunningTable)
        for snap in snaps:
            table.show(snap)
        lines = text(table)
    last = snaps[-1]
    ids = [r.job.job_id for r in last.running]
    rows = [line.split()[1] for line in lines[1 : 1 + len(ids)]]
    assert rows == [str(i) for i in ids]
    assert all(line.strip() == "" for line in lines[1 + len(ids) :])
    async with fresh.run_test(size=(100, 20)):
        other = fresh.query_one(RunningTable)
        other.show(last)
        assert text(other) == lines


async def test_unchanged_rows_keep_their_drawn_line() -> None:
    snaps = snapshots()
    app = Host()
    async with app.run_test(size=(100, 20)):
        table = app.query_one(RunningTable)
        table.show(snaps[0])
        first = table.render_line(1)
        table.show(snaps[0])
        assert table.render_line(1) is first, "same cells: the line is not drawn again"


async def test_cursor_stays_on_its_job_and_enter_inspects_it() -> None:
    snaps = snapshots()
    pair = next(
        (a, b)
        for a, b in pairwise(snaps)
        if len(a.running) >= 2
        and a.running[0].job.job_id not in {r.job.job_id for r in b.running}
        and a.running[-1].job.job_id in {r.job.job_id for r in b.running}
    )
    app = Host()
    async with app.run_test(size=(100, 20)) as pilot:
        table = app.query_one(RunningTable)
        table.focus()
        table.show(pair[0])
        await pilot.press("end")
        chosen = table.selected_job
        assert chosen == pair[0].running[-1].job.job_id
        table.show(pair[1])
        assert table.selected_job == chosen, "the first job left; the cursor kept its job"
        await pilot.press("enter")
        await pilot.pause()
        assert app.selected == [chosen]
