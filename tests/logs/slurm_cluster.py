"""A throwaway Slurm cluster on loopback, for the live test and for recording the Slurm fixtures.

It runs Debian 12's packages (Slurm 22.05): ``munged``, optionally ``mariadbd`` + ``slurmdbd``
(for ``sacct``), ``slurmctld`` and ``slurmd``, each in the foreground as a child of this process,
with every port chosen free on 127.0.0.1 (none of Slurm's defaults), every file in one temporary
folder, and the settings issue 24 found necessary: ``SlurmdParameters=config_overrides`` (the node
claims its CPUs whatever the host has), ``SelectType=select/cons_tres`` with
``SelectTypeParameters=CR_CPU`` (the default ``CR_Core_Memory`` without ``DefMemPerCPU`` runs one
job at a time), ``SchedulerType=sched/backfill`` with ``bf_interval=1,bf_resolution=1``,
``JobCompType=jobcomp/filetxt``, ``SlurmUser=root``, an ``Epilog`` that does nothing (``true``) and
``DebugFlags=Backfill``. Without an epilog, Slurm 22.05 does not run its scheduler when a job ends:
a waiting job starts at the backfill scheduler's next tick (``bf_interval``, one second, at a phase
within the second set when slurmctld starts). With one, slurmd reports the epilog's end and the
controller schedules at once (``MESSAGE_EPILOG_COMPLETE``, then ``sched: Allocate``, within
milliseconds in slurmctld's log), the event-driven start that ``sched_min_interval`` documents.
``DebugFlags=Backfill`` puts every backfill pass in slurmctld's log, to the millisecond, with the
start it planned for each waiting job (:meth:`SlurmCluster.backfill_ticks`,
:meth:`SlurmCluster.controller_events`).

Given ``tick_phase``, :meth:`SlurmCluster.start` starts slurmctld at the moment that puts its first
backfill pass within that part of a second, measures where the pass fell, and starts it again
(before any job is submitted) until it falls there. slurmctld runs under ``SCHED_FIFO``
(:data:`REALTIME_PRIORITY`), which keeps the tick there on a loaded host, and every daemon and
client command at nice :data:`NICE`.

:meth:`SlurmCluster.stop` cancels what is left and stops every daemon it started by process id, and
is safe to call whatever happened; a daemon whose test process was killed outright, so that no
``stop`` ran, gets SIGTERM from the kernel (``PR_SET_PDEATHSIG``). Then only the ``slurmstepd`` of
a job that was running, which slurmd starts in a session of its own, outlives it: it retries its
completion message to the stopped controller for up to an hour (Slurm's ``MAX_RETRY``)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

CLIENTS = ("sbatch", "squeue", "scancel", "scontrol", "sinfo")
DAEMONS = ("munged", "slurmctld", "slurmd")
ACCOUNTING = ("mariadbd", "mariadb-install-db", "slurmdbd", "sacctmgr", "sacct")
CLUSTER = "meshsimlive"
PHASE_TRIES = 6
"""How many times :meth:`SlurmCluster.start` starts slurmctld to put its backfill tick in place."""
TICK_DELAY_S = 1.6
"""From slurmctld's start to its first backfill pass, as first guess (then the delay measured at
the last start is used)."""
_BACKFILL_PASS = re.compile(
    r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)\] sched/backfill: _attempt_backfill: beginning",
    re.MULTILINE,
)
_JOB_EVENT = re.compile(
    r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)\] "
    r"(sched/backfill: _start_job: Started|sched: Allocate|_job_complete:) JobId=([\d_]+)",
    re.MULTILINE,
)
_EVENT_KINDS = {
    "sched/backfill: _start_job: Started": ("start", "backfill"),
    "sched: Allocate": ("start", "main"),
    "_job_complete:": ("end", ""),
}
"""What each of slurmctld's job lines in :data:`_JOB_EVENT` says: the event and the scheduler."""
NICE = -20
"""The CPU priority (``nice``) of every daemon and client command of the cluster, and so of the
``slurmstepd`` and jobs slurmd starts: CI runs the rest of the test suite on the same two cores."""
REALTIME_PRIORITY = 1
"""slurmctld runs under ``SCHED_FIFO`` at this priority. With both cores busy, a process of the
default policy, even at nice -20, waits 3-8 ms for a core each time it wakes: the backfill
scheduler's one-second tick, which sleeps a second from the end of its last pass, then drifts by
that much every second (0.36 s in the first 62 s of a run, measured), until it crosses into the
next second. Under ``SCHED_FIFO`` it drifts about 0.1 ms a second, loaded or not. The controller
only ever runs briefly (``sched_rt_runtime_us`` keeps 5 % of the CPU for others regardless)."""
PR_SET_PDEATHSIG = 1
"""Linux ``prctl`` option: the signal a process gets when the thread that started it ends."""
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform == "linux" else None


