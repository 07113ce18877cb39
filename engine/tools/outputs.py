"""Versioned outputs (DESIGN.md, "Outputs"): the result JSON, the per-job CSV, the event log (JSON
lines) and the simulated schedule as SWF — their contents; :mod:`meshsim.engine.writing` writes
them.

The result JSON holds no wall-clock data, so two runs with the same inputs write identical bytes.
Its ``schema`` is ``meshsim.result/1``; keys named in the issues are a contract. It is strict JSON
(:func:`dumps`): a metric that is undefined (an average over no jobs, a share of no capacity) is
``null``, never ``NaN`` (docs/boundaries.md). Jobs the run did not finish are counted, never
dropped: ``skipped`` (never entered the run, by reason; with a job-count cut, ``cut`` says how
many records it held, how many of them were replayed and how many the file lacked), ``rejected``
(refused on arrival, by reason), ``unfinished`` (still waiting or held when the run ended) and
``rejected_actions`` (operator actions that could not apply, each with its reason). ``recorded``
measures the run against the schedule its log recorded, counting every job it does not compare,
or says why there is no fit (:mod:`meshsim.engine.recorded_run`)."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from meshsim import __version__
from meshsim.engine.kernel import views
from meshsim.engine.kernel.events import EventRecord
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.recorded_run import recorded_start_column, replay_fit
from meshsim.engine.workloads import swf
from meshsim.engine.writing import Staged

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
    first: int | None = None
    skip: int = 0
    scenario: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "machine": self.machine,
            "workload": self.workload,
            "seed": self.seed,
            "load_factor": self.load_factor,
            "runtime_scale": self.runtime_scale,
            "procs_per_unit": self.procs_per_unit,
            "first": self.first,
            "skip": self.skip,
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
        "cut": None if sim.workload.cut is None else sim.workload.cut.as_dict(len(sim.workload)),
        "rejected": dict(sorted(sim.rejected.items())),
        "unfinished": views.unfinished(sim),
        "rejected_actions": [r.as_dict() for r in sim.action_rejections()],
        "metrics": defined(results.metrics),
        "by_size_class": {k: defined(v) for k, v in results.by_size_class.items()},
        "by_queue": {k: defined(v) for k, v in results.by_queue.items()},
        "recorded": replay_fit(sim).as_dict(),
    }


def defined(metrics: Mapping[str, Any]) -> dict[str, Any]:
    """Metrics with every undefined value as ``None``: a NaN or infinite number (a figure a
    plug-in could not compute) becomes ``null`` in the JSON, like the undefined metrics of
    :func:`meshsim.engine.kernel.metrics.summary`."""
    return {
        k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in metrics.items()
    }


def dumps(document: Mapping[str, Any]) -> str:
    """The canonical JSON text of a document (stable key order, trailing newline). Strict: a
    ``NaN`` or infinity is a programming error here, never written (undefined metrics are
    ``None``)."""
    return json.dumps(document, indent=2, allow_nan=False) + "\n"


def jobs_csv_columns(sim: Simulation) -> tuple[tuple[str, ...], list[list[Any]]]:
    """Header and columns of the jobs CSV: :data:`JOB_COLUMNS`; ``recorded_start`` when the log
    recorded the schedule (:func:`meshsim.engine.recorded_run.recorded_start_column`); then, when
    the columns of the run's plug-in recorders (on a machine with I/O nodes, the per-job contention
    columns, :data:`meshsim.engine.families.contention.observer.JOB_COLUMNS`)."""
    idx, _ = sim.outcomes()
    table = sim.job_table()
    header = JOB_COLUMNS
    columns = [table[c].tolist() for c in JOB_COLUMNS]
    recorded = recorded_start_column(sim, idx)
    if recorded is not None:
        header = (*header, "recorded_start")
        columns.append(recorded)
    for recorder in sim.plugins:
        extra = recorder.job_columns(idx)
        header = (*header, *extra)
        columns += [column.tolist() for column in extra.values()]
    return header, columns


def jobs_csv_text(sim: Simulation) -> str:
    """The per-job CSV of a finished run: one row per finished job, with a header row
    (:func:`jobs_csv_columns`)."""
    header, columns = jobs_csv_columns(sim)
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows(zip(*columns, strict=True))
    return buffer.getvalue()


class EventLogWriter:
    """Streams event records as JSON lines into a staged output (renamed over the target only when
    the run completes; :mod:`meshsim.engine.writing`)."""

    def __init__(self, out: Staged) -> None:
        self.out = out

    def __call__(self, record: EventRecord) -> None:
        self.out.write(json.dumps(record.as_dict(), allow_nan=False) + "\n")


def schedule_swf(sim: Simulation) -> str:
    """The simulated schedule as SWF text: the source records (or records built from the workload's
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
    return swf.swf_text(records, w.header, notes=[note])
