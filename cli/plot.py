"""``meshsim plot RESULTS``: the standard figures of a sweep as PNG or SVG files (matplotlib, ``pip
install 'meshsim[plot]'``) or, with ``--terminal``, as text; for a run's result JSON, its
recorded against simulated waits (:mod:`meshsim.engine.recorded_figures`)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Annotated, Any

import typer

from meshsim.cli.output import err, fail, out
from meshsim.engine.recorded_figures import queue_bars, read_result, recorded_section, wait_scatter
from meshsim.engine.tools.experiments.figures import (
    BarChart,
    Figure,
    Panel,
    capacity,
    load_key,
    metric_vs_load,
    utilization_vs_slowdown,
    wait_cdfs,
)
from meshsim.engine.tools.experiments.store import ResultStore
from meshsim.engine.tools.experiments.summaries import config_keys
from meshsim.engine.tools.experiments.tables import UNREADABLE, load_rows
from meshsim.engine.tools.experiments.textplot import render, render_bars
from meshsim.engine.validation.options import PLOT, check_options
from meshsim.engine.writing import Batch, Target, check_targets

KINDS = ("load", "util-slowdown", "wait-cdf", "capacity")
"""The figures of a results folder; all but ``capacity`` are drawn by default where they apply."""
RECORDED_KINDS = ("recorded-scatter", "recorded-queues")
"""The figures of a run's result JSON: the per-job scatter (needs --jobs) and the per-queue bars."""


def register(app: typer.Typer) -> None:
    app.command("plot")(plot)


def plot(
    results: Annotated[
        Path,
        typer.Argument(
            help="A results folder of meshsim sweep/reproduce, or a result JSON of meshsim run "
            "(--out) of a log that records waits."
        ),
    ],
    kind: Annotated[
        list[str] | None,
        typer.Option(
            help="Figures: load, util-slowdown, wait-cdf, capacity of a folder (default: all "
            "that apply but capacity); recorded-scatter, recorded-queues of a result JSON "
            "(default: all that apply)."
        ),
    ] = None,
    jobs: Annotated[
        Path | None,
        typer.Option(
            "--jobs",
            help="The run's per-job CSV (meshsim run --jobs-out), for recorded-scatter.",
        ),
    ] = None,
    metric: Annotated[
        list[str] | None,
        typer.Option(help="Metrics for the load figures (default: the sweep's metrics)."),
    ] = None,
    x: Annotated[str | None, typer.Option(help="The load key (default: found).")] = None,
    series: Annotated[
        str | None, typer.Option(help="Key whose values the wait CDFs compare (default: first).")
    ] = None,
    panels: Annotated[
        str | None,
        typer.Option(
            help="Key whose values get a panel each, side by side (util-slowdown, capacity)."
        ),
    ] = None,
    at: Annotated[
        float | None,
        typer.Option(help="Load value of the capacity figure (default: the smallest)."),
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help="png or svg.")] = "png",
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Folder for the files (default: RESULTS/figures; figures/ beside a result JSON).",
        ),
    ] = None,
    terminal: Annotated[bool, typer.Option(help="Draw in the terminal instead of files.")] = False,
    width: Annotated[int, typer.Option(help="Terminal plot width in characters.")] = 78,
) -> None:
    """Draw metric vs. load per policy, utilization vs. slowdown, wait CDFs by size class, capacity
    utilized, unused and lost at one load, and a run's recorded against simulated waits."""
    check_options(PLOT, {"--kind": kind, "--format": fmt, "--width": width, "--at": at})
    single = results.is_file()
    valid = RECORDED_KINDS if single else KINDS
    wrong = [k for k in kind or () if k not in valid]
    if wrong:
        what = "a result JSON" if single else "a results folder"
        fail(f"--kind {wrong[0]}: not a figure of {what} (valid: {', '.join(valid)})")
    if jobs is not None and not single:
        fail("--jobs: only for a result JSON of meshsim run (its per-job CSV)")
    for name, value in (("--panels", panels), ("--at", at)):
        if value is not None and single:
            fail(f"{name}: only for a results folder of meshsim sweep/reproduce")
    folder = out_dir or (results.parent / "figures" if single else results / "figures")
    if not terminal:
        inputs = [results, jobs] if single else [results / "sweep.json"]
        check_targets([Target("--out", folder, folder=True)], inputs)
    if single:
        figures = _recorded_figures(results, kind, jobs)
    else:
        figures = _sweep_figures(results, kind, metric, x, series, panels, at)
    if terminal:
        for figure in figures:
            text = (
                render_bars(figure, width)
                if isinstance(figure, BarChart)
                else render(figure, width=width)
            )
            out.print(text, markup=False, highlight=False)
        return
    for path in _draw(figures, folder, fmt):
        out.print(f"wrote {path}")


