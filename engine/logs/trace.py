"""A log as an SWF trace: the jobs a reader found, written as SWF 2.2 records with a header saying
where they came from, plus an origin row per job for what SWF cannot hold.

Every rule of the conversion (docs/logs.md holds the table, field by field and state by state):

- jobs are numbered 1..N in order of arrival, then of job id (the order the scheduler gave them,
  which breaks ties in FCFS order as it did), then of their place in the log;
- submit (field 2) is when the job could first start, its arrival: the log's eligible time (Slurm
  ``Eligible``, PBS and Cobalt ``etime``), else its submit time, in seconds after the header's
  UnixStartTime (the first arrival, whole seconds). A job held, throttled in an array or waiting on
  a dependency thus arrives when it could start, which a replay needs; the log's submit time is in
  the origin file;
- wait (3) = start − arrival; run time (4) = the time the job held its processors; both −1 for a
  job that never started (written with its status, 5 when cancelled, and never replayed);
- allocated (5) and requested (8) processors as the format counts them (−1 when unknown; allocated
  −1 for a job that never started);
- requested time (9) = the job's own limit; a job with none (``UNLIMITED``, ``Partition_Limit``,
  no walltime) takes the limit ``--partition-limit`` gives its partition (or ``*``), else −1, which
  a replay reads as "estimate = run time";
- status (11): 1 completed, 0 failed or killed (time limit, node failure, preemption, requeue),
  5 cancelled;
- user (12), group (13) and queue (15, Slurm's partition, PBS and Cobalt queues) are numbered 1..k
  in order of first appearance; ``Queue:`` header lines name the queues;
- partition (16): for Cobalt, the Blue Gene partition the job ran on, numbered with ``Partition:``
  header lines; otherwise −1, and the node list goes to the origin file;
- fields 6, 7, 10, 14, 17, 18 (CPU time, memory, executable, dependencies) are −1.

``TimeZoneString`` is ``--tz``, the zone the log's local stamps were read in."""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from meshsim import __version__
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.logs.formats import LOG_FORMATS, SWF, detect, read_log
from meshsim.engine.logs.options import LogOptions
from meshsim.engine.logs.reasons import LOG_REASONS
from meshsim.engine.logs.records import LogJob, LogRead, Skipped
from meshsim.engine.logs.values import zone
from meshsim.engine.topology.machines import Machine
from meshsim.engine.workloads import swf
from meshsim.engine.workloads.workload import Workload, from_swf

_PARTS = re.compile(r"\d+|\D+")

ORIGIN_COLUMNS = (
    "job_number",
    "log_job_id",
    "log_file",
    "log_line",
    "state",
    "submit",
    "eligible",
    "start",
    "end",
    "location",
)
"""Columns of the origin file: the SWF job number, the log's own job id and record, state, Unix
times (empty when the log has none) and where the job ran."""


@dataclass(frozen=True)
class Origin:
    """What the log says of one SWF job that SWF cannot hold."""

    job_number: int
    job: LogJob


@dataclass(frozen=True, eq=False)
class LogTrace(swf.SWFTrace):
    """An SWF trace made from a log, with the log's accounting: ``records_read`` records, by reason
    in ``counts`` (:data:`~meshsim.engine.logs.reasons.LOG_REASONS`), each skipped record in
    ``skipped``, and one :class:`Origin` per SWF record, in record order."""

    format: str = ""
    records_read: int = 0
    counts: Mapping[str, int] = field(default_factory=dict)
    skipped: tuple[Skipped, ...] = ()
    origin: tuple[Origin, ...] = ()

    def report(self) -> list[Skipped]:
        """Every record that is not a replayed job, in log order: the skipped records and the jobs
        that never started."""
        never = [
            Skipped(o.job.where, o.job.job_id, o.job.reason, o.job.state)
            for o in self.origin
            if o.job.reason is not None
        ]
        return sorted([*self.skipped, *never], key=lambda s: s.where)

    def replayable(self) -> np.ndarray:
        """Which records a replay runs: those of jobs that started."""
        return np.array([o.job.started for o in self.origin], dtype=bool)


