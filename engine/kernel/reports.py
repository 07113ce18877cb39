"""Named reports (``meshsim run --report NAME``): tables computed from a finished run.

A report is a function ``(simulation) -> list[ReportTable]`` registered by name; the command line
prints the tables and ``--report-out DIR`` writes one CSV per table."""

from __future__ import annotations

import csv
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
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


def write_csv(tables: list[ReportTable], folder: Path) -> list[Path]:
    """One CSV per table in ``folder`` (created if needed)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for table in tables:
        path = folder / f"{table.name}.csv"
        with path.open("w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(table.columns)
            writer.writerows(table.rows)
        paths.append(path)
    return paths