def _sweep_figures(
    results: Path,
    kind: list[str] | None,
    metric: list[str] | None,
    x: str | None,
    series: str | None,
    panels: str | None,
    at: float | None,
) -> list[Figure | BarChart]:
    """The figures of a sweep's results folder."""
    store = ResultStore(results)
    manifest, rows = load_rows(store)
    unreadable = [r for r in rows if r.status == UNREADABLE]
    if unreadable:
        err.print(
            f"warning: {len(unreadable)} stored case(s) could not be read and are left out "
            f"(first: {unreadable[0].case_id}, {unreadable[0].error}); run the sweep again to "
            "compute them",
            markup=False,
            highlight=False,
        )
    if not any(r.status == "ok" for r in rows):
        fail(f"{results}: no finished case to plot")
    figures: list[Figure | BarChart] = list(
        _figures(manifest, rows, store, kind, metric, x, series, panels, at)
    )
    if not figures:
        fail(f"{results}: no figure applies (no numeric load key and no per-job CSVs)")
    return figures


def _recorded_figures(
    path: Path, kinds: list[str] | None, jobs: Path | None
) -> list[Figure | BarChart]:
    """The figures of a run's result JSON; the scatter needs the run's jobs CSV."""
    section = recorded_section(read_result(path), str(path))
    wanted = kinds or [k for k in RECORDED_KINDS if k != "recorded-scatter" or jobs is not None]
    figures: list[Figure | BarChart] = []
    if "recorded-scatter" in wanted:
        if jobs is None:
            fail("--kind recorded-scatter needs the run's per-job CSV: --jobs FILE")
        figures.append(wait_scatter(jobs))
    if "recorded-queues" in wanted:
        figures.append(queue_bars(section))
    return figures


def _figures(
    manifest: dict[str, Any],
    rows: list,
    store: ResultStore,
    kinds: list[str] | None,
    metrics: list[str] | None,
    x: str | None,
    series: str | None,
    panels: str | None = None,
    at: float | None = None,
) -> list[Figure]:
    keys = config_keys(manifest)
    x_key = x or load_key(manifest, rows)
    if x_key is not None and x_key not in keys:
        fail(f"--x {x_key}: not a key that varies in this sweep ({', '.join(keys)})")
    if panels is not None and (panels not in keys or panels == x_key):
        fail(f"--panels {panels}: not a key that varies in this sweep besides the load")
    present = {m for r in rows for m in r.metrics}
    wanted = kinds or [
        k
        for k in KINDS
        if k != "capacity"
        and (k != "wait-cdf" or manifest["jobs"])
        and (k == "wait-cdf" or x_key is not None)
        and (k != "util-slowdown" or {"utilization", "avg_bsld"} <= present)
    ]
    figures: list[Figure] = []
    if {"load", "util-slowdown", "capacity"} & set(wanted) and x_key is None:
        fail("no load key: name one with --x")
    if "load" in wanted:
        for m in metrics or [m for m in manifest["metrics"] if m in present]:
            if m not in present:
                fail(f"--metric {m}: not a metric of these results")
            figures.append(metric_vs_load(manifest, rows, m, x_key))
    if "util-slowdown" in wanted:
        figures.append(utilization_vs_slowdown(manifest, rows, x_key, panels))
    if "capacity" in wanted:
        loads = sorted({r.values[x_key] for r in rows if r.status == "ok"})
        figures.append(capacity(manifest, rows, x_key, loads[0] if at is None else at, panels))
    if "wait-cdf" in wanted:
        if series is not None and series not in keys:
            fail(f"--series {series}: not a key that varies in this sweep ({', '.join(keys)})")
        key = series or (next(iter(manifest["baseline"]), None) or (keys[0] if keys else None))
        if key is None:
            fail("the wait CDFs need a key to compare (--series)")
        figures.extend(wait_cdfs(manifest, rows, store, key))
    return figures


