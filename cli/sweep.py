"""``meshsim sweep SPEC.toml``: a parameter grid of ordinary runs, resumable, local or on Dask.

The options a spec may set are found by introspecting the ``meshsim run`` command (its long option
names, parameter names, types and defaults), so every run option — including ones added later — is
accepted by name. Options in the command's "Outputs" panel and ``--quiet`` belong to the sweep, not
to a case."""

from __future__ import annotations

import math
import tomllib
import typing
from dataclasses import replace
from pathlib import Path
from types import NoneType, UnionType
from typing import Annotated, Any

import typer
import typer.main
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeRemainingColumn
from rich.table import Table

from meshsim.cli import interrupts
from meshsim.cli.output import err, fail, interactive, out
from meshsim.engine.tools.experiments.executors import make_executor
from meshsim.engine.tools.experiments.options import OptionSchema, OptionSpec
from meshsim.engine.tools.experiments.spec import SweepSpec, check_baseline, load_spec
from meshsim.engine.tools.experiments.stats import (
    Estimate,
    aggregate,
    fraction_above,
    gains,
    mean_ci,
)
from meshsim.engine.tools.experiments.store import ResultStore, check_results_folder
from meshsim.engine.tools.experiments.summaries import config_keys
from meshsim.engine.tools.experiments.sweep import SweepProgress, SweepReport, run_sweep
from meshsim.engine.tools.experiments.tables import CaseRow, load_rows
from meshsim.engine.validation.options import WORKERS, check_options

OUTPUT_PANEL = "Outputs"
SWEEP_OWNED = {"quiet"}
_KINDS = {str: "str", int: "int", float: "float", bool: "bool", Path: "path"}


def register(app: typer.Typer) -> None:
    app.command("sweep")(sweep)


