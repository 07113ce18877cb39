"""Named reports (``meshsim run --report NAME``): tables computed from a finished run.

A report is a function ``(simulation) -> list[ReportTable]`` registered by name; the command line
prints the tables and ``--report-out DIR`` writes one CSV per table (:func:`csv_text`)."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from meshsim.engine.core.registry import Registry

if TYPE_CHECKING:
    from meshsim.engine.kernel.simulation import Simulation


@dataclass(frozen=True)
class ReportTable:
    """One table: a file name, a title, column names and rows of formatted cells."""

    name: str
    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


REPORTS: Registry[Callable[[Simulation], list[ReportTable]]] = Registry("report")


def csv_text(table: ReportTable) -> str:
    """One table as CSV (``--report-out DIR`` writes it as ``DIR/NAME.csv``)."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    writer.writerow(table.columns)
    writer.writerows(table.rows)
    return buffer.getvalue()
