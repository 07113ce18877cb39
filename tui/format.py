"""Short text forms of simulated times, durations and shapes for the console's panes."""

from __future__ import annotations

from meshsim.engine.core.simclock import TIME_WIDTH, clock, duration

__all__ = ["TIME_WIDTH", "clock", "compact", "duration", "shape_text"]


def shape_text(shape: tuple[int, ...] | None) -> str:
    """A requested box as ``4x2``; ``-`` when the job gives none."""
    return "x".join(map(str, shape)) if shape else "-"


def compact(value: float) -> str:
    """A number in at most about five characters, never in scientific notation: ``13.7``,
    ``905k``, ``1.44M`` (a queue order's priority score)."""
    size = abs(value)
    for limit, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, "")):
        if size >= limit:
            scaled = value / limit
            digits = 0 if abs(scaled) >= 100 else 1 if abs(scaled) >= 10 else 2
            return f"{scaled:.{digits}f}{suffix}"
    return f"{value:.3f}"
