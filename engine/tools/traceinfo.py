"""``meshsim trace info``: what is in a trace, computed from the normalized jobs.

Everything is plain data (a dict of numbers and small tables) so the CLI can print it as tables and
tests can check it. Sizes are in trace processors; offered load is Σ processors × runtime /
(processors of the machine × span of submit times to last end)."""

from __future__ import annotations

from typing import Any

import numpy as np

from meshsim.engine.logs.formats import LOG_FORMATS
from meshsim.engine.logs.trace import LogTrace, records_read, replay_workload
from meshsim.engine.topology.machines import FlatSpec, Machine, power_of_two_label
from meshsim.engine.validation.options import TRACE_INFO, check_options
from meshsim.engine.workloads.swf import SWFTrace
from meshsim.engine.workloads.traceclock import TraceClock

PERCENTILES = (10, 25, 50, 75, 90, 99)
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def machine_size(trace: SWFTrace) -> int:
    """The processor count the header gives (MaxProcs, else MaxNodes), else the largest job."""
    h = trace.header
    given = h.max_procs or h.max_nodes
    if given and given > 0:
        return given
    procs = np.maximum(trace.records[:, 7], trace.records[:, 4])
    return max(1, int(procs.max()))


def trace_info(trace: SWFTrace, processors: int | None = None) -> dict[str, Any]:
    """Summary statistics of ``trace`` for a machine of ``processors`` (default: the header's).
    Sizes are only counted here, so the machine is not held to the cell limit."""
    check_options(TRACE_INFO, {"--processors": processors})
    procs_total = processors or machine_size(trace)
    machine = Machine(name=f"flat:{procs_total}", topology="flat", spec=FlatSpec(procs_total))
    workload = replay_workload(trace, machine)
    clock = TraceClock.from_header(trace.header)
    submit, runtime, estimate = workload.submit, workload.runtime, workload.estimate
    size = workload.procs
    n = len(workload)
    info: dict[str, Any] = {
        "file": trace.path,
        "computer": trace.header.computer,
        "installation": trace.header.installation,
        "records": records_read(trace),
        "jobs": n,
        "skipped": dict(workload.skipped),
        "processors": procs_total,
    }
    if isinstance(trace, LogTrace):
        info["log"] = {
            "format": trace.format,
            "description": LOG_FORMATS.get(trace.format).description,
            "skipped_records": [
                {
                    "file": s.where.file,
                    "line": s.where.line,
                    "job": s.job_id,
                    "reason": s.reason,
                    "detail": s.detail,
                }
                for s in trace.report()
            ],
        }
    if n == 0:
        return info
    first, last_submit = float(submit.min()), float(submit.max())
    last_end = float((submit + runtime).max())
    span = last_end - first
    info["span"] = {
        "first_submit_s": first,
        "last_submit_s": last_submit,
        "last_end_s": last_end,
        "days": span / 86400.0,
        "absolute": clock.absolute,
        "first_date": clock.at(first).isoformat() if clock.absolute else None,
        "last_date": clock.at(last_end).isoformat() if clock.absolute else None,
        "time_zone": str(clock.zone),
    }
    info["sizes"] = power_of_two_bins(size)
    info["runtime_s"] = percentiles(runtime)
    requested = trace.records[:, 8]
    has_request = int(np.count_nonzero(requested > 0))
    info["estimate_s"] = percentiles(estimate)
    info["estimates_given"] = has_request
    if has_request:
        req = np.isin(workload.job_id, trace.records[requested > 0, 0])
        ratio = runtime[req] / np.maximum(estimate[req], 1e-9)
        info["accuracy"] = {"mean": float(ratio.mean()), **percentiles(ratio)}
    users = workload.user[workload.user >= 0]
    info["users"] = len(np.unique(users))
    info["offered_load"] = float(np.sum(size * runtime)) / (procs_total * span) if span else 0.0
    hours, days = clock.hours_and_weekdays(submit)
    info["arrivals_by_hour"] = np.bincount(hours, minlength=24).tolist()
    info["arrivals_by_weekday"] = dict(
        zip(WEEKDAYS, np.bincount(days, minlength=7).tolist(), strict=True)
    )
    return info


def percentiles(values: np.ndarray) -> dict[str, float]:
    """The usual percentiles plus min and max."""
    out = {"min": float(values.min())}
    out.update(
        {
            f"p{p}": float(v)
            for p, v in zip(PERCENTILES, np.percentile(values, PERCENTILES), strict=True)
        }
    )
    out["max"] = float(values.max())
    return out


def power_of_two_bins(size: np.ndarray) -> dict[str, int]:
    """Job counts by size bin: 1, 2, 3-4, 5-8, ... (only bins that occur)."""
    exponents = np.ceil(np.log2(np.maximum(size, 1))).astype(np.int64)
    counts = np.bincount(exponents)
    out = {}
    for e, c in enumerate(counts.tolist()):
        if c:
            out[power_of_two_label(1 << e)] = c
    return out
