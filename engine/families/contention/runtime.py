"""A runtime model in which placement matters: a job's iteration time grows with contention.

Mache's jobs do no computation; their service time is the time their messages take (L1253, L2258),
and each job runs a fixed number of iterations of its pattern. The dissertation measures this with a
flit- or packet-level simulator whose router constants it never gives (extraction ambiguity 1). This
module replaces the packet simulator with a fluid bottleneck model:

    t_j = k0 + k1 · h_j + max( max_{l used by j} V(l) / B_l ,  [max_{r used by j} I(r) / B_0] )

- V(l) is the MB per iteration that *all* running jobs push over directed link l, I(r) the MB per
  iteration that all running jobs exchange with I/O node r;
- h_j is the longest XY path of job j (hops), k0 the start-up and k1 the per-hop latency of the
  wormhole transmission delay k0 + k1 · d + k2 · (l - 1) (L430); the k2 term is the volume term;
- the bracketed I/O-node term is used only with ``include_io_nodes`` (Ch. VI compares the network
  with m · B_0 analytically; Ch. VII's dynamic runs describe no disk model, extraction §5.2, so the
  default leaves it out).

Every pair on a link advances at the same rate (fair sharing), so a job finishes an iteration when
its most loaded link or I/O node has moved everything it carries. For one job alone with write
traffic of D MB per pair this gives t = D · max_contention / B_l, i.e. throughput m · n · B_l /
max_contention = B_NET, and with the I/O-node term min(B_NET, m · B_0): the Ch. VI model
(L1645-1667).

The engine calls :func:`iteration_times` whenever a job starts or ends, advances every running job's
remaining iterations with :func:`remaining_after`, and schedules its end at ``now + remaining · t``.
Cost: O(jobs × links) per call."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from meshsim.engine.families.contention.io import IOLayout
from meshsim.engine.families.contention.traffic import JobTraffic


@dataclass(frozen=True)
class RuntimeModel:
    """Constants of the fluid model (not from the dissertation, which gives none).

    ``startup_s`` (k0, 50 µs) and ``per_hop_s`` (k1, 40 ns) are order-of-magnitude values for 1990s
    mesh routers, chosen so that latency matters only for small messages; bandwidths come from the
    machine's ``[io]`` section."""

    startup_s: float = 50e-6
    per_hop_s: float = 40e-9
    include_io_nodes: bool = False


def iteration_times(
    layout: IOLayout, jobs: Sequence[JobTraffic], model: RuntimeModel = RuntimeModel()
) -> np.ndarray:
    """Seconds per iteration of every job in ``jobs`` while exactly these jobs run."""
    if not jobs:
        return np.zeros(0)
    vol = np.stack([j.volume for j in jobs])
    total = vol.sum(axis=0)
    network = np.where(vol > 0, total, 0.0).max(axis=1) / layout.link_mb_s
    bottleneck = network
    if model.include_io_nodes:
        ion = np.stack([j.ion_volume for j in jobs])
        ion_total = ion.sum(axis=0)
        disks = np.where(ion > 0, ion_total, 0.0).max(axis=1) / layout.node_mb_s
        bottleneck = np.maximum(network, disks)
    latency = model.startup_s + model.per_hop_s * np.array([j.max_hops for j in jobs])
    return latency + bottleneck


def remaining_after(remaining: np.ndarray, elapsed: float, per_iteration: np.ndarray) -> np.ndarray:
    """Iterations left after ``elapsed`` seconds at ``per_iteration`` seconds each (never < 0)."""
    return np.maximum(np.asarray(remaining) - elapsed / np.asarray(per_iteration), 0.0)
