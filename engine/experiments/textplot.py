"""A small text renderer for :class:`~meshsim.engine.experiments.figures.Figure`: plain characters,
no dependency, for ``meshsim plot --terminal``.

Each series gets a marker (``●``, ``■``, ``▲``, …); line figures mark their points and join them
with dots; step figures (CDFs) mark every column with the step function's value there. The y axis is
logarithmic when the figure says so (non-positive values are then left out). Bar figures are one
line per category, its stacked layers drawn with the layers' shades and their values written out;
a figure of panels is drawn panel after panel. Cost: O(points + width × series)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from meshsim.engine.experiments.figures import Figure

MARKERS = "●■▲◆✚✖○□△◇"
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
        (np.asarray(s.x, float), _y(np.asarray(s.y, float), figure.log_y)) for s in figure.series
    ]
    xs = np.concatenate([x[np.isfinite(y)] for x, y in points] or [np.zeros(0)])
    ys = np.concatenate([y[np.isfinite(y)] for _, y in points] or [np.zeros(0)])
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
        keep = np.isfinite(y)
        x, y = x[keep], y[keep]
        if figure.steps:
            _steps(grid, x, y, mark, col, row, (x0, x1))
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
    left, mid, right = _number(x0), _number((x0 + x1) / 2), _number(x1)
    gap = plot_w - len(left) - len(mid) - len(right)
    axis = left + " " * (gap // 2) + mid + " " * (gap - gap // 2) + right
    lines.append(" " * (LABEL_WIDTH + 1) + axis)
    scale = " (log scale)" if figure.log_y else ""
    lines.append(" " * (LABEL_WIDTH + 1) + f"x: {figure.x_label}   y: {figure.y_label}{scale}")
    for i, s in enumerate(figure.series):
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


def _y(y: np.ndarray, log: bool) -> np.ndarray:
    if not log:
        return y
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(y > 0, np.log10(np.where(y > 0, y, 1.0)), np.nan)


def _span(lo: float, hi: float) -> tuple[float, float]:
    if hi > lo:
        return lo, hi
    pad = abs(lo) * 0.05 or 1.0
    return lo - pad, hi + pad


def _number(v: float) -> str:
    if v == 0 or (1e-3 <= abs(v) < 1e5):
        return f"{v:.4g}"
    return f"{v:.2e}" if math.isfinite(v) else str(v)
