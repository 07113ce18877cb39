"""Standard Workload Format (SWF) reading and writing (version 2.2, Parallel Workloads Archive).

A trace is header comments (lines starting with ``;``) followed by one line per job with 18
whitespace-separated numeric fields, ``-1`` for unknown (field list in
``../shared/reference/existing-simulators.md`` §4.1). Integer and float values are both accepted.
Files ending in ``.gz`` (or starting with the gzip magic bytes) are read directly.

Reading never drops data silently: a malformed line (wrong number of fields, a non-number, a number
that is not finite or out of its field's range, a header number out of range) is an error naming
the file and line, unless ``lenient`` is set, in which case the line is skipped and reported in
:attr:`SWFTrace.malformed`. The ranges are data (:mod:`meshsim.engine.validation.swf_columns`),
checked per column with numpy. A file is read under the input limit, a gzip stream decompressed
piece by piece under it (:mod:`meshsim.engine.validation.text`)."""

from __future__ import annotations

import gzip
import io
import re
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from meshsim.engine.core.errors import MeshsimError, where
from meshsim.engine.validation import swf_columns
from meshsim.engine.validation.text import read_bytes
from meshsim.engine.workloads.tracecut import CutOutcome, RecordCut, cut_swf_lines

FIELDS = (
    "job_number",
    "submit_time",
    "wait_time",
    "run_time",
    "allocated_processors",
    "average_cpu_time",
    "used_memory",
    "requested_processors",
    "requested_time",
    "requested_memory",
    "status",
    "user_id",
    "group_id",
    "executable_number",
    "queue_number",
    "partition_number",
    "preceding_job_number",
    "think_time",
)
"""The 18 SWF fields in file order (column k of :attr:`SWFTrace.records` is field k + 1)."""

JOB, SUBMIT, WAIT, RUN, ALLOC, CPU, MEM, REQ_PROCS, REQ_TIME, REQ_MEM = range(10)
STATUS, USER, GROUP, EXE, QUEUE, PARTITION, PRECEDING, THINK = range(10, 18)

_HEADER_LINE = re.compile(r"^\s*([A-Za-z][A-Za-z ]*?)\s*:\s*(.*?)\s*$")


@dataclass(frozen=True)
class SWFHeader:
    """Header comments, kept verbatim and parsed.

    ``lines`` holds every comment line of the header without its leading ``;`` so a written trace
    keeps them all. Continuation lines (a comment without ``Key:``) extend the previous key's value.
    ``queues`` and ``partitions`` map numbers to the names given by ``Queue:`` and ``Partition:``.
    """

    lines: tuple[str, ...] = ()
    values: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def get(self, key: str) -> str | None:
        """The first value of ``key`` (e.g. ``"MaxProcs"``), or None."""
        found = self.values.get(key)
        return found[0] if found else None

    def number(self, key: str) -> float | None:
        """The value of ``key`` as a number, or None when absent or not a number."""
        text = self.get(key)
        if text is None:
            return None
        try:
            return float(text.split()[0])
        except (ValueError, IndexError):
            return None

    @property
    def version(self) -> str | None:
        return self.get("Version")

    @property
    def computer(self) -> str | None:
        return self.get("Computer")

    @property
    def installation(self) -> str | None:
        return self.get("Installation")

    @property
    def max_jobs(self) -> int | None:
        return _int(self.number("MaxJobs"))

    @property
    def max_records(self) -> int | None:
        return _int(self.number("MaxRecords"))

    @property
    def max_nodes(self) -> int | None:
        return _int(self.number("MaxNodes"))

    @property
    def max_procs(self) -> int | None:
        return _int(self.number("MaxProcs"))

    @property
    def unix_start_time(self) -> int | None:
        return _int(self.number("UnixStartTime"))

    @property
    def time_zone_string(self) -> str | None:
        return self.get("TimeZoneString")

    @property
    def start_time(self) -> str | None:
        return self.get("StartTime")

    @property
    def end_time(self) -> str | None:
        return self.get("EndTime")

    @property
    def notes(self) -> tuple[str, ...]:
        return self.values.get("Note", ())

    @property
    def queues(self) -> dict[int, str]:
        return _numbered(self.values.get("Queue", ()))

    @property
    def partitions(self) -> dict[int, str]:
        return _numbered(self.values.get("Partition", ()))


@dataclass(frozen=True)
class Malformed:
    """A data line the lenient reader skipped, and why."""

    line: int
    reason: str


