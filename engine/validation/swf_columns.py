"""The range of every SWF field and header number, and the per-column check that holds a trace's
records to them (one numpy pass per column, never a Python loop per job).

A data field must be finite and within its rule's range; a line with any field outside is malformed
(an error naming the file and line, or, with ``--lenient``, skipped and counted as
``malformed_line``). The ranges only exclude what no log means and what would break arithmetic
downstream: ``-1`` is SWF's "unknown" everywhere, times stay below :data:`MAX_SECONDS`, numbers that
become integers stay below 2^53. Processor counts have no upper bound here: a job asking more
processors than the machine has is skipped as ``larger_than_machine``
(:func:`meshsim.engine.workloads.workload.from_swf`), and a negative run time or size has its own
skip reason too, so those fields have no lower bound either."""

from __future__ import annotations

import numpy as np

from meshsim.engine.validation.formats import SWF_TRACE
from meshsim.engine.validation.rules import Rule, Section

MAX_SECONDS = 1e11
"""The largest time (seconds) a trace field or generator key may hold: about 3,000 years, far past
any log, and small enough that sums over millions of jobs and nodes stay exact to the second."""

MAX_INTEGER = float(1 << 53)
"""The largest identifier or count that stays an exact integer as a float."""

MAX_UNIX_TIME = MAX_SECONDS
"""The latest UnixStartTime: with every trace time below :data:`MAX_SECONDS` after it, a date stays
before the year 9999, the last a calendar can show."""


def _time(key: str, doc: str = "", *, unknown: bool = True) -> Rule:
    return Rule(key, "float", minimum=-1.0 if unknown else None, maximum=MAX_SECONDS, doc=doc)


def _ident(key: str, doc: str = "") -> Rule:
    return Rule(key, "float", minimum=-1.0, maximum=MAX_INTEGER, doc=doc)


COLUMNS = SWF_TRACE.add(
    Section(
        "job fields (in file order)",
        (
            _ident("job_number"),
            _time("submit_time", "seconds from the log's start"),
            _time("wait_time"),
            _time("run_time", "negative: skipped as runtime_negative", unknown=False),
            Rule("allocated_processors", "float", doc="size when no request is given"),
            _time("average_cpu_time"),
            Rule("used_memory", "float", minimum=-1.0),
            Rule(
                "requested_processors",
                "float",
                doc="the job's size when > 0; beyond the machine: skipped as larger_than_machine",
            ),
            _time("requested_time", "the estimate when > 0"),
            Rule("requested_memory", "float", minimum=-1.0),
            _ident("status"),
            _ident("user_id"),
            _ident("group_id"),
            _ident("executable_number"),
            _ident("queue_number"),
            _ident("partition_number"),
            _ident("preceding_job_number"),
            _time("think_time"),
        ),
        doc="18 whitespace-separated numbers per line; -1 means unknown; every field finite",
    )
)
HEADER = SWF_TRACE.add(
    Section(
        "header numbers",
        (
            Rule("MaxJobs", "float", minimum=-1, maximum=MAX_INTEGER),
            Rule("MaxRecords", "float", minimum=-1, maximum=MAX_INTEGER),
            Rule("MaxNodes", "float", minimum=-1, maximum=MAX_INTEGER),
            Rule("MaxProcs", "float", minimum=-1, maximum=MAX_INTEGER),
            Rule("UnixStartTime", "float", minimum=0, maximum=MAX_UNIX_TIME),
            Rule("TimeZoneString", "str", doc="an IANA time zone, e.g. America/Chicago"),
        ),
        doc="`; Key: value` comments before the first job; a number that is missing, not finite "
        "or out of its range, or an unknown time zone, makes the line malformed (other keys are "
        "kept as text)",
        open=True,
    )
)

_LOW = np.array([-np.inf if r.minimum is None else r.minimum for r in COLUMNS.rules])
_HIGH = np.array([np.inf if r.maximum is None else r.maximum for r in COLUMNS.rules])


def bad_rows(records: np.ndarray) -> np.ndarray:
    """A boolean mask of the rows (n × 18 records) with a field that is not finite or out of its
    range: each column against its own bounds, in one vectorized pass."""
    inside = (records >= _LOW) & (records <= _HIGH) & np.isfinite(records)
    return ~inside.all(axis=1)


def header_problem(key: str, text: str) -> str | None:
    """What is wrong with the value of header ``key`` (one of :data:`HEADER`'s), or None. An empty
    value is the key's absence."""
    if not text.strip():
        return None
    if key == "TimeZoneString":
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        try:
            ZoneInfo(text.strip())
        except (ZoneInfoNotFoundError, ValueError):
            return f"{key}: unknown time zone {text.strip()!r}"
        return None
    words = text.split()
    try:
        value = float(words[0]) if words and "_" not in words[0] else None
    except ValueError:
        value = None
    if value is None:
        return f"{key}: expected a number, got {text!r}"
    rule = HEADER.rule(key)
    if not (np.isfinite(value) and rule.minimum <= value <= rule.maximum):
        return f"{key}: {value!r} is not a number in [{rule.range_text()}]"
    return None


def row_problem(values: list[float]) -> str:
    """Why a row that :func:`bad_rows` flagged is malformed: its first bad field."""
    for k, (rule, value) in enumerate(zip(COLUMNS.rules, values, strict=True)):
        if not np.isfinite(value):
            return f"field {k + 1} ({rule.key}) is not a finite number: {value!r}"
        if not _LOW[k] <= value <= _HIGH[k]:
            return f"field {k + 1} ({rule.key}) is out of range [{rule.range_text()}]: {value!r}"
    raise ValueError("row_problem called on a valid row")
