"""The job record every part of the engine shares.

A :class:`Job` is immutable. It is a ``NamedTuple`` rather than a frozen dataclass because the
engine builds one per arrival and a ``NamedTuple`` is four times cheaper to build (0.46 µs against
1.85 µs measured here), which matters for million-job runs.
"""

from collections.abc import Callable, Iterable
from functools import partial
from typing import NamedTuple


class Job(NamedTuple):
    """One job after normalization (DESIGN.md, "Workloads").

    ``index`` is the job's position in the run's job table, in (submit time, job number) order;
    the engine breaks ties between simultaneous events by it, which is the same as by job number.
    ``size`` is in machine nodes (trace processors divided by the machine's ``procs_per_unit``,
    rounded up); ``estimate`` is the requested time, or the runtime when none was requested.
    ``shape`` is the requested box on a mesh or torus, when the workload or the size-to-shape
    conversion gives one.
    """

    index: int
    job_id: int
    submit: float
    runtime: float
    estimate: float
    size: int
    procs: int
    user: int = -1
    group: int = -1
    queue: int = -1
    partition: int = -1
    shape: tuple[int, ...] | None = None


new_job: Callable[[Iterable[object]], Job] = partial(tuple.__new__, Job)
"""A :class:`Job` from its fields in :class:`Job`'s field order, without the named tuple's
Python-level ``__new__`` (what ``Job._make`` does, without a Python call per job; the readers of
million-job workloads and the console's wire build one per job). ``tests/engine/test_records.py``
pins the field order it relies on."""

SCHEDULING_FIELDS = slice(0, 6)
"""The fields a job's start reads (``index, job_id, submit, runtime, estimate, size``, in
:class:`Job`'s order): one slice reads the six for the cost of four attribute reads (a named tuple's
field is a data descriptor, which Python 3.11 does not specialize). The test above pins them."""
