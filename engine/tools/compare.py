"""``meshsim compare``: several configurations on one workload, against a baseline.

Each configuration is a name and a set of ``meshsim run`` options (policy options: queue,
discipline, backfill, alloc, ...). Every configuration runs on the same machine and workload; when
the workload spans several calendar months (in the trace's time zone) and ``by_month`` is set, each
month is simulated on its own, as Tang et al. did (seed 000 §V-A), and the jobs submitted before a
month serve as the history AdjEst learns from (the paper used January and February 2009 for March).
The relative gain of a configuration over its baseline is (V_base − V_new) / V_base for metrics
where smaller is better (seed 000 §V-D2), as every metric's definition says
(:data:`~meshsim.engine.kernel.metrics.METRIC_INFO`); the console's what-if signs its gains the
same way.

The ``tang2010`` preset is the paper's 72-case study on one workload: the six spatial schemes (Base
= least-blocking, SL, PF, Combo, AdjEst, ActRun) × {FCFS, WFP}, all with EASY backfilling, each
scheme compared with Base under the same queue order, for loss of capacity, average wait and average
bounded slowdown."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import numpy as np

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.policy import Policy
from meshsim.engine.core.registry import Registry
from meshsim.engine.kernel.metrics import better_gain
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.tools.experiments.executors import terminate_pool, worker_signals
from meshsim.engine.tools.outputs import defined
from meshsim.engine.topology.machines import Machine
from meshsim.engine.validation.options import COMPARE, check_options
from meshsim.engine.workloads.traceclock import TraceClock
from meshsim.engine.workloads.workload import Workload

METRICS = ("loss_of_capacity", "avg_wait_s", "avg_bsld")
T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class Config:
    """A named configuration and the configuration it is compared against (None: itself a
    baseline)."""

    name: str
    options: dict[str, Any]
    baseline: str | None = None


PRESETS: Registry[tuple[Config, ...]] = Registry("comparison preset")

_SCHEMES = (
    ("Base", "least-blocking"),
    ("SL", "sl"),
    ("PF", "pf"),
    ("Combo", "combo"),
    ("AdjEst", "adjest"),
    ("ActRun", "actrun"),
)
PRESETS.register("tang2010")(
    tuple(
        Config(
            f"{queue.upper()} {scheme}",
            {"queue": queue, "backfill": "easy", "allocator": alloc},
            None if scheme == "Base" else f"{queue.upper()} Base",
        )
        for queue in ("fcfs", "wfp")
        for scheme, alloc in _SCHEMES
    )
)


@dataclass(frozen=True)
class Outcome:
    """The metrics of one configuration on one part of the workload (None: undefined, as a part
    where no job finished)."""

    config: str
    part: str
    jobs: int
    metrics: dict[str, float | None]


def month_parts(workload: Workload) -> list[tuple[str, Workload, Workload | None]]:
    """The workload cut into calendar months: (label, month's jobs, jobs submitted before it)."""
    clock = TraceClock.from_header(workload.header)
    months = np.array([clock.month_of(float(t)) for t in workload.submit.tolist()])
    parts = []
    for label in sorted(set(months.tolist())):
        mask = months == label
        first = int(np.argmax(mask))
        before = _subset(workload, np.arange(len(workload)) < first) if first else None
        parts.append((label, _subset(workload, mask), before))
    return parts


def _subset(workload: Workload, mask: np.ndarray) -> Workload:
    columns = ("job_id", "submit", "runtime", "estimate", "size", "procs", "user", "group")
    columns += ("queue", "partition")
    changes: dict[str, Any] = {c: getattr(workload, c)[mask] for c in columns}
    if workload.shapes is not None:
        changes["shapes"] = workload.shapes[mask]
    if workload.records is not None:
        changes["records"] = workload.records[mask]
    changes["attrs"] = {k: v[mask] for k, v in workload.attrs.items()}
    return replace(workload, **changes)


def _run(args: tuple[Machine, Workload, Workload | None, Config, str, int]) -> Outcome:
    machine, workload, past, config, part, seed = args
    policy = Policy.for_machine(machine, **config.options)
    sim = Simulation(machine, workload, policy, seed, past=past)
    sim.run()
    metrics = defined(sim.results().metrics)
    return Outcome(config.name, part, int(metrics["jobs"]), {m: metrics[m] for m in METRICS})


def compare(
    machine: Machine,
    workload: Workload,
    configs: tuple[Config, ...],
    *,
    by_month: bool = True,
    seed: int = 0,
    workers: int = 1,
    done: Callable[[int, int], None] | None = None,
) -> list[Outcome]:
    """Run every configuration on every part (months, or the whole workload); ``done(k, n)`` is
    told each time a run finishes (k of n). Pool workers leave Ctrl-C to this process, which ends
    them when it is interrupted."""
    check_options(COMPARE, {"--seed": seed, "--workers": workers})
    names = {c.name for c in configs}
    for c in configs:
        if c.baseline is not None and c.baseline not in names:
            raise MeshsimError(f"configuration '{c.name}' compares with unknown '{c.baseline}'")
    parts = month_parts(workload) if by_month else [("all", workload, None)]
    if len(parts) == 1:
        parts = [("all", workload, parts[0][2])]
    tasks = [(machine, w, past, c, label, seed) for label, w, past in parts for c in configs]
    return run_all(_run, tasks, workers, done)


def run_all(
    run: Callable[[T], R],
    tasks: Sequence[T],
    workers: int,
    done: Callable[[int, int], None] | None = None,
) -> list[R]:
    """``run`` of every task, in the tasks' order, in this process (``workers`` ≤ 1) or a pool of
    ``workers`` processes; ``done(k, n)`` is told each time one finishes. Pool workers leave
    Ctrl-C to this process, which ends them when it is interrupted."""
    tell = done or (lambda k, n: None)
    if workers <= 1:
        results = []
        for task in tasks:
            results.append(run(task))
            tell(len(results), len(tasks))
        return results
    pool = ProcessPoolExecutor(max_workers=workers, initializer=worker_signals)
    try:
        futures = [pool.submit(run, task) for task in tasks]
        for k, _ in enumerate(as_completed(futures), start=1):
            tell(k, len(tasks))
        results = [f.result() for f in futures]
    except BaseException:
        terminate_pool(pool)
        raise
    pool.shutdown()
    return results


def gains(outcomes: list[Outcome], configs: tuple[Config, ...]) -> list[dict[str, Any]]:
    """Relative gains of every compared configuration, per part, signed by each metric's better
    direction (:func:`~meshsim.engine.kernel.metrics.better_gain`: (V_base − V_new) / V_base for
    these metrics, where lower is better); None when either value is undefined, or the base is 0
    and the new value is not."""
    table = {(o.config, o.part): o for o in outcomes}
    rows = []
    for c in configs:
        if c.baseline is None:
            continue
        for part in sorted({o.part for o in outcomes}):
            base, new = table[(c.baseline, part)], table[(c.name, part)]
            row: dict[str, Any] = {"config": c.name, "baseline": c.baseline, "part": part}
            for m in METRICS:
                row[m] = better_gain(m, base.metrics[m], new.metrics[m])
            rows.append(row)
    return rows
