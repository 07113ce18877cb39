"""``meshsim run``: one headless simulation, its summary and its output files."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import Annotated, Any

import typer

from meshsim.cli import options as opt
from meshsim.cli.output import fail, interactive, out
from meshsim.engine.logs.reasons import RECORD_REASONS
from meshsim.engine.outputs import (
    EventLogWriter,
    dumps,
    write_jobs_csv,
    write_schedule_swf,
    write_text,
)
from meshsim.engine.reports import REPORTS, ReportTable, write_csv
from meshsim.engine.runcase import DEFAULT_MACHINE, RunOptions, case_document, prepare
from meshsim.engine.scenario import load_scenario, scenario_document
from meshsim.engine.simulation import Simulation

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
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing but errors.")] = False,
    scenario: opt.Scenario = None,
) -> None:
    """Simulate a workload on a machine and report waiting, slowdown and capacity metrics.

    With --scenario FILE the scenario supplies every simulation option (giving one of them too is an
    error naming it) and is run to its end; outputs combine with it."""
    outputs = {
        "out_path": out_path,
        "jobs_out": jobs_out,
        "events_out": events_out,
        "swf_out": swf_out,
        "report": report,
        "report_out": report_out,
        "quiet": quiet,
    }
    if scenario is not None:
        for f in fields(RunOptions):
            source = ctx.get_parameter_source(f.name)
            if source is not None and source.name != "DEFAULT":
                flag = "--" + f.name.replace("_", "-")
                fail(f"{flag} cannot be combined with --scenario (the scenario file sets it)")
        run_scenario(scenario, **outputs)
        return
    options = opt.run_options(
        machine=machine,
        workload=workload,
        queue=queue,
        discipline=discipline,
        backfill=backfill,
        alloc=alloc,
        window=window,
        bound=bound,
        rotate=rotate,
        migrate=migrate,
        shape=shape,
        runtime_model=runtime_model,
        pattern=pattern,
        io_traffic=io_traffic,
        io_share=io_share,
        procs_per_unit=procs_per_unit,
        load_factor=load_factor,
        runtime_scale=runtime_scale,
        seed=seed,
        lenient=lenient,
        log_format=log_format,
        tz=tz,
        partition_limit=partition_limit,
        requeue=requeue,
    )
    _simulate(
        lambda log: prepare(options, log=log), lambda sim: case_document(sim, options), **outputs
    )


def run_scenario(
    path: Path,
    *,
    out_path: Path | None = None,
    jobs_out: Path | None = None,
    events_out: Path | None = None,
    swf_out: Path | None = None,
    report: str | None = None,
    report_out: Path | None = None,
    quiet: bool = False,
) -> None:
    """``meshsim run --scenario FILE``: the scenario built, run to the end, and its
    :func:`scenario_document` written (the console's "export results" of the same scenario)."""
    scenario = load_scenario(path)
    _simulate(
        lambda log: scenario.build(log=log),
        lambda sim: scenario_document(sim, scenario),
        out_path=out_path,
        jobs_out=jobs_out,
        events_out=events_out,
        swf_out=swf_out,
        report=report,
        report_out=report_out,
        quiet=quiet,
    )


def _simulate(
    build: Callable[[EventLogWriter | None], Simulation],
    document_of: Callable[[Simulation], dict[str, Any]],
    *,
    out_path: Path | None,
    jobs_out: Path | None,
    events_out: Path | None,
    swf_out: Path | None,
    report: str | None,
    report_out: Path | None,
    quiet: bool,
) -> None:
    """Build, run to the end, write the outputs asked for and print the summary."""
    report_fn = REPORTS.get(report) if report else None
    log_file = events_out.open("w", encoding="utf-8") if events_out else None
    try:
        sim = build(EventLogWriter(log_file) if log_file else None)
        big = len(sim.workload) >= 20000
        _drive(sim, show_progress=not quiet and interactive() and big)
    finally:
        if log_file:
            log_file.close()
    document = document_of(sim)
    if out_path:
        write_text(out_path, dumps(document))
    if jobs_out:
        write_jobs_csv(sim, jobs_out)
    if swf_out:
        write_schedule_swf(sim, swf_out)
    if not quiet:
        _print_summary(document)
    if report_fn is not None:
        tables = report_fn(sim)
        if report_out:
            write_csv(tables, report_out)
        if not quiet:
            _print_report(tables)


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
    rows = [
        ("jobs", f"{m['jobs']:,}"),
        ("avg wait", _duration(m["avg_wait_s"])),
        ("max wait", _duration(m["max_wait_s"])),
        ("avg response", _duration(m["avg_response_s"])),
        ("avg bounded slowdown", f"{m['avg_bsld']:.2f}"),
        ("utilization", f"{m['utilization']:.1%}"),
        ("allocated utilization", f"{m['allocated_utilization']:.1%}"),
        ("unused capacity", f"{m['unused_capacity']:.1%}"),
        ("lost capacity", f"{m['lost_capacity']:.1%}"),
        ("loss of capacity (LoC)", f"{m['loss_of_capacity']:.3f}"),
        ("makespan", _duration(m["makespan_s"])),
    ]
    if "network_throughput_mb_s_time_mean" in m:
        rows += [
            ("max_contention (time mean)", f"{m['max_contention_time_mean']:.1f}"),
            ("intra / inter-job contention", _pair(m, "intra", "inter")),
            ("balance factor (time mean)", f"{m['balance_time_mean']:.2f}"),
            ("network throughput", f"{m['network_throughput_mb_s_time_mean']:,.0f} MB/s"),
            ("nodes affected (mean)", f"{m['nodes_affected_mean']:.1f}"),
        ]
    for name, value in rows:
        table.add_row(name, value)
    out.print(table)
    skipped = {k: v for k, v in document["skipped"].items() if v}
    jobs = {k: v for k, v in skipped.items() if k not in RECORD_REASONS}
    records = {k: v for k, v in skipped.items() if k in RECORD_REASONS}
    if jobs:
        out.print(f"skipped jobs: {_counts(jobs)}")
    if records:
        out.print(f"log records that are not jobs: {_counts(records)}")


def _counts(by_reason: dict[str, int]) -> str:
    return ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in by_reason.items())


def _pair(m: dict, first: str, second: str) -> str:
    a, b = m[f"{first}_contention_time_mean"], m[f"{second}_contention_time_mean"]
    return f"{a:.1f} / {b:.1f}"


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.1f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} d"
