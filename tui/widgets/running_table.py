"""Running jobs: a DataTable diffed by job id, never rebuilt (style anchors §1.4, §3.4)."""

from __future__ import annotations

from rich.text import Text
from textual.message import Message
from textual.widgets import DataTable

from engine.simulation import RunningJob, Snapshot
from tui.format import clock, duration
from tui.jobstyle import job_color, job_letter

COLUMNS = ("", "job", "user", "size", "location", "start", "expected end", "remaining")
WIDTHS = (1, 6, 4, 5, 18, 14, 14, 9)
"""Fixed column widths (a time is ``day D hh:mm:ss``; longer locations are cut): the table never
re-measures its columns, so a frame costs the same whatever the jobs and is drawn at once."""


class RunningTable(DataTable):
    """One row per running job, keyed by job id: rows are added, updated and removed."""

    class JobSelected(Message):
        """The operator chose a running job."""

        def __init__(self, job_id: int) -> None:
            super().__init__()
            self.job_id = job_id

    def __init__(self, **kwargs: object) -> None:
        super().__init__(cursor_type="row", zebra_stripes=False, **kwargs)
        self._shown: dict[str, tuple[str, ...]] = {}

    def on_mount(self) -> None:
        for name, width in zip(COLUMNS, WIDTHS, strict=True):
            self.add_column(name, key=name or "tag", width=width)

    def show(self, snapshot: Snapshot) -> None:
        """Bring the rows in line with ``snapshot.running``."""
        now = snapshot.time
        current: dict[str, RunningJob] = {str(r.job.job_id): r for r in snapshot.running}
        for key in [k for k in self._shown if k not in current]:
            self.remove_row(key)
            del self._shown[key]
        for key, r in current.items():
            cells = (
                str(r.job.size),
                r.placement.label or f"{r.placement.nodes} nodes",
                clock(r.start),
                clock(r.expected_end),
                duration(max(0.0, r.expected_end - now)),
            )
            old = self._shown.get(key)
            if old is None:
                tag = Text(job_letter(r.job.index), style=f"bold {job_color(r.job.index)}")
                user = str(r.job.user) if r.job.user >= 0 else "-"
                self.add_row(tag, key, user, *cells, key=key)
            else:
                for name, value, before in zip(COLUMNS[3:], cells, old, strict=True):
                    if value != before:
                        self.update_cell(key, name, value)
            self._shown[key] = cells

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.JobSelected(int(event.row_key.value)))
