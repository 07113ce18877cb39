"""The standard figures of a sweep, as data (any renderer draws them: matplotlib files or the
terminal renderer of :mod:`meshsim.engine.tools.experiments.textplot`).

- **metric vs. load** (seed 001 Figs. 2–7): x = the load key, y = the configuration mean of a metric
  with its 95 % interval, one line per policy (every other configuration key);
- **utilization vs. slowdown** (seed 002 Fig. 1): x = mean utilization, y = mean bounded slowdown
  (log scale), one curve per policy, points in load order;
- **wait CDFs by size class** (seed 000 Figs. 10–13): the cumulative distribution of job waits
  (minutes) per size class and per series value, pooled over replications, one figure per remaining
  configuration; needs the per-job CSVs (``[sweep] jobs = true``);
- **capacity** (seed 002 Fig. 2): at one load, the capacity utilized, unused and lost (fractions of
  the machine's capacity over the run, summing to 1) of every policy, as stacked bars.

Utilization vs. slowdown and capacity can be split into panels drawn side by side, one per value of
a configuration key (``panel_key``: the machine, so torus and flat machine sit side by side as in
seed 002's figures); a curve keeps its colour from panel to panel.

The load key is the first configuration key among :data:`LOAD_KEYS`, else the first whose values are
all numbers."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.tools.experiments.stats import aggregate, group_key
from meshsim.engine.tools.experiments.store import ResultStore
from meshsim.engine.tools.experiments.summaries import config_keys
from meshsim.engine.tools.experiments.tables import CaseRow
from meshsim.engine.topology.machines import Machine, load_machine, power_of_two_label

LOAD_KEYS = ("load-factor", "runtime-scale", "workload.arrival_rate", "workload.load")


@dataclass(frozen=True)
class Series:
    """One curve: points in drawing order and, for means, the 95 % half-widths; ``scatter``
    marks the points without joining them."""

    label: str
    x: tuple[float, ...]
    y: tuple[float, ...]
    err: tuple[float, ...] | None = None
    scatter: bool = False


@dataclass(frozen=True)
class Panel:
    """One of the panels of a figure drawn side by side: its title and curves, and for bar figures
    the category under each x position (0, 1, ...)."""

    title: str
    series: tuple[Series, ...]
    categories: tuple[str, ...] = ()


@dataclass(frozen=True)
class Figure:
    """One figure: its file stem, title, axis labels, curves and scales. ``steps`` draws the curves
    as step functions (CDFs). ``categories``, when given, makes it a stacked-bar figure: each series
    is a layer of the bars over the categories (grouped bars are a :class:`BarChart`). ``panels``,
    when given, replace ``series`` and ``categories``: drawn side by side with a shared y axis."""

    name: str
    title: str
    x_label: str
    y_label: str
    series: tuple[Series, ...]
    log_y: bool = False
    steps: bool = False
    log_x: bool = False
    categories: tuple[str, ...] = ()
    panels: tuple[Panel, ...] = ()

    def all_panels(self) -> tuple[Panel, ...]:
        """The panels to draw: ``panels``, or the figure's own series as one untitled panel."""
        return self.panels or (Panel("", self.series, self.categories),)


@dataclass(frozen=True)
class BarChart:
    """Grouped bars: one group per category, one bar per series in each (``values[s][c]`` for
    series s, category c)."""

    name: str
    title: str
    value_label: str
    categories: tuple[str, ...]
    series: tuple[str, ...]
    values: tuple[tuple[float, ...], ...]


def load_key(manifest: dict[str, Any], rows: Sequence[CaseRow]) -> str | None:
    """The key that plays the role of load (module docstring), or None."""
    keys = config_keys(manifest)
    for key in LOAD_KEYS:
        if key in keys:
            return key
    for key in keys:
        values = [r.values.get(key) for r in rows]
        if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
            return key
    return None