def _draw(figures: list[Figure | BarChart], folder: Path, fmt: str) -> list[Path]:
    try:
        import matplotlib
    except ImportError:
        fail("matplotlib is not installed: pip install 'meshsim[plot]' (or use --terminal)")
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "meshsim"  # the same SVG bytes from the same results
    import matplotlib.pyplot as plt

    with Batch() as batch:
        written = [_drawn(plt, batch, figure, batch.folder(folder), fmt) for figure in figures]
        batch.commit()
    return written


def _drawn(plt: Any, batch: Batch, figure: Figure | BarChart, folder: Path, fmt: str) -> Path:
    """Draw one figure (a line figure's panels side by side, a curve in the same colour in every
    panel) and stage its file."""
    if isinstance(figure, BarChart):
        fig, ax = plt.subplots(figsize=(7.5, 4.8))
        _bars(ax, figure)
    else:
        panels = figure.all_panels()
        fig, axes = plt.subplots(
            1, len(panels), figsize=(7.5 * len(panels), 4.8), sharey=True, squeeze=False
        )
        colours = {
            n: f"C{k}"
            for k, n in enumerate(dict.fromkeys(s.label for p in panels for s in p.series))
        }
        for ax, panel in zip(axes[0], panels, strict=True):
            _draw_panel(ax, figure, panel, colours)
            ax.set_title(panel.title or figure.title, fontsize="medium", wrap=True)
            ax.set_xlabel(figure.x_label)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize="small")
        axes[0][0].set_ylabel(figure.y_label)
        if figure.panels:
            fig.suptitle(figure.title)
    fig.tight_layout()
    path = folder / f"{figure.name}.{fmt}"
    metadata = {"Date": None} if fmt == "svg" else {"Software": None}
    image = io.BytesIO()
    fig.savefig(image, format=fmt, metadata=metadata)
    plt.close(fig)
    batch.write(path, image.getvalue())
    return path


def _draw_panel(ax: Any, figure: Figure, panel: Panel, colours: dict[str, str]) -> None:
    """One panel's curves, steps, error bars or scattered points on linear or logarithmic axes (or
    its stacked bars) on ``ax``."""
    if panel.categories:
        bottom = [0.0] * len(panel.categories)
        for s in panel.series:
            ax.bar(s.x, s.y, bottom=bottom, label=s.label, color=colours[s.label])
            bottom = [b + y for b, y in zip(bottom, s.y, strict=True)]
        ax.set_xticks(range(len(panel.categories)))
        ax.set_xticklabels([c.replace(", ", "\n") for c in panel.categories], fontsize="small")
        return
    for s in panel.series:
        colour = colours[s.label]
        if s.scatter:
            ax.scatter(s.x, s.y, s=4, alpha=0.3, linewidths=0, label=s.label, color=colour)
        elif figure.steps:
            ax.step(s.x, s.y, where="post", label=s.label, color=colour)
        elif s.err is not None and any(e == e for e in s.err):
            ax.errorbar(s.x, s.y, yerr=[0 if e != e else e for e in s.err], marker="o",
                        capsize=3, label=s.label, color=colour)  # fmt: skip
        else:
            ax.plot(s.x, s.y, marker="o", label=s.label, color=colour)
    if figure.log_y:
        ax.set_yscale("log")
    if figure.log_x:
        ax.set_xscale("log")


def _bars(ax: Any, chart: BarChart) -> None:
    """Grouped vertical bars, one group per category."""
    width = 0.8 / max(len(chart.series), 1)
    for s, name in enumerate(chart.series):
        offsets = [
            c + (s - (len(chart.series) - 1) / 2) * width for c in range(len(chart.categories))
        ]
        ax.bar(offsets, chart.values[s], width=width, label=name)
    ax.set_xticks(range(len(chart.categories)), chart.categories, rotation=90, fontsize="small")
    ax.set_title(chart.title)
    ax.set_ylabel(chart.value_label)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize="small")
