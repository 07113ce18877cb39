"""``meshsim tui``: the operator console on a machine and workload, or on a saved scenario."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from meshsim.cli import options as opt
from meshsim.engine.tools.runcase import DEFAULT_MACHINE, RunOptions, check_inputs


def register(app: typer.Typer) -> None:
    app.command("tui")(tui)


def tui(
    machine: opt.Machine = DEFAULT_MACHINE,
    workload: opt.Workload = None,
    queue: opt.Queue = None,
    discipline: opt.Discipline = None,
    backfill: opt.Backfill = None,
    alloc: opt.Alloc = None,
    seed: opt.Seed = 0,
    lenient: opt.Lenient = False,
    log_format: opt.LogFormat = None,
    tz: opt.TimeZone = "UTC",
    partition_limit: opt.PartitionLimit = None,
    scenario: opt.Scenario = None,
    live: Annotated[bool, typer.Option("--live", help="Start running live at once.")] = False,
    event: Annotated[
        int | None,
        typer.Option("--event", min=0, help="Open at this event (the run is replayed to it)."),
    ] = None,
    screenshot: Annotated[
        Path | None,
        typer.Option(
            "--screenshot",
            metavar="FILE",
            help="Draw the console headless (160x50, at --event, default 0), save it as SVG and "
            "exit.",
        ),
    ] = None,
) -> None:
    """Open the operator console: step or run the simulation live, inspect, act, fork, compare. A
    scenario reopens at the event where it was saved."""
    from meshsim.engine.tools.scenario import load_scenario

    options = RunOptions(
        machine=machine,
        workload=workload,
        queue=queue,
        discipline=discipline,
        backfill=backfill,
        alloc=alloc,
        seed=seed,
        lenient=lenient,
        log_format=log_format,
        tz=tz,
        partition_limit=partition_limit,
    )
    check_inputs(load_scenario(scenario).options if scenario else options)
    if screenshot is not None:
        from meshsim.tui.screenshot import save_screenshot

        save_screenshot(options, scenario, screenshot, event or 0)
        return
    from meshsim.tui.app import make_app

    make_app(options, scenario=scenario, start_live=live, event=event).run()
