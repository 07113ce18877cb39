"""The combined tables of a sweep: one row per case, keyed by the case's parameters.

Columns of ``results.csv``: the keys that tell cases apart (as written in the spec, in spec order),
``case_id``, ``status`` (``ok``, ``failed``, ``pending`` for a case without a result for its
current inputs, or ``unreadable`` when its stored files are damaged), every numeric metric of the
result documents (in the order the first document lists them), and ``error``. Rows follow the plan's
case order, so two sweeps of one spec write the same bytes. Parquet (``results.parquet``) holds the
same table when pyarrow is installed."""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from meshsim.engine.tools.experiments.store import ResultStore
from meshsim.engine.writing import write_file

UNREADABLE = "unreadable"
"""The status of a case whose stored files cannot be read."""


@dataclass(frozen=True)
class CaseRow:
    """One case of a results folder: its values as written, status, error and metrics."""

    case_id: str
    values: dict[str, Any]
    status: str
    error: str | None
    metrics: dict[str, float]


def document_metrics(document: dict[str, Any]) -> dict[str, float]:
    """The numeric metrics of a result document: its ``metrics`` object when it has one (``meshsim
    run``), else its top-level numbers (other commands)."""
    source = document.get("metrics")
    if not isinstance(source, dict):
        source = document
    return {
        k: v for k, v in source.items() if isinstance(v, int | float) and not isinstance(v, bool)
    }


def load_rows(store: ResultStore) -> tuple[dict[str, Any], list[CaseRow]]:
    """The folder's plan and one row per planned case. A case whose stored files cannot be read
    (:meth:`ResultStore.damage`) is ``unreadable``, with what is wrong as its error; the next sweep
    computes it again."""
    manifest = store.manifest()
    rows = []
    for entry in manifest["cases"]:
        cid = entry["case_id"]
        meta = store.meta(cid)
        status, error, metrics = "pending", None, {}
        damage = store.damage(cid)
        if damage is not None:
            status, error = UNREADABLE, damage
        elif meta is not None and meta.get("input_hash") == entry["input_hash"]:
            status, error = str(meta.get("status")), meta.get("error")
            if status == "ok":
                metrics = document_metrics(store.document(cid))
        rows.append(CaseRow(cid, entry["values"], status, error, metrics))
    return manifest, rows


def results_table(
    keys: Sequence[str], rows: Sequence[CaseRow]
) -> tuple[list[str], list[list[Any]]]:
    """Columns and rows of ``results.csv`` (see the module docstring)."""
    metric_names: dict[str, None] = {}
    for row in rows:
        for name in row.metrics:
            metric_names.setdefault(name, None)
    columns = [*keys, "case_id", "status", *metric_names, "error"]
    body = [
        [
            *(row.values.get(k) for k in keys),
            row.case_id,
            row.status,
            *(row.metrics.get(m) for m in metric_names),
            row.error,
        ]
        for row in rows
    ]
    return columns, body


def cell(value: Any) -> str:
    """A CSV cell: numbers in shortest round-trip form, booleans as ``true``/``false``, lists as
    JSON, missing and NaN values empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "" if math.isnan(value) else repr(value)
    if isinstance(value, list | dict):
        return json.dumps(value)
    return str(value)


def write_csv(path: Path, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """Write a table as CSV, atomically."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([cell(v) for v in row] for row in rows)
    write_file(path, buffer.getvalue().encode("utf-8"))


def parquet_available() -> bool:
    return importlib.util.find_spec("pyarrow") is not None


def write_parquet(path: Path, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """Write a table as Parquet (needs pyarrow), atomically. A column mixing types is written as
    text, like its CSV cells."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrays = {}
    for i, name in enumerate(columns):
        values = [row[i] for row in rows]
        try:
            arrays[name] = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            arrays[name] = pa.array([None if v is None else cell(v) for v in values])
    sink = pa.BufferOutputStream()
    pq.write_table(pa.table(arrays), sink)
    write_file(path, sink.getvalue().to_pybytes())
