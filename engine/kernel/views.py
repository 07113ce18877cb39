"""What a run shows: why a job is where it is, the console's snapshot, the machine's free space,
the running metrics, the results and the per-job table (read from a
:class:`~meshsim.engine.kernel.simulation.Simulation`'s parts, never changing them)."""

from __future__ import annotations

import math
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from meshsim.engine.allocation.free_space import FreeSpace, box_space, count_space
from meshsim.engine.core.simclock import clock
from meshsim.engine.kernel.metrics import breakdown, summary
from meshsim.engine.kernel.records import Results, Snapshot
from meshsim.engine.kernel.waits import Watch, waits
from meshsim.engine.topology.grid import GridSpec

if TYPE_CHECKING:
    from meshsim.engine.kernel.simulation import Simulation


def explain(sim: Simulation, job_id: int) -> str:
    """Why a job is where it is: running where, finished, held, or why it waits."""
    index = sim.job_index(job_id)
    ledger = sim.ledger
    if index in sim.running:
        r = sim.running[index]
        return f"running since {clock(r.start)} on {r.placement.label or 'the machine'}"
    if index in ledger.refused:
        return f"rejected on arrival: {ledger.refused[index]}"
    if index in ledger.cancelled:
        return "cancelled"
    if not math.isnan(ledger.finish[index]):
        return f"finished at {clock(ledger.finish[index])}"
    if index in sim.held:
        return "held by the operator"
    job = sim.job(index)
    if job not in sim.scheduler.queue:
        return f"not yet submitted (arrives at {clock(job.submit)})"
    return sim.scheduler.why(job)


def job_status(sim: Simulation, job_id: int) -> str:
    """Where job ``job_id`` stands now: ``waiting``, ``running``, ``held``, ``ended`` (finished,
    cancelled, killed or refused on arrival) or ``not_arrived``; an unknown job is an
    :class:`~meshsim.engine.rejections.ActionRejected` (``job_unknown``)."""
    index = sim.job_index(job_id)
    ledger = sim.ledger
    if index in sim.running:
        return "running"
    if index in sim.held:
        return "held"
    if index in ledger.cancelled or not math.isnan(ledger.finish[index]):
        return "ended"
    return "waiting" if sim.job(index) in sim.scheduler.queue else "not_arrived"


def snapshot(sim: Simulation, watch: Watch) -> Snapshot:
    """An immutable view of the current state, with the waits of the jobs ``watch`` names
    (:func:`~meshsim.engine.kernel.waits.waits`: each costs an allocator query, and the queue's
    profile is placed as deep as the deepest of them)."""
    allocator = sim.allocator
    owners = allocator.owners()
    owners.flags.writeable = False
    queue = sim.scheduler.queue.ordered(sim.now)
    waiting = tuple(queue)
    series = None if sim.history is None else sim.history.series
    return Snapshot(
        time=sim.now,
        event=sim.events,
        done=sim.done,
        machine=sim.machine,
        policy=sim.policy,
        free_nodes=allocator.free_nodes,
        owners=owners,
        running=tuple(sim.running[i] for i in sorted(sim.running)),
        waiting=waiting,
        held=tuple(sim.held[i] for i in sorted(sim.held)),
        waits=MappingProxyType(waits(sim, queue, watch)),
        metrics=MappingProxyType(current_metrics(sim)),
        recent=tuple(sim.loop.log.recent),
        finished=tuple(sim.finished_jobs.left),
        series=None if series is None else series.view(),
        reservations=sim.state.outages.statuses(),
    )


def free_space(sim: Simulation) -> FreeSpace:
    """The machine's free space now (:mod:`meshsim.engine.allocation.free_space`): the allocator's
    own view when it has one (a partition menu's ``partlist``), else the free boxes of a mesh or
    torus, else the free node count."""
    allocator = sim.allocator
    own = allocator.free_space(lambda index: sim.job(index).job_id)
    if own is not None:
        return own
    spec = sim.machine.spec
    owners = allocator.owners()
    if isinstance(spec, GridSpec) and len(owners) == spec.nodes:
        return box_space(owners, spec.dims, spec.wrap)
    return count_space(sim.machine.nodes, allocator.free_nodes)


def current_metrics(sim: Simulation) -> dict[str, float | int]:
    """Running values of the capacity metrics over [first event, now]."""
    acc = sim.time.integrals
    span = acc.last - acc.first
    cap = sim.machine.nodes * span
    waiting = len(sim.scheduler.queue)
    return {
        "time": sim.now,
        "events": sim.events,
        "running": len(sim.running),
        "waiting": waiting,
        "finished": sim.ledger.finished,
        "utilization": acc.busy / cap if cap > 0 else 0.0,
        "allocated_utilization": acc.allocated / cap if cap > 0 else 0.0,
        "unused_capacity": acc.unused / cap if cap > 0 else 0.0,
        "loss_of_capacity": acc.loc / cap if cap > 0 else 0.0,
        "queue_length": waiting,
        "free_nodes": sim.allocator.free_nodes,
    }


def results(sim: Simulation) -> Results:
    """Metrics and breakdowns of the jobs that finished (the whole run once it is done)."""
    _, out = sim.outcomes()
    machine = sim.machine
    sizes, by_size = np.unique(out.size, return_inverse=True)
    queues, by_queue = np.unique(out.queue, return_inverse=True)
    metrics = summary(out, machine.nodes, sim.time.integrals)
    migration = sim.state.migration
    metrics["migrations"] = migration.passes
    metrics["migrated_jobs"] = migration.jobs
    metrics["migrated_node_seconds"] = migration.node_seconds
    metrics["requeued_jobs"] = sim.requeues
    if sim.state.model is not None:
        metrics.update(sim.state.model.metrics())
    for recorder in sim.plugins:
        for key, value in recorder.metrics().items():
            metrics.setdefault(key, value)
    classes = [machine.size_class(int(v)) for v in sizes.tolist()]
    return Results(
        metrics=metrics,
        by_size_class=breakdown(out, classes, by_size),
        by_queue=breakdown(out, [str(q) for q in queues.tolist()], by_queue),
    )


def job_table(sim: Simulation) -> dict[str, np.ndarray]:
    """Per-job columns of the finished jobs, in job index order (for the jobs CSV)."""
    idx, out = sim.outcomes()
    where = sim.ledger.where
    return {
        "job_id": sim.ledger.job_ids()[idx],
        "submit": out.submit,
        "start": out.start,
        "end": out.end,
        "size": out.size,
        "allocated": out.allocated,
        "wait": out.wait,
        "bsld": out.bsld,
        "location": np.array([where[i] for i in idx.tolist()], dtype=object),
    }


def unfinished(sim: Simulation) -> dict[str, int]:
    """Jobs still waiting or held (by the operator) now; at the end of a run, the jobs that never
    ran."""
    return {"waiting": len(sim.scheduler.queue), "held": len(sim.held)}
