"""Slurm ``sacct --parsable2`` (or ``--parsable``) output: a header line of column names, then one
line per job, step, array task or heterogeneous component (sacct(1), Slurm 22.05).

Columns are found by name in the header, in any order, with any ``--delimiter``, so
``--format=ALL`` works as well as a short ``--format``. Needed: ``JobID``, ``State``, ``Submit``,
``Start``, ``End``, ``NodeList`` (the evidence that a job started) and the processors
(``AllocCPUS``, ``NCPUS`` or the ``cpu=`` of ``AllocTRES``). Used when present: ``Eligible``,
``ElapsedRaw`` or ``Elapsed``, ``TimelimitRaw`` or ``Timelimit``, ``Partition``, ``User`` or
``UID``, ``Group`` or ``GID``, ``Cluster``.

- Steps (``123.batch``, ``123.extern``, ``123.0``) are ``job_step`` records: the job line holds the
  job's times and processors.
- Array tasks (``123_4``) are jobs of their own; a line of pending tasks (``123_[5-9]``) is
  ``not_finished``.
- Heterogeneous components (``123+0``, ``123+1``) fold into one job
  (:class:`~meshsim.engine.logs.slurm.HetGroups`).
- With ``--duplicates`` every run of a requeued job is a line (the earlier ones ``REQUEUED``, or
  the state that ended them): each run that started is replayed for the time it ran.
- Processors: ``AllocCPUS``, the CPUs Slurm allocated, both as requested and as allocated
  processors; a job that asked for whole nodes (``--exclusive``, ``-N`` without ``-n``) holds all
  their CPUs, and a replay must hold as many. For a job that never started Slurm shows the CPUs it
  asked for.
- Run time: ``ElapsedRaw`` (else ``Elapsed``, else End − Start), the time the job ran, suspended
  time excluded; for ``TIMEOUT`` it is past the limit, since Slurm ends such jobs late.
- Limits: ``TimelimitRaw`` in minutes, or ``Timelimit`` as ``[D-]HH:MM:SS``; ``UNLIMITED`` and
  ``Partition_Limit`` are no limit of the job's own."""

from __future__ import annotations

import re
from datetime import tzinfo
from pathlib import Path

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.logs import slurm
from meshsim.engine.logs.records import LogJob, LogRead, Tally, Where
from meshsim.engine.logs.values import ValueProblem, count, duration, record_lines, stamp

NEEDED = ("JobID", "State", "Submit", "Start", "End", "NodeList")
"""Columns a dump must have (besides one processor column)."""
SUGGESTED = (
    "sacct --allusers --duplicates --parsable2 --format=JobID,State,Submit,Eligible,Start,End,"
    "ElapsedRaw,AllocCPUS,TimelimitRaw,Partition,User,Group,NodeList,Cluster"
)
"""The command whose output holds every column the reader uses."""

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_FIRST = re.compile(r"^([A-Za-z][A-Za-z0-9]*)([^A-Za-z0-9]+)")


def header(line: str) -> tuple[str, list[str]] | None:
    """The delimiter and column names of a sacct header line, or None when ``line`` is not one
    (names are letters and digits; ``JobID`` or ``JobIDRaw`` must be among them)."""
    match = _FIRST.match(line.strip())
    if match is None:
        return None
    delimiter = match.group(2)
    names = line.strip().split(delimiter)
    if names and names[-1] == "":  # --parsable ends every line with the delimiter
        names.pop()
    if not all(_NAME.fullmatch(n) for n in names):
        return None
    if not {"jobid", "jobidraw"} & {n.lower() for n in names}:
        return None
    return delimiter, names


def sniff(lines: list[str]) -> bool:
    """Whether the first non-empty line of a file is a sacct header."""
    return bool(lines) and header(lines[0]) is not None


