"""Contention per job and over the run, measured while a simulation runs on a machine with I/O nodes
(Mache 1999, Ch. III, IV, VI and VII), whatever the allocator and the runtime model.

Every running job's traffic is the one the contention runtime model routes for it (the workload's
:func:`~meshsim.engine.families.contention.traffic.traffic_of` choice, 1 MB per node and iteration,
random pairs from the job's own :class:`~meshsim.engine.families.contention.traffic.JobStreams`
stream), on the cells it holds. Whenever the running set changes (a job starts, ends, is killed or
migrates), the contention of the new set is computed
(:func:`meshsim.engine.families.contention.state.contention`); every value below is constant between
two changes.

Per job (:data:`JOB_COLUMNS`, appended to the jobs CSV):

- the six dispersal metrics of Ch. IV (L1041-1186,
  :mod:`meshsim.engine.families.contention.dispersal`) and the signed balance factor around the
  middle I/O link (Ch. VII, L1950), of the cells the job started on (a migrated job keeps them: they
  describe the allocator's decision);
- ``pairs``: its sender-receiver pairs per iteration (the edges of its traffic graph, L869);
- ``intra_contention``: the largest number of its own pairs on one link (intra-job contention, L869,
  counted like link_contention, L1621);
- ``inter_contention``: over the links its pairs use, the largest number of *other* jobs' pairs
  (inter-job contention, L869); ``inter_contention_max`` its peak over the job's life;
- ``max_contention``: the largest link_contention (all jobs' pairs) on a link its pairs use, the
  hotspot its traffic meets (L887);
- ``throughput_mb_s``: Ch. VI's throughput (L1645-1667) for its pairs at that hotspot, ``P_comm ·
  B_l / C + min(P_io · B_l / C, m · B_0)`` with C its ``max_contention`` and P_io / P_comm its pairs
  with / without an I/O node: with only I/O pairs it is ``min(m · n · B_l / max_contention, m ·
  B_0)``. 0 for a job without pairs.

The four contention columns and the throughput are **time-weighted over the job's life**, ∫ x dt /
(end - start) over [start, end], because they change whenever another job starts or ends (a job that
lasts no time gets its value at its start); ``intra_contention`` changes only when the job migrates.

Over the run (:meth:`ContentionObserver.metrics`, added to the result JSON ``metrics``),
time-weighted over [first start, last end], time with nothing running counting as 0:
``max_contention_time_mean`` (and ``max_contention_peak``), ``balance_time_mean`` (the absolute
system balance factor, L1952), ``shared_links_time_mean`` (links carrying pairs of two or more jobs)
and ``network_throughput_mb_s_time_mean`` (the formula above over every running job's pairs and the
system max_contention). Means over the running jobs are time-weighted over the time at least one job
runs: ``intra_contention_time_mean``, ``inter_contention_time_mean`` and, for each dispersal metric
d, ``d_time_mean`` — the snapshot average that Mache's *average dispersal*, ``d_mean`` = the mean of
d over the jobs (L1196), stands in for (L1198-1205). ``max_contention_time_mean`` and
``balance_time_mean`` are the contention runtime model's own figures, measured identically, so a run
without the model reports them too.

Link contention counts pairs, not bytes, as Mache's does (L1621): an n-body pair carrying n - 1
blocks counts once. Cost per change: O(running jobs × links) with numpy plus, per new job, its
routing and its O(j²) dispersal."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING

import numpy as np

from meshsim.engine.core.seeding import Stream, generator
from meshsim.engine.families.contention.balance import SampledMetric, balance_factor
from meshsim.engine.families.contention.dispersal import Dispersal, cell_dispersal
from meshsim.engine.families.contention.dynamic import NODE_MB
from meshsim.engine.families.contention.io import IOLayout
from meshsim.engine.families.contention.state import contention
from meshsim.engine.families.contention.traffic import (
    JobStreams,
    JobTraffic,
    job_traffic,
    traffic_of,
)
from meshsim.engine.kernel.recorders import RECORDERS, Recorder
from meshsim.engine.topology.machines import Machine
from meshsim.engine.workloads.workload import Workload

if TYPE_CHECKING:
    from meshsim.engine.kernel.machine_state import MachineState
    from meshsim.engine.kernel.records import RunningJob

DISPERSAL = tuple(f.name for f in fields(Dispersal))
"""The six Ch. IV dispersal metrics, in :class:`Dispersal` order."""

TIMED = ("intra_contention", "inter_contention", "max_contention", "throughput_mb_s")
"""Per-job values that are time-weighted over the job's life."""

