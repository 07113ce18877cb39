"""``meshsim contention``: the static I/O link contention of one spatial layout (Mache Ch. VI).

Reproduces Tables 5 and 6 and Fig. 37 from the command line, e.g. ``meshsim contention --mesh 16
--layout block-corner --size 16 --io-nodes 16 --traffic write``. Bad input raises
:class:`~meshsim.engine.core.errors.MeshsimError`, which the entry point prints as one line."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from meshsim.cli import interrupts
from meshsim.engine.families.contention.layouts import (
    LAYOUTS,
    TRAFFIC_KINDS,
    analyze_layout,
    render_layout_analysis,
)


def register(app: typer.Typer) -> None:
    """Add the ``contention`` command to ``app``."""
    app.command("contention")(contention)


def contention(
    layout: Annotated[
        str, typer.Option("--layout", help=f"Spatial layout: {', '.join(LAYOUTS.names())}.")
    ],
    mesh: Annotated[int, typer.Option("--mesh", help="k, side of the k x k compute mesh.")] = 16,
    size: Annotated[
        int | None, typer.Option("--size", help="n, compute nodes of the job (default k).")
    ] = None,
    io_nodes: Annotated[
        int | None,
        typer.Option("--io-nodes", help="m, I/O nodes in the west column (default k)."),
    ] = None,
    traffic: Annotated[
        str, typer.Option("--traffic", help=f"I/O direction: {', '.join(TRAFFIC_KINDS)}.")
    ] = "write",
    link_mb_s: Annotated[
        float, typer.Option("--link-mb-s", help="B_l, MB/s per link and direction.")
    ] = 380.0,
    node_mb_s: Annotated[
        float, typer.Option("--io-node-mb-s", help="B_0, MB/s per I/O node.")
    ] = 64.0,
    matrix: Annotated[
        bool | None,
        typer.Option(
            "--matrix/--no-matrix",
            help="Print the link-contention matrices (default: when k <= 32).",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Link contention, hotspot, max_contention and throughput of one layout (Tables 5, 6)."""
    with interrupts.watching(
        lambda: f"while routing the {layout} layout on the {mesh}x{mesh} mesh"
    ):
        analysis = analyze_layout(
            mesh,
            layout,
            mesh if size is None else size,
            mesh if io_nodes is None else io_nodes,
            traffic,
            link_mb_s=link_mb_s,
            node_mb_s=node_mb_s,
        )
    if as_json:
        typer.echo(json.dumps(analysis.to_dict(matrix=bool(matrix)), allow_nan=False))
    else:
        typer.echo(render_layout_analysis(analysis, matrix=matrix))
