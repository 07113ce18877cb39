"""The reservations list (``v``): every operator reservation that has not ended, as Cobalt's
``showres`` and Slurm's ``scontrol show reservation`` list them: its name (the block as the
operator gave it), how many units, start, end, state (``pending`` before its start, ``active`` from
it), what it does at its start to the jobs still on its units (wait for them, or kill them), and
the jobs on its units now (an active one waits for them; on a count-only pool, whose nodes have no
identity, how many nodes it still waits for). Drawn from the frame's snapshot
(:attr:`~meshsim.engine.kernel.records.Snapshot.reservations`), as of the event the console is
at."""

from __future__ import annotations

from rich import box
from rich.table import Table
from rich.text import Text

from meshsim.engine.kernel.records import ReservationStatus, Snapshot
from meshsim.tui.format import clock, duration
from meshsim.tui.screens.report import ReportScreen


def state_text(status: ReservationStatus, now: float) -> Text:
    """``pending, in 1h59m`` or ``active, 59m left``."""
    if status.state == "pending":
        return Text(f"pending, in {duration(status.start - now)}", style="bold")
    return Text(f"active, {duration(status.until - now)} left", style="yellow")


def jobs_text(status: ReservationStatus) -> str:
    """The jobs on the reservation's units (an active one waits for them)."""
    if status.jobs:
        return " ".join(map(str, status.jobs))
    if status.waits_for:
        return f"({status.waits_for} units still busy)"
    return "-"


def reservations_table(snapshot: Snapshot) -> Table | Text:
    """The list as a table (a line saying there is none when there is none)."""
    if not snapshot.reservations:
        return Text("No reservation is pending or active (R reserves a block).")
    table = Table(
        title=f"as of {clock(snapshot.time)}, event {snapshot.event:,}",
        caption="pending: no job whose estimate reaches its start begins on its units; at the "
        "start its idle units are reserved, and jobs still on them are waited for or killed; "
        "jobs: those on its units now",
        box=box.SIMPLE_HEAD,
        padding=(0, 1, 0, 0),
        pad_edge=False,
    )
    table.add_column("reservation", min_width=11)
    table.add_column("units", justify="right", no_wrap=True)
    for column in ("start", "end", "state", "at start"):
        table.add_column(column, no_wrap=True)
    table.add_column("jobs", min_width=4)
    for status in snapshot.reservations:
        table.add_row(
            status.label,
            f"{len(status.cells):,}",
            clock(status.start),
            clock(status.until),
            state_text(status, snapshot.time),
            "kill jobs" if status.on_job == "kill" else "wait",
            jobs_text(status),
        )
    return table


def reservations_report(snapshot: Snapshot) -> ReportScreen:
    """The list as a dialog (``Esc`` or ``q`` closes it)."""
    return ReportScreen("Reservations", reservations_table(snapshot))
