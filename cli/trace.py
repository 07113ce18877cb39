"""``meshsim trace info|convert``: look into a workload trace or an operator's log, cut pieces out
of it, and write it as SWF."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from meshsim.cli import interrupts
from meshsim.cli import options as opt
from meshsim.cli.output import out
from meshsim.engine.logs.options import LogOptions
from meshsim.engine.logs.trace import LogTrace, origin_csv, origin_path, read_trace
from meshsim.engine.tools import traceconvert
from meshsim.engine.tools.traceinfo import trace_info
from meshsim.engine.workloads import fetch
from meshsim.engine.workloads.swf import parse_header
from meshsim.engine.writing import Batch, Target, check_targets

trace_app = typer.Typer(
    help="Inspect and convert workload traces and operators' logs.", no_args_is_help=True
)


def register(app: typer.Typer) -> None:
    app.add_typer(trace_app, name="trace")


@trace_app.command("info")
def info(
    path: Annotated[
        Path, typer.Argument(help="An SWF trace (.swf, .swf.gz) or a log (see --from).")
    ],
    processors: Annotated[
        int | None,
        typer.Option(help="Machine size in processors for the offered load (default: header)."),
    ] = None,
    lenient: opt.Lenient = False,
    log_format: opt.LogFormat = None,
    tz: opt.TimeZone = "UTC",
    partition_limit: opt.PartitionLimit = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Jobs, skips, time span, sizes, runtimes, estimates, users, load and arrival patterns; for a
    log, what became of every record (records read = jobs + skipped by reason)."""
    with interrupts.watching(lambda: f"while reading {path}"):
        trace = read_trace(path, LogOptions(log_format, tz, partition_limit, lenient))
        data = trace_info(trace, processors)
    if json_out:
        import json

        typer.echo(json.dumps(data, indent=2, allow_nan=False))
        return
    _print_info(data, trace.malformed)


def _print_info(d: dict, malformed: tuple) -> None:
    head = Table(title=f"{Path(d['file']).name}", show_header=False)
    head.add_column("what", style="bold")
    head.add_column("value")
    head.add_row("computer", f"{d['computer'] or '?'} ({d['installation'] or '?'})")
    head.add_row("jobs", f"{d['jobs']:,} of {d['records']:,} records")
    skipped = {k: v for k, v in d["skipped"].items() if v}
    head.add_row(
        "skipped", ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in skipped.items()) or "none"
    )
    if "log" in d:
        _print_log_records(head, d)
        malformed = ()
    for m in malformed[:5]:
        head.add_row("", f"line {m.line}: {m.reason}")
    if len(malformed) > 5:
        head.add_row("", f"... and {len(malformed) - 5} more malformed lines")
    span = d.get("span")
    if span:
        if span["absolute"]:
            head.add_row("from", f"{span['first_date']} ({span['time_zone']})")
            head.add_row("to", span["last_date"])
        head.add_row("span", f"{span['days']:.1f} days")
        head.add_row("users", str(d["users"]))
        head.add_row("offered load", f"{d['offered_load']:.1%} of {d['processors']} processors")
        given = d["estimates_given"]
        head.add_row(
            "estimates",
            f"{given:,} jobs give a requested time" if given else "none given (estimate = runtime)",
        )
    out.print(head)
    if not span:
        return
    sizes = d["sizes"]
    for table in counts_across("sizes (processors)", list(sizes), list(sizes.values())):
        out.print(table)
    pct = Table(title="percentiles")
    pct.add_column("")
    pct.add_column("runtime (s)", justify="right", no_wrap=True)
    pct.add_column("estimate (s)", justify="right", no_wrap=True)
    if "accuracy" in d:
        pct.add_column("runtime/estimate", justify="right", no_wrap=True)
    for k in d["runtime_s"]:
        row = [k, f"{d['runtime_s'][k]:,.0f}", f"{d['estimate_s'][k]:,.0f}"]
        if "accuracy" in d:
            row.append(f"{d['accuracy'][k]:.2f}")
        pct.add_row(*row)
    out.print(pct)
    label = "local" if span["absolute"] else "relative to t=0"
    hours = [f"{h:02d}" for h in range(24)]
    for table in counts_across(f"arrivals by hour of day ({label})", hours, d["arrivals_by_hour"]):
        out.print(table)
    weekdays = d["arrivals_by_weekday"]
    days = f"arrivals by day of week ({label})"
    for table in counts_across(days, list(weekdays), list(weekdays.values())):
        out.print(table)


