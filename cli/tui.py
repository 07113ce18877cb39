"""``meshsim tui``: the operator console on a machine and workload, or on a saved scenario."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from engine.allocation import ALLOCATORS
from engine.runcase import DEFAULT_MACHINE, RunOptions
from engine.scheduling.backfill import BACKFILLS
from engine.scheduling.disciplines import DISCIPLINES
from engine.scheduling.orders import QUEUE_ORDERS

POLICY_PANEL = "Policy"


def register(app: typer.Typer) -> None:
    app.command("tui")(tui)


def tui(
    machine: Annotated[
        str,
        typer.Option(help="Machine: a name from `meshsim machines list`, a .toml file, or flat:N."),
    ] = DEFAULT_MACHINE,
    workload: Annotated[
        str | None,
        typer.Option(help="SWF trace (.swf, .swf.gz) or workload .toml; default: the machine's."),
    ] = None,
    queue: Annotated[
        str | None,
        typer.Option(
            help=f"Queue order: {', '.join(QUEUE_ORDERS.names())}.", rich_help_panel=POLICY_PANEL
        ),
    ] = None,
    discipline: Annotated[
        str | None,
        typer.Option(
            help=f"Start discipline: {', '.join(DISCIPLINES.names())}.",
            rich_help_panel=POLICY_PANEL,
        ),
    ] = None,
    backfill: Annotated[
        str | None,
        typer.Option(
            help=f"Backfilling: {', '.join(BACKFILLS.names())}.", rich_help_panel=POLICY_PANEL
        ),
    ] = None,
    alloc: Annotated[
        str | None,
        typer.Option(
            help=f"Allocator (default: the machine's): {', '.join(ALLOCATORS.names())}.",
            rich_help_panel=POLICY_PANEL,
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of every random stream.")] = 0,
    scenario: Annotated[
        Path | None,
        typer.Option(help="Reopen a scenario saved from the console (ctrl+s), at its position."),
    ] = None,
    live: Annotated[bool, typer.Option("--live", help="Start running live at once.")] = False,
) -> None:
    """Open the operator console: step or run the simulation live, inspect, act, fork, compare."""
    from tui.app import make_app

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