def read(path: Path, files: list[Path], zone: tzinfo, lenient: bool) -> LogRead:
    """Read a sacct dump (one file)."""
    tally = Tally(lenient)
    hets = slurm.HetGroups()
    computer: str | None = None
    for file in files:
        columns: dict[str, int] | None = None
        delimiter = ""
        trailing = False
        for where, line in record_lines([file]):
            if columns is None:
                found = header(line)
                if found is None:
                    raise MeshsimError(
                        f"{where}: expected sacct's header line of column names (run sacct "
                        "without --noheader)"
                    )
                delimiter, names = found
                trailing = line.rstrip().endswith(delimiter)
                columns = {n.lower(): i for i, n in enumerate(names)}
                _check_columns(where, columns)
                continue
            tally.records += 1
            parts = line.rstrip("\r\n").split(delimiter)
            if trailing and parts and parts[-1] == "":
                parts.pop()
            if len(parts) != len(columns):
                tally.bad(
                    where,
                    f"{len(parts)} fields, the header has {len(columns)} (does a name or "
                    "command hold the delimiter? give sacct another --delimiter)",
                )
                continue
            row = {name: parts[i] for name, i in columns.items()}
            computer = computer or row.get("cluster") or None
            try:
                _record(row, where, zone, tally, hets)
            except ValueError as exc:
                tally.bad(where, str(exc))
        if columns is None:
            raise MeshsimError(f"{file}: is empty")
    hets.fold(tally)
    return tally.result(str(path), "sacct", computer=computer)


def _check_columns(where: Where, columns: dict[str, int]) -> None:
    missing = [n for n in NEEDED if n.lower() not in columns]
    if not {"alloccpus", "ncpus", "alloctres"} & set(columns):
        missing.append("AllocCPUS")
    if missing:
        raise MeshsimError(
            f"{where}: sacct output without the column{'s' if len(missing) > 1 else ''} "
            f"{', '.join(missing)}; dump it with: {SUGGESTED}"
        )


def _record(
    row: dict[str, str], where: Where, zone: tzinfo, tally: Tally, hets: slurm.HetGroups
) -> None:
    """One line: a step, an unfinished job, or a job (heterogeneous components collected)."""
    job_id = row["jobid"].strip()
    parts = slurm.JOB_ID.match(job_id)
    if parts is None:
        raise ValueProblem(f"not a Slurm job id: {job_id!r}")
    if parts["step"] is not None:
        tally.skip(where, job_id, "job_step", f"a step of job {job_id.split('.')[0]}")
        return
    state = slurm.base_state(row["state"])
    status = slurm.status_of(state)
    if status is None:
        tally.skip(where, job_id, "not_finished", state)
        return
    submit = stamp(row["submit"], slurm.STAMP, zone)
    if submit is None:
        raise ValueProblem(f"job {job_id} has no submit time")
    start = stamp(row["start"], slurm.STAMP, zone)
    started = start is not None and slurm.allocated_nodes(row["nodelist"])
    cpus = _cpus(row)
    job = LogJob(
        where=where,
        job_id=job_id,
        submit=submit,
        eligible=stamp(row["eligible"], slurm.STAMP, zone) if "eligible" in row else None,
        start=start if started else None,
        end=stamp(row["end"], slurm.STAMP, zone),
        run_time=_elapsed(row) if started else None,
        requested=cpus,
        allocated=cpus if started else -1,
        requested_time=_limit(row),
        status=status,
        state=row["state"].strip(),
        user=row.get("user") or row.get("uid") or "",
        group=row.get("group") or row.get("gid") or "",
        queue=row.get("partition", ""),
        location=row["nodelist"].strip() if started else "",
    )
    if parts["het"] is not None:
        hets.add(parts["job"], int(parts["het"]), job)
    else:
        tally.job(job)


def _cpus(row: dict[str, str]) -> int:
    for name in ("alloccpus", "ncpus"):
        value = count(row.get(name))
        if value is not None:
            return value
    for item in row.get("alloctres", "").split(","):
        key, _, value = item.partition("=")
        if key == "cpu":
            return count(value) or 0
    raise ValueProblem("no processor count (AllocCPUS, NCPUS or AllocTRES cpu=)")


def _elapsed(row: dict[str, str]) -> float | None:
    if row.get("elapsedraw", "").strip():
        return float(count(row["elapsedraw"]) or 0)
    if row.get("elapsed", "").strip():
        return duration(row["elapsed"])
    return None


def _limit(row: dict[str, str]) -> float | None:
    if "timelimitraw" in row:
        return duration(row["timelimitraw"], bare="minutes")
    if "timelimit" in row:
        return duration(row["timelimit"], bare="minutes")
    return None
