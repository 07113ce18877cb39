"""A small text renderer for :class:`~meshsim.engine.tools.experiments.figures.Figure`: plain
characters, no dependency, for ``meshsim plot --terminal``.

Each series gets a marker (``●``, ``■``, ``▲``, …); line figures mark their points and join them
with dots; scatter series mark each cell by how many points fall in it (:data:`DENSITY`); step
figures (CDFs) mark every column with the step function's value there. An axis is logarithmic when
the figure says so (non-positive values are then left out). Stacked-bar figures are one line per
category, its stacked layers drawn with the layers' shades and their values written out; a figure
of panels is drawn panel after panel. Cost: O(points + width × series).

:func:`render_bars` draws a :class:`~meshsim.engine.tools.experiments.figures.BarChart` as
horizontal bars, one line per series in each category, each bar labelled with its value."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from meshsim.engine.tools.experiments.figures import BarChart, Figure

MARKERS = "●■▲◆✚✖○□△◇"
DENSITY = "·∘•●"
"""Scatter cells by how many points fall in them: 1+, 10+, 100+, 1,000+."""
LABEL_WIDTH = 10


SHADES = "█▓▒░"


def render(figure: Figure, width: int = 72, height: int = 18) -> str:
    """The figure as text: title, plot area with axes, and a legend."""
    if figure.panels:
        return "".join(
            render(
                replace(
                    figure,
                    title=f"{figure.title}: {panel.title}",
                    series=panel.series,
                    categories=panel.categories,
                    panels=(),
                ),
                width,
                height,
            )
            for panel in figure.panels
        )
    if figure.categories:
        return _bars(figure, width)
    plot_w = max(width - LABEL_WIDTH - 1, 10)
    points = [
        (_log(np.asarray(s.x, float), figure.log_x), _log(np.asarray(s.y, float), figure.log_y))
        for s in figure.series
    ]
    xs = np.concatenate([x[np.isfinite(x + y)] for x, y in points] or [np.zeros(0)])
    ys = np.concatenate([y[np.isfinite(x + y)] for x, y in points] or [np.zeros(0)])
    lines = [figure.title]
    if len(xs) == 0:
        return "\n".join([*lines, "(no data)"]) + "\n"
    x0, x1 = _span(float(xs.min()), float(xs.max()))
    y0, y1 = _span(float(ys.min()), float(ys.max()))
    grid = [[" "] * plot_w for _ in range(height)]

    def col(x: float) -> int:
        return min(plot_w - 1, max(0, round((x - x0) / (x1 - x0) * (plot_w - 1))))

    def row(y: float) -> int:
        return min(height - 1, max(0, round((y1 - y) / (y1 - y0) * (height - 1))))

    for i, (x, y) in enumerate(points):
        mark = MARKERS[i % len(MARKERS)]
        keep = np.isfinite(x + y)
        x, y = x[keep], y[keep]
        if figure.steps:
            _steps(grid, x, y, mark, col, row, (x0, x1))
            continue
        if figure.series[i].scatter:
            _density(grid, x, y, col, row)
            continue
        for (xa, ya), (xb, yb) in zip(
            zip(x, y, strict=True), zip(x[1:], y[1:], strict=True), strict=False
        ):
            for c in range(col(xa) + 1, col(xb)):
                t = (x0 + c / (plot_w - 1) * (x1 - x0) - xa) / (xb - xa) if xb != xa else 0.0
                r = row(ya + t * (yb - ya))
                if grid[r][c] == " ":
                    grid[r][c] = "·"
        for xv, yv in zip(x, y, strict=True):
            grid[row(yv)][col(xv)] = mark
    for r in range(height):
        tick = {0: y1, height // 2: (y0 + y1) / 2, height - 1: y0}.get(r)
        text = _number(10**tick if figure.log_y else tick) if tick is not None else ""
        lines.append(f"{text:>{LABEL_WIDTH}}│" + "".join(grid[r]))
    lines.append(" " * LABEL_WIDTH + "└" + "─" * plot_w)
    ticks = (x0, (x0 + x1) / 2, x1)
    left, mid, right = (_number(10**t if figure.log_x else t) for t in ticks)
    gap = plot_w - len(left) - len(mid) - len(right)
    axis = left + " " * (gap // 2) + mid + " " * (gap - gap // 2) + right
    lines.append(" " * (LABEL_WIDTH + 1) + axis)
    x_scale = " (log scale)" if figure.log_x else ""
    y_scale = " (log scale)" if figure.log_y else ""
    labels = f"x: {figure.x_label}{x_scale}   y: {figure.y_label}{y_scale}"
    lines.append(" " * (LABEL_WIDTH + 1) + labels)
    for i, s in enumerate(figure.series):
        if s.scatter:
            levels = ", ".join(f"{mark} {10**k:,}+" for k, mark in enumerate(DENSITY))
            lines.append(f"  {s.label}, points per character: {levels}")
        else:
            lines.append(f"  {MARKERS[i % len(MARKERS)]} {s.label}")
    return "\n".join(lines) + "\n"


def _bars(figure: Figure, width: int) -> str:
    """A bar figure: per category a bar of ``width`` characters split by its layers' values
    (fractions of the largest stack), then the values."""
    totals = [sum(s.y[k] for s in figure.series) for k in range(len(figure.categories))]
    top = max([t for t in totals if math.isfinite(t)] or [1.0]) or 1.0
    bar_w = max(width - 2, 10)
    lines = [figure.title]
    for k, category in enumerate(figure.categories):
        bar = ""
        for i, s in enumerate(figure.series):
            bar += SHADES[i % len(SHADES)] * round(s.y[k] / top * bar_w)
        values = " · ".join(f"{s.label} {_number(s.y[k])}" for s in figure.series)
        lines += [f"  {category}", f"  {bar[:bar_w]}", f"    {values}"]
    legend = "   ".join(f"{SHADES[i % len(SHADES)]} {s.label}" for i, s in enumerate(figure.series))
    lines.append(f"  {legend}   ({figure.y_label})")
    return "\n".join(lines) + "\n"


def _steps(
    grid: list[list[str]],
    x: np.ndarray,
    y: np.ndarray,
    mark: str,
    col: Callable[[float], int],
    row: Callable[[float], int],
    span: tuple[float, float],
) -> None:
    """Mark the step function through (x, y) at every column from its first point on."""
    if len(x) == 0:
        return
    width = len(grid[0])
    x0, x1 = span
    for c in range(col(float(x[0])), width):
        at = x0 + c / (width - 1) * (x1 - x0)
        i = int(np.searchsorted(x, at, side="right")) - 1
        if i >= 0:
            grid[row(float(y[i]))][c] = mark


def _density(
    grid: list[list[str]],
    x: np.ndarray,
    y: np.ndarray,
    col: Callable[[float], int],
    row: Callable[[float], int],
) -> None:
    """Mark every cell holding points with :data:`DENSITY`'s glyph for their number."""
    counts: dict[tuple[int, int], int] = {}
    for xv, yv in zip(x.tolist(), y.tolist(), strict=True):
        cell = (row(yv), col(xv))
        counts[cell] = counts.get(cell, 0) + 1
    for (r, c), count in counts.items():
        grid[r][c] = DENSITY[min(int(math.log10(count)), len(DENSITY) - 1)]


