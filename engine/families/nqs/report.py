"""Reports like Wan et al.'s Tables 1-5 (seed 004 §3.2, §4), from a finished NQS run.

- Table 1: jobs per partition, average number of jobs running, each partition's share of usage
  (node-hours) and its utilization (node-hours used / (partition nodes × span)), and the overall
  utilization over the compute partition (interactive + batch nodes). The system is never down in a
  simulation, so up time is 100 %.
- Table 2: utilization of the compute partition per calendar month (trace time zone), counting the
  part of each job that ran inside the month, over the part of the month the run covers; months the
  run covers for less than half are marked partial and left out of the average.
- Table 3: share of usage and number of batch and interactive jobs per request size (sizes are
  grouped by the next power of two).
- Table 4: number of batch and interactive jobs per execution time, in whole hours rounded up (the
  last row gathers everything from 12 h on).
- Table 5: per queue: jobs, share of usage, average wait and execution time (hours) and the
  expansion factor (Σ execution + Σ wait) / Σ execution, i.e. 1 + average wait / average execution,
  as for the result JSON's ``expansion_factor``. All 27 rows of the paper's Table 5 satisfy this
  within their rounding (q4t: 0.1 h wait, 71.9, so about 5 s of execution), while a mean of per-job
  ratios would put short jobs' huge ratios into every queue (q32l, 2.6 h wait and 5.2 h execution,
  reports 1.5).

For a log that records waits, a sixth table gives Table 5 from the recorded waits beside the
simulated ones (:mod:`meshsim.engine.families.nqs.recorded_report`).
"""

from __future__ import annotations

from datetime import timedelta

import numpy as np

from meshsim.engine.families.nqs.allocator import nqs_config
from meshsim.engine.families.nqs.recorded_report import recorded_table5
from meshsim.engine.kernel.reports import REPORTS, ReportTable
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.workloads.traceclock import TraceClock


@REPORTS.register("nqs")
def nqs_report(sim: Simulation) -> list[ReportTable]:
    """Tables 1-5 for a finished run on a machine with an ``[nqs]`` section, and Table 5 from
    the recorded waits when the log has them."""
    config = nqs_config(sim.machine)
    _, out = sim.outcomes()
    queues = config.queue_by_number()
    interactive = np.array(
        [queues[q].interactive if q in queues else False for q in out.queue.tolist()], dtype=bool
    )
    usage = out.size * out.runtime
    total = float(usage.sum()) or 1.0
    first = float(out.submit.min())
    last = float(out.end.max())
    span = last - first
    batch_nodes = sum(s.rect.nodes for s in config.node_sets)
    inter_nodes = config.interactive.nodes if config.interactive else 0
    tables = [
        _table1(out, interactive, usage, total, span, batch_nodes, inter_nodes),
        _table2(sim, out, usage, first, last, batch_nodes + inter_nodes),
        _table3(out, interactive, usage, total),
        _table4(out, interactive),
        _table5(out, usage, total, queues),
    ]
    recorded = recorded_table5(sim, config)
    if recorded is not None:
        tables.append(recorded)
    return tables


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _share(used: float, available: float) -> str:
    return f"{_pct(used / available)} %" if available > 0 else "-"


def _table1(out, interactive, usage, total, span, batch_nodes, inter_nodes) -> ReportTable:
    batch = ~interactive
    hours = span / 3600.0 or 1.0
    rows = (
        ("System up time as percent of wall clock time", "100.0 %"),
        ("Total number of Interactive jobs", f"{int(interactive.sum())}"),
        ("Total number of Batch jobs", f"{int(batch.sum())}"),
        (
            "Average number of jobs running at any given time",
            f"{float(out.runtime.sum()) / (span or 1.0):.1f}",
        ),
        (
            "Interactive partition usage as percent of total usage",
            f"{_pct(usage[interactive].sum() / total)} %",
        ),
        (
            "Batch partition usage as percent of total usage",
            f"{_pct(usage[batch].sum() / total)} %",
        ),
        (
            "Interactive partition utilization",
            _share(usage[interactive].sum() / 3600, inter_nodes * hours),
        ),
        (
            "Batch partition utilization",
            f"{_pct(usage[batch].sum() / 3600 / (batch_nodes * hours))} %",
        ),
        (
            "Overall utilization (interactive and batch)",
            f"{_pct(total / 3600 / ((batch_nodes + inter_nodes) * hours))} %",
        ),
    )
    return ReportTable(
        "table1", "Table 1 - Overall system performance and node utilization", ("", "value"), rows
    )


