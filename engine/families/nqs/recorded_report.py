"""Wan et al.'s Table 5 (seed 004 §4) from the waits a log recorded, beside the replay's.

For a run of a real log that records waits (:mod:`meshsim.engine.recorded_run`), ``--report nqs``
adds this table: per batch queue of the machine (the queue each job ran in, after the log's queues
were placed by name), the jobs compared (a recorded wait, started by the replay), their average
wait as the log recorded it and as the replay simulated it, their average execution time, and the
expansion factor of each schedule, (Σ execution + Σ wait) / Σ execution, as in Table 5. Both
columns cover the same jobs, so a row differs only by the schedule. Interactive queues are left out,
as in Table 5; so are queues without a compared job."""

from __future__ import annotations

import numpy as np

from meshsim.engine.families.nqs.config import NQSConfig
from meshsim.engine.kernel.reports import ReportTable
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.recorded import compared_jobs, job_waits
from meshsim.engine.recorded_run import replayed_jobs

COLUMNS = (
    "queue",
    "jobs",
    "avg wait recorded (h)",
    "avg wait simulated (h)",
    "avg execution (h)",
    "expansion recorded",
    "expansion simulated",
)


def recorded_table5(sim: Simulation, config: NQSConfig) -> ReportTable | None:
    """Table 5 from the recorded and the simulated waits (module docstring); None when the run
    cannot be measured against its log."""
    jobs = replayed_jobs(sim)
    if jobs is None:
        return None
    compared, _ = compared_jobs(jobs)
    recorded, simulated, _ = job_waits(jobs)
    queue = sim.workload.queue
    rows = []
    for spec in config.queues:
        mask = compared & (queue == spec.number)
        if spec.interactive or not mask.any():
            continue
        run = jobs.runtime[mask]
        rows.append(
            (
                spec.name,
                str(int(mask.sum())),
                _hours(recorded[mask]),
                _hours(simulated[mask]),
                _hours(run),
                _expansion(recorded[mask], run),
                _expansion(simulated[mask], run),
            )
        )
    return ReportTable(
        "table5-recorded",
        "Table 5 - recorded against simulated: waits and expansion factors of the same jobs",
        COLUMNS,
        tuple(rows),
    )


def _hours(seconds: np.ndarray) -> str:
    return f"{float(seconds.mean()) / 3600:.1f}"


def _expansion(wait: np.ndarray, run: np.ndarray) -> str:
    executed = float(run.sum())
    return f"{(float(wait.sum()) + executed) / executed:.1f}" if executed > 0 else "-"
