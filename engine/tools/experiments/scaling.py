"""Scaling benchmark of the local executor: one 64-case sweep run with 1 worker and with 2.

``python -m engine.experiments.scaling [JOBS]`` prints one JSON object: the wall seconds of each run
(planning, every case, the tables; the pool's start-up included) and the speed-up. The sweep:
flat:256, a ``flat-poisson`` workload of JOBS jobs (default 20,000) at offered load 0.8 drawn anew
for each seed, FCFS and SJF × no backfilling and EASY × seeds 1–16. With one worker the cases run in
this process; with two, in a pool of two processes. Target (issue 8): speed-up ≥ 1.8 on two cores.
Each run writes into a fresh temporary folder, so nothing is skipped."""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from meshsim.engine.tools.experiments.executors import make_executor
from meshsim.engine.tools.experiments.options import OptionSchema, OptionSpec
from meshsim.engine.tools.experiments.spec import load_spec
from meshsim.engine.tools.experiments.sweep import run_sweep

SPEC = """[base]
machine = "flat:256"
workload = "w.toml"
[grid]
queue = ["fcfs", "sjf"]
backfill = ["none", "easy"]
seed = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]
"""

WORKLOAD = """[workload]
kind = "flat-poisson"
jobs = {jobs}
load = 0.8
"""

SCHEMA = OptionSchema(
    "run",
    (
        OptionSpec("machine", "machine", "str", "ipsc860"),
        OptionSpec("workload", "workload", "str", None),
        OptionSpec("queue", "queue", "str", "fcfs"),
        OptionSpec("backfill", "backfill", "str", "none"),
        OptionSpec("seed", "seed", "int", 0),
    ),
)
"""The few ``meshsim run`` options this sweep sets (the engine cannot introspect the CLI)."""


def measure(jobs: int = 20_000, workers: tuple[int, ...] = (1, 2)) -> dict[str, Any]:
    """Wall seconds of the 64-case sweep per worker count, and the speed-up of the last count over
    the first."""
    walls: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "w.toml").write_text(WORKLOAD.format(jobs=jobs), encoding="utf-8")
        (root / "s.toml").write_text(SPEC, encoding="utf-8")
        spec = load_spec(root / "s.toml")
        for count in workers:
            t0 = time.perf_counter()
            report = run_sweep(spec, SCHEMA, root / f"r{count}", make_executor("local", count))
            walls[str(count)] = time.perf_counter() - t0
            if report.failures or report.ran != 64:
                raise RuntimeError(f"scaling sweep: {len(report.failures)} failures")
    first, last = walls[str(workers[0])], walls[str(workers[-1])]
    return {"cases": 64, "jobs_per_case": jobs, "wall_s": walls, "speedup": first / last}


if __name__ == "__main__":
    print(json.dumps(measure(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000)))