def label(values: dict[str, Any], keys: Sequence[str]) -> str:
    """A series label such as ``backfill=easy, migrate=true`` ("all" without keys)."""
    parts = []
    for k in keys:
        v = values.get(k)
        parts.append(f"{k}={'true' if v is True else 'false' if v is False else v}")
    return ", ".join(parts) or "all"


def metric_vs_load(
    manifest: dict[str, Any], rows: Sequence[CaseRow], metric: str, x_key: str
) -> Figure:
    """Mean ``metric`` against ``x_key``, one line per policy."""
    keys = config_keys(manifest)
    series_keys = [k for k in keys if k != x_key]
    lines: dict[str, list[tuple[float, float, float]]] = {}
    for config, est in aggregate(rows, keys, [metric]):
        e = est[metric]
        lines.setdefault(label(config, series_keys), []).append((config[x_key], e.mean, e.ci95))
    series = []
    for name, points in lines.items():
        points.sort()
        x, y, err = zip(*points, strict=True)
        series.append(Series(name, x, y, err))
    return Figure(
        f"{metric}-vs-{x_key}".replace(".", "_"),
        f"{metric} against {x_key}",
        x_key,
        metric,
        tuple(series),
    )


def utilization_vs_slowdown(
    manifest: dict[str, Any], rows: Sequence[CaseRow], x_key: str, panel_key: str | None = None
) -> Figure:
    """Mean bounded slowdown against mean utilization, one curve per policy (and one panel per
    value of ``panel_key``)."""
    keys = config_keys(manifest)
    series_keys = [k for k in keys if k not in (x_key, panel_key)]
    panels = []
    for title, part in _panel_rows(rows, panel_key):
        curves: dict[str, list[tuple[float, float, float]]] = {}
        for config, est in aggregate(part, keys, ["utilization", "avg_bsld"]):
            point = (config[x_key], est["utilization"].mean, est["avg_bsld"].mean)
            curves.setdefault(label(config, series_keys), []).append(point)
        series = []
        for name, points in curves.items():
            points.sort()
            series.append(Series(name, tuple(p[1] for p in points), tuple(p[2] for p in points)))
        panels.append(Panel(title, tuple(series)))
    return Figure(
        "utilization-vs-slowdown",
        "mean bounded slowdown against utilization",
        "utilization",
        "avg_bsld",
        () if panel_key else panels[0].series,
        log_y=True,
        panels=tuple(panels) if panel_key else (),
    )


CAPACITY = (
    ("utilization", "utilized"),
    ("unused_capacity", "unused"),
    ("lost_capacity", "lost"),
)
"""The metrics of the capacity figure (seed 002 §3: w_util, w_unused, w_lost = 1 − both) and their
labels."""


def capacity(
    manifest: dict[str, Any],
    rows: Sequence[CaseRow],
    x_key: str,
    at: float,
    panel_key: str | None = None,
) -> Figure:
    """Capacity utilized, unused and lost of every policy at load ``at`` of ``x_key``, as stacked
    bars (and one panel per value of ``panel_key``)."""
    keys = config_keys(manifest)
    series_keys = [k for k in keys if k not in (x_key, panel_key)]
    chosen = [r for r in rows if r.values.get(x_key) == at]
    if not any(r.status == "ok" for r in chosen):
        values = sorted({r.values.get(x_key) for r in rows}, key=str)
        raise MeshsimError(
            f"--at {at:g}: no finished case at {x_key} = {at:g} "
            f"(values: {', '.join(map(str, values))})"
        )
    metrics = [m for m, _ in CAPACITY]
    panels = []
    for title, part in _panel_rows(chosen, panel_key):
        configs = aggregate(part, keys, metrics)
        names = tuple(label(config, series_keys) for config, _ in configs)
        positions = tuple(float(k) for k in range(len(configs)))
        series = tuple(
            Series(name, positions, tuple(est[metric].mean for _, est in configs))
            for metric, name in CAPACITY
        )
        panels.append(Panel(title, series, names))
    return Figure(
        f"capacity-at-{x_key}-{at:g}".replace(".", "_"),
        f"capacity utilized, unused and lost at {x_key} = {at:g}",
        "policy",
        "fraction of the capacity",
        () if panel_key else panels[0].series,
        categories=() if panel_key else panels[0].categories,
        panels=tuple(panels) if panel_key else (),
    )


