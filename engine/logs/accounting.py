"""PBS-style accounting records, the syntax PBS Pro, OpenPBS, Torque and Cobalt share, and the life
of a job through them (PBS Professional Administrator's Guide, "Accounting"; Torque
Administrator's Guide, "Accounting records"; Cobalt ``src/lib/accounting.py``).

A record is ``MM/DD/YYYY HH:MM:SS;TYPE;ID;key=value key=value ...``: a local time stamp (read in
``--tz``), a record type, a job (or reservation) id and a message. A job's records are ``Q``
(queued), ``S`` (started), ``E`` (ended: ``ctime``, ``qtime``, ``etime``, ``start``, ``end`` in
epoch seconds, ``exec_host``, ``Resource_List.*``, ``resources_used.*``, ``Exit_status``), ``D``
(deleted on request), ``A`` (aborted by the server) and ``R`` (rerun: the run ends and the job is
queued again); a rerun job has several ``S`` … ``E``/``R`` runs.

What each job's records become (:func:`collect`):

- every run (an ``E``, or an ``R`` after an ``S``) is a job replayed for the time it ran, from its
  ``start`` to its ``end`` (else the ``S`` and ``E``/``R`` stamps); status 5 when a ``D`` came
  during the run (cancelled while running), 0 when an ``R`` ended it or the format's evidence says
  the limit ended it, else 1 for ``Exit_status=0`` and 0 for any other;
- a job with no run but a ``D`` was cancelled before it started (status 5, never replayed); with no
  run but an ``A``, it never started (status 0);
- a job whose last record is a ``Q`` or an ``S`` with no end had not finished when the log ends;
- every other record of the job is ``record_folded``, and records of types the format does not use
  for jobs are ``record_type_unused``.

Submit time is ``ctime`` (else the first ``Q`` stamp, else the job's first record); eligible time is
``etime``. Each format says how it counts processors and where a job ran (:class:`Accounting`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import tzinfo
from pathlib import Path

from meshsim.engine.logs.records import CANCELLED, COMPLETED, FAILED, LogJob, LogRead, Tally, Where
from meshsim.engine.logs.values import duration, epoch, message, record_lines, stamp

STAMP = "%m/%d/%Y %H:%M:%S"
LINE = re.compile(r"^(\d\d/\d\d/\d{4} \d\d:\d\d:\d\d);([A-Za-z]{1,2});([^;]*);(.*)$")
"""A record: stamp, type, id, message."""
TIMED = frozenset({"S", "E"})
"""Record types whose message must be ``key=value`` pairs: they carry a job's times."""


@dataclass(frozen=True)
class Record:
    """One accounting record."""

    where: Where
    stamp: float
    kind: str
    job_id: str
    fields: dict[str, str] = field(default_factory=dict)


class Accounting:
    """A PBS-style format: which record types are about jobs and how to read processors, location,
    group and the machine's name from a job's fields. Subclasses state their format's rules."""

    name = ""
    job_kinds: frozenset[str] = frozenset({"Q", "S", "E", "D", "A", "R"})
    partitions = False
    """Whether locations are partition names a replay can place jobs on."""

    def processors(self, fields: dict[str, str]) -> tuple[int, int]:
        """(requested, allocated) processors, −1 when unknown."""
        raise NotImplementedError

    def location(self, fields: dict[str, str]) -> str:
        return fields.get("exec_host", "")

    def group(self, fields: dict[str, str]) -> str:
        return fields.get("group", "")

    def computer(self, record: Record) -> str | None:
        return None

    def timed_out(self, kinds: list[str]) -> bool:
        """Whether the records of a run (their types, in order) show the limit ended it."""
        return False

    def read(self, path: Path, files: list[Path], zone: tzinfo, lenient: bool) -> LogRead:
        tally = Tally(lenient)
        parsed = records(files, zone, tally)
        computer = next((c for r in parsed if (c := self.computer(r))), None)
        collect(parsed, self, tally)
        return tally.result(str(path), self.name, computer=computer, partitions=self.partitions)


def sniff(lines: list[str]) -> bool:
    """Whether the first line is an accounting record."""
    return bool(lines) and LINE.match(lines[0]) is not None


def records(files: list[Path], zone: tzinfo, tally: Tally) -> list[Record]:
    """Every record of the files, in order; unreadable ones go to ``tally`` as bad records."""
    out = []
    for where, line in record_lines(files):
        tally.records += 1
        match = LINE.match(line.strip())
        if match is None:
            tally.bad(where, "expected MM/DD/YYYY HH:MM:SS;TYPE;ID;key=value ...")
            continue
        kind = match.group(2)
        try:
            when = stamp(match.group(1), STAMP, zone)
        except ValueError as exc:
            tally.bad(where, str(exc))
            continue
        try:
            fields = message(match.group(4))
        except ValueError as exc:
            if kind in TIMED:
                tally.bad(where, str(exc))
                continue
            fields = {}  # a message in words (PBS's A and L records): nothing to read
        assert when is not None  # the pattern matched a full stamp
        out.append(Record(where, when, kind, match.group(3).strip(), fields))
    return out