def missing_tools(accounting: bool) -> list[str]:
    """The programs this cluster needs that are not installed."""
    wanted = (*CLIENTS, *DAEMONS, *(ACCOUNTING if accounting else ()))
    return [t for t in wanted if shutil.which(t) is None and not Path("/usr/sbin", t).exists()]


def _daemon_setup(realtime: bool) -> Callable[[], None]:
    """What each daemon runs between fork and exec: Linux sends it SIGTERM when the process that
    started it ends, however that ends (killed outright, where no ``finally`` runs), so no daemon
    outlives the test even when :meth:`SlurmCluster.stop` cannot run; it gets the CPU priority
    :data:`NICE`, and with ``realtime`` the scheduling policy ``SCHED_FIFO``
    (:data:`REALTIME_PRIORITY`; root only, and where the kernel refuses it the daemon keeps the
    default policy, which :meth:`SlurmCluster.controller_policy` then shows)."""

    def setup() -> None:
        if _LIBC is not None:
            _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        _first_in_line()
        if realtime and os.geteuid() == 0:
            with contextlib.suppress(OSError):  # controller_policy() shows it
                os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(REALTIME_PRIORITY))

    return setup


def _first_in_line() -> None:
    """Give the calling process the CPU priority :data:`NICE` (root only; others keep theirs)."""
    if os.geteuid() == 0:
        os.setpriority(os.PRIO_PROCESS, 0, NICE)


def _tool(name: str) -> str:
    return shutil.which(name) or str(Path("/usr/sbin", name))


def _free_ports(n: int) -> list[int]:
    sockets, ports = [], []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        sockets.append(s)
        ports.append(s.getsockname()[1])
    for s in sockets:
        s.close()
    return ports


