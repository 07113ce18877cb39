"""What Slurm's two logs share: job states, job ids, the evidence that a job started, and the
folding of heterogeneous job components (Slurm 22.05: sacct(1) "JOB STATE CODES", the
``jobcomp/filetxt`` plugin, slurm.schedmd.com/heterogeneous_jobs.html).

States: a finished job has an SWF status (``COMPLETED`` 1; ``CANCELLED`` 5, also ``CANCELLED by
UID``; every other end, ``FAILED``, ``TIMEOUT``, ``NODE_FAIL``, ``OUT_OF_MEMORY``, ``PREEMPTED``,
``BOOT_FAIL``, ``DEADLINE``, ``REQUEUED`` (an earlier run of a requeued job, listed with
``sacct --duplicates``), ``SPECIAL_EXIT``, 0). ``PENDING``, ``RUNNING`` and the other states of a
live job are not finished. A state that is neither is an error: it is never guessed.

A job started when Slurm allocated it nodes: its node list is a list of nodes, not ``None
assigned`` (sacct) or ``(null)`` (jobcomp). Start and end times cannot tell: Slurm writes the
cancel time as both for a job cancelled while pending."""

from __future__ import annotations

import re
from dataclasses import replace

from meshsim.engine.logs.records import CANCELLED, COMPLETED, FAILED, LogJob, Tally

STAMP = "%Y-%m-%dT%H:%M:%S"
"""Slurm's time stamps (local time of the controller)."""

FINISHED = {
    "COMPLETED": COMPLETED,
    "CANCELLED": CANCELLED,
    "REVOKED": CANCELLED,
    "FAILED": FAILED,
    "TIMEOUT": FAILED,
    "NODE_FAIL": FAILED,
    "OUT_OF_MEMORY": FAILED,
    "PREEMPTED": FAILED,
    "BOOT_FAIL": FAILED,
    "DEADLINE": FAILED,
    "REQUEUED": FAILED,
    "SPECIAL_EXIT": FAILED,
}
"""Finished states and their SWF status."""
UNFINISHED = frozenset(
    {
        "PENDING",
        "RUNNING",
        "SUSPENDED",
        "REQUEUE_HOLD",
        "REQUEUE_FED",
        "RESIZING",
        "STOPPED",
        "SIGNALING",
        "CONFIGURING",
        "COMPLETING",
        "STAGE_OUT",
        "RESV_DEL_HOLD",
        "POWER_UP_NODE",
        "UPDATE_DB",
    }
)
"""States of a job that has not ended."""
NO_NODES = frozenset({"", "NONE ASSIGNED", "(NULL)", "NONE"})
"""Node lists of a job that was never allocated nodes."""

JOB_ID = re.compile(
    r"^(?P<job>\d+)(?:_(?P<task>\d+|\[[^\]]*\]))?(?:\+(?P<het>\d+))?(?:\.(?P<step>.+))?$"
)
"""``123``, ``123_4`` (array task), ``123_[5-9%2]`` (pending tasks), ``123+1`` (heterogeneous
component), and any of them with ``.step`` (``.batch``, ``.extern``, ``.0``)."""


def base_state(text: str) -> str:
    """``CANCELLED by 1000`` → ``CANCELLED``."""
    return text.strip().split(" ", 1)[0].upper()


def status_of(state: str) -> int | None:
    """SWF status of a finished state, None for a job that has not ended; ValueError for a state
    Slurm does not have."""
    if state in FINISHED:
        return FINISHED[state]
    if state in UNFINISHED:
        return None
    raise ValueError(f"unknown job state {state!r}")


def allocated_nodes(node_list: str) -> bool:
    """Whether a node list shows nodes were allocated."""
    return node_list.strip().upper() not in NO_NODES


class HetGroups:
    """Collects the components of heterogeneous jobs (``123+0``, ``123+1``) and folds each job into
    one :class:`LogJob`: its processors summed, its start the first and its end and run time the
    last of the components', its limit the longest (unknown if any is), its state, status, user
    and queue those of component 0. A component number seen again starts a new run (a requeued
    job listed with ``sacct --duplicates``)."""

    def __init__(self) -> None:
        self._open: dict[str, dict[int, LogJob]] = {}
        self._done: list[dict[int, LogJob]] = []

    def add(self, job: str, component: int, record: LogJob) -> None:
        group = self._open.setdefault(job, {})
        if component in group:
            self._done.append(group)
            group = self._open[job] = {}
        group[component] = record

    def fold(self, tally: Tally) -> None:
        """Give ``tally`` one job per heterogeneous job and a ``het_component`` skip for every
        other component."""
        for group in [*self._done, *self._open.values()]:
            parts = [group[k] for k in sorted(group)]
            lead = parts[0]
            for other in parts[1:]:
                tally.skip(other.where, other.job_id, "het_component", f"folded into {lead.job_id}")
            if lead.started:
                starts = [p.start for p in parts if p.start is not None]
                ends = [p.end for p in parts if p.end is not None]
                runs = [p.run_time for p in parts if p.run_time is not None]
                lead = replace(
                    lead,
                    start=min(starts),
                    end=max(ends) if ends else None,
                    run_time=max(runs) if runs else None,
                )
            limits = [p.requested_time for p in parts]
            tally.job(
                replace(
                    lead,
                    requested=sum(max(p.requested, 0) for p in parts),
                    allocated=sum(max(p.allocated, 0) for p in parts) if lead.started else -1,
                    requested_time=None if None in limits else max(limits),  # type: ignore[type-var]
                    location=",".join(dict.fromkeys(p.location for p in parts if p.location)),
                )
            )
