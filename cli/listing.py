"""``meshsim list``: every name the command line accepts, from the registries."""

from __future__ import annotations

import typer
from rich.table import Table

from meshsim.cli.output import out
from meshsim.engine.allocation.allocator import ALLOCATORS
from meshsim.engine.families.contention.traffic import COMM_PATTERNS, IO_TRAFFIC
from meshsim.engine.kernel.actions import ACTIONS
from meshsim.engine.kernel.reports import REPORTS
from meshsim.engine.kernel.runtime_models import RUNTIME_MODELS
from meshsim.engine.logs.formats import LOG_FORMATS, SWF
from meshsim.engine.scheduling.backfill import BACKFILLS
from meshsim.engine.scheduling.disciplines import DISCIPLINES
from meshsim.engine.scheduling.orders import QUEUE_ORDERS
from meshsim.engine.topology.machines import TOPOLOGIES, bundled_machines
from meshsim.engine.workloads.generators import GENERATORS
from meshsim.engine.workloads.shapes import SHAPE_RULES


def register(app: typer.Typer) -> None:
    app.command("list")(list_names)


def list_names() -> None:
    """List machines, queue orders, disciplines, backfilling, allocators and more."""
    table = Table(title="names meshsim accepts", show_lines=False)
    table.add_column("kind", style="bold")
    table.add_column("name")
    table.add_column("notes")
    table.add_row(
        "machine (--machine)", ", ".join(bundled_machines()), "or flat:N, or a .toml file"
    )
    for name in QUEUE_ORDERS.names():
        table.add_row("queue order (--queue)", name, QUEUE_ORDERS.get(name).description)
    for name in DISCIPLINES.names():
        table.add_row("discipline (--discipline)", name, DISCIPLINES.get(name).description)
    for name in BACKFILLS.names():
        table.add_row("backfill (--backfill)", name, BACKFILLS.get(name).description)
    for name in ALLOCATORS.names():
        cls = ALLOCATORS.get(name)
        table.add_row(
            "allocator (--alloc)", name, f"{'/'.join(sorted(cls.topologies))}; {cls.complexity}"
        )
    table.add_row(
        "shape rule (--shape)", ", ".join(SHAPE_RULES.names()), "size-to-shape on meshes and tori"
    )
    table.add_row(
        "runtime model (--runtime-model)",
        ", ".join(RUNTIME_MODELS.names()),
        "default: trace runtimes",
    )
    table.add_row(
        "communication pattern (--pattern)",
        ", ".join(COMM_PATTERNS.names()),
        "machines with I/O nodes; default all-to-all",
    )
    table.add_row(
        "I/O traffic (--io-traffic)",
        ", ".join(IO_TRAFFIC.names()),
        "every compute node to every I/O node; default write",
    )
    table.add_row("trace or log format (--from)", SWF, "Standard Workload Format")
    for name in LOG_FORMATS.names():
        table.add_row("trace or log format (--from)", name, LOG_FORMATS.get(name).description)
    table.add_row("report (--report)", ", ".join(REPORTS.names()), "")
    table.add_row("topology", ", ".join(TOPOLOGIES.names()), "machine files: [machine] topology")
    table.add_row("workload kind", ", ".join(GENERATORS.names()), "workload files: [workload] kind")
    table.add_row("operator action", ", ".join(ACTIONS.names()), "console and scenario files")
    out.print(table)
