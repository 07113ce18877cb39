"""``meshsim reproduce NAME``: run a seed paper's experiment and print its numbers beside ours.

Cases that need something this meshsim lacks (a machine, an allocator, a command, a trace) are
reported ("needs allocator 'mpl' (not available)") and left out; the rest run as an ordinary sweep
into ``meshsim-results/NAME-vVERSION`` (resumable like any sweep)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from meshsim.cli.output import err, fail, out
from meshsim.cli.sweep import command_schema, finish, run_with_progress
from meshsim.engine.tools.experiments.availability import Need, case_needs
from meshsim.engine.tools.experiments.executors import make_executor
from meshsim.engine.tools.experiments.reproduce import (
    Comparison,
    Experiment,
    evaluate,
    experiment_names,
    load_experiment,
)
from meshsim.engine.tools.experiments.spec import CaseValues, expand
from meshsim.engine.tools.experiments.store import ResultStore, check_results_folder
from meshsim.engine.tools.experiments.tables import load_rows
from meshsim.engine.validation.options import WORKERS, check_options

RESULTS_ROOT = Path("meshsim-results")


def register(app: typer.Typer) -> None:
    app.command("reproduce")(reproduce)


def reproduce(
    name: Annotated[
        str | None, typer.Argument(help="An experiment name (see --list) or an experiment file.")
    ] = None,
    list_only: Annotated[bool, typer.Option("--list", help="List the experiments.")] = False,
    results: Annotated[
        Path | None, typer.Option(help="Results folder (default: meshsim-results/NAME-vVERSION).")
    ] = None,
    executor: Annotated[
        str, typer.Option(help="Where cases run: local, dask or dask://HOST:PORT.")
    ] = "local",
    workers: Annotated[
        int | None, typer.Option(help="Worker processes (default: one per core).")
    ] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Print only the comparison.")
    ] = False,
) -> None:
    """Reproduce a table or figure of the seed papers: the paper's numbers next to ours."""
    if list_only or name is None:
        _list()
        return
    check_options(WORKERS, {"--workers": workers})
    experiment = load_experiment(name)
    spec = experiment.spec
    folder = results or RESULTS_ROOT / experiment.folder_name
    check_results_folder(folder, "--results", [spec.source])
    cases = expand(spec)
    schema = command_schema(spec.settings.command)
    needs = {
        c.case_id: case_needs(
            c.as_dict(), spec.settings.command, schema, spec.folder, experiment.traces
        )
        for c in cases
    }
    runnable = [c for c in cases if not needs[c.case_id]]
    out.print(f"[bold]{experiment.name}[/] v{experiment.version}: {experiment.title}")
    out.print(f"source: {experiment.source}")
    if not runnable or schema is None:
        fail(f"{experiment.name}: " + "; ".join(str(n) for n in _distinct(needs.values())))
    _print_needs(cases, needs)
    report = run_with_progress(
        spec, schema, folder, make_executor(executor, workers), quiet=quiet, cases=runnable
    )
    _print_comparison(experiment, ResultStore(folder), cases, needs)
    if experiment.notes:
        out.print(f"notes: {experiment.notes}")
    finish(report, quiet=True)


def _list() -> None:
    table = Table(title="experiments (meshsim reproduce NAME)")
    for col in ("name", "version", "reproduces", "status"):
        table.add_column(col)
    for name in experiment_names():
        experiment = load_experiment(name)
        spec = experiment.spec
        schema = command_schema(spec.settings.command)
        cases = expand(spec)
        needs = [
            case_needs(c.as_dict(), spec.settings.command, schema, spec.folder, experiment.traces)
            for c in cases
        ]
        ready = sum(not n for n in needs)
        missing = _distinct(needs)
        status = f"runs ({len(cases)} cases)"
        if missing:
            status = f"{ready} of {len(cases)} cases can run; needs {_grouped(missing)}"
        table.add_row(name, str(experiment.version), experiment.source, status)
    out.print(table)


def _grouped(needs: list[Need]) -> str:
    """``machine mesh32; discipline oocb, oo; 6 traces`` (needs grouped by kind)."""
    kinds: dict[str, list[str]] = {}
    for need in needs:
        kinds.setdefault(need.kind, []).append(need.name)
    parts = []
    for kind, names in kinds.items():
        many = len(names) > 2 and kind in ("trace", "file")
        parts.append(f"{len(names)} {kind}s" if many else f"{kind} {', '.join(names)}")
    return "; ".join(parts)


def _distinct(needs_lists: Iterable[list[Need]]) -> list[Need]:
    seen: dict[tuple[str, str], Need] = {}
    for needs in needs_lists:
        for need in needs:
            seen.setdefault((need.kind, need.name), need)
    return list(seen.values())


def _print_needs(cases: list[CaseValues], needs: dict[str, list[Need]]) -> None:
    for need in _distinct(needs.values()):
        count = sum(
            any((n.kind, n.name) == (need.kind, need.name) for n in needs[c.case_id]) for c in cases
        )
        err.print(f"{need} — {count} of {len(cases)} cases left out")


def _print_comparison(
    experiment: Experiment,
    store: ResultStore,
    cases: list[CaseValues],
    needs: dict[str, list[Need]],
) -> None:
    manifest, rows = load_rows(store)
    table = Table(title=f"{experiment.name}: paper vs. meshsim")
    for col, justify in (("", "left"), ("paper", "right"), ("meshsim", "right"), ("", "left")):
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    for c in experiment.comparisons:
        ours = evaluate(c, manifest, rows)
        note = c.note
        if ours is None:
            missing = _distinct(needs[k.case_id] for k in cases if c.matches(k.as_dict()))
            note = "not run: " + "; ".join(str(n) for n in missing) if missing else "no result"
        table.add_row(c.label, _paper(c), _ours(c, ours), note)
    out.print(table)


def _paper(c: Comparison) -> str:
    if c.paper is None:
        return "—"
    relation = "" if c.relation in ("=", "≈") else c.relation + " "
    return f"{relation}{c.paper:g}{c.unit}"


def _ours(c: Comparison, value: float | None) -> str:
    if value is None or math.isnan(value):
        return "—"
    if float(value).is_integer() and abs(value) < 1e9:
        return f"{int(value)}{c.unit}"
    return f"{value:.4g}{c.unit}"