JOB_COLUMNS = (*DISPERSAL, "balance", "pairs", *TIMED, "inter_contention_max")
"""The per-job columns the observer adds to the jobs CSV."""

SPAN = ("max_contention", "balance", "shared_links", "network_throughput_mb_s")
"""System values time-weighted over [first start, last end] (idle time counts 0)."""


@dataclass
class _Running:
    """A running job's routed traffic and its accumulators."""

    traffic: JobTraffic
    dispersal: Dispersal
    balance: int
    start: float
    integral: np.ndarray
    first: np.ndarray = field(default_factory=lambda: np.zeros(len(TIMED)))
    seen: bool = False
    inter_peak: float = 0.0


@dataclass(frozen=True)
class JobContention:
    """A finished job's row of :data:`JOB_COLUMNS`."""

    dispersal: Dispersal
    balance: int
    pairs: int
    timed: tuple[float, ...]
    inter_peak: float

    def row(self) -> tuple[int | float, ...]:
        """The values in :data:`JOB_COLUMNS` order (counts as ints)."""
        return (
            *(getattr(self.dispersal, d) for d in DISPERSAL),
            self.balance,
            self.pairs,
            *self.timed,
            self.inter_peak,
        )


class ContentionObserver(Recorder):
    """Watches the running set of one simulation and measures its contention (module doc): a
    recorder that looks at the running jobs after every event that changed their placements."""

    def __init__(self, machine: Machine, workload: Workload, seed: int) -> None:
        self.layout = IOLayout.from_machine(machine)
        self.attrs = workload.attrs
        self.streams = JobStreams(generator(seed, Stream.RUNTIME))
        self.running: dict[int, _Running] = {}
        self.cells: dict[int, tuple[int, ...]] = {}
        self.done: dict[int, JobContention] = {}
        self.last = 0.0
        self.values = np.zeros((0, len(TIMED)))
        self.span = {k: SampledMetric() for k in SPAN}
        self.busy_time = 0.0
        self.busy = {k: 0.0 for k in ("intra_contention", "inter_contention", *DISPERSAL)}
        self.busy_now = dict.fromkeys(self.busy, 0.0)
        self._layout: int | None = None

    @staticmethod
    def applies(machine: Machine) -> bool:
        """Whether ``machine`` has I/O nodes (an ``[io]`` section), so contention is defined."""
        return "io" in machine.extras

    def after_event(self, now: float, state: MachineState) -> None:
        """Observe the running set when placements changed since the last look."""
        if state.layout != self._layout:
            self._layout = state.layout
            self.observe(now, state.running)

    def observe(self, now: float, running: Mapping[int, RunningJob]) -> None:
        """Record the running set at ``now`` (a no-op when it did not change)."""
        cells = {index: r.placement.cells for index, r in running.items()}
        if cells == self.cells:
            return
        self._accumulate(now)
        for index in [i for i in self.running if i not in cells]:
            self._finish(index, now)
        for index, r in running.items():
            if self.cells.get(index) != cells[index]:
                self._route(index, r, now)
        self.cells = cells
        self._measure(now)

    def _accumulate(self, now: float) -> None:
        elapsed = now - self.last
        if elapsed > 0 and self.running:
            for state, row in zip(self.running.values(), self.values, strict=True):
                state.integral += row * elapsed
            self.busy_time += elapsed
            for key, value in self.busy_now.items():
                self.busy[key] += value * elapsed
        self.last = now

    def _route(self, index: int, r: RunningJob, now: float) -> None:
        choice = traffic_of(self.attrs, index)
        parts = choice.parts(r.job.size, self.layout.count, NODE_MB)
        cells = r.placement.cells
        routed = job_traffic(self.layout, index, cells, parts, self.streams(index))
        known = self.running.get(index)
        if known is not None:
            known.traffic = routed
            return
        self.running[index] = _Running(
            traffic=routed,
            dispersal=cell_dispersal(cells, self.layout.height),
            balance=balance_factor(cells, self.layout.height, self.layout.boundary),
            start=now,
            integral=np.zeros(len(TIMED)),
        )

    def _finish(self, index: int, now: float) -> None:
        state = self.running.pop(index)
        life = now - state.start
        timed = state.integral / life if life > 0 else state.first
        self.done[index] = JobContention(
            state.dispersal,
            state.balance,
            state.traffic.pair_count,
            tuple(float(v) for v in timed),
            state.inter_peak,
        )

    def _throughput(self, pairs: np.ndarray, io_pairs: np.ndarray, hot: np.ndarray) -> np.ndarray:
        """Ch. VI throughput of pair sets at hotspots ``hot`` (0 where there is no pair)."""
        lay = self.layout
        rate = np.divide(lay.link_mb_s, hot, out=np.zeros(len(hot)), where=hot > 0)
        io_cap = lay.count * lay.node_mb_s
        return (pairs - io_pairs) * rate + np.minimum(io_pairs * rate, io_cap)

    def _measure(self, now: float) -> None:
        jobs = list(self.running.values())
        routed = [s.traffic for s in jobs]
        state = contention(self.layout, routed)
        system = sum(
            balance_factor(c, self.layout.height, self.layout.boundary) for c in self.cells.values()
        )
        pairs = np.array([t.pair_count for t in routed], dtype=np.float64)
        io_pairs = np.array([t.ion_pairs.sum() for t in routed], dtype=np.float64)
        hot = np.asarray(state.met, dtype=np.float64)
        self.values = np.stack(
            (state.intra, state.inter, hot, self._throughput(pairs, io_pairs, hot)), axis=1
        ).reshape(len(jobs), len(TIMED))
        for s, row in zip(jobs, self.values, strict=True):
            if not s.seen:
                s.first, s.seen = row.copy(), True
            s.inter_peak = max(s.inter_peak, float(row[1]))
        top = np.array([float(state.max_contention)])
        total = self._throughput(np.array([pairs.sum()]), np.array([io_pairs.sum()]), top)
        self.span["max_contention"].observe(now, state.max_contention)
        self.span["balance"].observe(now, abs(system))
        self.span["shared_links"].observe(now, state.shared_links)
        self.span["network_throughput_mb_s"].observe(now, float(total[0]))
        if jobs:
            self.busy_now["intra_contention"] = float(state.intra.mean())
            self.busy_now["inter_contention"] = float(state.inter.mean())
            for d in DISPERSAL:
                self.busy_now[d] = float(np.mean([getattr(s.dispersal, d) for s in jobs]))

    def metrics(self) -> dict[str, float]:
        """The run-level figures (module doc), in a fixed key order."""
        out = {f"{k}_time_mean": m.time_mean for k, m in self.span.items()}
        out["max_contention_peak"] = max(self.span["max_contention"].peak, 0.0)
        for key, total in self.busy.items():
            out[f"{key}_time_mean"] = total / self.busy_time if self.busy_time > 0 else 0.0
        rows = [self.done[i] for i in sorted(self.done)]
        for d in DISPERSAL:
            values = [getattr(r.dispersal, d) for r in rows]
            out[f"{d}_mean"] = float(np.mean(values)) if values else 0.0
        return out

    def job_columns(self, indices: np.ndarray) -> dict[str, np.ndarray]:
        """:data:`JOB_COLUMNS` for the jobs ``indices`` (empty for a job never seen running)."""
        blank = ("",) * len(JOB_COLUMNS)
        rows = [self.done[i].row() if i in self.done else blank for i in indices.tolist()]
        columns = list(zip(*rows, strict=True)) if rows else [()] * len(JOB_COLUMNS)
        return {
            name: np.array(column, dtype=object)
            for name, column in zip(JOB_COLUMNS, columns, strict=True)
        }


@RECORDERS.register("contention")
def observe_contention(
    machine: Machine, workload: Workload, seed: int
) -> ContentionObserver | None:
    """The contention observer of a run on a machine with I/O nodes (none elsewhere)."""
    return (
        ContentionObserver(machine, workload, seed) if ContentionObserver.applies(machine) else None
    )
