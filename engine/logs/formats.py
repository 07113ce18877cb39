"""The log formats meshsim reads, by the name ``--from`` takes, and how a file's format is told
from its content when ``--from`` is not given.

Detection looks at the first non-empty lines of the (first) file, in this order: SWF (a ``;``
header comment, or a line of 18 numbers), Slurm ``sacct --parsable2`` (a header of column names
with ``JobID``), Slurm ``jobcomp/filetxt`` (``JobId=... JobState=...``), then PBS-style accounting
records (``MM/DD/YYYY HH:MM:SS;TYPE;ID;...``): Cobalt when one of the first records has a type
only Cobalt writes (``QA``, ``TS``, ``TE``, ``HA``, ``HR``, ``YA``) or Cobalt's keys
(``Resource_List.nodect`` with ``mode``), else PBS. A file that is none of them is an error
naming its first line; ``--from`` names the format instead."""

from __future__ import annotations

import gzip
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import tzinfo
from pathlib import Path

from meshsim.engine import swf
from meshsim.engine.errors import MeshsimError
from meshsim.engine.logs import accounting, jobcomp, sacct
from meshsim.engine.logs.cobalt import Cobalt
from meshsim.engine.logs.pbs import Pbs
from meshsim.engine.logs.records import LogRead
from meshsim.engine.logs.values import ValueProblem, duration, is_comment, log_files, zone
from meshsim.engine.registry import Registry

SWF = "swf"
"""The name ``--from`` takes for the Standard Workload Format."""
SNIFF_BYTES = 1 << 16
"""How much of a file detection reads."""
SNIFF_LINES = 50
"""How many non-empty lines detection looks at."""


@dataclass(frozen=True)
class LogFormat:
    """A log format: its name, what it is, how to recognize its first lines, how to read it
    (``read(path, files, zone, lenient)``)."""

    name: str
    description: str
    sniff: Callable[[list[str]], bool]
    read: Callable[[Path, list[Path], tzinfo, bool], LogRead]


LOG_FORMATS: Registry[LogFormat] = Registry("log format")
"""Every log format but SWF, by the name ``--from`` takes, in detection order."""


def _cobalt_sniff(lines: list[str]) -> bool:
    if not accounting.sniff(lines):
        return False
    for line in lines:
        match = accounting.LINE.match(line)
        if match is None:
            continue
        if match.group(2) in {"QA", "TS", "TE", "HA", "HR", "YA"}:
            return True
        if "Resource_List.nodect=" in line and " mode=" in f" {match.group(4)}":
            return True
    return False


for _format in (
    LogFormat("sacct", "Slurm sacct --parsable2 output", sacct.sniff, sacct.read),
    LogFormat("jobcomp", "Slurm jobcomp/filetxt log", jobcomp.sniff, jobcomp.read),
    LogFormat("cobalt", "Cobalt accounting log", _cobalt_sniff, Cobalt().read),
    LogFormat("pbs", "PBS Pro, OpenPBS or Torque accounting log", accounting.sniff, Pbs().read),
):
    LOG_FORMATS.register(_format.name)(_format)


def format_names() -> list[str]:
    """Every name ``--from`` takes."""
    return [SWF, *LOG_FORMATS.names()]


@dataclass(frozen=True)
class LogOptions:
    """How to read a trace or log: its format (None: detect it), the zone of its local time stamps,
    the limits of partitions (queues) for jobs without a finite limit of their own
    (``--partition-limit``), and whether bad records are skipped and counted (``--lenient``)."""

    fmt: str | None = None
    tz: str = "UTC"
    partition_limit: str | None = None
    lenient: bool = False

    def limits(self) -> dict[str, float]:
        """``--partition-limit`` as seconds by partition name (``*`` for any partition):
        ``batch=1-00:00:00,debug=30`` (durations as ``[D-]HH:MM:SS``, ``MM:SS`` or minutes)."""
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


def detect(path: Path) -> str:
    """The format of the log at ``path`` (a file, or a folder of files read in name order)."""
    first = log_files(path)[0]
    lines, numbers = _head(first)
    if not lines:
        raise MeshsimError(f"{first}: is empty")
    if _looks_swf(lines[0]):
        return SWF
    for name in LOG_FORMATS.names():
        if LOG_FORMATS.get(name).sniff(lines):
            return name
    valid = ", ".join(format_names())
    raise MeshsimError(
        f"{first} line {numbers[0]}: not a known trace or log format (SWF, Slurm sacct "
        f"--parsable2, Slurm jobcomp/filetxt, PBS or Cobalt accounting); name one with --from "
        f"({valid})"
    )


def read_log(path: Path, fmt: str, options: LogOptions) -> LogRead:
    """Read the log at ``path`` in format ``fmt`` (a :data:`LOG_FORMATS` name)."""
    return LOG_FORMATS.get(fmt).read(path, log_files(path), zone(options.tz), options.lenient)


def _head(path: Path) -> tuple[list[str], list[int]]:
    """The first non-empty lines of a file and their numbers."""
    try:
        with path.open("rb") as fh:
            raw = fh.read(SNIFF_BYTES)
            if raw[:2] == b"\x1f\x8b":
                fh.seek(0)
                with gzip.open(fh) as unzipped:
                    raw = unzipped.read(SNIFF_BYTES)
    except (OSError, EOFError) as exc:
        raise MeshsimError(f"{path}: cannot read ({exc})") from None
    text = raw.decode("utf-8", errors="replace").splitlines()
    if len(raw) == SNIFF_BYTES:
        text = text[:-1]  # the last line read may be cut short
    lines, numbers = [], []
    for number, line in enumerate(text, start=1):
        if not is_comment(line):
            lines.append(line.strip())
            numbers.append(number)
        if len(lines) >= SNIFF_LINES:
            break
    return lines, numbers


_NUMBER = re.compile(r"^-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?$")


def _looks_swf(line: str) -> bool:
    if line.startswith(";"):
        return True
    parts = line.split()
    return len(parts) == len(swf.FIELDS) and all(_NUMBER.match(p) for p in parts)
