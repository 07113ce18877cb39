"""Short text forms of simulated times, durations and shapes for the console's panes."""

from __future__ import annotations

import math


def duration(seconds: float) -> str:
    """A compact duration: ``45s``, ``12m30s``, ``3h05m``, ``2d04h``."""
    if math.isnan(seconds) or math.isinf(seconds):
        return "-"
    s = round(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    if s < 86400:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{s // 86400}d{s % 86400 // 3600:02d}h"


TIME_WIDTH = 16
"""Columns a :func:`clock` time takes in a table: ``day 999 23:59:59`` (a year-long trace fits)."""


def clock(seconds: float) -> str:
    """Simulated time as ``day D hh:mm:ss`` counted from t = 0 of the workload."""
    if math.isinf(seconds) or math.isnan(seconds):
        return "end"
    s = int(seconds)
    return f"day {s // 86400} {s % 86400 // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}"


def shape_text(shape: tuple[int, ...] | None) -> str:
    """A requested box as ``4x2``; ``-`` when the job gives none."""
    return "x".join(map(str, shape)) if shape else "-"


def number(value: float | int | None) -> str:
    """A metric value: integers whole, fractions to four significant digits, an undefined metric
    (None) as a dash."""
    if value is None:
        return "—"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return f"{int(value):,}"
    return f"{value:.4g}"
