"""Placing a trace's jobs in the machine's NQS queues, and enforcing queue limits (seed 004 §4).

Each trace queue goes to a machine queue by name (:mod:`meshsim.engine.families.nqs.queue_map`: the
queue of the same name, a ``--queue-map NAME=QUEUE``, or the paper's naming rule; never by number).
A job larger than its queue's node limit or longer than its time limit is then, by the machine's
``over_limit`` (:data:`meshsim.engine.families.nqs.config.OVER_LIMIT`):

- ``error`` (the default): an error naming the job and the queue, unless ``requeue`` is set; then
  it moves to the smallest queue of the same kind (batch or interactive) that admits it,
  preferring queues of the same node group (smallest node limit, then time limit);
- ``keep``: left in its queue and counted (``requeue`` still moves it when set)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.families.nqs.config import NQSConfig, QueueSpec
from meshsim.engine.families.nqs.queue_map import match_queues
from meshsim.engine.workloads.generators import ADAPTERS
from meshsim.engine.workloads.workload import Workload


@ADAPTERS.register("nqs")
def map_queues(
    workload: Workload,
    config: NQSConfig,
    *,
    requeue: bool = False,
    queue_map: Mapping[str, str] | None = None,
) -> Workload:
    """``workload`` with every job's queue set to the number of the machine queue it runs in."""
    translate, mappings = match_queues(workload, config, queue_map or {})
    queues = workload.queue.copy()
    moved = kept = 0
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
        queues[i] = spec.number
        if size <= spec.max_nodes and runtime <= spec.time_limit_s:
            continue
        if not requeue and config.over_limit == "keep":
            kept += 1
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
    notes = []
    if moved:
        notes.append(f"{moved} jobs requeued")
    if kept:
        notes.append(f"{kept} jobs over their queue's limits kept in their queue")
    return replace(
        workload,
        queue=np.asarray(queues),
        transforms=(*workload.transforms, *notes),
        queue_mapping=mappings,
    )


def _requeue(spec: QueueSpec, size: int, runtime: float, config: NQSConfig) -> QueueSpec | None:
    fits = [
        q
        for q in config.queues
        if q.interactive == spec.interactive and q.max_nodes >= size and q.time_limit_s >= runtime
    ]
    fits.sort(key=lambda q: (q.group != spec.group, q.max_nodes, q.time_limit_s, q.number))
    return fits[0] if fits else None
