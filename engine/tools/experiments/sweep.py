"""Running a sweep: plan every case, skip the finished ones, run the rest on an executor, record
each outcome as it arrives, and write the tables — also after Ctrl-C, from what is finished.

Resume rule: a case is skipped when the results folder holds an ``ok`` result whose input hash
equals the case's current one (:mod:`meshsim.engine.tools.experiments.hashing`) and whose stored
files are whole; a case whose files cannot be read is reported and computed again. Failed cases
are run again on the next sweep (their error is kept until then). A failing case never stops the
others."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from meshsim.engine.tools.experiments.executors import Executor
from meshsim.engine.tools.experiments.options import OptionSchema
from meshsim.engine.tools.experiments.plan import PlannedCase, plan_cases
from meshsim.engine.tools.experiments.spec import CaseValues, SweepSpec, expand, varying_keys
from meshsim.engine.tools.experiments.store import SWEEP_SCHEMA, ResultStore
from meshsim.engine.tools.experiments.summaries import write_tables
from meshsim.engine.tools.experiments.worker import Outcome


@dataclass(frozen=True)
class SweepProgress:
    """Where a sweep is: cases to run this time, how many have finished and how many failed."""

    total: int
    done: int
    failed: int
    skipped: int


@dataclass(frozen=True)
class Failure:
    """A case that failed, with its values as written and the error."""

    case_id: str
    values: dict[str, Any]
    error: str


@dataclass(frozen=True)
class SweepReport:
    """What a sweep did: cases planned, skipped as finished, run now, failed, and whether Ctrl-C
    stopped it before the end."""

    folder: Path
    planned: int
    skipped: int
    ran: int
    failures: tuple[Failure, ...]
    interrupted: bool
    tables: tuple[Path, ...]
    damaged: tuple[tuple[str, str], ...] = ()
    """Cases whose stored files could not be read (case id, what is wrong), computed again."""


def run_sweep(
    spec: SweepSpec,
    schema: OptionSchema,
    folder: Path,
    executor: Executor,
    *,
    cases: list[CaseValues] | None = None,
    progress: Callable[[SweepProgress], None] | None = None,
) -> SweepReport:
    """Run ``cases`` (default: every case of ``spec``) into the results ``folder``."""
    cases = expand(spec) if cases is None else cases
    store = ResultStore(folder)
    new_folder = not folder.exists()
    store.open()
    try:
        planned = plan_cases(spec, cases, schema, store.workloads)
    except BaseException:
        if new_folder:  # a refused spec leaves nothing behind
            shutil.rmtree(folder, ignore_errors=True)
        raise
    store.write_manifest(manifest(spec, planned, varying_keys(cases)))
    damaged = tuple(
        (p.task.case_id, problem)
        for p in planned
        if (problem := store.damage(p.task.case_id)) is not None
    )
    todo = [p for p in planned if not store.is_finished(p)]
    by_id = {p.task.case_id: p for p in todo}
    failures: list[Failure] = []
    ran = 0

    def done(outcome: Outcome) -> None:
        nonlocal ran
        case = by_id[outcome.case_id]
        store.record(case, outcome)
        ran += 1
        if not outcome.ok:
            failures.append(Failure(outcome.case_id, case.values.as_dict(), outcome.error or ""))
        if progress:
            progress(SweepProgress(len(todo), ran, len(failures), len(planned) - len(todo)))

    if progress:
        progress(SweepProgress(len(todo), 0, 0, len(planned) - len(todo)))
    interrupted = False
    try:
        executor.run([p.task for p in todo], done)
    except KeyboardInterrupt:
        interrupted = True
    tables = write_tables(store)
    return SweepReport(
        folder,
        len(planned),
        len(planned) - len(todo),
        ran,
        tuple(failures),
        interrupted,
        tuple(tables),
        damaged,
    )


def manifest(spec: SweepSpec, planned: list[PlannedCase], keys: list[str]) -> dict[str, Any]:
    """The plan as stored in ``sweep.json``: enough to rebuild tables, statistics and figures."""
    settings = spec.settings
    return {
        "schema": SWEEP_SCHEMA,
        "spec": str(spec.source),
        "command": settings.command,
        "keys": keys,
        "replicate": settings.replicate,
        "baseline": dict(settings.baseline),
        "metrics": list(settings.metrics),
        "jobs": settings.jobs,
        "cases": [
            {"case_id": p.task.case_id, "values": p.values.as_dict(), "input_hash": p.input_hash}
            for p in planned
        ],
    }
