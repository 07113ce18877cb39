"""Slurm job-completion logs written by the ``jobcomp/filetxt`` plugin: one line per finished job,
``JobId=... UserId=name(uid) GroupId=name(gid) Name=... JobState=... Partition=... TimeLimit=...
StartTime=... EndTime=... NodeList=... NodeCnt=... ProcCnt=... ... SubmitTime=...
EligibleTime=...`` (Slurm 22.05; array tasks add ``ArrayJobId=``/``ArrayTaskId=``, components of a
heterogeneous job ``HetJobId=``/``HetJobOffset=``).

- Every line is a job that ended (the plugin writes none for pending or running jobs); an array
  task is a job of its own, shown as ``ArrayJobId_ArrayTaskId``; heterogeneous components fold into
  one job (:class:`~meshsim.engine.logs.slurm.HetGroups`). A job requeued while running gets a line
  for that run with the state the requeue left it in, ``PENDING``, its nodes and its times (seen on
  Slurm 22.05): that run is replayed for the time it ran, with status 0, like sacct's
  ``REQUEUED``.
- ``NodeList=(null)`` (no nodes allocated) marks a job that never started; its ``StartTime`` and
  ``EndTime`` are both the cancel time and say nothing.
- ``ProcCnt``, the CPUs allocated (for a job that never started, those it asked for), is both the
  requested and the allocated processors; ``TimeLimit`` is in minutes or ``UNLIMITED``; the run
  time is EndTime − StartTime (the plugin logs no elapsed time, so time a job spent suspended
  counts as run time)."""

from __future__ import annotations

import re
from datetime import tzinfo
from pathlib import Path

from meshsim.engine.logs import slurm
from meshsim.engine.logs.records import FAILED, LogJob, LogRead, Tally, Where
from meshsim.engine.logs.values import ValueProblem, count, duration, record_lines, stamp

NEEDED = ("JobId", "JobState", "StartTime", "EndTime", "NodeList", "ProcCnt", "SubmitTime")
"""Keys every line must have (SubmitTime since Slurm 17.11)."""

_PAIR = re.compile(r"(?:^|\s)([A-Za-z]+)=(.*?)(?=\s+[A-Za-z]+=|\s*$)")
_NAME_ID = re.compile(r"^(.*)\((\d+)\)$")


def sniff(lines: list[str]) -> bool:
    """Whether the first line is a jobcomp record."""
    return bool(lines) and lines[0].startswith("JobId=") and " JobState=" in lines[0]


def read(path: Path, files: list[Path], zone: tzinfo, lenient: bool) -> LogRead:
    """Read a job-completion log (one file, or several in name order)."""
    tally = Tally(lenient)
    hets = slurm.HetGroups()
    computer: str | None = None
    for where, line in record_lines(files):
        tally.records += 1
        pairs = dict(_PAIR.findall(line.strip()))
        cluster = pairs.get("Cluster", "")
        if cluster and cluster != "unknown":
            computer = computer or cluster
        try:
            _record(pairs, where, zone, tally, hets)
        except ValueError as exc:
            tally.bad(where, str(exc))
    hets.fold(tally)
    return tally.result(str(path), "jobcomp", computer=computer)


def _record(
    pairs: dict[str, str], where: Where, zone: tzinfo, tally: Tally, hets: slurm.HetGroups
) -> None:
    missing = [k for k in NEEDED if k not in pairs]
    if missing:
        raise ValueProblem(f"not a jobcomp record: no {', '.join(missing)}")
    job_id = pairs["JobId"]
    if pairs.get("ArrayJobId") and pairs.get("ArrayTaskId"):
        job_id = f"{pairs['ArrayJobId']}_{pairs['ArrayTaskId']}"
    het = pairs.get("HetJobId")
    if het and pairs.get("HetJobOffset", "").isdigit():
        job_id = f"{het}+{pairs['HetJobOffset']}"
    state = slurm.base_state(pairs["JobState"])
    text = pairs["JobState"]
    status = slurm.status_of(state)
    start = stamp(pairs["StartTime"], slurm.STAMP, zone)
    end = stamp(pairs["EndTime"], slurm.STAMP, zone)
    started = start is not None and slurm.allocated_nodes(pairs["NodeList"])
    if status is None and state == "PENDING" and started and end is not None:
        status, text = FAILED, "PENDING (a run ended by a requeue)"
    if status is None:
        tally.skip(where, job_id, "not_finished", state)
        return
    submit = stamp(pairs["SubmitTime"], slurm.STAMP, zone)
    if submit is None:
        raise ValueProblem(f"job {job_id} has no submit time")
    cpus = count(pairs["ProcCnt"]) or 0
    job = LogJob(
        where=where,
        job_id=job_id,
        submit=submit,
        eligible=stamp(pairs.get("EligibleTime", ""), slurm.STAMP, zone),
        start=start if started else None,
        end=end,
        run_time=end - start if started and end is not None and start is not None else None,
        requested=cpus,
        allocated=cpus if started else -1,
        requested_time=duration(pairs.get("TimeLimit", ""), bare="minutes"),
        status=status,
        state=text,
        user=_name(pairs.get("UserId", "")),
        group=_name(pairs.get("GroupId", "")),
        queue=pairs.get("Partition", ""),
        location=pairs["NodeList"] if started else "",
    )
    if het and pairs.get("HetJobOffset", "").isdigit():
        hets.add(het, int(pairs["HetJobOffset"]), job)
    else:
        tally.job(job)


def _name(text: str) -> str:
    """``alice(1000)`` → ``alice``."""
    match = _NAME_ID.match(text)
    return match.group(1) if match else text
