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
from meshsim.cli.recorded_view import print_loading, print_recorded
from meshsim.engine.contention.traffic import COMM_PATTERNS, IO_TRAFFIC
from meshsim.engine.outputs import (
    EventLogWriter,
    dumps,
    write_jobs_csv,
    write_schedule_swf,
    write_text,
)
from meshsim.engine.reports import REPORTS, ReportTable, write_csv
from meshsim.engine.runcase import DEFAULT_MACHINE, RunOptions, case_document, prepare
from meshsim.engine.runtime_models import RUNTIME_MODELS
from meshsim.engine.scenario import load_scenario, scenario_document
from meshsim.engine.shapes import SHAPE_RULES
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
    window: Annotated[
        int,
        typer.Option(help="Window size K for --discipline window.", rich_help_panel=POLICY_PANEL),
    ] = 240,
    bound: Annotated[
        int,
        typer.Option(
            help="Overtaking bound k for --discipline oocb.", rich_help_panel=POLICY_PANEL
        ),
    ] = 8,
    rotate: Annotated[
        bool,
        typer.Option(help="Allow 90° rotation of requested boxes.", rich_help_panel=POLICY_PANEL),
    ] = False,
    migrate: Annotated[
        bool,
        typer.Option(
            help="Re-pack running jobs when the head is blocked.", rich_help_panel=POLICY_PANEL
        ),
    ] = False,
    shape: Annotated[
        str | None,
        typer.Option(
            help=f"Size-to-shape rule on meshes and tori: {opt.names(SHAPE_RULES)} "
            "(default: given shapes, else square in 2D and every box in 3D).",
            rich_help_panel=POLICY_PANEL,
        ),
    ] = None,
    runtime_model: Annotated[
        str | None,
        typer.Option(
            help=f"Runtime model (default: the workload's runtimes): {opt.names(RUNTIME_MODELS)}.",
            rich_help_panel=POLICY_PANEL,
        ),
    ] = None,
    pattern: Annotated[
        str | None,
        typer.Option(
            help="Communication pattern of every job's traffic (machines with I/O nodes; "
            f"default all-to-all): {opt.names(COMM_PATTERNS)}.",
            rich_help_panel=POLICY_PANEL,
        ),
    ] = None,
    io_traffic: Annotated[
        str | None,
        typer.Option(
            help=f"Parallel I/O of every job (default write): {opt.names(IO_TRAFFIC)}.",
            rich_help_panel=POLICY_PANEL,
        ),
    ] = None,
    io_share: Annotated[
        float | None,
        typer.Option(
            help="Share of every node's bytes that is I/O, the rest being --pattern "
            "(default: the workload's, else 1).",
            rich_help_panel=POLICY_PANEL,
        ),
    ] = None,
    procs_per_unit: Annotated[
        int | None, typer.Option(help="Trace processors per machine unit (default: the machine's).")
    ] = None,
    load_factor: Annotated[
        float, typer.Option(help="Divide the time since the first submit by F.")
    ] = 1.0,
    runtime_scale: Annotated[
        float, typer.Option(help="Multiply runtimes and estimates by C.")
    ] = 1.0,
    seed: opt.Seed = 0,
    lenient: Annotated[
        bool, typer.Option(help="Skip malformed SWF lines (and report them) instead of failing.")
    ] = False,
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
    requeue: Annotated[
        bool,
        typer.Option(help="Move jobs that break their queue's limits to a queue that admits them."),
    ] = False,
    queue_map: Annotated[
        list[str] | None,
        typer.Option(
            "--queue-map",
            metavar="NAME=QUEUE",
            help="Run the jobs of the trace's queue NAME in the machine's NQS queue QUEUE "
            "(repeatable). Other queues go to the machine queue of the same name, or by the "
            "q\\[f]<nodes><s|m|l> naming rule; never by number.",
        ),
    ] = None,
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
    if procs_per_unit is not None and procs_per_unit < 1:
        raise typer.BadParameter("must be at least 1", param_hint="--procs-per-unit")
    options = RunOptions(
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
        requeue=requeue,
        queue_map=",".join(queue_map) if queue_map else None,
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
    if skipped:
        text = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in skipped.items())
        out.print(f"skipped jobs: {text}")
    print_loading(inputs)
    print_recorded(document["recorded"])


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
