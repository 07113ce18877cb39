"""How a trace or log is read: the options ``run``, ``tui``, ``compare``, sweeps and ``trace`` share
(``--from``, ``--tz``, ``--partition-limit``, ``--lenient``; ``--first`` and ``--skip`` on all but
``trace``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.workloads.tracecut import RecordCut


@dataclass(frozen=True)
class LogOptions:
    """How to read a trace or log: its format (None: told from its content), the zone of its local
    time stamps, the limits of partitions (queues) for jobs without a finite limit of their own
    (``--partition-limit``), whether bad records are skipped and counted (``--lenient``), and which
    of its records are read (``--first``, ``--skip``: :mod:`meshsim.engine.workloads.tracecut`)."""

    fmt: str | None = None
    tz: str = "UTC"
    partition_limit: str | None = None
    lenient: bool = False
    cut: RecordCut = field(default_factory=RecordCut)

    def limits(self) -> dict[str, float]:
        """``--partition-limit`` as seconds by partition name (``*`` for any partition):
        ``batch=1-00:00:00,debug=30`` (durations as ``[D-]HH:MM:SS``, ``MM:SS`` or minutes)."""
        from meshsim.engine.logs.values import ValueProblem, duration

        out: dict[str, float] = {}
        for item in filter(None, (p.strip() for p in (self.partition_limit or "").split(","))):
            name, eq, value = item.partition("=")
            try:
                seconds = duration(value, bare="minutes") if eq and name.strip() else None
            except ValueProblem:
                seconds = None
            if seconds is None or seconds <= 0:
                raise MeshsimError(
                    f"--partition-limit '{item}': expected NAME=DURATION (a partition or *, and "
                    "[D-]HH:MM:SS, MM:SS or minutes)"
                )
            out[name.strip()] = seconds
        return out