def _table2(sim, out, usage, first, last, nodes) -> ReportTable:
    clock = TraceClock.from_header(sim.workload.header)
    start = clock.at(first).replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    rows = []
    values = []
    month = start
    while clock.seconds(month) < last:
        nxt = (month + timedelta(days=32)).replace(day=1)
        lo = max(clock.seconds(month), first)
        hi = min(clock.seconds(nxt), last)
        inside = np.clip(np.minimum(out.end, hi) - np.maximum(out.start, lo), 0.0, None)
        util = float((out.size * inside).sum()) / (nodes * (hi - lo)) if hi > lo else 0.0
        whole = (hi - lo) >= 0.5 * (clock.seconds(nxt) - clock.seconds(month))
        label = month.strftime("%Y-%m") + ("" if whole else " (partial)")
        rows.append((label, _pct(util)))
        if whole:
            values.append(util)
        month = nxt
    rows.append(("AVE", _pct(float(np.mean(values))) if values else "-"))
    return ReportTable(
        "table2", "Table 2 - Monthly node utilization (%)", ("month", "utilization"), tuple(rows)
    )


def _table3(out, interactive, usage, total) -> ReportTable:
    bins = 2 ** np.ceil(np.log2(np.maximum(out.size, 1))).astype(np.int64)
    rows = []
    for b in sorted(set(bins.tolist())):
        mask = bins == b
        rows.append(
            (
                str(b),
                f"{100 * float(usage[mask].sum()) / total:.2f}",
                str(int((mask & ~interactive).sum())),
                str(int((mask & interactive).sum())),
            )
        )
    return ReportTable(
        "table3",
        "Table 3 - Usage distribution by request size",
        ("request size", "usage % of total", "batch jobs", "interactive jobs"),
        tuple(rows),
    )


def _table4(out, interactive) -> ReportTable:
    hours = np.clip(np.ceil(out.runtime / 3600.0), 1, 12).astype(np.int64)
    rows = tuple(
        (
            f"{h}.0",
            str(int(((hours == h) & ~interactive).sum())),
            str(int(((hours == h) & interactive).sum())),
        )
        for h in range(1, 13)
    )
    return ReportTable(
        "table4",
        "Table 4 - Execution time distribution",
        ("execution time (h)", "batch jobs", "interactive jobs"),
        rows,
    )


def _table5(out, usage, total, queues) -> ReportTable:
    wait = out.wait
    rows = []
    for number in sorted(queues, key=lambda n: n):
        spec = queues[number]
        mask = out.queue == number
        if spec.interactive or not mask.any():
            continue
        run = out.runtime[mask]
        executed = float(run.sum())
        expansion = (float(wait[mask].sum()) + executed) / executed if executed > 0 else 1.0
        rows.append(
            (
                spec.name,
                str(int(mask.sum())),
                f"{100 * float(usage[mask].sum()) / total:.1f}",
                f"{float(wait[mask].mean()) / 3600:.1f}",
                f"{float(run.mean()) / 3600:.1f}",
                f"{expansion:.1f}",
            )
        )
    return ReportTable(
        "table5",
        "Table 5 - Scheduling throughput and expansion factor",
        ("queue", "jobs", "usage %", "avg wait (h)", "avg execution (h)", "expansion factor"),
        tuple(rows),
    )