@dataclass(frozen=True, eq=False)
class SWFTrace:
    """A parsed trace: its header, an (n, 18) float array of records, and skipped lines; ``cut``
    says which records were read when a job-count cut was given
    (:mod:`meshsim.engine.workloads.tracecut`)."""

    path: str
    header: SWFHeader
    records: np.ndarray
    malformed: tuple[Malformed, ...] = ()
    cut: CutOutcome | None = None

    def __len__(self) -> int:
        return len(self.records)


def read_swf(path: str | Path, *, lenient: bool = False, cut: RecordCut | None = None) -> SWFTrace:
    """Read an SWF trace (plain or gzip). Errors name the file and the line.

    The common case (every line well formed) is parsed by numpy's C reader in one call and its
    ranges checked per column; only when a line fails are the lines numbered, to name the first bad
    line (or, when ``lenient``, to skip and report every bad line). With a ``cut``, only the
    records in it are read (:mod:`meshsim.engine.workloads.tracecut`; the header is read whole)."""
    path = Path(path)
    text = _read_text(path)
    lines = text.split("\n")
    entries: list[tuple[int, str]] = []
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if stripped and not stripped.startswith(";"):
            break
        if stripped:
            entries.append((number, stripped[1:].rstrip()))
    bad_header = _header_problems(entries)
    _refuse_or_keep(path, bad_header, lenient=lenient)
    skip = {m.line for m in bad_header}
    header = parse_header([line for number, line in entries if number not in skip])
    outcome = None
    if cut is not None and cut.given:
        lines, outcome = cut_swf_lines(lines, cut, str(path))
        text = "\n".join(lines)
    records = _fast_records(text)
    if records is None:
        records, numbers, malformed = _checked_records(path, text, lenient)
    else:
        numbers, malformed = None, []
    bad = swf_columns.bad_rows(records)
    if bad.any():
        out_of_range = _out_of_range(records, numbers or _data_line_numbers(text))
        _refuse_or_keep(path, out_of_range, lenient=lenient)
        malformed += out_of_range
        records = records[~bad]
    malformed = sorted([*bad_header, *malformed], key=lambda m: m.line)
    if len(records) == 0:
        if malformed:
            raise MeshsimError(f"{path}: no well-formed job records ({len(malformed)} malformed)")
        what = "is empty" if not entries else "has a header but no job records"
        raise MeshsimError(f"{path}: {what}")
    return SWFTrace(str(path), header, records, tuple(malformed), outcome)


def _header_problems(entries: Sequence[tuple[int, str]]) -> list[Malformed]:
    """The header lines whose value breaks its rule (:data:`swf_columns.HEADER`)."""
    problems = []
    checked = swf_columns.HEADER.key_list()
    for number, raw in entries:
        indent = len(raw) - len(raw.lstrip())
        match = _HEADER_LINE.match(raw) if indent <= 1 else None
        if match and match.group(1) in checked:
            problem = swf_columns.header_problem(match.group(1), match.group(2))
            if problem is not None:
                problems.append(Malformed(number, problem))
    return problems


def _refuse_or_keep(path: Path, malformed: Sequence[Malformed], *, lenient: bool) -> None:
    """Without ``lenient``, the first malformed line is an error naming the file and the line."""
    if malformed and not lenient:
        first = min(malformed, key=lambda m: m.line)
        raise MeshsimError(f"{where(str(path), line=first.line)}: {first.reason}")


def _data_line_numbers(text: str) -> list[int]:
    """The line number of every data line, in order (lines numbered as ``read_swf`` numbers them;
    only computed when a record must be named)."""
    return [
        number
        for number, line in enumerate(text.split("\n"), start=1)
        if line.split(";", 1)[0].strip()
    ]


def parse_header(lines: Sequence[str]) -> SWFHeader:
    """Parse ``Key: value`` header comments.

    A key line has at most one space after the ``;``; a more deeply indented comment continues the
    previous key's value (the archive's multi-line ``Note:`` and ``Information:`` entries)."""
    values: dict[str, list[str]] = {}
    last: str | None = None
    for raw in lines:
        indent = len(raw) - len(raw.lstrip())
        match = _HEADER_LINE.match(raw) if indent <= 1 else None
        if match:
            last = match.group(1)
            values.setdefault(last, []).append(match.group(2))
        elif last is not None and raw.strip():
            values[last][-1] = f"{values[last][-1]} {raw.strip()}".strip()
    return SWFHeader(tuple(lines), {k: tuple(v) for k, v in values.items()})


