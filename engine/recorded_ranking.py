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
import json
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from meshsim.engine.compare import Config
from meshsim.engine.errors import MeshsimError
from meshsim.engine.machines import Machine
from meshsim.engine.outputs import write_text
from meshsim.engine.policy import Policy
from meshsim.engine.recorded_run import no_fit, replay_fit
from meshsim.engine.simulation import Simulation
from meshsim.engine.workload import Workload

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
    avg_wait_s: float
    utilization: float

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
) -> list[Ranked]:
    """Replay the whole workload under every configuration and rank them (module docstring)."""
    why = no_fit(workload)
    if why is not None:
        raise MeshsimError(f"{workload.name}: nothing to rank against: {why[0]}")
    names = [c.name for c in configs]
    if len(set(names)) != len(names):
        raise MeshsimError("two configurations share a name")
    tasks = [(machine, workload, c, seed) for c in configs]
    if workers <= 1 or len(tasks) == 1:
        results = [_replay(t) for t in tasks]
    else:
        with ProcessPoolExecutor(max_workers=min(workers, len(tasks))) as pool:
            results = list(pool.map(_replay, tasks))
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


def write_ranking(folder: Path, ranked: list[Ranked], machine: str, workload: str) -> None:
    """``recorded.json`` (:func:`ranking_document`) and ``recorded.csv`` (:data:`RANKING_COLUMNS`)
    in ``folder``, each written whole or not at all."""
    folder.mkdir(parents=True, exist_ok=True)
    document = ranking_document(ranked, machine, workload)
    write_text(folder / "recorded.json", json.dumps(document, indent=2) + "\n")
    buffer = io.StringIO(newline="")
    writer = csv.DictWriter(buffer, fieldnames=RANKING_COLUMNS)
    writer.writeheader()
    writer.writerows(r.row() for r in ranked)
    write_text(folder / "recorded.csv", buffer.getvalue())


def _replay(args: tuple[Machine, Workload, Config, int]) -> tuple[dict[str, Any], float, float]:
    machine, workload, config, seed = args
    sim = Simulation(machine, workload, Policy.for_machine(machine, **config.options), seed)
    sim.run()
    metrics = sim.results().metrics
    return replay_fit(sim).as_dict(), float(metrics["avg_wait_s"]), float(metrics["utilization"])


def _mae(recorded: dict[str, Any]) -> float | None:
    return recorded["overall"]["wait_mae_s"]
