"""``meshsim tui``: the operator console on a machine and workload, or on a saved scenario."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from meshsim.cli import options as opt
from meshsim.engine.tools.runcase import DEFAULT_MACHINE, check_inputs


def register(app: typer.Typer) -> None:
    app.command("tui")(tui)


def tui(
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
    requeue: opt.Requeue = False,
    queue_map: opt.QueueMap = None,
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
    """Open the operator console: step or run the simulation live, inspect, act, fork, compare. It
    takes every simulation option `meshsim run` takes; a scenario reopens at the event where it was
    saved."""
    from meshsim.engine.tools.scenario import load_scenario

    if scenario is not None:
        opt.refuse_beside_scenario(ctx)
    options = opt.run_options(ctx)
    check_inputs(load_scenario(scenario).options if scenario else options)
    if screenshot is not None:
        from meshsim.tui.screenshot import save_screenshot

        save_screenshot(options, scenario, screenshot, event or 0)
        return
    from meshsim.tui.app import make_app

    make_app(options, scenario=scenario, start_live=live, event=event).run()
