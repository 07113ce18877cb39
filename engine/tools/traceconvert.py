"""``meshsim trace convert``: cut a time window or a calendar month out of a trace and write it as
SWF, CSV or JSON lines.

Jobs are selected by submit time in [start, end). The cut is rebased so its window starts at time 0:
submit times are shifted and the header's UnixStartTime moves by the same amount (and says so in a
Note), so dates computed from the cut equal those of the original."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace
from pathlib import Path

import numpy as np

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.validation.options import TRACE_CONVERT, check_options
from meshsim.engine.workloads import swf
from meshsim.engine.workloads.traceclock import TraceClock
from meshsim.engine.writing import write_file

FORMATS = ("swf", "csv", "jsonl")


def window(
    trace: swf.SWFTrace,
    *,
    start: float | None = None,
    end: float | None = None,
    month: str | None = None,
) -> swf.SWFTrace:
    """The jobs submitted in [start, end) (or in calendar ``month``), rebased to the window."""
    check_options(TRACE_CONVERT, {"--start": start, "--end": end, "--month": month})
    if start is not None and end is not None and not start < end:
        raise MeshsimError(f"--start {start:g} must come before --end {end:g}")
    if month is not None:
        if start is not None or end is not None:
            raise MeshsimError("give either --month or --start/--end, not both")
        clock = TraceClock.from_header(trace.header)
        if not clock.absolute:
            raise MeshsimError(f"{trace.path}: --month needs UnixStartTime in the header")
        start, end = clock.month_window(month)
    lo = -np.inf if start is None else start
    hi = np.inf if end is None else end
    submit = trace.records[:, swf.SUBMIT]
    records = trace.records[(submit >= lo) & (submit < hi)].copy()
    if len(records) == 0:
        raise MeshsimError(f"{trace.path}: no jobs submitted in the requested window")
    shift = 0.0 if start is None else float(start)
    header = trace.header
    if shift:
        records[:, swf.SUBMIT] -= shift
        header = _rebased_header(header, shift, month)
    return replace(trace, header=header, records=records, malformed=())


def _rebased_header(header: swf.SWFHeader, shift: float, month: str | None) -> swf.SWFHeader:
    lines = []
    what = f"month {month}" if month else f"window from t={shift:g}"
    for line in header.lines:
        if line.strip().startswith("UnixStartTime:") and header.unix_start_time is not None:
            line = f" UnixStartTime: {header.unix_start_time + int(shift)}"
        lines.append(line)
    lines.append(f" Note: cut by meshsim: {what}; submit times shifted by -{shift:g} s")
    return swf.parse_header(lines)


def output_format(path: Path, fmt: str | None = None) -> str:
    """The format to write ``path`` in: ``fmt``, else the one its name says."""
    fmt = fmt or _format_from_name(path)
    if fmt not in FORMATS:
        raise MeshsimError(f"--format: unknown format '{fmt}' (valid: {', '.join(FORMATS)})")
    return fmt


def converted(trace: swf.SWFTrace, path: Path, fmt: str) -> bytes | str:
    """The content of ``path`` holding ``trace`` in ``fmt`` (:data:`FORMATS`)."""
    if fmt == "swf":
        return swf.swf_bytes(path, swf.swf_text(trace.records, trace.header))
    if fmt == "csv":
        buffer = io.StringIO(newline="")
        writer = csv.writer(buffer)
        writer.writerow(swf.FIELDS)
        writer.writerows([_number(v) for v in row] for row in trace.records.tolist())
        return buffer.getvalue()
    lines = (
        json.dumps(dict(zip(swf.FIELDS, map(_number, row), strict=True)), allow_nan=False)
        for row in trace.records.tolist()
    )
    return "\n".join(lines) + "\n"


def write(trace: swf.SWFTrace, path: Path, fmt: str | None = None) -> str:
    """Write ``trace`` in ``fmt`` (default: from the file name); returns the format used."""
    fmt = output_format(path, fmt)
    write_file(path, converted(trace, path, fmt))
    return fmt


def _format_from_name(path: Path) -> str:
    name = path.name.lower()
    if name.endswith((".swf", ".swf.gz")):
        return "swf"
    if name.endswith(".csv"):
        return "csv"
    if name.endswith((".jsonl", ".json")):
        return "jsonl"
    raise MeshsimError(f"{path}: cannot tell the format from the name; give --format")


def _number(v: float) -> int | float:
    return int(v) if v.is_integer() else v