def render_bars(chart: BarChart, width: int = 72) -> str:
    """The chart as text: a line per series in each category, the bar's length proportional to its
    value (the largest value fills the width), the value after it."""
    label_w = min(max((len(c) for c in chart.categories), default=1), 16)
    series_w = max((len(s) for s in chart.series), default=1)
    bar_w = max(width - label_w - series_w - 12, 10)
    top = max((v for values in chart.values for v in values if math.isfinite(v)), default=0.0)
    lines = [chart.title, f"{'':>{label_w}} {'':<{series_w}} {chart.value_label}"]
    for c, category in enumerate(chart.categories):
        for s, name in enumerate(chart.series):
            value = chart.values[s][c]
            length = round(value / top * bar_w) if top > 0 and math.isfinite(value) else 0
            head = category[:label_w] if s == 0 else ""
            bar = MARKERS[s % len(MARKERS)] * max(length, 0)
            lines.append(f"{head:<{label_w}} {name:<{series_w}} {bar} {_number(value)}")
    return "\n".join(lines) + "\n"


def _log(values: np.ndarray, log: bool) -> np.ndarray:
    if not log:
        return values
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(values > 0, np.log10(np.where(values > 0, values, 1.0)), np.nan)


def _span(lo: float, hi: float) -> tuple[float, float]:
    if hi > lo:
        return lo, hi
    pad = abs(lo) * 0.05 or 1.0
    return lo - pad, hi + pad


def _number(v: float) -> str:
    if v == 0 or (1e-3 <= abs(v) < 1e5):
        return f"{v:.4g}"
    return f"{v:.2e}" if math.isfinite(v) else str(v)
