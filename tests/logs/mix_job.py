"""One batch job of the live Slurm mix (:mod:`tests.logs.test_live_slurm`), which Slurm runs as
``python mix_job.py SECONDS [--exit CODE | --cancel]``.

It ends :data:`END_PHASE` s into the second that comes ``SECONDS`` whole seconds after the start
Slurm recorded for it (``scontrol show job``: ``StartTime``, a whole second of slurmctld's clock),
however late it was launched. So the log records a run time of exactly ``SECONDS``, and every job of
the mix ends early in its second, before the backfill scheduler's one-second tick, which the live
test keeps 0.45-0.65 s into the second (:class:`tests.logs.slurm_cluster.SlurmCluster`): the tick
then sees every end of its second, and a job that only backfilling can start in the CPUs an end
frees is logged as starting in the second of that end, as a replay starts it. With ``--exit CODE``
the job then exits with that status (``FAILED``); with ``--cancel`` it cancels itself (``scancel``:
a job ``CANCELLED`` while running) and waits to be killed.

Standard library only: it runs under ``python -I -S``, which starts in 0.07-0.09 s on the loaded
test host (0.2 s with the project's site packages)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

END_PHASE = 0.1
"""How far into its last second (s) a job of the mix ends."""


def recorded_start(job_id: str) -> float:
    """The start Slurm recorded for the job (Unix seconds; a whole second of local time)."""
    shown = subprocess.run(
        ["scontrol", "show", "job", "-o", job_id], capture_output=True, text=True, check=True
    ).stdout
    stamp = next(field for field in shown.split() if field.startswith("StartTime="))
    return time.mktime(time.strptime(stamp.split("=", 1)[1], "%Y-%m-%dT%H:%M:%S"))


def main(argv: list[str]) -> int:
    seconds, how = int(argv[1]), argv[2:]
    job_id = os.environ["SLURM_JOB_ID"]
    time.sleep(max(recorded_start(job_id) + seconds + END_PHASE - time.time(), 0.0))
    if how == ["--cancel"]:
        subprocess.run(["scancel", job_id], check=True)
        time.sleep(600)
    return int(how[1]) if how[:1] == ["--exit"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
