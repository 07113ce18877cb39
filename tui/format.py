"""Short text forms of simulated times, durations and shapes for the console's panes."""

from __future__ import annotations

from meshsim.engine.simclock import clock, duration

__all__ = ["TIME_WIDTH", "clock", "duration", "number", "shape_text"]


TIME_WIDTH = 16
"""Columns a :func:`clock` time takes in a table: ``day 999 23:59:59`` (a year-long trace fits)."""


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
