"""``meshsim run``: one headless simulation, its summary and its output files."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from meshsim.cli import interrupts
from meshsim.cli import options as opt
from meshsim.cli.output import fail, interactive, out
from meshsim.cli.recorded_view import print_loading, print_recorded
from meshsim.engine.kernel.metrics import SUMMARY, metric_info, metric_text
from meshsim.engine.kernel.reports import REPORTS, ReportTable, csv_text
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.logs.reasons import RECORD_REASONS
from meshsim.engine.tools.outputs import EventLogWriter, dumps, jobs_csv_text, schedule_swf
from meshsim.engine.tools.runcase import (
    DEFAULT_MACHINE,
    case_document,
    input_files,
    prepare,
)
from meshsim.engine.tools.scenario import load_scenario, scenario_document
from meshsim.engine.validation.options import RUN_OUTPUTS, check_options
from meshsim.engine.workloads.swf import swf_bytes
from meshsim.engine.workloads.tracecut import cut_summary
from meshsim.engine.writing import Batch, Target, check_targets

POLICY_PANEL = opt.POLICY_PANEL
OUTPUT_PANEL = "Outputs"


def register(app: typer.Typer) -> None:
    app.command("run")(run)


def run(
    ctx: typer.Context,
    machine: opt.Machine = DEFAULT_MACHINE,
    workload: opt.Workload = None,
    queue: opt.Queue = None,
    discipline: opt.Discipline = None,
    backfill: opt.Backfill = None,
    alloc: opt.Alloc = None,
    window: opt.Window = 240,
    bound: opt.Bound = 8,
    rotate: opt.Rotate = False,
    migrate: opt.Migrate = False,
    shape: opt.Shape = None,
    runtime_model: opt.RuntimeModel = None,
    pattern: opt.Pattern = None,
    io_traffic: opt.IoTraffic = None,
    io_share: opt.IoShare = None,
    procs_per_unit: opt.ProcsPerUnit = None,
    load_factor: opt.LoadFactor = 1.0,
    runtime_scale: opt.RuntimeScale = 1.0,
    seed: opt.Seed = 0,
    lenient: opt.Lenient = False,
    log_format: opt.LogFormat = None,
    tz: opt.TimeZone = "UTC",
    partition_limit: opt.PartitionLimit = None,
    first: opt.First = None,
    skip: opt.Skip = 0,
    out_path: Annotated[
        Path | None,
        typer.Option("--out", help="Write the result JSON here.", rich_help_panel=OUTPUT_PANEL),
    ] = None,
    jobs_out: Annotated[
        Path | None,
        typer.Option(help="Write per-job results as CSV.", rich_help_panel=OUTPUT_PANEL),
    ] = None,
    events_out: Annotated[
        Path | None,
        typer.Option(help="Write the event log as JSON lines.", rich_help_panel=OUTPUT_PANEL),
    ] = None,
    swf_out: Annotated[
        Path | None,
        typer.Option(help="Write the simulated schedule as SWF.", rich_help_panel=OUTPUT_PANEL),
    ] = None,
    report: Annotated[
        str | None,
        typer.Option(help=f"Print a report: {opt.names(REPORTS)}.", rich_help_panel=OUTPUT_PANEL),
    ] = None,
    report_out: Annotated[
        Path | None,
        typer.Option(
            help="Write the report's tables as CSV files here.", rich_help_panel=OUTPUT_PANEL
        ),
    ] = None,
    requeue: opt.Requeue = False,
    queue_map: opt.QueueMap = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing but errors.")] = False,
    scenario: opt.Scenario = None,
) -> None:
    """Simulate a workload on a machine and report waiting, slowdown and capacity metrics.

    With --scenario FILE the scenario supplies every simulation option (giving one of them too is an
    error naming it) and is run to its end; outputs combine with it."""
    outputs = Outputs(out_path, jobs_out, events_out, swf_out, report, report_out, quiet)
    if scenario is not None:
        opt.refuse_beside_scenario(ctx)
        run_scenario(scenario, outputs)
        return
    options = opt.run_options(ctx)
    outputs.check(input_files(options))
    _simulate(
        lambda log: prepare(options, log=log), lambda sim: case_document(sim, options), outputs
    )


@dataclass(frozen=True)
class Outputs:
    """The output options of ``meshsim run`` (the "Outputs" panel and ``--quiet``)."""

    out: Path | None = None
    jobs: Path | None = None
    events: Path | None = None
    swf: Path | None = None
    report: str | None = None
    report_out: Path | None = None
    quiet: bool = False

    def check(self, inputs: list[Path]) -> None:
        """Every output held to the writer's rules against ``inputs``, before anything is
        computed."""
        check_options(RUN_OUTPUTS, {"--report": self.report})
        if self.report_out is not None and self.report is None:
            fail("--report-out needs --report NAME (the report whose tables it writes)")
        files = {"--out": self.out, "--jobs-out": self.jobs, "--events-out": self.events}
        files["--swf-out"] = self.swf
        targets = [Target(option, path) for option, path in files.items() if path is not None]
        if self.report_out is not None:
            targets.append(Target("--report-out", self.report_out, folder=True))
        check_targets(targets, inputs)


def run_scenario(path: Path, outputs: Outputs) -> None:
    """``meshsim run --scenario FILE``: the scenario built, run to the end, and its
    :func:`scenario_document` written (the console's "export results" of the same scenario).
    The outputs are checked against the scenario file before it is read, and against the files
    it names once it is."""
    outputs.check([path])
    scenario = load_scenario(path)
    outputs.check([path, *input_files(scenario.options)])
    _simulate(
        lambda log: scenario.build(log=log), lambda sim: scenario_document(sim, scenario), outputs
    )


def _simulate(
    build: Callable[[EventLogWriter | None], Simulation],
    document_of: Callable[[Simulation], dict[str, Any]],
    outputs: Outputs,
) -> None:
    """Build, run to the end, write the outputs asked for (all or none: they replace their targets
    together once everything is written) and print the summary."""
    running: list[Simulation] = []
    with Batch() as batch, interrupts.watching(lambda: _where(running)):
        log = EventLogWriter(batch.stage(outputs.events)) if outputs.events else None
        sim = build(log)
        running.append(sim)
        big = len(sim.workload) >= 20000
        _drive(sim, show_progress=not outputs.quiet and interactive() and big)
        document = document_of(sim)
        if outputs.out:
            batch.write(outputs.out, dumps(document))
        if outputs.jobs:
            batch.write(outputs.jobs, jobs_csv_text(sim))
        if outputs.swf:
            batch.write(outputs.swf, swf_bytes(outputs.swf, schedule_swf(sim)))
        tables = REPORTS.get(outputs.report)(sim) if outputs.report else []
        if outputs.report_out:
            folder = batch.folder(outputs.report_out)
            for table in tables:
                batch.write(folder / f"{table.name}.csv", csv_text(table))
        batch.commit()
    if not outputs.quiet:
        _print_summary(document)
        _print_report(tables)


def _where(running: list[Simulation]) -> str:
    """Where a run is, for the line an interrupt prints."""
    if not running:
        return "while loading the inputs; no output was written"
    sim = running[0]
    return (
        f"at event {sim.events:,}, simulated time {sim.now:,.0f} s "
        f"({sim.state.stats.arrivals:,} of {len(sim.workload):,} jobs arrived); "
        "no output was written"
    )


def _print_report(tables: list[ReportTable]) -> None:
    from rich.table import Table

    for t in tables:
        table = Table(title=t.title, header_style="bold")
        for k, col in enumerate(t.columns):
            table.add_column(col, justify="left" if k == 0 else "right")
        for row in t.rows:
            table.add_row(*row)
        out.print(table)


def _drive(sim: Simulation, *, show_progress: bool) -> None:
    """Run to the end, with a progress bar over simulated time on a terminal."""
    if not show_progress:
        sim.run()
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    w = sim.workload
    first = float(w.submit[0])
    last = float((w.submit + w.runtime).max())
    span = max(last - first, 1.0)
    columns = (TextColumn("simulating"), BarColumn(), TextColumn("{task.fields[jobs]}"))
    with Progress(*columns, TimeRemainingColumn(), transient=True) as progress:
        task = progress.add_task("run", total=span, jobs="")
        while not sim.done:
            sim.run(max_events=50_000)
            now = sim.now if math.isfinite(sim.now) else last
            progress.update(task, completed=min(now - first, span), jobs=f"event {sim.events}")


PAIR = "intra / inter-job contention"
CONTENTION = (
    "max_contention_time_mean",
    PAIR,
    "balance_time_mean",
    "network_throughput_mb_s_time_mean",
    "nodes_affected_mean",
)
"""The summary's contention rows on a machine with I/O nodes (the intra- and inter-job means as
one row)."""


def _print_summary(document: dict) -> None:
    from rich.table import Table

    inputs = document["inputs"]
    m = document["metrics"]
    policy = inputs["policy"]
    title = (
        f"{inputs['machine']} · {Path(str(inputs['workload'])).name} · "
        f"{policy['queue']}/{policy['discipline']}+{policy['backfill']}"
    )
    table = Table(title=title, show_header=True, header_style="bold")
    table.add_column("metric")
    table.add_column("value", justify="right")
    keys = SUMMARY + (CONTENTION if "network_throughput_mb_s_time_mean" in m else ())
    rows = [
        (PAIR, _pair(m, "intra", "inter"))
        if key == PAIR
        else (metric_info(key).label, metric_text(key, m[key]))
        for key in keys
    ]
    for name, value in rows:
        table.add_row(name, value)
    out.print(table)
    skipped = document["skipped"]
    if document["cut"] is not None:
        out.print(cut_summary(document["cut"], skipped), markup=False)
    records = {k: v for k, v in skipped.items() if k in RECORD_REASONS}
    for label, counts in (
        ("skipped jobs", {k: v for k, v in skipped.items() if k not in RECORD_REASONS}),
        ("log records that are not jobs", records),
        ("rejected jobs", document["rejected"]),
        ("unfinished jobs", document["unfinished"]),
    ):
        text = _counts(counts)
        if text:
            out.print(f"{label}: {text}")
    refused = document["rejected_actions"]
    if refused:
        out.print(f"rejected actions: {_counts(_tally(r['reason'] for r in refused))}")
        for r in refused:
            out.print(
                f"  action {r['index']} ({r['action']} at t={r['time']:g}): "
                f"{r['reason'].replace('_', ' ')} — {r['detail']}",
                markup=False,
            )
    print_loading(inputs)
    print_recorded(document["recorded"])


def _counts(counts: dict[str, int]) -> str:
    """``"3 size not positive, 1 larger than machine"`` (reasons with a count only)."""
    return ", ".join(f"{v:,} {k.replace('_', ' ')}" for k, v in counts.items() if v)


def _tally(reasons: Iterable[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for reason in reasons:
        counts[reason] = counts.get(reason, 0) + 1
    return counts


def _pair(m: dict, first: str, second: str) -> str:
    a, b = m[f"{first}_contention_time_mean"], m[f"{second}_contention_time_mean"]
    return f"{_number(a, '.1f')} / {_number(b, '.1f')}"


def _number(value: float | None, spec: str) -> str:
    """A value in ``spec`` format, or a dash when it is undefined (null)."""
    return "—" if value is None else format(value, spec)
