"""The value syntaxes the operators' logs share: durations, local time stamps, epoch numbers and
``key=value`` messages, and how a log's files are found and read.

Slurm writes durations as ``[D-]HH:MM:SS``, ``MM:SS`` or plain minutes (``TimelimitRaw``), with the
words ``UNLIMITED`` and ``Partition_Limit`` for "no limit of its own" (sacct(1), "Timelimit"); PBS
and Cobalt write walltimes as ``HH:MM:SS`` with hours past 24 (pbs_resources(7B)). Slurm stamps
(``2024-03-01T12:00:05``) and the stamps that open PBS and Cobalt records (``03/01/2024 12:00:05``)
are local times of the server with no zone: they are read in the zone ``--tz`` names (default UTC).
The ``ctime``/``qtime``/``etime``/``start``/``end`` values of PBS and Cobalt records are Unix epoch
seconds and need no zone. In every log format, lines starting with ``#`` are comments, not
records."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.logs.records import Where

NO_LIMIT = frozenset({"UNLIMITED", "PARTITION_LIMIT", "INFINITE"})
"""Words a log writes for a time limit that is not the job's own finite one."""
UNKNOWN = frozenset({"", "UNKNOWN", "NONE", "(NULL)", "N/A", "INVALID"})
"""Words a log writes for a value it does not have."""

_DURATION = re.compile(r"^(?:(\d+)-)?(\d+(?:\.\d+)?)(?::(\d+(?:\.\d+)?))?(?::(\d+(?:\.\d+)?))?$")
_KEY = re.compile(r"^[A-Za-z_][\w.]*=")


class ValueProblem(ValueError):
    """A value a reader cannot read; the reader adds the file and line."""


def zone(name: str) -> tzinfo:
    """The time zone ``name`` (an IANA name such as ``America/Chicago``, or ``UTC``)."""
    try:
        return ZoneInfo(name.strip())
    except (ZoneInfoNotFoundError, ValueError):
        raise MeshsimError(
            f"--tz '{name}': not a time zone (give an IANA name such as UTC or America/Chicago)"
        ) from None


def duration(text: str, *, bare: str = "seconds") -> float | None:
    """Seconds of a duration: ``[D-]HH:MM:SS``, ``MM:SS``, or a bare number of ``bare`` units
    (``"minutes"`` for Slurm limits, ``"seconds"`` elsewhere); None for a word in :data:`NO_LIMIT`
    or :data:`UNKNOWN`."""
    word = text.strip().upper()
    if word in NO_LIMIT or word in UNKNOWN:
        return None
    match = _DURATION.match(text.strip())
    if match is None:
        raise ValueProblem(f"not a duration: {text!r}")
    days, first, second, third = match.groups()
    if third is not None:
        seconds = float(first) * 3600 + float(second) * 60 + float(third)
    elif second is not None:
        seconds = float(first) * 60 + float(second)
    else:
        seconds = float(first) * (60 if bare == "minutes" else 1)
        if days is not None:
            raise ValueProblem(f"not a duration: {text!r}")
    return seconds + int(days or 0) * 86400


def stamp(text: str, fmt: str, where_zone: tzinfo) -> float | None:
    """Unix seconds of a local time stamp in ``fmt`` read in ``where_zone``; None for a word in
    :data:`UNKNOWN`."""
    if text.strip().upper() in UNKNOWN:
        return None
    try:
        local = datetime.strptime(text.strip(), fmt)
    except ValueError:
        raise ValueProblem(f"not a time stamp: {text!r}") from None
    return local.replace(tzinfo=where_zone).timestamp()


def epoch(text: str | None) -> float | None:
    """Unix seconds written as a number (PBS and Cobalt ``ctime``, ``start``, ...); None when
    absent or a word in :data:`UNKNOWN`."""
    if text is None or text.strip().upper() in UNKNOWN:
        return None
    try:
        return float(text)
    except ValueError:
        raise ValueProblem(f"not a time in epoch seconds: {text!r}") from None


def count(text: str | None) -> int | None:
    """A whole number such as a processor count; None when absent or unknown."""
    if text is None or text.strip().upper() in UNKNOWN:
        return None
    try:
        return int(float(text))
    except ValueError:
        raise ValueProblem(f"not a count: {text!r}") from None


def message(text: str) -> dict[str, str]:
    """The ``key=value`` pairs of a PBS or Cobalt record message. Values in double quotes may hold
    spaces (``\\"`` and ``\\\\`` escaped, as Cobalt writes them); an unquoted word without ``=``
    continues the previous value (a job name with a space)."""
    out: dict[str, str] = {}
    last: str | None = None
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i] == " ":
            i += 1
        if i >= n:
            break
        j = i
        while j < n and text[j] != " " and text[j] != "=":
            j += 1
        if j < n and text[j] == "=" and _KEY.match(text[i : j + 1]):
            key = text[i:j]
            value, i = _value(text, j + 1)
            out[key] = value
            last = key
            continue
        word, i = _value(text, i)
        if last is None:
            raise ValueProblem(f"expected key=value, got {word!r}")
        out[last] = f"{out[last]} {word}"
    return out


def _value(text: str, i: int) -> tuple[str, int]:
    """The value starting at ``i`` (quoted or up to the next space) and the index after it."""
    n = len(text)
    if i < n and text[i] == '"':
        chars: list[str] = []
        i += 1
        while i < n and text[i] != '"':
            if text[i] == "\\" and i + 1 < n:
                i += 1
            chars.append(text[i])
            i += 1
        if i >= n:
            raise ValueProblem("a quoted value has no closing quote")
        return "".join(chars), i + 1
    j = text.find(" ", i)
    j = n if j < 0 else j
    return text[i:j], j


def is_comment(line: str) -> bool:
    """Whether a log line holds no record: blank, or a comment starting with ``#`` (none of the
    formats writes one; they let a log say where it came from)."""
    text = line.lstrip()
    return not text or text.startswith("#")


def record_lines(files: list[Path]) -> Iterator[tuple[Where, str]]:
    """Every line of the files that may hold a record (comments and blank lines left out), with
    its place."""
    for file in files:
        for number, line in enumerate(log_text(file).splitlines(), start=1):
            if not is_comment(line):
                yield Where(str(file), number), line


def log_files(path: Path) -> list[Path]:
    """The files of a log: ``path`` itself, or the files of a folder (a PBS server's daily files)
    in name order, hidden files left out."""
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        if not files:
            raise MeshsimError(f"{path}: the folder holds no log files")
        return files
    if not path.exists():
        raise MeshsimError(f"{path}: no such file")
    return [path]


def log_text(path: Path) -> str:
    """A log file's text (gzip read directly; bytes that are not UTF-8 read as Latin-1), read as
    every input is (:func:`meshsim.engine.validation.text.read_bytes`: capped, and a FIFO nobody
    writes reads as empty)."""
    from meshsim.engine.validation.text import read_bytes

    raw = read_bytes(path)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")