def _panel_rows(rows: Sequence[CaseRow], panel_key: str | None) -> list[tuple[str, list[CaseRow]]]:
    """The rows of each panel, in first-seen order of ``panel_key``'s values (one untitled panel
    of all rows without a key)."""
    if panel_key is None:
        return [("", list(rows))]
    parts: dict[str, list[CaseRow]] = {}
    for row in rows:
        parts.setdefault(f"{panel_key}={row.values.get(panel_key)}", []).append(row)
    return list(parts.items())


def wait_cdfs(
    manifest: dict[str, Any], rows: Sequence[CaseRow], store: ResultStore, series_key: str
) -> list[Figure]:
    """Wait CDFs by size class and ``series_key`` value, one figure per other configuration."""
    if not manifest["jobs"]:
        raise MeshsimError(f"{store.folder}: no per-job CSVs (set jobs = true in [sweep])")
    keys = [k for k in config_keys(manifest) if k != series_key]
    panels: dict[tuple[Any, ...], dict[str, list[np.ndarray]]] = {}
    titles: dict[tuple[Any, ...], str] = {}
    machines: dict[str, Machine | None] = {}
    for row in rows:
        if row.status != "ok":
            continue
        panel = group_key(row.values, keys)
        titles[panel] = label(row.values, keys)
        document = store.document(row.case_id)
        machine = _machine(str(document["inputs"]["machine"]), machines)
        sizes, waits = _sizes_and_waits(store, row.case_id)
        classes = np.array([_size_class(machine, int(s)) for s in sizes.tolist()], dtype=object)
        curves = panels.setdefault(panel, {})
        who = label(row.values, [series_key])
        for size_class in sorted(set(classes.tolist()), key=_class_order):
            name = f"{size_class} · {who}"
            curves.setdefault(name, []).append(waits[classes == size_class] / 60.0)
    figures = []
    for index, (panel, curves) in enumerate(panels.items()):
        series = []
        for name, parts in sorted(curves.items(), key=lambda kv: _class_order(kv[0])):
            waits = np.sort(np.concatenate(parts))
            y = np.arange(1, len(waits) + 1) / len(waits)
            series.append(Series(name, tuple(waits.tolist()), tuple(y.tolist())))
        figures.append(
            Figure(
                f"wait-cdf-{index + 1}",
                f"wait CDF by size class ({titles[panel]})",
                "wait (minutes)",
                "fraction of jobs",
                tuple(series),
                steps=True,
            )
        )
    return figures


def _machine(name: str, cache: dict[str, Machine | None]) -> Machine | None:
    if name not in cache:
        try:
            cache[name] = load_machine(name)
        except MeshsimError:
            cache[name] = None
    return cache[name]


def _size_class(machine: Machine | None, size: int) -> str:
    """The machine's size class (power-of-two bins when the machine cannot be loaded here)."""
    return machine.size_class(size) if machine is not None else power_of_two_label(size)


def _class_order(text: str) -> tuple[int, str]:
    head = text.split("-")[0].split(" ")[0]
    return (int(head), text) if head.isdigit() else (1 << 62, text)


def _sizes_and_waits(store: ResultStore, case_id: str) -> tuple[np.ndarray, np.ndarray]:
    with store.jobs_path(case_id).open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        pairs = [(float(r["size"]), float(r["wait"])) for r in reader]
    a = np.array(pairs, dtype=float).reshape(-1, 2)
    return a[:, 0], a[:, 1]