def sweep(
    spec_path: Annotated[Path, typer.Argument(metavar="SPEC.toml", help="The sweep spec.")],
    results: Annotated[
        Path | None,
        typer.Option(
            help="Results folder (default: the spec's 'results' setting, else SPEC-results)."
        ),
    ] = None,
    executor: Annotated[
        str, typer.Option(help="Where cases run: local, dask (a LocalCluster) or dask://HOST:PORT.")
    ] = "local",
    workers: Annotated[
        int | None, typer.Option(help="Worker processes (default: one per core).")
    ] = None,
    baseline: Annotated[
        list[str] | None,
        typer.Option(help="KEY=VALUE: compute relative gains against these cases (repeatable)."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing but errors.")] = False,
) -> None:
    """Run every case of a parameter grid (each an ordinary `meshsim run`), skipping finished ones;
    write one JSON per case and the combined tables."""
    spec = load_spec(spec_path)
    if baseline:
        spec = _with_baseline(spec, baseline)
    folder = results or spec.settings.results or spec_path.with_name(spec_path.stem + "-results")
    check_options(WORKERS, {"--workers": workers})
    check_results_folder(folder, "--results", [spec_path])
    schema = command_schema(spec.settings.command)
    if schema is None:
        fail(f"{spec_path}: meshsim has no command '{spec.settings.command}' that sweeps can run")
    the_executor = make_executor(executor, workers)
    report = run_with_progress(spec, schema, folder, the_executor, quiet=quiet)
    finish(report, quiet=quiet)


def run_with_progress(
    spec: SweepSpec,
    schema: OptionSchema,
    folder: Path,
    executor: Any,
    *,
    quiet: bool,
    cases: list | None = None,
) -> SweepReport:
    """Run the sweep with a progress bar (cases done, failures, ETA) when stderr is a terminal."""
    if quiet or not interactive():
        return run_sweep(spec, schema, folder, executor, cases=cases)
    columns = (
        TextColumn("[bold]sweep[/]"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} cases"),
        TextColumn("{task.fields[failed]}"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=err, transient=True) as bar:
        task: TaskID | None = None

        def show(p: SweepProgress) -> None:
            nonlocal task
            failed = f"[red]{p.failed} failed[/]" if p.failed else "0 failed"
            if task is None:
                task = bar.add_task("sweep", total=p.total, failed=failed)
            bar.update(task, completed=p.done, failed=failed)

        err.print(f"running on {executor.description}")
        return run_sweep(spec, schema, folder, executor, cases=cases, progress=show)


def finish(report: SweepReport, *, quiet: bool) -> None:
    """Print what the sweep did and its statistics; exit 130 after Ctrl-C (143 after SIGTERM), 1
    after failures. Stored cases that could not be read (and were computed again) are reported on
    stderr, even with ``--quiet``."""
    if report.damaged:
        case_id, problem = report.damaged[0]
        err.print(
            f"warning: {len(report.damaged)} stored case(s) could not be read and were computed "
            f"again (first: {case_id}, {problem})",
            markup=False,
            highlight=False,
        )
    if not quiet:
        print_report(report)
        print_statistics(ResultStore(report.folder))
    if report.interrupted:
        store = ResultStore(report.folder)
        _, rows = load_rows(store)
        finished = sum(r.status == "ok" for r in rows)
        err.print(
            f"interrupted: {finished} of {len(rows)} cases finished; "
            "run the same command again to finish the rest"
        )
        raise typer.Exit(interrupts.mark_reported())
    if report.failures:
        table = report.folder / "results.csv"
        fail(f"{len(report.failures)} of {report.planned} cases failed (see {table})")


def print_report(report: SweepReport) -> None:
    out.print(
        f"{report.planned} cases: {report.skipped} already finished, {report.ran} run now, "
        f"{len(report.failures)} failed"
    )
    for failure in report.failures[:10]:
        values = ", ".join(f"{k}={v}" for k, v in failure.values.items())
        out.print(f"  failed {failure.case_id} ({values}): {failure.error}")
    if len(report.failures) > 10:
        out.print(f"  ... and {len(report.failures) - 10} more (see results.csv)")
    out.print("tables: " + ", ".join(str(p) for p in report.tables))


def print_statistics(store: ResultStore) -> None:
    """Mean ± 95 % CI per configuration, and the gains against the baseline when there is one."""
    manifest, rows = load_rows(store)
    keys = config_keys(manifest)
    present = {m for r in rows for m in r.metrics}
    metrics = [m for m in manifest["metrics"] if m in present]
    if not metrics or not any(r.status == "ok" for r in rows):
        return
    table = Table(
        title="mean ± 95 % CI over replications"
        if manifest["replicate"] in manifest["keys"]
        else "results"
    )
    for k in keys:
        table.add_column(k)
    table.add_column("n", justify="right")
    for m in metrics:
        table.add_column(m, justify="right")
    for config, estimates in aggregate(rows, keys, metrics):
        n = max(e.n for e in estimates.values())
        table.add_row(
            *(_text(config[k]) for k in keys), str(n), *(_estimate(estimates[m]) for m in metrics)
        )
    out.print(table)
    if manifest["baseline"]:
        _print_gains(manifest, rows, metrics)


def _print_gains(manifest: dict[str, Any], rows: list[CaseRow], metrics: list[str]) -> None:
    baseline = manifest["baseline"]
    pairs = gains(rows, manifest["keys"], baseline, metrics)
    if not pairs:
        out.print(f"no case has a finished baseline case ({_values_text(baseline)})")
        return
    keys = config_keys(manifest)
    table = Table(title=f"relative gain (V_base − V_new)/V_base against {_values_text(baseline)}")
    for k in keys:
        table.add_column(k)
    for m in metrics:
        table.add_column(m, justify="right")
    groups: dict[tuple, list] = {}
    for g in pairs:
        groups.setdefault(tuple(_text(g.row.values.get(k)) for k in keys), []).append(g)
    for label, members in groups.items():
        cells = [
            _estimate(mean_ci([g.gains[m] for g in members if m in g.gains]), percent=True)
            for m in metrics
        ]
        table.add_row(*label, *cells)
    out.print(table)
    for m in metrics:
        values = [g.gains[m] for g in pairs if m in g.gains]
        share = fraction_above(values)
        if not math.isnan(share):
            out.print(f"{m}: positive gain in {share:.0%} of {len(values)} cases")


def _estimate(e: Estimate, *, percent: bool = False) -> str:
    if math.isnan(e.mean):
        return "—"
    scale, unit = (100.0, "%") if percent else (1.0, "")
    text = f"{e.mean * scale:.4g}{unit}"
    if not math.isnan(e.ci95):
        text += f" ± {e.ci95 * scale:.2g}{unit}"
    return text


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def _values_text(values: dict[str, Any]) -> str:
    return ", ".join(f"{k}={_text(v)}" for k, v in values.items())


def _with_baseline(spec: SweepSpec, pairs: list[str]) -> SweepSpec:
    baseline = []
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"expected KEY=VALUE, got {pair!r}", param_hint="--baseline")
        baseline.append((key.replace("_", "-"), _parse_value(text)))
    spec = replace(spec, settings=replace(spec.settings, baseline=tuple(baseline)))
    check_baseline(spec, "--baseline")
    return spec


def _parse_value(text: str) -> Any:
    """A command-line value as TOML would read it (``2`` an integer, ``true`` a boolean), else the
    text itself."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def command_schema(name: str) -> OptionSchema | None:
    """The options of ``meshsim NAME`` a sweep case may set (None when there is no such command):
    long names from the built command, kinds and defaults from the function's annotations."""
    from meshsim.cli.main import build_app

    app = build_app([name])
    callback = next(
        (c.callback for c in app.registered_commands if c.callback and _name(c) == name), None
    )
    if callback is None:
        return None
    built = typer.main.get_command(app).commands[name]  # type: ignore[attr-defined]
    hints = typing.get_type_hints(callback, include_extras=True)
    options = []
    for param in built.params:
        hint = hints.get(param.name)
        info = hint.__metadata__[0] if hint is not None and hasattr(hint, "__metadata__") else None
        if param.name in SWEEP_OWNED or getattr(info, "rich_help_panel", None) == OUTPUT_PANEL:
            continue
        long_name = next((o for o in param.opts if o.startswith("--")), None)
        if long_name is None or hint is None:
            continue
        options.append(OptionSpec(long_name[2:], param.name, _kind(hint), param.default))
    return OptionSchema(name, tuple(options))


def _name(info: Any) -> str:
    return info.name or info.callback.__name__.replace("_", "-")


def _kind(hint: Any) -> str:
    base = typing.get_args(hint)[0] if hasattr(hint, "__metadata__") else hint
    if isinstance(base, UnionType) or typing.get_origin(base) is typing.Union:
        base = next(a for a in typing.get_args(base) if a is not NoneType)
    return _KINDS.get(base, "str")
