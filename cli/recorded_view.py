"""How the comparison with a log's recorded schedule prints: after ``meshsim run``'s summary (from
the result JSON's ``recorded`` section and ``inputs.queue_mapping``) and as the ranking of
``meshsim compare --recorded``. Waits are shown in hours, as in Wan et al.'s Table 5. Rich is
imported only when a table is printed (a quiet run never pays for it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from meshsim.cli.output import out

if TYPE_CHECKING:
    from rich.table import Table

    from meshsim.engine.recorded_ranking import Ranked

PRINTED_KINDS = ("partition", "queue", "size_class")
"""The groups the run summary prints (every kind is in the result JSON)."""

FIT_COLUMNS = ("jobs", "mean rec/sim", "median rec/sim", "MAE", "r", "≤1 min", "≤1 h")
"""Columns of a fit: waits in hours, recorded/simulated; Pearson's r; shares of jobs started
within 1 minute and 1 hour of their recorded start. Each group's jobs not compared are in the
result JSON; the summary prints the overall counts by reason."""


def print_loading(inputs: Mapping[str, Any]) -> None:
    """What loading did to the workload (the result JSON's ``inputs.transforms``: load factor,
    requeued or over-limit jobs, ...) and one line per trace queue placed in a machine queue of
    another name (``inputs.queue_mapping``)."""
    if inputs["transforms"]:
        out.print(f"workload: {'; '.join(inputs['transforms'])}")
    for m in inputs["queue_mapping"]:
        jobs = f"{m['jobs']:,} job" + ("" if m["jobs"] == 1 else "s")
        out.print(f"queue mapping: {m['trace_queue']} → {m['machine_queue']} ({m['rule']}, {jobs})")


def print_recorded(section: Mapping[str, Any]) -> None:
    """The ``recorded`` section: the fit overall and per printed group, utilizations and the jobs
    not compared; or why there is no fit."""
    if not section["compared"]:
        out.print(f"recorded schedule: no fit: {section['reason']}")
        _print_not_compared(section["not_compared"])
        return
    table = _table(f"recorded against simulated wait (hours, from {section['waits_from']})")
    table.add_column("jobs of")
    for name in FIT_COLUMNS:
        table.add_column(name, justify="right")
    table.add_row("all", *fit_cells(section["overall"]))
    for kind in PRINTED_KINDS:
        fits = section.get(f"by_{kind}", {})
        if not fits:
            continue
        table.add_section()
        table.add_row(f"[italic]{kind.replace('_', ' ')}[/]")
        for label, fit in fits.items():
            table.add_row(f" {label}", *fit_cells(fit))
    out.print(table)
    out.print(
        "utilization of the jobs compared: "
        f"recorded {_percent(section['recorded_utilization'])}, "
        f"simulated {_percent(section['simulated_utilization'])}"
    )
    _print_not_compared(section["not_compared"])


def fit_cells(fit: Mapping[str, Any]) -> list[str]:
    """The cells of :data:`FIT_COLUMNS` for one fit (``-`` where a figure is undefined)."""
    return [
        f"{fit['jobs']:,}",
        _pair(fit["mean_recorded_wait_s"], fit["mean_simulated_wait_s"]),
        _pair(fit["median_recorded_wait_s"], fit["median_simulated_wait_s"]),
        _hours(fit["wait_mae_s"]),
        "-" if fit["wait_correlation"] is None else f"{fit['wait_correlation']:.2f}",
        _share(fit["within_1min"]),
        _share(fit["within_1h"]),
    ]


def print_ranking(ranked: Sequence[Ranked]) -> None:
    """``meshsim compare --recorded``: one row per configuration, smallest wait MAE first (the
    utilizations and every group's figures are in ``recorded.json`` and ``recorded.csv``)."""
    table = _table("configurations by how closely they reproduce the recorded waits (hours)")
    table.add_column("#", justify="right")
    table.add_column("config")
    for name in FIT_COLUMNS:
        table.add_column(name, justify="right")
    for r in ranked:
        table.add_row(str(r.rank), r.config.name, *fit_cells(r.recorded["overall"]))
    out.print(table)
    for r in ranked:
        _print_not_compared(r.recorded["not_compared"], f"{r.config.name}: ")


def _table(title: str) -> Table:
    """A compact table (80 columns hold a fit's row); Rich is imported only when printing."""
    from rich import box
    from rich.table import Table

    return Table(
        title=title,
        header_style="bold",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        collapse_padding=True,
    )


def _print_not_compared(counts: Mapping[str, int], prefix: str = "") -> None:
    text = ", ".join(f"{v:,} {k.replace('_', ' ')}" for k, v in counts.items() if v)
    out.print(f"{prefix}jobs not compared: {text or 'none'}")


def _pair(recorded: float | None, simulated: float | None) -> str:
    return f"{_hours(recorded)}/{_hours(simulated)}"


def _hours(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds / 3600:.1f}"


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"
