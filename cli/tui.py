"""``meshsim tui``: the operator console on a machine and workload, or on a saved scenario."""

from __future__ import annotations

from typing import Annotated

import typer

from meshsim.cli import options as opt
from meshsim.engine.tools.runcase import DEFAULT_MACHINE, RunOptions


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
    scenario: opt.Scenario = None,
    live: Annotated[bool, typer.Option("--live", help="Start running live at once.")] = False,
) -> None:
    """Open the operator console: step or run the simulation live, inspect, act, fork, compare. A
    scenario reopens at the event where it was saved."""
    from meshsim.tui.app import make_app

    options = RunOptions(
        machine=machine,
        workload=workload,
        queue=queue,
        discipline=discipline,
        backfill=backfill,
        alloc=alloc,
        seed=seed,
    )
    make_app(options, scenario=scenario, start_live=live).run()
