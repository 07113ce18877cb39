"""Short text forms of simulated times, durations and shapes for the console's panes."""

from __future__ import annotations

from meshsim.engine.simclock import TIME_WIDTH, clock, duration

__all__ = ["TIME_WIDTH", "clock", "duration", "shape_text"]


def shape_text(shape: tuple[int, ...] | None) -> str:
    """A requested box as ``4x2``; ``-`` when the job gives none."""
    return "x".join(map(str, shape)) if shape else "-"
