"""``meshsim bench``: fixed benchmark scenarios, each in a fresh interpreter."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from meshsim.cli.output import out
from meshsim.engine.benchpage import Measurement, render, this_host
from meshsim.engine.core.registry import Registry
from meshsim.engine.tools.bench import SCENARIOS, Scenario, run_child
from meshsim.engine.writing import Target, check_targets, write_file


def register(app: typer.Typer) -> None:
    app.command("bench")(bench)


def bench(
    names: Annotated[
        list[str] | None,
        typer.Argument(help="Scenarios to run (default: all but the heavy ones)."),
    ] = None,
    heavy: Annotated[
        bool, typer.Option("--all", help="Include heavy scenarios (1M jobs).")
    ] = False,
    list_only: Annotated[bool, typer.Option("--list", help="List the scenarios.")] = False,
    console: Annotated[
        bool,
        typer.Option(
            "--console",
            help="Run the operator console's scenarios (frame rate, frame time, memory).",
        ),
    ] = False,
    markdown: Annotated[
        Path | None,
        typer.Option(
            "--markdown",
            metavar="FILE",
            help="Also write the figures as a benchmarks page (docs/benchmarks.md; with "
            "--console, docs/console-benchmarks.md): each scenario, its target, the measured "
            "figure, the machine, Python, load and commit.",
        ),
    ] = None,
) -> None:
    """Measure simulation speed and memory on fixed scenarios; compare with their targets."""
    registry = console_scenarios() if console else SCENARIOS
    check_targets([Target("--markdown", markdown) if markdown is not None else None])
    if list_only:
        table = Table(title="benchmark scenarios")
        for col in ("name", "what", "target"):
            table.add_column(col, no_wrap=col == "name")
        for name in registry.names():
            s = registry.get(name)
            table.add_row(name + (" (heavy)" if s.heavy else ""), s.description, s.target)
        out.print(table)
        return
    if console:
        page = bench_console(names or registry.names())
    else:
        page = bench_engine(
            names or [n for n in SCENARIOS.names() if heavy or not SCENARIOS.get(n).heavy]
        )
    if markdown is not None:
        title = "Console benchmarks" if console else "Benchmarks"
        command = _command(console, heavy, markdown, names)
        write_file(markdown, render(page, this_host(), command, title))
        out.print(f"wrote {markdown}", highlight=False)


def _command(console: bool, heavy: bool, markdown: Path, names: list[str] | None) -> str:
    """The command line that writes the page, as the page states it."""
    words = ["meshsim", "bench", *(["--console"] if console else []), *(["--all"] if heavy else [])]
    return " ".join([*words, "--markdown", str(markdown), *(names or [])])


def bench_engine(chosen: list[str]) -> list[Measurement]:
    """Run engine scenarios, each in a fresh interpreter, print their figures and return the
    page's rows."""
    for name in chosen:
        SCENARIOS.get(name)
    page: list[Measurement] = []
    table = Table(title="meshsim bench")
    for col in ("scenario", "jobs", "wall s", "sim s", "jobs/s", "events/s", "peak MB", "target"):
        left = col in ("scenario", "target")
        table.add_column(col, justify="left" if left else "right", no_wrap=col != "target")
    for name in chosen:
        scenario = SCENARIOS.get(name)
        with out.status(f"running {name}"):
            before = os.getloadavg()[0]
            r = run_child(name)
            after = os.getloadavg()[0]
        if "skipped" in r:
            table.add_row(name, "-", "-", "-", "-", "-", "-", f"skipped: {r['skipped']}")
            page.append(
                Measurement(
                    name,
                    scenario.description,
                    scenario.target,
                    f"skipped: {r['skipped']}",
                    before,
                    after,
                )
            )
            continue
        page.append(
            Measurement(
                name, scenario.description, scenario.target, scenario.figure(r), before, after
            )
        )
        table.add_row(
            name,
            f"{r['jobs']:,}",
            f"{r['wall_s']:.3f}",
            f"{r['sim_s']:.3f}",
            f"{r['jobs_per_s']:,.0f}" if "jobs_per_s" in r else "-",
            f"{r['events_per_s']:,.0f}" if "events_per_s" in r else "-",
            f"{r['peak_rss_mb']:.0f}",
            SCENARIOS.get(name).target,
        )
        if "route_ms" in r:
            table.add_row(
                f"{name} (parts)",
                "",
                "",
                "",
                "",
                "",
                "",
                f"route {r['route_ms']:.1f} ms, contention {r['recompute_ms']:.1f} ms, "
                f"runtimes {r['runtime_ms']:.1f} ms",
            )
        if "allocator_only_s" in r:
            table.add_row(
                f"{name} (allocator only)",
                f"{r['jobs']:,}",
                f"{r['allocator_only_s']:.3f}",
                "",
                "",
                "",
                "",
                f"{r['allocator_decisions']:,} MC decisions, FIFO departures, no engine",
            )
        if "engine_wall_s" in r:
            table.add_row(
                f"{name} (engine only)",
                f"{r['jobs']:,}",
                f"{r['engine_wall_s']:.3f}",
                "",
                "",
                "",
                "",
                "same run without the command line's imports",
            )
    out.print(table)
    return page


def console_scenarios() -> Registry[Scenario]:
    """The console's benchmark scenarios (imported only when asked for: they need Textual)."""
    from meshsim.tui.bench import CONSOLE_SCENARIOS

    return CONSOLE_SCENARIOS


def bench_console(names: list[str]) -> list[Measurement]:
    """Run console scenarios, each in a fresh interpreter, and print every figure with its target,
    then the notes that explain them; the load average is printed because the figures depend on a
    quiet machine. Returns the page's rows, one per figure."""
    from meshsim.tui.bench import run_child

    registry = console_scenarios()
    for name in names:
        registry.get(name)
    table = Table(title="meshsim bench --console (headless console, 160x50)")
    for col in ("figure", "measured", "target", "met"):
        table.add_column(col, justify="right" if col == "measured" else "left")
    notes: list[str] = []
    page: list[Measurement] = []
    for name in names:
        with out.status(f"running {name}"):
            before = os.getloadavg()[0]
            r = run_child(name)
            after = os.getloadavg()[0]
        table.add_section()
        table.add_row(f"[bold]{name}[/]", "", "", "")
        for row in r["figures"]:
            table.add_row(*row)
            figure, measured, target, met = row
            shown = f"{measured} (met: {met})" if met else measured
            page.append(Measurement(name, figure, target, shown, before, after))
        notes += [f"{name}: {note}" for note in r.get("notes", [])]
        notes.append(f"{name}: load average {before:.1f} before, {after:.1f} after")
    out.print(table)
    for note in notes:
        out.print(note, highlight=False)
    return page