def collect(parsed: list[Record], fmt: Accounting, tally: Tally) -> None:
    """Turn the records into jobs and skipped records (rules in the module docstring)."""
    by_job: dict[str, list[Record]] = {}
    for r in parsed:
        if r.kind not in fmt.job_kinds or not r.job_id:
            tally.skip(r.where, r.job_id, "record_type_unused", f"record type {r.kind}")
        else:
            by_job.setdefault(r.job_id, []).append(r)
    for job_id, recs in by_job.items():
        own = Tally(lenient=False)
        try:
            _one_job(job_id, recs, fmt, own)
        except ValueError as exc:
            tally.bad(recs[-1].where, f"job {job_id}: {exc}")
            for r in recs[:-1]:
                tally.skip(r.where, job_id, "record_folded", f"{r.kind} record of a malformed job")
            continue
        tally.jobs += own.jobs
        tally.skipped += own.skipped


def _one_job(job_id: str, recs: list[Record], fmt: Accounting, tally: Tally) -> None:
    """One job's records into ``tally``; a ValueError leaves it for the caller to discard."""
    defining: set[int] = set()
    run: list[Record] = []
    queued = [r for r in recs if r.kind == "Q"]
    for r in recs:
        run.append(r)
        if r.kind == "E" or (r.kind == "R" and any(x.kind == "S" for x in run)):
            tally.job(_job(job_id, recs, queued, run, fmt))
            defining.add(id(r))
            run = []
    kinds = [r.kind for r in run]
    if not defining and ("D" in kinds or "A" in kinds):
        tally.job(_job(job_id, recs, queued, run, fmt))
        defining.add(id(next(r for r in reversed(run) if r.kind in ("D", "A"))))
    elif run and (not defining or "S" in kinds or "Q" in kinds):
        state = "running" if "S" in kinds else "queued"
        tally.skip(run[-1].where, job_id, "not_finished", f"{state} when the log ends")
        defining.add(id(run[-1]))
    for r in recs:
        if id(r) not in defining:
            tally.skip(r.where, job_id, "record_folded", f"{r.kind} record of job {job_id}")


def _merged(records: list[Record]) -> dict[str, str]:
    fields: dict[str, str] = {}
    for r in records:
        fields.update(r.fields)
    return fields


def _job(
    job_id: str, recs: list[Record], queued: list[Record], run: list[Record], fmt: Accounting
) -> LogJob:
    """The job of one run: its records up to the ``E`` or ``R`` that ends it, or, for a job that
    never ran, up to its last ``D`` or ``A``."""
    last = next(r for r in reversed(run) if r.kind in ("E", "R", "D", "A"))
    kinds = [r.kind for r in run]
    fields = _merged([*queued, *run])
    started = next((r for r in reversed(run) if r.kind == "S"), None)
    start = epoch(fields.get("start"))
    if start is None and started is not None:
        start = started.stamp
    created = epoch(fields.get("ctime"))
    requested, allocated = fmt.processors(fields)
    exit_status = fields.get("Exit_status", "")
    if start is None:
        status = CANCELLED if "D" in kinds else FAILED
        how = {"D": "deleted", "A": "aborted"}.get(last.kind, "ended")
        state = f"{last.kind} ({how} before it started)"
        end: float | None = last.stamp
    else:
        end = epoch(last.fields.get("end")) or last.stamp
        if last.kind == "R":
            status, state = FAILED, "R (rerun)"
        elif "D" in kinds:
            status, state = (
                CANCELLED,
                f"E after D (deleted while running), Exit_status={exit_status}",
            )
        elif fmt.timed_out(kinds):
            status, state = FAILED, f"E after A (limit reached), Exit_status={exit_status}"
        else:
            status = COMPLETED if exit_status.strip() == "0" else FAILED
            state = f"E Exit_status={exit_status or '?'}"
    return LogJob(
        where=last.where,
        job_id=job_id,
        submit=created if created is not None else (queued or recs)[0].stamp,
        eligible=epoch(fields.get("etime")),
        start=start,
        end=end,
        run_time=None if start is None or end is None else max(end - start, 0.0),
        requested=requested,
        allocated=allocated if start is not None else -1,
        requested_time=duration(fields.get("Resource_List.walltime", "")),
        status=status,
        state=state,
        user=fields.get("user", ""),
        group=fmt.group(fields),
        queue=fields.get("queue", ""),
        location=fmt.location(fields) if start is not None else "",
    )
