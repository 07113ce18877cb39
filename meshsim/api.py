"""meshsim as a Python library: :func:`run` for one headless run, :func:`start` for a
:class:`~meshsim.engine.tools.session.Session` a script steps through.

:func:`run` is ``meshsim run`` without printing: it takes the command's simulation options as
keywords (``procs_per_unit`` for ``--procs-per-unit``), with the same defaults, the same checks and
the same error messages (a :class:`~meshsim.engine.core.errors.MeshsimError`), and its
:attr:`RunResult.metrics` are the ``metrics`` of the result JSON the command writes for the same
inputs, value for value. An undefined metric (a mean over no job, say) is ``None``, as it is
``null`` in the JSON.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.tools.outputs import JOB_COLUMNS, dumps
from meshsim.engine.tools.runcase import RunOptions, case_document, prepare
from meshsim.engine.tools.scenario import load_scenario, scenario_document
from meshsim.engine.tools.session import Session

JOB_DTYPE = np.dtype(
    [
        ("job_id", np.int64),
        ("submit", np.float64),
        ("start", np.float64),
        ("end", np.float64),
        ("size", np.int64),
        ("allocated", np.int64),
        ("wait", np.float64),
        ("bsld", np.float64),
        ("location", object),
    ]
)
"""One row of :attr:`RunResult.jobs`: the columns of ``meshsim run --jobs-out``, in its order.
Times are seconds of simulated time; ``size`` is the nodes asked for and ``allocated`` the nodes
held (more on machines that allocate whole partitions or boxes); ``bsld`` is the bounded slowdown;
``location`` names the units the job ran on (a partition, a box, a node range)."""


@dataclass(frozen=True)
class RunResult:
    """What :func:`run` returns.

    ``document`` is the result JSON of ``meshsim run --out`` as a Python mapping (after a JSON
    round trip, so it holds exactly what the file holds). ``jobs`` holds one row per finished job,
    in job order, as a numpy structured array of :data:`JOB_DTYPE`: ``r.jobs["wait"].mean()``,
    ``r.jobs[r.jobs["size"] > 64]``."""

    document: Mapping[str, Any]
    jobs: np.ndarray

    @property
    def metrics(self) -> Mapping[str, Any]:
        """The result JSON's ``metrics``: ``avg_wait_s``, ``avg_bsld``, ``utilization``, ...;
        an undefined one is ``None``."""
        return self.document["metrics"]

    @property
    def skipped(self) -> Mapping[str, int]:
        """Jobs of the workload that were not replayed, counted by reason."""
        return self.document["skipped"]

    @property
    def by_size_class(self) -> Mapping[str, Mapping[str, Any]]:
        """The metrics per size class of the machine."""
        return self.document["by_size_class"]

    @property
    def by_queue(self) -> Mapping[str, Mapping[str, Any]]:
        """The metrics per queue of the workload."""
        return self.document["by_queue"]

    @property
    def recorded(self) -> Mapping[str, Any]:
        """The run against the schedule its log recorded (docs/recorded.md): ``compared``, the
        fit ``overall`` and ``by_queue``, ``by_size_class``, ..., the jobs ``not_compared`` by
        reason; or, without a fit, the ``reason``."""
        return self.document["recorded"]


def run(*, scenario: str | Path | None = None, **options: Any) -> RunResult:
    """Run one simulation to its end, as ``meshsim run`` does.

    ``options`` are the simulation options of ``meshsim run`` by parameter name (``machine``,
    ``workload``, ``queue``, ``discipline``, ``backfill``, ``alloc``, ``window``, ``bound``,
    ``rotate``, ``migrate``, ``shape``, ``runtime_model``, ``pattern``, ``io_traffic``,
    ``io_share``, ``procs_per_unit``, ``load_factor``, ``runtime_scale``, ``seed``, ``lenient``,
    ``requeue``, ``queue_map``); a file may be given as a ``pathlib.Path``. With ``scenario`` (a
    file the console saved) the scenario supplies them all, as with ``meshsim run --scenario``.
    Bad input raises :class:`MeshsimError`."""
    if scenario is not None:
        if options:
            name = sorted(options)[0]
            raise MeshsimError(
                f"{name} cannot be combined with scenario (the scenario file sets it)"
            )
        loaded = load_scenario(Path(scenario))
        sim = loaded.build()
        sim.run()
        return _result(sim, scenario_document(sim, loaded))
    chosen = RunOptions.from_mapping(_paths_as_text(options))
    sim = prepare(chosen)
    sim.run()
    return _result(sim, case_document(sim, chosen))


def start(*, scenario: str | Path | None = None, **options: Any) -> Session:
    """A :class:`~meshsim.engine.tools.session.Session` at event 0 (or, with ``scenario``, where the
    console saved it), for scripts that want the console's control: ``step(n)``, ``peek()``,
    ``goto_time(t)``, ``snapshot()``, ``apply(action)``, ``undo()``, ``fork()``, ``back(n)``.
    ``options`` are those of :func:`run`."""
    if scenario is not None:
        if options:
            name = sorted(options)[0]
            raise MeshsimError(
                f"{name} cannot be combined with scenario (the scenario file sets it)"
            )
        return Session.from_scenario(Path(scenario))
    return Session(RunOptions.from_mapping(_paths_as_text(options)))


def _paths_as_text(options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` with every path object (``pathlib.Path``) given as its text."""
    return {k: os.fspath(v) if isinstance(v, os.PathLike) else v for k, v in options.items()}


def _result(sim: Simulation, document: dict[str, Any]) -> RunResult:
    """The result of a finished run: its document as the JSON file holds it, and its jobs."""
    parsed = json.loads(dumps(document))
    return RunResult(document=_defined(parsed), jobs=job_records(sim))


def _defined(value: Any) -> Any:
    """``value`` with every non-finite number replaced by None (JSON's ``null``)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _defined(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_defined(v) for v in value]
    return value


def job_records(sim: Simulation) -> np.ndarray:
    """The finished jobs of ``sim`` as a structured array of :data:`JOB_DTYPE`."""
    table = sim.job_table()
    records = np.empty(len(table["job_id"]), dtype=JOB_DTYPE)
    for name in JOB_COLUMNS:
        records[name] = table[name]
    return records