def swf_text(
    records: np.ndarray, header: SWFHeader | None = None, *, notes: Iterable[str] = ()
) -> str:
    """Records as SWF text, keeping ``header``'s lines and adding ``notes`` as ``Note:`` lines.

    Integral values are written as integers, others with the shortest exact representation, so
    reading the file back gives the same numbers."""
    out = io.StringIO()
    for line in header.lines if header else ():
        out.write(f";{line}\n")
    for note in notes:
        out.write(f"; Note: {note}\n")
    for row in records.tolist():
        out.write(" ".join(_format(v) for v in row))
        out.write("\n")
    return out.getvalue()


def swf_bytes(path: Path, text: str) -> bytes:
    """The bytes of an SWF file at ``path``: gzip-compressed for a ``.gz`` name (with no time
    stamp or file name in the gzip header, so the same trace gives the same bytes). Text is
    written as Latin-1, the encoding it is read with, unless it holds other characters (a machine
    name in a note), then as UTF-8."""
    try:
        data = text.encode("latin-1")
    except UnicodeEncodeError:
        data = text.encode("utf-8")
    return gzip.compress(data, mtime=0) if Path(path).suffix == ".gz" else data


def write_swf(
    path: str | Path,
    records: np.ndarray,
    header: SWFHeader | None = None,
    *,
    notes: Iterable[str] = (),
) -> None:
    """Write records as SWF (:func:`swf_text`); a ``.gz`` path is compressed."""
    from meshsim.engine.writing import write_file

    write_file(Path(path), swf_bytes(Path(path), swf_text(records, header, notes=notes)))


def _read_text(path: Path) -> str:
    raw = read_bytes(path)
    try:
        return raw.decode("ascii")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _fast_records(text: str) -> np.ndarray | None:
    """All records with numpy's C parser, or None when any line is not a clean 18-field row."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            records = np.loadtxt(io.StringIO(text), comments=";", ndmin=2, dtype=np.float64)
    except ValueError:
        return None
    if records.size and records.shape[1] != 18:
        return None
    return records.reshape(-1, 18)


def _checked_records(
    path: Path, text: str, lenient: bool
) -> tuple[np.ndarray, list[int], list[Malformed]]:
    """Check every data line's shape and numbers; raise on the first bad one, or skip and report
    when lenient. Returns the records, the line number of each, and the skipped lines."""
    rows: list[list[str]] = []
    numbers: list[int] = []
    malformed: list[Malformed] = []
    for number, line in enumerate(text.split("\n"), start=1):
        parts = line.split(";", 1)[0].split()
        if not parts:
            continue
        reason = _row_problem(parts)
        if reason is None:
            rows.append(parts)
            numbers.append(number)
        elif lenient:
            malformed.append(Malformed(number, reason))
        else:  # a record before this line may be out of range: the first bad line is named
            _refuse_or_keep(path, _out_of_range(_as_records(rows), numbers), lenient=False)
            raise MeshsimError(f"{where(str(path), line=number)}: {reason}")
    return _as_records(rows), numbers, malformed


def _as_records(rows: list[list[str]]) -> np.ndarray:
    return np.array(rows, dtype=np.float64).reshape(len(rows), 18)


def _out_of_range(records: np.ndarray, numbers: Sequence[int]) -> list[Malformed]:
    """The records with a field outside its rule, checked per column
    (:func:`swf_columns.bad_rows`), as malformed lines."""
    bad = swf_columns.bad_rows(records)
    return [
        Malformed(numbers[i], swf_columns.row_problem(records[i].tolist()))
        for i in np.flatnonzero(bad).tolist()
    ]


def _row_problem(parts: list[str]) -> str | None:
    """Why a split data line is not a valid SWF record, or None when it is."""
    if len(parts) != 18:
        return f"expected 18 fields, got {len(parts)}"
    for k, text in enumerate(parts):
        if not _is_number(text):
            return f"field {k + 1} ({FIELDS[k]}) is not a number: {text!r}"
    return None


def _is_number(text: str) -> bool:
    if "_" in text:
        return False
    try:
        float(text)
    except ValueError:
        return False
    return True


def _format(value: float) -> str:
    return str(int(value)) if value.is_integer() else repr(value)


def _int(value: float | None) -> int | None:
    return None if value is None else int(value)


def _numbered(entries: Iterable[str]) -> dict[int, str]:
    out: dict[int, str] = {}
    for entry in entries:
        head, _, rest = entry.strip().partition(" ")
        if head.lstrip("-").isdigit():
            out[int(head)] = rest.strip()
    return out
