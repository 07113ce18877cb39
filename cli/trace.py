"""``meshsim trace info|convert``: look into a workload trace and cut pieces out of it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from meshsim.cli.output import out
from meshsim.engine.tools import traceconvert
from meshsim.engine.tools.traceinfo import trace_info
from meshsim.engine.workloads import fetch
from meshsim.engine.workloads.swf import read_swf

trace_app = typer.Typer(help="Inspect and convert SWF workload traces.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(trace_app, name="trace")


@trace_app.command("info")
def info(
    path: Annotated[Path, typer.Argument(help="An SWF trace (.swf or .swf.gz).")],
    processors: Annotated[
        int | None,
        typer.Option(help="Machine size in processors for the offered load (default: header)."),
    ] = None,
    lenient: Annotated[bool, typer.Option(help="Skip malformed lines and report them.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Jobs, skips, time span, sizes, runtimes, estimates, users, load and arrival patterns."""
    trace = read_swf(path, lenient=lenient)
    data = trace_info(trace, processors)
    if json_out:
        import json

        out.print_json(json.dumps(data))
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
    sizes = Table(title="sizes (processors)")
    for label in d["sizes"]:
        sizes.add_column(label, justify="right")
    sizes.add_row(*[f"{v:,}" for v in d["sizes"].values()])
    out.print(sizes)
    pct = Table(title="percentiles")
    pct.add_column("")
    keys = list(d["runtime_s"])
    for k in keys:
        pct.add_column(k, justify="right")
    pct.add_row("runtime (s)", *[f"{d['runtime_s'][k]:,.0f}" for k in keys])
    pct.add_row("estimate (s)", *[f"{d['estimate_s'][k]:,.0f}" for k in keys])
    if "accuracy" in d:
        pct.add_row("runtime/estimate", *[f"{d['accuracy'][k]:.2f}" for k in keys])
    out.print(pct)
    label = "local" if span["absolute"] else "relative to t=0"
    hours = Table(title=f"arrivals by hour of day ({label})")
    for h in range(24):
        hours.add_column(f"{h:02d}", justify="right")
    hours.add_row(*[str(v) for v in d["arrivals_by_hour"]])
    out.print(hours)
    days = Table(title=f"arrivals by day of week ({label})")
    for day in d["arrivals_by_weekday"]:
        days.add_column(day, justify="right")
    days.add_row(*[str(v) for v in d["arrivals_by_weekday"].values()])
    out.print(days)


@trace_app.command("convert")
def convert(
    source: Annotated[Path, typer.Argument(help="The SWF trace to read.")],
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
    lenient: Annotated[bool, typer.Option(help="Skip malformed lines and report them.")] = False,
) -> None:
    """Cut a time window or a calendar month and write it as SWF, CSV or JSON lines."""
    trace = read_swf(source, lenient=lenient)
    cut = traceconvert.window(trace, start=start, end=end, month=month)
    used = traceconvert.write(cut, target, fmt)
    out.print(f"wrote {len(cut):,} jobs to {target} ({used})")


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
            table.add_column(col)
        for known in fetch.KNOWN_TRACES.names():
            t = fetch.KNOWN_TRACES.get(known)
            table.add_row(known, f"{t.jobs:,}", t.note, "yes" if fetch.cached(known) else "no")
        out.print(table)
        return
    with out.status(f"fetching {name}"):
        path = fetch.fetch(name, base_url=base_url, force=force)
    out.print(f"{name}: {path} (verified); use it with --workload {name}")
