"""``meshsim bench``: fixed benchmark scenarios, each in a fresh interpreter."""

from __future__ import annotations

import os
from typing import Annotated

import typer
from rich.table import Table

from meshsim.cli.output import out
from meshsim.engine.core.registry import Registry
from meshsim.engine.tools.bench import SCENARIOS, Scenario, run_child


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
) -> None:
    """Measure simulation speed and memory on fixed scenarios; compare with their targets."""
    registry = console_scenarios() if console else SCENARIOS
    if list_only:
        table = Table(title="benchmark scenarios")
        for col in ("name", "what", "target"):
            table.add_column(col)
        for name in registry.names():
            s = registry.get(name)
            table.add_row(name + (" (heavy)" if s.heavy else ""), s.description, s.target)
        out.print(table)
        return
    if console:
        bench_console(names or registry.names())
        return
    chosen = names or [n for n in SCENARIOS.names() if heavy or not SCENARIOS.get(n).heavy]
    for name in chosen:
        SCENARIOS.get(name)
    table = Table(title="meshsim bench")
    for col in ("scenario", "jobs", "wall s", "sim s", "jobs/s", "events/s", "peak MB", "target"):
        table.add_column(col, justify="left" if col in ("scenario", "target") else "right")
    for name in chosen:
        with out.status(f"running {name}"):
            r = run_child(name)
        if "skipped" in r:
            table.add_row(name, "-", "-", "-", "-", "-", "-", f"skipped: {r['skipped']}")
            continue
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


def console_scenarios() -> Registry[Scenario]:
    """The console's benchmark scenarios (imported only when asked for: they need Textual)."""
    from meshsim.tui.bench import CONSOLE_SCENARIOS

    return CONSOLE_SCENARIOS


def bench_console(names: list[str]) -> None:
    """Run console scenarios, each in a fresh interpreter, and print every figure with its target,
    then the notes that explain them; the load average is printed because the figures depend on a
    quiet machine."""
    from meshsim.tui.bench import run_child

    registry = console_scenarios()
    for name in names:
        registry.get(name)
    table = Table(title="meshsim bench --console (headless console, 160x50)")
    for col in ("figure", "measured", "target", "met"):
        table.add_column(col, justify="right" if col == "measured" else "left")
    notes: list[str] = []
    for name in names:
        with out.status(f"running {name}"):
            before = os.getloadavg()[0]
            r = run_child(name)
            after = os.getloadavg()[0]
        table.add_section()
        table.add_row(f"[bold]{name}[/]", "", "", "")
        for row in r["figures"]:
            table.add_row(*row)
        notes += [f"{name}: {note}" for note in r.get("notes", [])]
        notes.append(f"{name}: load average {before:.1f} before, {after:.1f} after")
    out.print(table)
    for note in notes:
        out.print(note, highlight=False)
