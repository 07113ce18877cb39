"""``--runtime-model contention``: service times that grow with the link contention a job's traffic
meets (Mache 1999, Ch. VII; formula in :mod:`meshsim.engine.families.contention.runtime`).

Every job runs a number of iterations of its traffic: the workload's ``iterations`` column when it
has one (the Table 7 generator ``mache-io``), otherwise as many as its trace runtime lasts when it
runs alone on its placement (so a trace job alone keeps its runtime and slows down only when others
share its links). Its traffic is the workload's per-job choice
(:func:`meshsim.engine.families.contention.traffic.traffic_of`: ``meshsim run --pattern``,
``--io-traffic``, ``--io-share`` or the ``mache-io`` generator's ``io_share``; by default write I/O
only) of ``node_mb`` = 1 MB per node and iteration
(:func:`meshsim.engine.families.contention.traffic.mixed_traffic`); random pairs are drawn from the
job's own stream (:class:`~meshsim.engine.families.contention.traffic.JobStreams`). Whenever the
running set changes, every running job's remaining iterations are advanced at its old iteration time
and its end is recomputed at the new one.

The model also measures, at every start and end (Mache's sampling, L1954) and weighted by time:
the system's max_contention and the absolute system balance factor around the middle I/O link. Cost
per change: O(running jobs × links) with numpy, plus routing the new job once."""

from __future__ import annotations

import numpy as np

from meshsim.engine.allocation.allocator import Placement
from meshsim.engine.core.jobs import Job
from meshsim.engine.families.contention.balance import SampledMetric, balance_factor
from meshsim.engine.families.contention.io import IOLayout
from meshsim.engine.families.contention.runtime import RuntimeModel as FluidModel
from meshsim.engine.families.contention.runtime import iteration_times
from meshsim.engine.families.contention.state import contention
from meshsim.engine.families.contention.traffic import (
    JobStreams,
    JobTraffic,
    job_traffic,
    traffic_of,
)
from meshsim.engine.kernel.runtime_models import RUNTIME_MODELS, RuntimeModel
from meshsim.engine.topology.machines import Machine
from meshsim.engine.workloads.workload import Workload

NODE_MB = 1.0
"""MB each compute node sends per iteration."""


@RUNTIME_MODELS.register("contention")
class ContentionRuntime(RuntimeModel):
    """Iteration time = latency + the busiest link's MB over its bandwidth, shared by all jobs."""

    name = "contention"
    description = "service time grows with the link contention the job's traffic meets (Mache)"

    def __init__(self, machine: Machine, workload: Workload, rng: np.random.Generator) -> None:
        super().__init__(machine, workload, rng)
        self.layout = IOLayout.from_machine(machine)
        self.fluid = FluidModel()
        self.iterations = workload.attrs.get("iterations")
        self.streams = JobStreams(rng)
        self.traffic: dict[int, JobTraffic] = {}
        self.remaining: dict[int, float] = {}
        self.per_iteration: dict[int, float] = {}
        self.last = 0.0
        self.balance = SampledMetric()
        self.max_contention = SampledMetric()
        self._balance_now = 0

    def start(self, job: Job, placement: Placement, now: float) -> None:
        self._advance(now)
        choice = traffic_of(self.workload.attrs, job.index)
        parts = choice.parts(job.size, self.layout.count, NODE_MB)
        routed = job_traffic(
            self.layout, job.index, placement.cells, parts, self.streams(job.index)
        )
        self.traffic[job.index] = routed
        if self.iterations is not None and job.index < len(self.iterations):
            work = float(self.iterations[job.index])
        else:
            alone = float(iteration_times(self.layout, [routed], self.fluid)[0])
            work = job.runtime / alone if alone > 0 else 0.0
        self.remaining[job.index] = work
        self.per_iteration[job.index] = np.inf
        self._balance_now += balance_factor(
            placement.cells, self.layout.height, self.layout.boundary
        )

    def finish(self, job: Job, now: float) -> None:
        self._advance(now)
        routed = self.traffic.pop(job.index)
        self.remaining.pop(job.index)
        self.per_iteration.pop(job.index)
        self._balance_now -= balance_factor(routed.cells, self.layout.height, self.layout.boundary)

    def _advance(self, now: float) -> None:
        elapsed = now - self.last
        if elapsed > 0:
            for index, t in self.per_iteration.items():
                if np.isfinite(t) and t > 0:
                    self.remaining[index] = max(self.remaining[index] - elapsed / t, 0.0)
        self.last = now

    def ends(self, now: float) -> dict[int, float]:
        self._advance(now)
        keys = list(self.traffic)
        jobs = [self.traffic[k] for k in keys]
        times = iteration_times(self.layout, jobs, self.fluid)
        state = contention(self.layout, jobs)
        self.max_contention.observe(now, state.max_contention)
        self.balance.observe(now, abs(self._balance_now))
        out = {}
        for k, t in zip(keys, times.tolist(), strict=True):
            self.per_iteration[k] = t
            out[k] = now + self.remaining[k] * t
        return out

    def metrics(self) -> dict[str, float]:
        return {
            "max_contention_event_mean": self.max_contention.event_mean,
            "max_contention_time_mean": self.max_contention.time_mean,
            "balance_event_mean": self.balance.event_mean,
            "balance_time_mean": self.balance.time_mean,
        }