def read_trace(path: str | Path, options: LogOptions | None = None) -> swf.SWFTrace:
    """The trace at ``path``: an SWF file (``.swf``, ``.swf.gz``, or detected), or a log in a format
    of :data:`~meshsim.engine.logs.formats.LOG_FORMATS` turned into a :class:`LogTrace`."""
    options = options or LogOptions()
    path = Path(path)
    fmt = options.fmt
    if fmt is None:
        swf_name = path.name.endswith((".swf", ".swf.gz"))
        fmt = SWF if swf_name and not path.is_dir() else detect(path)
    if fmt == SWF:
        return swf.read_swf(path, lenient=options.lenient, cut=options.cut)
    if fmt not in LOG_FORMATS:
        LOG_FORMATS.get(fmt)  # the error lists the valid names
    read = read_log(path, fmt, options)
    if not options.cut.given:
        return to_trace(read, options)
    read, outcome = read.cut(options.cut)
    return replace(to_trace(read, options), cut=outcome)


def to_trace(read: LogRead, options: LogOptions) -> LogTrace:
    """The SWF trace of a log (rules in the module docstring)."""
    counts = read.counts()
    if not read.jobs:
        found = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in counts.items() if v)
        cut = f" of {options.cut.options()}" if options.cut.given else ""
        raise MeshsimError(
            f"{read.path}: no jobs in {read.records} records{cut} ({found or 'none'})"
        )
    limits = options.limits()
    jobs = sorted(read.jobs, key=lambda j: (_arrival(j), _id_order(j.job_id), j.where))
    t0 = math.floor(min(_arrival(j) for j in jobs))
    users: dict[str, int] = {}
    groups: dict[str, int] = {}
    queues: dict[str, int] = {}
    places: dict[str, int] = {}
    rows = np.full((len(jobs), len(swf.FIELDS)), -1.0)
    unlimited = from_option = 0
    for k, job in enumerate(jobs):
        row = rows[k]
        arrival = _arrival(job)
        row[swf.JOB] = k + 1
        row[swf.SUBMIT] = arrival - t0
        if job.start is not None:
            row[swf.WAIT] = max(job.start - arrival, 0.0)
            run = job.run_time
            if run is None and job.end is not None:
                run = job.end - job.start
            row[swf.RUN] = max(run or 0.0, 0.0)
            row[swf.ALLOC] = job.allocated if job.allocated > 0 else job.requested
        row[swf.REQ_PROCS] = job.requested
        limit = job.requested_time
        if limit is None:
            unlimited += 1
            limit = limits.get(job.queue, limits.get("*"))
            from_option += limit is not None
        row[swf.REQ_TIME] = -1 if limit is None else limit
        row[swf.STATUS] = job.status
        row[swf.USER] = _number(users, job.user)
        row[swf.GROUP] = _number(groups, job.group)
        row[swf.QUEUE] = _number(queues, job.queue)
        if read.partitions:
            row[swf.PARTITION] = _number(places, job.location)
    lines = _header(read, options, jobs, t0, queues, places, counts, unlimited, from_option)
    skipped = read.skipped
    malformed = tuple(
        swf.Malformed(s.where.line, f"{s.where}: {s.detail}")
        for s in skipped
        if s.reason == "malformed_line"
    )
    return LogTrace(
        path=read.path,
        header=swf.parse_header(lines),
        records=rows,
        malformed=malformed,
        format=read.format,
        records_read=read.records,
        counts=counts,
        skipped=skipped,
        origin=tuple(Origin(k + 1, job) for k, job in enumerate(jobs)),
    )


def _arrival(job: LogJob) -> float:
    """The job's arrival, never after its start."""
    arrival = job.arrival
    return min(arrival, job.start) if job.start is not None else arrival


def _id_order(job_id: str) -> tuple[tuple[int, str], ...]:
    """Job ids in the order the scheduler gave them: their numbers compared as numbers
    (``2_10`` after ``2_9``, ``1234.server`` before ``1235.server``)."""
    return tuple(
        (int(part), "") if part.isdigit() else (-1, part) for part in _PARTS.findall(job_id)
    )


def _number(numbers: dict[str, int], name: str) -> int:
    """1, 2, ... by first appearance; −1 for no name."""
    if not name:
        return -1
    return numbers.setdefault(name, len(numbers) + 1)


