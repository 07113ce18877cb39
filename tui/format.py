"""Short text forms of simulated times, durations and shapes for the console's panes."""

from __future__ import annotations

from meshsim.engine.simclock import clock, duration

__all__ = ["TIME_WIDTH", "clock", "duration", "shape_text"]


TIME_WIDTH = 16
"""Columns a :func:`clock` time takes in a table: ``day 999 23:59:59`` (a year-long trace fits)."""


def shape_text(shape: tuple[int, ...] | None) -> str:
    """A requested box as ``4x2``; ``-`` when the job gives none."""
    return "x".join(map(str, shape)) if shape else "-"