def counts_across(title: str, labels: list[str], counts: list[int]) -> list[Table]:
    """Counts under their labels, one column each, in as few tables of even length as the
    terminal's width needs so that no label or count is cut (24 hours: one table at 200 columns,
    two of 12 at 80); the first table carries the title."""
    texts = [f"{c:,}" for c in counts]
    widths = [max(len(label), len(text)) + 3 for label, text in zip(labels, texts, strict=True)]
    fit = max(1, (out.width - 1) // max(widths))
    per_table = -(-len(labels) // -(-len(labels) // fit))
    tables = []
    for first in range(0, len(labels), per_table):
        part = slice(first, first + per_table)
        table = Table(title=None if tables else title)
        for label in labels[part]:
            table.add_column(label, justify="right")
        table.add_row(*texts[part])
        tables.append(table)
    return tables


def _print_log_records(head: Table, d: dict) -> None:
    """The identity records = jobs + skipped, and the first records skipped for each reason."""
    log = d["log"]
    head.add_row(
        "records", f"{d['records']:,} = {d['jobs']:,} jobs + {sum(d['skipped'].values()):,} skipped"
    )
    shown: dict[str, int] = {}
    for r in log["skipped_records"]:
        seen = shown[r["reason"]] = shown.get(r["reason"], 0) + 1
        if seen <= 3:
            job = f" job {r['job']}" if r["job"] else ""
            detail = f": {r['detail']}" if r["detail"] else ""
            where = f"line {r['line']}"
            if Path(r["file"]) != Path(d["file"]):
                where = f"{Path(r['file']).name} {where}"
            head.add_row("", f"{where}{job} {r['reason'].replace('_', ' ')}{detail}")
    for reason, seen in shown.items():
        if seen > 3:
            head.add_row("", f"... and {seen - 3} more {reason.replace('_', ' ')} (--json: all)")


@trace_app.command("convert")
def convert(
    source: Annotated[
        Path, typer.Argument(help="The SWF trace or the log (a file, or a folder of PBS files).")
    ],
    target: Annotated[Path, typer.Argument(help="Where to write (.swf, .swf.gz, .csv, .jsonl).")],
    start: Annotated[
        float | None, typer.Option(help="Keep jobs submitted at or after t (s).")
    ] = None,
    end: Annotated[float | None, typer.Option(help="Keep jobs submitted before t (s).")] = None,
    month: Annotated[
        str | None, typer.Option(help="Keep one calendar month, YYYY-MM, in the trace's time zone.")
    ] = None,
    fmt: Annotated[
        str | None, typer.Option("--format", help="swf, csv or jsonl (default: from the name).")
    ] = None,
    lenient: opt.Lenient = False,
    log_format: opt.LogFormat = None,
    tz: opt.TimeZone = "UTC",
    partition_limit: opt.PartitionLimit = None,
) -> None:
    """Cut a time window or a calendar month and write it as SWF, CSV or JSON lines; a log is
    written as standard SWF whose header says where it came from, with an origin file beside it
    (NAME.origin.csv: each job's log id, record, submit time and location)."""
    used = traceconvert.output_format(target, fmt)
    check_targets([Target("TARGET", target)], [source])
    step = [f"while reading {source}"]
    with Batch() as batch, interrupts.watching(lambda: f"{step[0]}; {target} was not written"):
        trace = read_trace(source, LogOptions(log_format, tz, partition_limit, lenient))
        side = origin_path(target) if isinstance(trace, LogTrace) else None
        if side is not None:
            check_targets([Target("TARGET", target), Target("origin file", side)], [source])
        step[0] = "while cutting the window"
        cut = traceconvert.window(trace, start=start, end=end, month=month)
        if side is not None:
            note = (
                f" Note: origin file: {side.name} (log job ids, records, submit times, locations)"
            )
            cut = replace(cut, header=parse_header([*cut.header.lines, note]))
        step[0] = f"while writing {len(cut):,} jobs"
        batch.write(target, traceconvert.converted(cut, target, used))
        rows = 0
        if side is not None and isinstance(trace, LogTrace):
            numbers = {int(n) for n in cut.records[:, 0].tolist()}
            text, rows = origin_csv(trace, numbers)
            batch.write(side, text)
        batch.commit()
    out.print(f"wrote {len(cut):,} jobs to {target} ({used})")
    if side is not None:
        out.print(f"wrote the origin of {rows:,} jobs to {side}")
    if trace.malformed:
        out.print(f"skipped {len(trace.malformed):,} malformed lines (--lenient)")


@trace_app.command("fetch")
def fetch_trace(
    name: Annotated[
        str | None, typer.Argument(help="A trace name (see --list).", show_default=False)
    ] = None,
    list_only: Annotated[bool, typer.Option("--list", help="List the known traces.")] = False,
    base_url: Annotated[str, typer.Option(help="Archive base URL.")] = fetch.ARCHIVE,
    force: Annotated[bool, typer.Option(help="Download again even if cached.")] = False,
) -> None:
    """Download a Parallel Workloads Archive trace into the cache and verify it."""
    if list_only or name is None:
        table = Table(title=f"known traces (cache: {fetch.cache_dir()})")
        for col in ("name", "jobs", "about", "cached"):
            table.add_column(col, no_wrap=col != "about")
        for known in fetch.KNOWN_TRACES.names():
            t = fetch.KNOWN_TRACES.get(known)
            table.add_row(known, f"{t.jobs:,}", t.note, "yes" if fetch.cached(known) else "no")
        out.print(table)
        return
    with out.status(f"fetching {name}"):
        path = fetch.fetch(name, base_url=base_url, force=force)
    out.print(f"{name}: {path} (verified); use it with --workload {name}")