def _header(
    read: LogRead,
    options: LogOptions,
    jobs: list[LogJob],
    t0: int,
    queues: dict[str, int],
    places: dict[str, int],
    counts: dict[str, int],
    unlimited: int,
    from_option: int,
) -> list[str]:
    where = zone(options.tz)
    ends = [j.end for j in jobs if j.end is not None]
    last = max(ends) if ends else t0

    def date(seconds: float) -> str:
        return datetime.fromtimestamp(seconds, tz=UTC).astimezone(where).isoformat()

    description = LOG_FORMATS.get(read.format).description
    accounted = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in counts.items() if v)
    lines = [
        " Version: 2.2",
        f" Computer: {read.computer or 'unknown'}",
        f" Installation: {description}",
        f" Conversion: meshsim {__version__} from {Path(read.path).name}",
        f" MaxJobs: {len(jobs)}",
        f" MaxRecords: {len(jobs)}",
        f" UnixStartTime: {t0}",
        f" TimeZoneString: {options.tz}",
        f" StartTime: {date(t0)}",
        f" EndTime: {date(last)}",
    ]
    lines += [f" Queue: {n} {name}" for name, n in queues.items()]
    lines += [f" Partition: {n} {name}" for name, n in places.items()]
    replayed = sum(j.started for j in jobs)
    notes = [
        f"{read.records} log records: {replayed} jobs that ran"
        + (f", {accounted}" if accounted else ""),
        "submit time is when a job could first start (the log's eligible time, else its "
        "submit time); the log's submit times are in the origin file",
    ]
    never = len(jobs) - replayed
    if never:
        notes.append(
            f"{never} jobs never started (status 5 when cancelled): wait and run time -1, "
            "never replayed"
        )
    if unlimited:
        given = f"{from_option} from --partition-limit" if from_option else "none given"
        notes.append(
            f"{unlimited} jobs had no finite time limit of their own (UNLIMITED, Partition_Limit "
            f"or no walltime): {given}; the others have requested time -1 (a replay uses the run "
            "time as the estimate)"
            if unlimited > from_option
            else f"{unlimited} jobs had no finite time limit of their own: {given}"
        )
    if read.partitions:
        notes.append("partition numbers are the partitions the jobs ran on (Partition: lines)")
    else:
        notes.append("where each job ran is in the origin file (SWF cannot hold node lists)")
    lines += [f" Note: {n}" for n in notes]
    return lines


def replay_workload(
    trace: swf.SWFTrace, machine: Machine, *, procs_per_unit: int | None = None
) -> Workload:
    """The jobs of ``trace`` for ``machine`` (:func:`~meshsim.engine.workloads.workload.from_swf`);
    for a :class:`LogTrace`, the jobs that started, with the log's reasons ahead of SWF's in
    ``skipped`` so that records read = jobs + Σ skipped."""
    if not isinstance(trace, LogTrace):
        return from_swf(trace, machine, procs_per_unit=procs_per_unit)
    keep = trace.replayable()
    workload = from_swf(
        replace(trace, records=trace.records[keep]), machine, procs_per_unit=procs_per_unit
    )
    skipped = dict(trace.counts)
    skipped.update((k, v) for k, v in workload.skipped.items() if k not in LOG_REASONS)
    return replace(workload, skipped=skipped)


def records_read(trace: swf.SWFTrace) -> int:
    """Records of the trace's file: a log's records, or SWF's job lines with the malformed ones."""
    if isinstance(trace, LogTrace):
        return trace.records_read
    return len(trace) + len(trace.malformed)


def origin_path(target: Path) -> Path:
    """Where the origin file of a converted trace goes: ``out.swf`` → ``out.origin.csv``."""
    name = target.name
    for suffix in (".gz", ".swf", ".csv", ".jsonl", ".json"):
        name = name.removesuffix(suffix)
    return target.with_name(f"{name}.origin.csv")


def origin_csv(trace: LogTrace, numbers: set[int] | None = None) -> tuple[str, int]:
    """The origin rows (those of ``numbers``, else all) as CSV text (:data:`ORIGIN_COLUMNS`),
    and how many rows it holds."""
    rows = [o for o in trace.origin if numbers is None or o.job_number in numbers]
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    writer.writerow(ORIGIN_COLUMNS)
    for o in rows:
        j = o.job
        writer.writerow(
            [
                o.job_number,
                j.job_id,
                Path(j.where.file).name,
                j.where.line,
                j.state,
                _time(j.submit),
                _time(j.eligible),
                _time(j.start),
                _time(j.end),
                j.location,
            ]
        )
    return buffer.getvalue(), len(rows)


def _time(value: float | None) -> str:
    if value is None:
        return ""
    return str(int(value)) if float(value).is_integer() else repr(float(value))
