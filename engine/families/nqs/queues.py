"""Mapping a trace's queue numbers to NQS queues, and enforcing queue limits (seed 004 §4).

A trace job's SWF queue number names its queue through the header's ``Queue: N name`` lines when the
name is one of the machine's queues; otherwise the number must be one of the machine's own queue
numbers (``[[nqs.queues]] number``). A job larger than its queue's node limit or longer than its
time limit is an error naming the job and the queue, unless ``requeue`` is set: then it moves to the
smallest queue of the same kind (batch or interactive) that admits it, preferring queues of the same
node group (smallest node limit, then time limit)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.families.nqs.config import NQSConfig, QueueSpec
from meshsim.engine.workloads.generators import ADAPTERS
from meshsim.engine.workloads.workload import Workload


@ADAPTERS.register("nqs")
def map_queues(workload: Workload, config: NQSConfig, *, requeue: bool = False) -> Workload:
    """``workload`` with every job's queue set to an NQS queue number that admits it."""
    by_name = config.queue_by_name()
    by_number = config.queue_by_number()
    header_names = workload.header.queues if workload.header is not None else {}
    translate: dict[int, QueueSpec] = {}
    for number in sorted(set(workload.queue.tolist())):
        name = header_names.get(number, "").split()[0] if header_names.get(number) else ""
        spec = by_name.get(name) or by_number.get(number)
        if spec is None:
            valid = ", ".join(f"{q.number} ({q.name})" for q in config.queues)
            shown = f" '{name}'" if name else ""
            raise MeshsimError(
                f"{workload.name}: queue {number}{shown} is not an NQS queue of this machine "
                f"(valid: {valid})"
            )
        translate[number] = spec
    queues = workload.queue.copy()
    moved = 0
    for i, (q, size, runtime, job_id) in enumerate(
        zip(
            workload.queue.tolist(),
            workload.size.tolist(),
            workload.runtime.tolist(),
            workload.job_id.tolist(),
            strict=True,
        )
    ):
        spec = translate[q]
        if size <= spec.max_nodes and runtime <= spec.time_limit_s:
            queues[i] = spec.number
            continue
        if not requeue:
            what = (
                f"{size} nodes exceed its {spec.max_nodes}"
                if size > spec.max_nodes
                else f"{runtime / 3600:.2f} h exceed its {spec.time_limit_s / 3600:g} h limit"
            )
            raise MeshsimError(
                f"{workload.name}: job {job_id} in queue {spec.name}: {what} "
                f"(use --requeue to move such jobs to a queue that admits them)"
            )
        target = _requeue(spec, size, runtime, config)
        if target is None:
            raise MeshsimError(
                f"{workload.name}: job {job_id}: no NQS queue admits {size} nodes for {runtime:g} s"
            )
        queues[i] = target.number
        moved += 1
    transforms = (*workload.transforms, f"{moved} jobs requeued") if moved else workload.transforms
    return replace(workload, queue=np.asarray(queues), transforms=transforms)


def _requeue(spec: QueueSpec, size: int, runtime: float, config: NQSConfig) -> QueueSpec | None:
    fits = [
        q
        for q in config.queues
        if q.interactive == spec.interactive and q.max_nodes >= size and q.time_limit_s >= runtime
    ]
    fits.sort(key=lambda q: (q.group != spec.group, q.max_nodes, q.time_limit_s, q.number))
    return fits[0] if fits else None
