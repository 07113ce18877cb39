"""Record the real Slurm logs in ``tests/data/logs`` (run by hand, as root, where the Slurm packages
are installed: ``python -m tests.logs.record_slurm_fixtures``; about three minutes).

Two nodes of 8 CPUs on loopback (:class:`tests.logs.slurm_cluster.SlurmCluster`; two ``slurmd``, so
that a heterogeneous job can run: Slurm puts its components on different nodes) run a small mix
that shows every case the readers handle: a job with two ``srun`` steps, a throttled array, a
failure, a job cancelled while pending (it waits for 16 CPUs while others run), one cancelled while
running, a heterogeneous job, a job requeued while running (``--duplicates`` lists both runs), a
node-exclusive job (it holds all 8 CPUs of its node for a 1-CPU request) and a job killed at its
limit. The job-completion log and two ``sacct`` dumps are then written, each under a ``#`` comment
saying how it was made:

- ``slurm-jobcomp.txt``: the ``jobcomp/filetxt`` log;
- ``slurm-sacct.txt``: ``sacct --parsable2`` with the columns the reader uses, steps and
  ``--duplicates``;
- ``slurm-sacct-all.txt``: ``sacct --parsable --format=ALL --delimiter=^`` (every column, another
  delimiter, the trailing delimiter of ``--parsable``)."""

from __future__ import annotations

import subprocess
import tempfile
import time
from pathlib import Path

from meshsim.engine.logs.sacct import SUGGESTED
from tests.conftest import DATA
from tests.logs.slurm_cluster import SlurmCluster

OUT = DATA / "logs"


def record(cluster: SlurmCluster) -> None:
    """Run the mix and wait until every job has left the queue."""
    submit = cluster.submit
    submit("-n", "4", "-t", "2", "--wrap", "srun sleep 2.5; srun -n 2 sleep 1.5")
    submit("-n", "2", "-t", "1", "--array=0-2%1", "--wrap", "sleep 2.5")
    submit("-n", "1", "-t", "1", "--wrap", "sleep 1.5; exit 3")
    busy = submit("-n", "8", "-t", "2", "--wrap", "sleep 12.5")
    cluster.wait_state(busy, "RUNNING", 20)
    waiting = submit("-n", "16", "-t", "1", "--wrap", "sleep 5")
    time.sleep(2)
    cluster.run("scancel", waiting)
    running = submit("-n", "2", "-t", "5", "--wrap", "sleep 300")
    cluster.wait_state(running, "RUNNING", 30)
    time.sleep(4)
    cluster.run("scancel", running)
    submit("-n", "1", "-t", "1", ":", "-n", "2", "--wrap", "srun sleep 3.5")
    requeued = submit("-n", "2", "-t", "2", "--requeue", "--wrap", "sleep 8.5")
    cluster.wait_state(requeued, "RUNNING", 30)
    time.sleep(3)
    cluster.run("scontrol", "requeue", requeued)
    submit("-N", "1", "-n", "1", "--exclusive", "-t", "1", "--wrap", "sleep 2.5")
    submit("-n", "1", "-t", "1", "--wrap", "sleep 300")
    cluster.wait_empty(timeout=240)


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="meshsim-slurm-") as folder:
        cluster = SlurmCluster(Path(folder), nodes=2, cpus=8, accounting=True)
        try:
            cluster.start()
            began = time.strftime("%Y-%m-%dT%H:%M:%S")
            record(cluster)
            time.sleep(5)  # let slurmctld hand the last records to slurmdbd
            version = cluster.run("sinfo", "--version").strip()
            made = f"# Recorded by tests/logs/record_slurm_fixtures.py on {version} (Debian 12)"
            jobcomp = cluster.jobcomp.read_text()
            (OUT / "slurm-jobcomp.txt").write_text(f"{made}: the jobcomp/filetxt log.\n{jobcomp}")
            command = SUGGESTED.split()
            dump = cluster.run(*command, f"--starttime={began}")
            (OUT / "slurm-sacct.txt").write_text(f"{made}: {' '.join(command)}\n{dump}")
            every = [
                "sacct",
                "--allusers",
                "--duplicates",
                "--parsable",
                "--delimiter=^",
                "--format=ALL",
                f"--starttime={began}",
            ]
            (OUT / "slurm-sacct-all.txt").write_text(
                f"{made}: {' '.join(every[:-1])}\n{cluster.run(*every)}"
            )
        except subprocess.CalledProcessError as exc:
            raise SystemExit(f"{exc.cmd}: {exc.stderr}") from None
        finally:
            cluster.stop()


if __name__ == "__main__":
    main()
