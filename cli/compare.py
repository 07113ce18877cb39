"""``meshsim compare``: configurations on one workload against a baseline, with relative gains."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from meshsim.cli.output import out
from meshsim.cli.recorded_view import print_ranking
from meshsim.engine.compare import METRICS, PRESETS, Config, compare, gains
from meshsim.engine.errors import MeshsimError
from meshsim.engine.generators import load_workload
from meshsim.engine.machines import load_machine
from meshsim.engine.nqs.queue_map import parse_queue_map
from meshsim.engine.outputs import write_text
from meshsim.engine.recorded_ranking import rank_recorded, write_ranking
from meshsim.engine.runcase import DEFAULT_MACHINE

KEYS = {"queue", "discipline", "backfill", "alloc", "window", "bound", "rotate", "migrate"}
LABELS = {"loss_of_capacity": "LoC", "avg_wait_s": "wait (s)", "avg_bsld": "bounded slowdown"}


def register(app: typer.Typer) -> None:
    app.command("compare")(compare_command)


def parse_config(text: str) -> Config:
    """``NAME:key=value,key=value`` (keys: the policy options of meshsim run)."""
    name, sep, rest = text.partition(":")
    if not sep or not name.strip():
        raise MeshsimError(f"--config '{text}': expected NAME:key=value,...")
    options: dict[str, object] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not eq or key not in KEYS:
            valid = ", ".join(sorted(KEYS))
            raise MeshsimError(f"--config '{text}': '{item}' is not key=value (keys: {valid})")
        if key in ("window", "bound"):
            options[key] = int(value)
        elif key in ("rotate", "migrate"):
            options[key] = value.strip().lower() in ("1", "true", "yes")
        else:
            options["allocator" if key == "alloc" else key] = value.strip()
    return Config(name.strip(), options)


def compare_command(
    machine: Annotated[
        str, typer.Option(help="Machine (name, .toml file or flat:N).")
    ] = DEFAULT_MACHINE,
    workload: Annotated[str | None, typer.Option(help="Workload (default: the machine's).")] = None,
    preset: Annotated[
        str | None, typer.Option(help=f"A set of configurations: {', '.join(PRESETS.names())}.")
    ] = None,
    config: Annotated[
        list[str] | None,
        typer.Option("--config", help="NAME:key=value,... (repeat); the first is the baseline."),
    ] = None,
    whole: Annotated[
        bool, typer.Option(help="Do not split the workload by calendar month.")
    ] = False,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    workers: Annotated[int, typer.Option(help="Processes (default: one per core).")] = 0,
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Write compare.json, outcomes.csv and gains.csv here (with --recorded: "
            "recorded.json and recorded.csv).",
        ),
    ] = None,
    recorded: Annotated[
        bool,
        typer.Option(
            help="Rank the configurations by the mean absolute error of their waits against the "
            "waits the log recorded (whole workload; no baseline)."
        ),
    ] = False,
    queue_map: Annotated[
        list[str] | None,
        typer.Option(
            "--queue-map",
            metavar="NAME=QUEUE",
            help="Run the jobs of the trace's queue NAME in the machine's NQS queue QUEUE "
            "(repeatable), as for meshsim run.",
        ),
    ] = None,
) -> None:
    """Run configurations on one workload and report each against its baseline (Tang et al.)."""
    if preset and config:
        raise MeshsimError("give either --preset or --config, not both")
    if preset:
        configs = PRESETS.get(preset)
    elif config and recorded:
        configs = tuple(parse_config(c) for c in config)
    elif config:
        parsed = [parse_config(c) for c in config]
        configs = (parsed[0], *(Config(c.name, c.options, parsed[0].name) for c in parsed[1:]))
    else:
        raise MeshsimError("give --preset NAME or at least two --config NAME:options")
    the_machine = load_machine(machine)
    mapping = parse_queue_map(",".join(queue_map) if queue_map else None)
    jobs = load_workload(workload, the_machine, seed=seed, queue_map=mapping)
    if recorded:
        ranked = rank_recorded(
            the_machine, jobs, configs, seed=seed, workers=workers or os.cpu_count() or 1
        )
        print_ranking(ranked)
        if out_dir:
            name = workload or str(the_machine.default_workload)
            write_ranking(out_dir, ranked, machine, name)
        return
    outcomes = compare(
        the_machine,
        jobs,
        configs,
        by_month=not whole,
        seed=seed,
        workers=workers or os.cpu_count() or 1,
    )
    rows = gains(outcomes, configs)
    parts = sorted({o.part for o in outcomes})
    _print(outcomes, rows, configs, parts)
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
        document = {
            "machine": machine,
            "workload": workload or str(the_machine.default_workload),
            "configs": [
                {"name": c.name, "options": c.options, "baseline": c.baseline} for c in configs
            ],
            "outcomes": [o.__dict__ for o in outcomes],
            "gains": rows,
        }
        write_text(out_dir / "compare.json", json.dumps(document, indent=2) + "\n")
        with (out_dir / "outcomes.csv").open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["config", "part", "jobs", *METRICS])
            w.writerows(
                [o.config, o.part, o.jobs, *(o.metrics[m] for m in METRICS)] for o in outcomes
            )
        with (out_dir / "gains.csv").open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["config", "baseline", "part", *METRICS])
            w.writerows(
                [r["config"], r["baseline"], r["part"], *(r[m] for m in METRICS)] for r in rows
            )


def _print(outcomes, rows, configs, parts) -> None:  # type: ignore[no-untyped-def]
    by = {(o.config, o.part): o for o in outcomes}
    base = Table(title="baselines", header_style="bold")
    base.add_column("configuration")
    base.add_column("metric")
    for p in parts:
        base.add_column(p, justify="right")
    for c in configs:
        if c.baseline is not None:
            continue
        for m in METRICS:
            base.add_row(c.name, LABELS[m], *(f"{by[(c.name, p)].metrics[m]:.3f}" for p in parts))
    out.print(base)
    for m in METRICS:
        t = Table(title=f"relative gain in {LABELS[m]}: (base - new) / base", header_style="bold")
        t.add_column("configuration")
        for p in parts:
            t.add_column(p, justify="right")
        t.add_column("mean", justify="right")
        for c in configs:
            if c.baseline is None:
                continue
            values = [r[m] for r in rows if r["config"] == c.name]
            t.add_row(c.name, *(f"{v:+.1%}" for v in values), f"{sum(values) / len(values):+.1%}")
        out.print(t)