class SlurmCluster:
    """One controller and ``nodes`` slurmd of ``cpus`` CPUs each, on this host; ``tick_phase``,
    when given, is the part of a second ``(low, high)``, in seconds, where the backfill scheduler's
    tick must fall."""

    def __init__(
        self,
        folder: Path,
        *,
        nodes: int = 1,
        cpus: int = 16,
        accounting: bool = True,
        tick_phase: tuple[float, float] | None = None,
    ) -> None:
        self.folder = folder
        self.nodes = nodes
        self.cpus = cpus
        self.accounting = accounting
        self.tick_phase = tick_phase
        self.tick_phases: list[float] = []
        """The backfill tick's phase measured after each start of the controller, in order."""
        self.host = socket.gethostname().split(".")[0]
        self.processes: list[subprocess.Popen] = []
        self.env = {**os.environ, "SLURM_CONF": str(folder / "slurm.conf")}
        self.jobcomp = folder / "jobcomp.txt"
        (
            self.ctld_port,
            self.slurmd_port,
            self.dbd_port,
            self.db_port,
            *self.node_ports,
        ) = _free_ports(4 + nodes)

    # ------------------------------------------------------------------ start and stop

    def start(self) -> None:
        """Start the daemons (slurmctld up to :data:`PHASE_TRIES` times to put the backfill tick
        within ``tick_phase``) and wait until the nodes are idle."""
        for sub in ("state", "munge", "out", "db"):
            (self.folder / sub).mkdir(parents=True, exist_ok=True)
        (self.folder / "munge").chmod(0o700)
        self._munge()
        if self.accounting:
            self._database()
            self._slurmdbd()
        self._write_config()
        if self.accounting:
            self.run("sacctmgr", "-i", "add", "cluster", CLUSTER)
        if self.tick_phase is None:
            self._start_slurm()
            return
        low, high = self.tick_phase
        delay = TICK_DELAY_S
        for _ in range(PHASE_TRIES):
            spawned_at = self._start_slurm((low + high) / 2 - delay)
            tick = self._first_tick(spawned_at)
            self.tick_phases.append(round(tick % 1, 3))
            if low <= tick % 1 <= high:
                return
            self._stop_slurm()
            delay = tick - spawned_at
        raise RuntimeError(
            f"the backfill tick fell at {self.tick_phases} s into the second in {PHASE_TRIES} "
            f"starts of slurmctld, never within [{low}, {high}]"
        )

    def _start_slurm(self, phase: float | None = None) -> float:
        """Start slurmctld (when ``phase`` is given, at that phase of a second of the wall clock)
        and the slurmd, and wait until the nodes are idle. Returns when slurmctld was started."""
        if phase is not None:
            now = time.time()
            time.sleep((phase - now) % 1)
        spawned_at = time.time()
        self._spawn("slurmctld", [_tool("slurmctld"), "-D", "-i"])
        if self.nodes == 1:
            self._spawn("slurmd", [_tool("slurmd"), "-D"])
        else:
            for k in range(self.nodes):
                self._spawn(f"slurmd-n{k + 1}", [_tool("slurmd"), "-D", "-N", f"n{k + 1}"])
        self._wait(lambda: self._idle_nodes() == self.nodes, 60, "the nodes to come up idle")
        return spawned_at

    def _stop_slurm(self) -> None:
        """Stop the slurmd and slurmctld this cluster started (no job has been submitted yet)."""
        for process in reversed(self.processes):
            if Path(process.args[0]).name in ("slurmctld", "slurmd"):
                _terminate(process)
        self.processes = [p for p in self.processes if p.poll() is None]

    def _first_tick(self, since: float) -> float:
        """The first backfill pass slurmctld logged after ``since`` (Unix seconds): the node's
        registration gives it work, so one runs about a second after slurmctld starts."""
        self._wait(lambda: any(t >= since for t in self.backfill_ticks()), 20, "a backfill pass")
        return min(t for t in self.backfill_ticks() if t >= since)

    def controller_events(self) -> dict[str, dict[str, tuple[float, str]]]:
        """What slurmctld's log says of each job, to the millisecond (Unix seconds), by the job id
        as the logs write it (``12``, array tasks ``2_0``): ``start`` (when, and which scheduler
        started it: ``backfill`` or the main scheduler, ``main``) and ``end``."""
        log = self.folder / "slurmctld.log"
        events: dict[str, dict[str, tuple[float, str]]] = {}
        for stamp, fraction, kind, job in _JOB_EVENT.findall(log.read_text(errors="replace")):
            event, scheduler = _EVENT_KINDS[kind]
            events.setdefault(job, {}).setdefault(event, (_log_time(stamp, fraction), scheduler))
        return events

    def controller_policy(self) -> str:
        """The scheduling policy slurmctld runs under (``SCHED_FIFO`` unless the kernel refused
        it)."""
        names = {os.SCHED_FIFO: "SCHED_FIFO", os.SCHED_OTHER: "SCHED_OTHER"}
        for process in self.processes:
            if Path(process.args[0]).name == "slurmctld" and process.poll() is None:
                policy = os.sched_getscheduler(process.pid)
                return names.get(policy, str(policy))
        return "not running"

    def backfill_ticks(self) -> list[float]:
        """When each backfill pass began (Unix seconds, to the millisecond), from slurmctld's log
        (``DebugFlags=Backfill``: ``_attempt_backfill: beginning``)."""
        log = self.folder / "slurmctld.log"
        text = log.read_text(errors="replace") if log.exists() else ""
        return [_log_time(stamp, fraction) for stamp, fraction in _BACKFILL_PASS.findall(text)]

    def stop(self) -> None:
        """Cancel every job left, then stop the daemons by process id, newest first."""
        if any(p.poll() is None for p in self.processes):
            try:
                subprocess.run(
                    [_tool("scancel"), "--user", "root"],
                    env=self.env,
                    capture_output=True,
                    timeout=20,
                )
                deadline = time.monotonic() + 15
                while time.monotonic() < deadline and self._queue_length() > 0:
                    time.sleep(0.5)
            except subprocess.TimeoutExpired:
                pass  # the controller is gone: stopping the daemons ends the jobs
        for process in reversed(self.processes):
            _terminate(process)
        self.processes.clear()

    def _spawn(self, name: str, argv: list[str]) -> None:
        log = (self.folder / f"{name}.out").open("w")
        self.processes.append(
            subprocess.Popen(
                argv,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=_daemon_setup(realtime=name == "slurmctld"),
            )
        )
        log.close()

    def _munge(self) -> None:
        key = self.folder / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
        self.munge_socket = self.folder / "munge" / "munge.socket"
        self._spawn(
            "munged",
            [
                _tool("munged"),
                "--foreground",
                "--force",
                f"--socket={self.munge_socket}",
                f"--key-file={key}",
                f"--pid-file={self.folder / 'munge' / 'munged.pid'}",
                f"--log-file={self.folder / 'munge' / 'munged.log'}",
                f"--seed-file={self.folder / 'munge' / 'munged.seed'}",
            ],
        )
        self._wait(self.munge_socket.exists, 20, "munged's socket")

    def _database(self) -> None:
        data = self.folder / "db"
        subprocess.run(
            [
                _tool("mariadb-install-db"),
                "--no-defaults",
                f"--datadir={data}",
                "--user=root",
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
        self._spawn(
            "mariadbd",
            [
                _tool("mariadbd"),
                "--no-defaults",
                f"--datadir={data}",
                "--user=root",
                f"--socket={self.folder / 'mysql.sock'}",
                f"--port={self.db_port}",
                "--bind-address=127.0.0.1",
                "--skip-grant-tables",
                f"--pid-file={self.folder / 'mariadbd.pid'}",
                f"--log-error={self.folder / 'mariadbd.log'}",
            ],
        )
        self._wait(lambda: _listening(self.db_port), 60, "mariadbd")

    def _slurmdbd(self) -> None:
        conf = self.folder / "slurmdbd.conf"
        conf.write_text(
            "\n".join(
                [
                    "AuthType=auth/munge",
                    f"AuthInfo=socket={self.munge_socket}",
                    "DbdHost=localhost",
                    "DbdAddr=127.0.0.1",
                    f"DbdPort={self.dbd_port}",
                    "SlurmUser=root",
                    f"PidFile={self.folder / 'slurmdbd.pid'}",
                    f"LogFile={self.folder / 'slurmdbd.log'}",
                    "StorageType=accounting_storage/mysql",
                    "StorageHost=127.0.0.1",
                    f"StoragePort={self.db_port}",
                    "StorageUser=root",
                    "StorageLoc=slurm_acct_db",
                    "",
                ]
            )
        )
        conf.chmod(0o600)
        self._write_config()  # slurmdbd finds its file beside SLURM_CONF
        self._spawn("slurmdbd", [_tool("slurmdbd"), "-D"])
        self._wait(lambda: _listening(self.dbd_port), 60, "slurmdbd")

    def _write_config(self) -> None:
        f = self.folder
        lines = [
            f"ClusterName={CLUSTER}",
            f"SlurmctldHost={self.host}(127.0.0.1)",
            f"SlurmctldPort={self.ctld_port}",
            f"SlurmdPort={self.slurmd_port}",
            "SlurmUser=root",
            "SlurmdUser=root",
            "AuthType=auth/munge",
            f"AuthInfo=socket={self.munge_socket}",
            f"StateSaveLocation={f / 'state'}",
            f"SlurmdSpoolDir={f / 'spool-%n'}",
            f"SlurmctldPidFile={f / 'slurmctld.pid'}",
            f"SlurmdPidFile={f / 'slurmd-%n.pid'}",
            f"SlurmctldLogFile={f / 'slurmctld.log'}",
            f"SlurmdLogFile={f / 'slurmd-%n.log'}",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "JobAcctGatherType=jobacct_gather/none",
            "MpiDefault=none",
            "ReturnToService=2",
            "SlurmdParameters=config_overrides",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_CPU",
            "SchedulerType=sched/backfill",
            "SchedulerParameters=bf_interval=1,bf_resolution=1",
            "JobCompType=jobcomp/filetxt",
            f"JobCompLoc={self.jobcomp}",
            f"Epilog={shutil.which('true') or '/bin/true'}",
            "DebugFlags=Backfill",
        ]
        if self.accounting:
            lines += [
                "AccountingStorageType=accounting_storage/slurmdbd",
                "AccountingStorageHost=localhost",
                f"AccountingStoragePort={self.dbd_port}",
                f"AccountingStoragePass={self.munge_socket}",
            ]
        if self.nodes == 1:
            lines.append(f"NodeName={self.host} NodeAddr=127.0.0.1 CPUs={self.cpus} State=UNKNOWN")
        else:
            for k, port in enumerate(self.node_ports):
                lines.append(
                    f"NodeName=n{k + 1} NodeHostname={self.host} NodeAddr=127.0.0.1 Port={port} "
                    f"CPUs={self.cpus} State=UNKNOWN"
                )
        lines.append("PartitionName=batch Nodes=ALL Default=YES MaxTime=10 State=UP")
        (f / "slurm.conf").write_text("\n".join(lines) + "\n")

    # ------------------------------------------------------------------ clients

    def run(self, *argv: str) -> str:
        done = subprocess.run(
            [_tool(argv[0]), *argv[1:]],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
            preexec_fn=_first_in_line,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)}: {done.stderr.strip() or done.stdout.strip()}")
        return done.stdout

    def submit(self, *options: str) -> str:
        """``sbatch --parsable`` with ``options``; the job id."""
        out = self.folder / "out" / "%j.out"
        return (
            self.run("sbatch", "--parsable", f"--chdir={self.folder}", f"--output={out}", *options)
            .strip()
            .split(";")[0]
        )

    def state(self, job_id: str) -> str:
        """The job's state as squeue shows it (empty once it has left the queue)."""
        return self.run("squeue", "-h", "-j", job_id, "-o", "%T").strip()

    def wait_state(self, job_id: str, state: str, timeout: float) -> None:
        self._wait(lambda: self.state(job_id) == state, timeout, f"job {job_id} to be {state}")

    def wait_empty(self, timeout: float) -> None:
        self._wait(lambda: self._queue_length() == 0, timeout, "the queue to empty")

    def _queue_length(self) -> int:
        done = subprocess.run(
            [_tool("squeue"), "-h", "-o", "%i"],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=20,
        )
        return len(done.stdout.split()) if done.returncode == 0 else 0

    def _idle_nodes(self) -> int:
        done = subprocess.run(
            [_tool("sinfo"), "-h", "-N", "-o", "%T"], env=self.env, capture_output=True, text=True
        )
        return done.stdout.split().count("idle") if done.returncode == 0 else 0

    def _wait(self, ready, timeout: float, what: str) -> None:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if ready():
                return
            dead = [p.args[0] for p in self.processes if p.poll() is not None]
            if dead:
                raise RuntimeError(f"{dead[0]} stopped while waiting for {what}: {self._logs()}")
            time.sleep(0.25)
        raise TimeoutError(f"waited {timeout:g} s for {what}: {self._logs()}")

    def _logs(self) -> str:
        tails = []
        for log in sorted(self.folder.glob("*.out")) + sorted(self.folder.glob("*.log")):
            text = log.read_text(errors="replace").strip().splitlines()[-3:]
            if text:
                tails.append(f"{log.name}: " + " | ".join(text))
        return "; ".join(tails)


def _log_time(stamp: str, fraction: str) -> float:
    """A time stamp of slurmctld's log (local time, to the millisecond) in Unix seconds."""
    return time.mktime(time.strptime(stamp, "%Y-%m-%dT%H:%M:%S")) + float(fraction)


def _terminate(process: subprocess.Popen) -> None:
    """SIGTERM to one daemon this cluster started, by its process id; SIGKILL after 15 s."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0
