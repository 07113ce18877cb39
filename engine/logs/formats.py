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
import importlib
import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.registry import Registry
from meshsim.engine.workloads import swf

if TYPE_CHECKING:
    from meshsim.engine.logs.options import LogOptions
    from meshsim.engine.logs.records import LogRead

SWF = "swf"
"""The name ``--from`` takes for the Standard Workload Format."""
SNIFF_BYTES = 1 << 16
"""How much of a file detection reads."""
SNIFF_LINES = 50
"""How many non-empty lines detection looks at."""


@dataclass(frozen=True)
class LogFormat:
    """A log format: its name, what it is, and its reader, the module
    ``meshsim.engine.logs.<module>`` with ``sniff(lines)`` (whether a file's first non-comment
    lines are of this format) and ``read(path, files, zone, lenient)``. Readers are imported when a
    log is read, so reading an SWF trace costs none of them."""

    name: str
    description: str
    module: str

    def reader(self) -> ModuleType:
        return importlib.import_module(f"meshsim.engine.logs.{self.module}")


LOG_FORMATS: Registry[LogFormat] = Registry("log format")
"""Every log format but SWF, by the name ``--from`` takes, in detection order."""

for _format in (
    LogFormat("sacct", "Slurm sacct --parsable2 output", "sacct"),
    LogFormat("jobcomp", "Slurm jobcomp/filetxt log", "jobcomp"),
    LogFormat("cobalt", "Cobalt accounting log", "cobalt"),
    LogFormat("pbs", "PBS Pro, OpenPBS or Torque accounting log", "pbs"),
):
    LOG_FORMATS.register(_format.name)(_format)


def format_names() -> list[str]:
    """Every name ``--from`` takes."""
    return [SWF, *LOG_FORMATS.names()]


def detect(path: Path) -> str:
    """The format of the log at ``path`` (a file, or a folder of files read in name order)."""
    from meshsim.engine.logs.values import log_files

    first = log_files(path)[0]
    lines, numbers = _head(first)
    if not lines:
        raise MeshsimError(f"{first}: is empty")
    if _looks_swf(lines[0]):
        return SWF
    for name in LOG_FORMATS.names():
        if LOG_FORMATS.get(name).reader().sniff(lines):
            return name
    valid = ", ".join(format_names())
    raise MeshsimError(
        f"{first} line {numbers[0]}: not a known trace or log format (SWF, Slurm sacct "
        f"--parsable2, Slurm jobcomp/filetxt, PBS or Cobalt accounting); name one with --from "
        f"({valid})"
    )


def read_log(path: Path, fmt: str, options: LogOptions) -> LogRead:
    """Read the log at ``path`` in format ``fmt`` (a :data:`LOG_FORMATS` name)."""
    from meshsim.engine.logs.values import log_files, zone

    reader = LOG_FORMATS.get(fmt).reader()
    read: LogRead = reader.read(path, log_files(path), zone(options.tz), options.lenient)
    return read


def _head(path: Path) -> tuple[list[str], list[int]]:
    """The first non-comment lines of a file and their numbers."""
    from meshsim.engine.logs.values import is_comment
    from meshsim.engine.validation.text import open_for_reading

    try:
        with open_for_reading(path) as fh:
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
