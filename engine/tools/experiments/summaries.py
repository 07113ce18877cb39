"""The statistics tables written beside ``results.csv``:

- ``summary.csv`` (when the replicate key — ``seed`` by default — varies): one row per configuration
  (every key but the replicate key), ``n``, and for every metric ``METRIC_mean`` and ``METRIC_ci95``
  (half-width of the 95 % Student-t interval);
- ``gains.csv`` (when the spec names a baseline): one row per case paired with its baseline case,
  and ``gain_METRIC`` = (V_base − V_new) / V_base for the spec's metrics (seed 000 Figs. 6–8).

Rules in :mod:`meshsim.engine.tools.experiments.stats`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from meshsim.engine.tools.experiments.stats import aggregate, gains
from meshsim.engine.tools.experiments.store import ResultStore
from meshsim.engine.tools.experiments.tables import (
    CaseRow,
    load_rows,
    parquet_available,
    results_table,
    write_csv,
    write_parquet,
)


def write_tables(store: ResultStore) -> list[Path]:
    """Write every table the folder's plan calls for; return their paths."""
    manifest, rows = load_rows(store)
    keys = manifest["keys"]
    columns, body = results_table(keys, rows)
    written = [store.folder / "results.csv"]
    write_csv(written[0], columns, body)
    if parquet_available():
        written.append(store.folder / "results.parquet")
        write_parquet(written[-1], columns, body)
    metrics = metric_names(rows)
    if manifest["replicate"] in keys:
        columns, body = summary_table(config_keys(manifest), rows, metrics)
        written.append(store.folder / "summary.csv")
        write_csv(written[-1], columns, body)
    if manifest["baseline"]:
        shown = [m for m in manifest["metrics"] if m in metrics] or metrics
        columns, body = gains_table(keys, manifest["baseline"], rows, shown)
        written.append(store.folder / "gains.csv")
        write_csv(written[-1], columns, body)
    return written


def config_keys(manifest: dict[str, Any]) -> list[str]:
    """The keys that tell configurations apart: every varying key but the replicate key."""
    return [k for k in manifest["keys"] if k != manifest["replicate"]]


def metric_names(rows: Sequence[CaseRow]) -> list[str]:
    """Every metric of the finished rows, in first-seen order."""
    names: dict[str, None] = {}
    for row in rows:
        for name in row.metrics:
            names.setdefault(name, None)
    return list(names)


def summary_table(
    keys: Sequence[str], rows: Sequence[CaseRow], metrics: Sequence[str]
) -> tuple[list[str], list[list[Any]]]:
    """Columns and rows of ``summary.csv``."""
    columns = [*keys, "n"]
    for m in metrics:
        columns += [f"{m}_mean", f"{m}_ci95"]
    body = []
    for config, estimates in aggregate(rows, keys, metrics):
        n = max((e.n for e in estimates.values()), default=0)
        line: list[Any] = [*(config[k] for k in keys), n]
        for m in metrics:
            line += [estimates[m].mean, estimates[m].ci95]
        body.append(line)
    return columns, body


def gains_table(
    keys: Sequence[str],
    baseline: dict[str, Any],
    rows: Sequence[CaseRow],
    metrics: Sequence[str],
) -> tuple[list[str], list[list[Any]]]:
    """Columns and rows of ``gains.csv``."""
    columns = [*keys, "case_id", "baseline_case_id", *(f"gain_{m}" for m in metrics)]
    body = [
        [
            *(g.row.values.get(k) for k in keys),
            g.row.case_id,
            g.base.case_id,
            *(g.gains.get(m) for m in metrics),
        ]
        for g in gains(rows, keys, baseline, metrics)
    ]
    return columns, body
