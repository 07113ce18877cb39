"""``meshsim compare``: configurations on one workload against a baseline, with relative gains."""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from meshsim.cli import interrupts
from meshsim.cli import options as opt
from meshsim.cli.output import out
from meshsim.cli.recorded_view import print_ranking
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.families.nqs.queue_map import parse_queue_map
from meshsim.engine.kernel.metrics import LOWER, METRIC_INFO
from meshsim.engine.logs.options import LogOptions
from meshsim.engine.recorded_ranking import rank_recorded, ranking_files
from meshsim.engine.tools.compare import METRICS, PRESETS, Config, compare, gains
from meshsim.engine.tools.outputs import dumps
from meshsim.engine.tools.runcase import DEFAULT_MACHINE, RunOptions, input_files
from meshsim.engine.topology.machines import load_machine
from meshsim.engine.validation.options import COMPARE, RUN, check_options, run_option_rule
from meshsim.engine.validation.rules import check_value
from meshsim.engine.workloads.generators import load_workload
from meshsim.engine.workloads.tracecut import RecordCut, cut_summary
from meshsim.engine.writing import Batch, Target, check_targets

KEYS = {"queue", "discipline", "backfill", "alloc", "window", "bound", "rotate", "migrate"}
BOOLEANS = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}
LABELS = {"loss_of_capacity": "LoC", "avg_wait_s": "wait (s)", "avg_bsld": "bounded slowdown"}
FILES = ("compare.json", "outcomes.csv", "gains.csv")
"""The files ``--out DIR`` writes."""
RECORDED_FILES = ("recorded.json", "recorded.csv")
"""The files ``--out DIR`` writes with ``--recorded``."""


def register(app: typer.Typer) -> None:
    app.command("compare")(compare_command)


def parse_config(text: str) -> Config:
    """``NAME:key=value,key=value`` (keys: the policy options of meshsim run, each value held to
    that option's rule)."""
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
        rule = run_option_rule(key)
        where = f"--config '{text}': {key}"
        options["allocator" if key == "alloc" else key] = check_value(
            rule, _typed(rule.kind, value.strip(), where), where
        )
    return Config(name.strip(), options)


def _typed(kind: str, text: str, where: str) -> object:
    """A ``--config`` value as the option's kind (an integer, true/false, or text)."""
    if kind == "int":
        try:
            return int(text)
        except ValueError:
            raise MeshsimError(f"{where}: expected an integer, got {text!r}") from None
    if kind == "bool":
        if text.lower() in BOOLEANS:
            return BOOLEANS[text.lower()]
        raise MeshsimError(f"{where}: expected true or false, got {text!r}")
    return text


def compare_command(
    machine: Annotated[
        str, typer.Option(help="Machine (name, .toml file or flat:N).")
    ] = DEFAULT_MACHINE,
    workload: opt.Workload = None,
    lenient: opt.Lenient = False,
    log_format: opt.LogFormat = None,
    tz: opt.TimeZone = "UTC",
    partition_limit: opt.PartitionLimit = None,
    first: opt.First = None,
    skip: opt.Skip = 0,
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
            "waits the log recorded (whole workload; no baseline; docs/recorded.md)."
        ),
    ] = False,
    queue_map: opt.QueueMap = None,
) -> None:
    """Run configurations on one workload and report each against its baseline (Tang et al.);
    with --recorded, rank them by how closely they reproduce the waits the log recorded."""
    check_options(COMPARE, {"--preset": preset, "--seed": seed, "--workers": workers})
    check_options(RUN, {"--first": first, "--skip": skip})
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
    names = [c.name for c in configs]
    if len(set(names)) != len(names):
        raise MeshsimError("--config: two configurations share a name")
    mapping = parse_queue_map(opt.joined(queue_map))
    files = RECORDED_FILES if recorded else FILES
    check_targets(
        [Target("--out", out_dir, folder=True, files=files) if out_dir else None],
        input_files(RunOptions(machine=machine, workload=workload)),
    )
    progress = ["while loading the inputs"]
    with Batch() as batch, interrupts.watching(lambda: f"{progress[0]}; no output was written"):
        the_machine = load_machine(machine)
        log = LogOptions(log_format, tz, partition_limit, cut=RecordCut(first, skip))
        jobs = load_workload(
            workload, the_machine, seed=seed, lenient=lenient, log=log, queue_map=mapping
        )

        def done(k: int, n: int) -> None:
            progress[0] = f"after {k} of {n} runs"

        progress[0] = "before the first run finished"
        if recorded:
            ranked = rank_recorded(
                the_machine,
                jobs,
                configs,
                seed=seed,
                workers=workers or os.cpu_count() or 1,
                done=done,
            )
            if out_dir:
                folder = batch.folder(out_dir)
                name = workload or str(the_machine.default_workload)
                for file, text in ranking_files(ranked, machine, name).items():
                    batch.write(folder / file, text)
            batch.commit()
            print_ranking(ranked)
            return
        outcomes = compare(
            the_machine,
            jobs,
            configs,
            by_month=not whole,
            seed=seed,
            workers=workers or os.cpu_count() or 1,
            done=done,
        )
        rows = gains(outcomes, configs)
        if out_dir:
            folder = batch.folder(out_dir)
            document = {
                "machine": machine,
                "workload": workload or str(the_machine.default_workload),
                "first": first,
                "skip": skip,
                "configs": [
                    {"name": c.name, "options": c.options, "baseline": c.baseline} for c in configs
                ],
                "outcomes": [o.__dict__ for o in outcomes],
                "gains": rows,
            }
            batch.write(folder / "compare.json", dumps(document))
            batch.write(
                folder / "outcomes.csv",
                _csv(
                    ["config", "part", "jobs", *METRICS],
                    [
                        [o.config, o.part, o.jobs, *(o.metrics[m] for m in METRICS)]
                        for o in outcomes
                    ],
                ),
            )
            batch.write(
                folder / "gains.csv",
                _csv(
                    ["config", "baseline", "part", *METRICS],
                    [
                        [r["config"], r["baseline"], r["part"], *(r[m] for m in METRICS)]
                        for r in rows
                    ],
                ),
            )
        batch.commit()
    parts = sorted({o.part for o in outcomes})
    if jobs.cut is not None:
        out.print(cut_summary(jobs.cut.as_dict(len(jobs)), jobs.skipped), markup=False)
    _print(outcomes, rows, configs, parts)


def _csv(header: list[str], rows: list[list[object]]) -> str:
    """A table as CSV text; an undefined value (None) is an empty cell."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows(["" if v is None else v for v in row] for row in rows)
    return buffer.getvalue()


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
            base.add_row(
                c.name, LABELS[m], *(_shown(by[(c.name, p)].metrics[m], ".3f") for p in parts)
            )
    out.print(base)
    for m in METRICS:
        formula = "(base - new) / base" if METRIC_INFO[m].better == LOWER else "(new - base) / base"
        t = Table(title=f"relative gain in {LABELS[m]}: {formula}", header_style="bold")
        t.add_column("configuration")
        for p in parts:
            t.add_column(p, justify="right")
        t.add_column("mean", justify="right")
        for c in configs:
            if c.baseline is None:
                continue
            values = [r[m] for r in rows if r["config"] == c.name]
            known = [v for v in values if v is not None]
            mean = sum(known) / len(known) if known else None
            t.add_row(c.name, *(_shown(v, "+.1%") for v in values), _shown(mean, "+.1%"))
        out.print(t)


def _shown(value: float | None, spec: str) -> str:
    return "—" if value is None else format(value, spec)
