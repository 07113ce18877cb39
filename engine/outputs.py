"""Versioned outputs (DESIGN.md, "Outputs"): the result JSON, the per-job CSV, the event log (JSON
lines) and the simulated schedule as SWF.

The result JSON holds no wall-clock data, so two runs with the same inputs write identical bytes.
Its ``schema`` is ``meshsim.result/1``; keys named in the issues are a contract."""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from meshsim import __version__
from meshsim.engine import swf
from meshsim.engine.events import EventRecord
from meshsim.engine.recorded_run import recorded_start_column, replay_fit
from meshsim.engine.simulation import Simulation

SCHEMA = "meshsim.result/1"
JOB_COLUMNS = ("job_id", "submit", "start", "end", "size", "allocated", "wait", "bsld", "location")


@dataclass(frozen=True)
class RunInputs:
    """What defined a run, echoed in its outputs."""

    machine: str
    workload: str
    seed: int
    load_factor: float = 1.0
    runtime_scale: float = 1.0
    procs_per_unit: int | None = None
    scenario: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "machine": self.machine,
            "workload": self.workload,
            "seed": self.seed,
            "load_factor": self.load_factor,
            "runtime_scale": self.runtime_scale,
            "procs_per_unit": self.procs_per_unit,
            "scenario": self.scenario,
        }


def result_document(sim: Simulation, inputs: RunInputs) -> dict[str, Any]:
    """The result JSON as a dict."""
    results = sim.results()
    return {
        "schema": SCHEMA,
        "meshsim_version": __version__,
        "inputs": {
            **inputs.as_dict(),
            "machine_nodes": sim.machine.nodes,
            "policy": sim.policy.as_dict(),
            "actions": [a.as_dict() for a in sim.logged_actions()],
            "transforms": list(sim.workload.transforms),
            "queue_mapping": [m.as_dict() for m in sim.workload.queue_mapping],
        },
        "skipped": dict(sim.workload.skipped),
        "rejected": dict(sorted(sim.rejected.items())),
        "metrics": results.metrics,
        "by_size_class": results.by_size_class,
        "by_queue": results.by_queue,
        "recorded": replay_fit(sim).as_dict(),
    }


def dumps(document: Mapping[str, Any]) -> str:
    """The canonical JSON text of a document (stable key order, trailing newline)."""
    return json.dumps(document, indent=2) + "\n"


def write_text(path: Path, text: str) -> None:
    """Write atomically: a partial file never replaces a good one."""
    tmp = path.with_name(path.name + ".part")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def jobs_csv_columns(sim: Simulation) -> tuple[tuple[str, ...], list[list[Any]]]:
    """Header and columns of the jobs CSV: :data:`JOB_COLUMNS`; ``recorded_start`` when the log
    recorded the schedule (:func:`meshsim.engine.recorded_run.recorded_start_column`); then, when
    the run was observed on a machine with I/O nodes, the per-job contention columns
    (:data:`meshsim.engine.contention.observer.JOB_COLUMNS`)."""
    idx, _ = sim.outcomes()
    table = sim.job_table()
    header = JOB_COLUMNS
    columns = [table[c].tolist() for c in JOB_COLUMNS]
    recorded = recorded_start_column(sim, idx)
    if recorded is not None:
        header = (*header, "recorded_start")
        columns.append(recorded)
    if sim.observer is not None:
        extra = sim.observer.job_columns(idx)
        header = (*header, *extra)
        columns += [column.tolist() for column in extra.values()]
    return header, columns


def write_jobs_csv(sim: Simulation, path: Path) -> None:
    """One row per finished job, with a header row (:func:`jobs_csv_columns`)."""
    header, columns = jobs_csv_columns(sim)
    tmp = path.with_name(path.name + ".part")
    with tmp.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        writer.writerows(zip(*columns, strict=True))
    tmp.replace(path)


class EventLogWriter:
    """Streams event records to a JSON-lines file."""

    def __init__(self, fh: IO[str]) -> None:
        self.fh = fh

    def __call__(self, record: EventRecord) -> None:
        self.fh.write(json.dumps(record.as_dict()))
        self.fh.write("\n")


def write_schedule_swf(sim: Simulation, path: Path) -> None:
    """The simulated schedule as SWF: the source records (or records built from the workload's
    columns) with the wait-time field filled in from the simulated start times."""
    w = sim.workload
    start = sim.start_times()[: len(w)]
    if w.records is not None:
        records = w.records.copy()
    else:
        records = np.full((len(w), 18), -1.0)
        records[:, swf.JOB] = w.job_id
        records[:, swf.SUBMIT] = w.submit
        records[:, swf.RUN] = w.runtime
        records[:, swf.ALLOC] = w.procs
        records[:, swf.REQ_PROCS] = w.procs
        records[:, swf.REQ_TIME] = w.estimate
        records[:, swf.USER] = w.user
        records[:, swf.QUEUE] = w.queue
    records[:, swf.SUBMIT] = w.submit
    records[:, swf.RUN] = w.runtime
    started = ~np.isnan(start)
    records[:, swf.WAIT] = np.where(started, start - w.submit, -1.0)
    records[:, swf.STATUS] = np.where(started, records[:, swf.STATUS], 5)
    note = (
        f"schedule simulated by meshsim {__version__} on machine {sim.machine.name} "
        f"with policy {sim.policy.label()}, seed {sim.seed}; wait times are simulated"
    )
    swf.write_swf(path, records, w.header, notes=[note])
