"""Simulated times and durations as people read them, wherever the engine or the console shows one:
``day D hh:mm:ss`` counted from t = 0 of the workload, and compact durations (``3h05m``). Raw
seconds (``t=951683``) and scientific notation never reach an operator (issue 22)."""

from __future__ import annotations

import math

TIME_WIDTH = 16
"""Columns a :func:`clock` time takes in a table: ``day 999 23:59:59`` (a year-long trace fits)."""


def clock(seconds: float) -> str:
    """Simulated time as ``day D hh:mm:ss`` counted from t = 0 of the workload (``end`` for an
    infinite or undefined time)."""
    if math.isinf(seconds) or math.isnan(seconds):
        return "end"
    s = int(seconds)
    return f"day {s // 86400} {s % 86400 // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}"


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
