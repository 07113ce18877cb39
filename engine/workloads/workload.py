"""Workloads: the jobs of one run, as immutable numpy columns, plus what was skipped and why.

Normalization from SWF is stated once here and used everywhere (DESIGN.md, "Workloads"):

- size = requested processors (field 8) if > 0, else allocated processors (field 5); the machine
  size in nodes is ``ceil(processors / procs_per_unit)``;
- runtime = field 4, never truncated; estimate = requested time (field 9) if > 0, else the runtime;
- a job with size ≤ 0, runtime < 0, or more nodes than the machine has is skipped, and every skip is
  counted by reason (``size_not_positive``, ``runtime_negative``, ``larger_than_machine``;
  ``malformed_line`` for lines a lenient read dropped);
- jobs are ordered by (submit time, job number); gaps in job numbers are normal.

Transforms return new workloads: ``load_factor`` F divides the time since the first submit by F (t0
+ (submit − t0) / F), ``runtime_scale`` C multiplies runtimes and estimates by C."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.jobs import Job
from meshsim.engine.topology.machines import Machine
from meshsim.engine.validation.options import run_option_rule
from meshsim.engine.validation.rules import check_value
from meshsim.engine.validation.swf_columns import MAX_SECONDS
from meshsim.engine.workloads import swf
from meshsim.engine.workloads.tracecut import CutOutcome

SKIP_REASONS = ("malformed_line", "size_not_positive", "runtime_negative", "larger_than_machine")
"""Every reason a job can be skipped, in the order reports list them."""

_COLUMNS = (
    "job_id",
    "submit",
    "runtime",
    "estimate",
    "size",
    "procs",
    "user",
    "group",
    "queue",
    "partition",
)


@dataclass(frozen=True)
class QueueMapping:
    """The jobs of a trace's queue placed in a machine queue of another name: the trace's queue
    name, the machine's, the rule that chose it (``--queue-map`` or ``name rule``,
    :mod:`meshsim.engine.families.nqs.queue_map`) and how many jobs it moved."""

    trace_queue: str
    machine_queue: str
    rule: str
    jobs: int

    def as_dict(self) -> dict[str, str | int]:
        return {
            "trace_queue": self.trace_queue,
            "machine_queue": self.machine_queue,
            "rule": self.rule,
            "jobs": self.jobs,
        }


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    a.flags.writeable = False
    return a


@dataclass(frozen=True, eq=False)
class Workload:
    """The jobs of a run as read-only numpy columns, in (submit, job number) order.

    ``shapes`` (n × d, ``-1`` for none) holds requested boxes on meshes and tori when the workload
    gives them; ``records`` keeps the source SWF rows (n × 18) when there are any, so a simulated
    schedule can be written back as SWF; ``skipped`` counts dropped jobs by reason; ``attrs`` holds
    further per-job columns a generator provides for a runtime model (``iterations``, ``io_share``)
    or an imported log provides for the comparison with its recorded schedule (``eligible``: when
    the job became eligible to run, on the submit times' clock, :mod:`meshsim.engine.recorded`);
    ``queue_mapping`` lists the trace queues a machine adapter placed in machine queues of
    another name; ``cut`` says which records of the file were read when a job-count cut was given
    (:mod:`meshsim.engine.workloads.tracecut`).
    """

    name: str
    job_id: np.ndarray
    submit: np.ndarray
    runtime: np.ndarray
    estimate: np.ndarray
    size: np.ndarray
    procs: np.ndarray
    user: np.ndarray
    group: np.ndarray
    queue: np.ndarray
    partition: np.ndarray
    shapes: np.ndarray | None = None
    records: np.ndarray | None = None
    header: swf.SWFHeader | None = None
    skipped: Mapping[str, int] = field(default_factory=dict)
    transforms: tuple[str, ...] = ()
    attrs: Mapping[str, np.ndarray] = field(default_factory=dict)
    queue_mapping: tuple[QueueMapping, ...] = ()
    cut: CutOutcome | None = None

    def __post_init__(self) -> None:
        for name in (*_COLUMNS, "shapes", "records"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, _frozen(value))
        frozen = {k: _frozen(np.asarray(v)) for k, v in self.attrs.items()}
        object.__setattr__(self, "attrs", frozen)

    def __len__(self) -> int:
        return len(self.job_id)

    def job(self, index: int) -> Job:
        """The :class:`Job` at position ``index``."""
        shape = None
        if self.shapes is not None and self.shapes[index, 0] > 0:
            shape = tuple(int(v) for v in self.shapes[index] if v > 0)
        return Job(
            index,
            int(self.job_id[index]),
            float(self.submit[index]),
            float(self.runtime[index]),
            float(self.estimate[index]),
            int(self.size[index]),
            int(self.procs[index]),
            int(self.user[index]),
            int(self.group[index]),
            int(self.queue[index]),
            int(self.partition[index]),
            shape,
        )

    def jobs(self) -> list[Job]:
        """All jobs as records (convenient for tests and small workloads)."""
        cols = [getattr(self, c).tolist() for c in _COLUMNS]
        shapes = (
            [None] * len(self)
            if self.shapes is None
            else [tuple(v for v in row if v > 0) or None for row in self.shapes.tolist()]
        )
        return [Job(i, *values, shapes[i]) for i, values in enumerate(zip(*cols, strict=True))]

    @property
    def skipped_total(self) -> int:
        return sum(self.skipped.values())

    def scaled(self, *, load_factor: float = 1.0, runtime_scale: float = 1.0) -> Workload:
        """Arrivals compressed by ``load_factor``; runtimes and estimates × ``runtime_scale``. Both
        are held to their option's rule, and the times they give must stay within
        ±:data:`~meshsim.engine.validation.swf_columns.MAX_SECONDS`."""
        check_value(run_option_rule("load_factor"), load_factor, "--load-factor")
        check_value(run_option_rule("runtime_scale"), runtime_scale, "--runtime-scale")
        if load_factor == 1.0 and runtime_scale == 1.0:
            return self
        submit = self.submit
        if load_factor != 1.0 and len(submit):
            t0 = submit[0]
            submit = t0 + (submit - t0) / load_factor
        runtime = self.runtime * runtime_scale
        if len(submit):
            top = max(float(np.abs(submit).max()), float(runtime.max()))
            if top > MAX_SECONDS:
                raise MeshsimError(
                    f"--load-factor {load_factor:g} with --runtime-scale {runtime_scale:g} moves "
                    f"the workload's times to {top:g} s, past the limit of {MAX_SECONDS:g} s"
                )
        notes = []
        if load_factor != 1.0:
            notes.append(f"load factor {load_factor:g}")
        if runtime_scale != 1.0:
            notes.append(f"runtime scale {runtime_scale:g}")
        return replace(
            self,
            submit=submit,
            runtime=runtime,
            estimate=self.estimate * runtime_scale,
            transforms=(*self.transforms, *notes),
        )


def from_columns(
    name: str,
    *,
    submit: np.ndarray,
    runtime: np.ndarray,
    size: np.ndarray,
    estimate: np.ndarray | None = None,
    job_id: np.ndarray | None = None,
    user: np.ndarray | None = None,
    group: np.ndarray | None = None,
    queue: np.ndarray | None = None,
    shapes: np.ndarray | None = None,
    procs: np.ndarray | None = None,
    attrs: Mapping[str, np.ndarray] | None = None,
) -> Workload:
    """A workload from generated columns (synthetic workloads), sorted by (submit, job id)."""
    n = len(submit)
    ids = np.arange(1, n + 1) if job_id is None else np.asarray(job_id)
    unknown = np.full(n, -1, dtype=np.int64)
    order = np.lexsort((ids, submit))
    size = np.asarray(size, dtype=np.int64)

    def col(a: np.ndarray | None, default: np.ndarray, dtype: type) -> np.ndarray:
        return np.asarray(default if a is None else a, dtype=dtype)[order]

    return Workload(
        name=name,
        job_id=col(ids, ids, np.int64),
        submit=col(submit, submit, np.float64),
        runtime=col(runtime, runtime, np.float64),
        estimate=col(estimate, runtime, np.float64),
        size=col(size, size, np.int64),
        procs=col(procs, size, np.int64),
        user=col(user, unknown, np.int64),
        group=col(group, unknown, np.int64),
        queue=col(queue, unknown, np.int64),
        partition=col(None, unknown, np.int64),
        shapes=None if shapes is None else np.asarray(shapes, dtype=np.int64)[order],
        attrs={k: np.asarray(v)[order] for k, v in (attrs or {}).items()},
    )


def from_swf(
    trace: swf.SWFTrace, machine: Machine, *, procs_per_unit: int | None = None
) -> Workload:
    """Normalize a trace for ``machine`` (rules in the module docstring)."""
    r = trace.records
    ppu = procs_per_unit or machine.procs_per_unit
    procs = np.where(r[:, swf.REQ_PROCS] > 0, r[:, swf.REQ_PROCS], r[:, swf.ALLOC])
    runtime = r[:, swf.RUN]
    nodes = np.ceil(procs / ppu)  # compared as floats: a size of 1e23 never wraps as an integer
    too_small = procs <= 0
    negative = ~too_small & (runtime < 0)
    too_big = ~too_small & ~negative & (nodes > machine.nodes)
    keep = ~(too_small | negative | too_big)
    skipped = {  # same keys, same order as SKIP_REASONS
        "malformed_line": len(trace.malformed),
        "size_not_positive": int(too_small.sum()),
        "runtime_negative": int(negative.sum()),
        "larger_than_machine": int(too_big.sum()),
    }
    kept = r[keep]
    order = np.lexsort((kept[:, swf.JOB], kept[:, swf.SUBMIT]))
    kept = kept[order]
    runtime = kept[:, swf.RUN]
    estimate = np.where(kept[:, swf.REQ_TIME] > 0, kept[:, swf.REQ_TIME], runtime)
    return Workload(
        name=trace.path,
        job_id=kept[:, swf.JOB].astype(np.int64),
        submit=kept[:, swf.SUBMIT].copy(),
        runtime=runtime.copy(),
        estimate=estimate,
        size=nodes[keep][order].astype(np.int64),
        procs=procs[keep][order].astype(np.int64),
        user=kept[:, swf.USER].astype(np.int64),
        group=kept[:, swf.GROUP].astype(np.int64),
        queue=kept[:, swf.QUEUE].astype(np.int64),
        partition=kept[:, swf.PARTITION].astype(np.int64),
        records=kept,
        header=trace.header,
        skipped=skipped,
        cut=trace.cut,
    )
