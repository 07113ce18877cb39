"""What a log reader yields: one :class:`LogJob` per job (or per run of a rerun job), and one
:class:`Skipped` for every other record, with the reason. Nothing else leaves a reader, so every
record of a log is accounted for: ``records = jobs + skipped``.

Reasons: :mod:`meshsim.engine.logs.reasons`.

A job that started is replayed for the time it held its processors, whatever its state: a job
cancelled while running, one killed at its time limit (Slurm ends those late: the recorded
elapsed time counts, not the limit), one that failed."""

from __future__ import annotations

from dataclasses import dataclass

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.logs.reasons import LOG_REASONS
from meshsim.engine.workloads.tracecut import CutOutcome, RecordCut

COMPLETED, FAILED, CANCELLED = 1, 0, 5
"""SWF status codes (SWF 2.2 field 11): completed, failed (or killed), cancelled."""


@dataclass(frozen=True, order=True)
class Where:
    """A record's place in a log: its file and 1-based line."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file} line {self.line}"


@dataclass(frozen=True)
class LogJob:
    """One job of a log, in Unix seconds and processors.

    ``requested_time`` is None when the log gives no finite limit of the job's own (``UNLIMITED``,
    ``Partition_Limit``, no walltime requested): the conversion then takes the queue's limit from
    ``--partition-limit`` or leaves it unknown. ``run_time`` is the time the job held its
    processors (Slurm's ``Elapsed``, else end − start); ``start`` None means it never started.
    ``requested`` and ``allocated`` are processors as each format defines them (docs/logs.md);
    ``location`` is where it ran (a node list, an ``exec_host``, a Blue Gene partition)."""

    where: Where
    job_id: str
    submit: float
    eligible: float | None
    start: float | None
    end: float | None
    run_time: float | None
    requested: int
    allocated: int
    requested_time: float | None
    status: int
    state: str
    user: str = ""
    group: str = ""
    queue: str = ""
    location: str = ""

    @property
    def arrival(self) -> float:
        """When the job could first start: its eligible time, or its submit time when the log has
        no eligible time (or one before the submit)."""
        if self.eligible is not None and self.eligible >= self.submit:
            return self.eligible
        return self.submit

    @property
    def started(self) -> bool:
        return self.start is not None

    @property
    def reason(self) -> str | None:
        """Why the job is not replayed (one of
        :data:`~meshsim.engine.logs.reasons.JOB_REASONS`), or None."""
        if self.started:
            return None
        return "cancelled_before_start" if self.status == CANCELLED else "never_started"


@dataclass(frozen=True)
class Skipped:
    """A record that is not a replayed job, and why (one of
    :data:`~meshsim.engine.logs.reasons.LOG_REASONS`)."""

    where: Where
    job_id: str
    reason: str
    detail: str = ""


@dataclass(frozen=True)
class LogRead:
    """Everything a reader found in a log: ``records`` records, as jobs and skipped records.

    ``computer`` names the machine when the log does (Slurm's cluster, Cobalt's resource);
    ``partitions`` says that locations are partition names a replay can place jobs on (Cobalt's
    Blue Gene partitions), not node lists."""

    path: str
    format: str
    records: int
    jobs: tuple[LogJob, ...]
    skipped: tuple[Skipped, ...]
    computer: str | None = None
    partitions: bool = False

    def cut(self, cut: RecordCut) -> tuple[LogRead, CutOutcome]:
        """The records of ``cut`` (:mod:`meshsim.engine.workloads.tracecut`), counted in the order
        of the log's files and lines: every record is one job or one skipped record, each at its
        :class:`Where`."""
        entries = sorted(
            [(job.where, k, job) for k, job in enumerate(self.jobs)]
            + [(s.where, len(self.jobs) + k, s) for k, s in enumerate(self.skipped)],
            key=lambda e: (e[0], e[1]),
        )
        cut.check_kept(self.path, len(entries))
        kept = [item for position, (_, _, item) in enumerate(entries) if cut.keeps(position)]
        jobs = tuple(item for item in kept if isinstance(item, LogJob))
        skipped = tuple(item for item in kept if isinstance(item, Skipped))
        read = LogRead(
            self.path,
            self.format,
            len(kept),
            jobs,
            skipped,
            self.computer,
            self.partitions,
        )
        return read, cut.outcome(len(kept))

    def counts(self) -> dict[str, int]:
        """Records by reason (in :data:`~meshsim.engine.logs.reasons.LOG_REASONS` order, every
        reason present): skipped records plus the jobs that never started."""
        out = dict.fromkeys(LOG_REASONS, 0)
        for s in self.skipped:
            out[s.reason] += 1
        for job in self.jobs:
            if job.reason is not None:
                out[job.reason] += 1
        return out


class Tally:
    """Collects a reader's jobs and skipped records, and says whether a bad record is an error or
    (``lenient``) a skipped ``malformed_line``."""

    def __init__(self, lenient: bool) -> None:
        self.lenient = lenient
        self.records = 0
        self.jobs: list[LogJob] = []
        self.skipped: list[Skipped] = []

    def job(self, job: LogJob) -> None:
        self.jobs.append(job)

    def skip(self, where: Where, job_id: str, reason: str, detail: str = "") -> None:
        self.skipped.append(Skipped(where, job_id, reason, detail))

    def bad(self, where: Where, problem: str) -> None:
        """A record that cannot be read: an error, or a skipped ``malformed_line`` when lenient."""
        if not self.lenient:
            raise MeshsimError(f"{where}: {problem}")
        self.skip(where, "", "malformed_line", problem)

    def result(
        self, path: str, fmt: str, *, computer: str | None = None, partitions: bool = False
    ) -> LogRead:
        return LogRead(
            path,
            fmt,
            self.records,
            tuple(self.jobs),
            tuple(self.skipped),
            computer,
            partitions,
        )
