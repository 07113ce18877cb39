"""``meshsim machines list|show|validate``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from meshsim.cli.output import error_line, out
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.topology.machines import bundled_machines, load_machine
from meshsim.engine.workloads.generators import check_workload_file

machines_app = typer.Typer(
    help="List, show and validate machine definitions.", no_args_is_help=True
)


def register(app: typer.Typer) -> None:
    app.add_typer(machines_app, name="machines")


@machines_app.command("list")
def list_machines() -> None:
    """The bundled machines (any other .toml file can be given by path); the workload column says
    whether a machine brings a default workload or needs --workload."""
    machines = [load_machine(name) for name in bundled_machines()]
    beside = out.width >= WIDE
    table = Table(title="machines")
    for col in ("name", "topology", "nodes", "allocator", "workload"):
        table.add_column(col, justify="right" if col == "nodes" else "left", no_wrap=True)
    if beside:
        table.add_column("description")
    for m in machines:
        workload = "bundled" if m.default_workload else "give --workload"
        row = [m.name, m.topology, f"{m.nodes:,}", m.default_allocator, workload]
        table.add_row(*row, *([m.description] if beside else []))
    out.print(table)
    if not beside:
        for m in machines:
            out.print(f"[bold]{m.name}[/]: {m.description}", highlight=False)


WIDE = 120
"""The terminal width from which ``machines list`` gives each description a column of the table;
narrower, the descriptions follow the table (the names and figures are never cut)."""


@machines_app.command("show")
def show(
    name: Annotated[str, typer.Argument(help="A bundled machine name, a .toml file, or flat:N.")],
    partitions: Annotated[
        bool, typer.Option("--partitions", help="List the partition menu and the wiring model.")
    ] = False,
) -> None:
    """Describe a machine and draw it."""
    m = load_machine(name)
    out.print(f"[bold]{m.name}[/]: {m.description}")
    out.print(f"topology: {m.spec.describe()}")
    out.print(f"processors per unit: {m.procs_per_unit}; default allocator: {m.default_allocator}")
    if m.default_workload:
        out.print(f"default workload: {m.default_workload_path()}")
    if m.size_classes:
        out.print(
            "size classes: " + ", ".join(f"{c.label} ({c.low}-{c.high})" for c in m.size_classes)
        )
    for line in m.spec.picture():
        out.print(line, highlight=False, markup=False)
    if partitions:
        menu_summary = getattr(m.spec, "menu_summary", None)
        if menu_summary is None:
            raise MeshsimError(f"machine '{m.name}' has no partition menu (topology {m.topology})")
        for line in menu_summary():
            out.print(line, highlight=False, markup=False)


@machines_app.command("validate")
def validate(
    paths: Annotated[list[Path], typer.Argument(help="Machine .toml files to check.")],
) -> None:
    """Check machine files as a run uses them (defaults, default workload); every problem names the
    file and key."""
    failed = 0
    for path in paths:
        try:
            m = load_machine(str(path))
            workload = m.default_workload_path()
            if workload is not None:
                check_workload_file(workload)
        except MeshsimError as exc:
            error_line(str(exc))
            failed += 1
        else:
            out.print(f"ok: {path} ({m.name}, {m.spec.describe()})")
    if failed:
        raise typer.Exit(1)
