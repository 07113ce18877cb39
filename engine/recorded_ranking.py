"""``meshsim compare --recorded``: configurations ranked by how closely each reproduces the schedule
a log recorded.

Each configuration (a name and ``meshsim run`` policy options, as for ``meshsim compare``) replays
the whole workload: a fit to the recorded schedule is of one schedule from the log's first job to
its last, so the workload is never cut into months here. Configurations are ranked by the mean
absolute error of the wait over every job compared (:mod:`meshsim.engine.recorded`), smallest
first, ties by name; each keeps its whole ``recorded`` section (the other figures, overall and per
group) and the run's average wait and utilization beside it. A workload whose log records no
schedule to compare with is an error saying why (:func:`meshsim.engine.recorded_run.no_fit`)."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.policy import Policy
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.recorded_run import no_fit, replay_fit
from meshsim.engine.tools.compare import Config, run_all
from meshsim.engine.tools.outputs import defined, dumps
from meshsim.engine.topology.machines import Machine
from meshsim.engine.validation.options import COMPARE, check_options
from meshsim.engine.workloads.workload import Workload

RANKING_COLUMNS = (
    "rank",
    "config",
    "jobs",
    "wait_mae_s",
    "mean_recorded_wait_s",
    "mean_simulated_wait_s",
    "median_recorded_wait_s",
    "median_simulated_wait_s",
    "wait_correlation",
    "within_1min",
    "within_1h",
    "recorded_utilization",
    "simulated_utilization",
)
"""The columns of ``recorded.csv``: one row per configuration, in rank order."""


@dataclass(frozen=True)
class Ranked:
    """One configuration's replay measured against the log: its rank (1 = smallest wait MAE),
    its ``recorded`` section and the run's average wait and utilization."""

    rank: int
    config: Config
    recorded: dict[str, Any]
    avg_wait_s: float | None
    utilization: float | None

    def row(self) -> dict[str, Any]:
        """The configuration's row of :data:`RANKING_COLUMNS`."""
        overall = self.recorded["overall"]
        return {
            "rank": self.rank,
            "config": self.config.name,
            "jobs": overall["jobs"],
            **{k: overall[k] for k in RANKING_COLUMNS[3:11]},
            "recorded_utilization": self.recorded["recorded_utilization"],
            "simulated_utilization": self.recorded["simulated_utilization"],
        }


def rank_recorded(
    machine: Machine,
    workload: Workload,
    configs: tuple[Config, ...],
    *,
    seed: int = 0,
    workers: int = 1,
    done: Callable[[int, int], None] | None = None,
) -> list[Ranked]:
    """Replay the whole workload under every configuration and rank them (module docstring);
    ``done(k, n)`` is told each time a replay finishes
    (:func:`meshsim.engine.tools.compare.run_all`)."""
    check_options(COMPARE, {"--seed": seed, "--workers": workers})
    why = no_fit(workload)
    if why is not None:
        raise MeshsimError(f"{workload.name}: nothing to rank against: {why[0]}")
    names = [c.name for c in configs]
    if len(set(names)) != len(names):
        raise MeshsimError("two configurations share a name")
    tasks = [(machine, workload, c, seed) for c in configs]
    results = run_all(_replay, tasks, min(workers, len(tasks)), done)
    order = sorted(
        range(len(configs)),
        key=lambda i: (_mae(results[i][0]) is None, _mae(results[i][0]) or 0.0, names[i]),
    )
    return [
        Ranked(rank, configs[i], results[i][0], results[i][1], results[i][2])
        for rank, i in enumerate(order, start=1)
    ]


def ranking_document(ranked: list[Ranked], machine: str, workload: str) -> dict[str, Any]:
    """``recorded.json``: the machine, the workload and every configuration in rank order with
    its options and whole ``recorded`` section."""
    return {
        "machine": machine,
        "workload": workload,
        "ranked_by": "wait_mae_s",
        "configs": [
            {
                "rank": r.rank,
                "name": r.config.name,
                "options": r.config.options,
                "avg_wait_s": r.avg_wait_s,
                "utilization": r.utilization,
                "recorded": r.recorded,
            }
            for r in ranked
        ],
    }


def ranking_files(ranked: list[Ranked], machine: str, workload: str) -> dict[str, str]:
    """The text of each file ``meshsim compare --recorded --out`` writes, by name:
    ``recorded.json`` (:func:`ranking_document`, strict JSON) and ``recorded.csv``
    (:data:`RANKING_COLUMNS`, an undefined figure as an empty cell)."""
    buffer = io.StringIO(newline="")
    writer = csv.DictWriter(buffer, fieldnames=RANKING_COLUMNS)
    writer.writeheader()
    writer.writerows({k: "" if v is None else v for k, v in r.row().items()} for r in ranked)
    return {
        "recorded.json": dumps(ranking_document(ranked, machine, workload)),
        "recorded.csv": buffer.getvalue(),
    }


def _replay(
    args: tuple[Machine, Workload, Config, int],
) -> tuple[dict[str, Any], float | None, float | None]:
    machine, workload, config, seed = args
    sim = Simulation(machine, workload, Policy.for_machine(machine, **config.options), seed)
    sim.run()
    metrics = defined(sim.results().metrics)
    return replay_fit(sim).as_dict(), metrics["avg_wait_s"], metrics["utilization"]


def _mae(recorded: dict[str, Any]) -> float | None:
    return recorded["overall"]["wait_mae_s"]
