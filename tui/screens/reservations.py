"""The reservations list (``v``): every operator reservation that has not ended, as Cobalt's
``showres`` and Slurm's ``scontrol show reservation`` list them: its name (the block as the
operator gave it), its units, start, end, state (``pending`` before its start, ``active`` from it),
what it does at its start to the jobs still on its units, and the jobs on its units now (an active
one waits for them; on a count-only pool, whose nodes have no identity, how many nodes it still
waits for). Drawn from the frame's snapshot (:attr:`~meshsim.engine.kernel.records.Snapshot.
reservations`), as of the event the console is at."""

from __future__ import annotations

from rich import box
from rich.table import Table
from rich.text import Text

from meshsim.engine.kernel.records import ReservationStatus, Snapshot
from meshsim.engine.topology.machines import Machine
from meshsim.engine.topology.units import unit_name
from meshsim.tui.format import clock, duration
from meshsim.tui.screens.report import ReportScreen

SHOWN_UNITS = 4
"""Units named in a row before the rest are counted."""


def units_text(machine: Machine, cells: tuple[int, ...]) -> str:
    """``R47-M1`` / ``0,0 1,0 2,0 3,0 +12`` (the first few units by name, then how many more)."""
    names = [unit_name(machine, c) for c in cells[:SHOWN_UNITS]]
    more = f" +{len(cells) - SHOWN_UNITS}" if len(cells) > SHOWN_UNITS else ""
    return f"{len(cells)}: {' '.join(names)}{more}"


def state_text(status: ReservationStatus, now: float) -> Text:
    """``pending, starts in 1h 59m`` or ``active, ends in 2h``."""
    if status.state == "pending":
        return Text(f"pending, starts in {duration(status.start - now)}", style="bold")
    return Text(f"active, ends in {duration(status.until - now)}", style="yellow")


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
        caption="pending: no job whose estimate reaches the start begins on its units; "
        "at the start its idle units are reserved, busy ones per 'at start'",
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
        pad_edge=False,
    )
    for column in ("reservation", "units", "start", "end", "state", "at start", "jobs on units"):
        table.add_column(column, no_wrap=column in ("start", "end", "state"))
    for status in snapshot.reservations:
        table.add_row(
            status.label,
            units_text(snapshot.machine, status.cells),
            clock(status.start),
            clock(status.until),
            state_text(status, snapshot.time),
            "kill its jobs" if status.on_job == "kill" else "wait for its jobs",
            jobs_text(status),
        )
    return table


def reservations_report(snapshot: Snapshot) -> ReportScreen:
    """The list as a dialog (``Esc`` or ``q`` closes it)."""
    return ReportScreen("Reservations", reservations_table(snapshot))
