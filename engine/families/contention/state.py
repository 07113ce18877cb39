"""Contention of a set of running jobs: totals, hotspot, intra- and inter-job contention.

Definitions (Mache 1999, L869, L887, L1621-1623): link_contention(l) is the number of
sender-receiver pairs whose XY path uses l; the hotspot is a link of maximal link_contention and
max_contention its value. Contention on a link is *intra-job* when pairs of one job share it and
*inter-job* when pairs of different jobs do. The dissertation defines both only qualitatively; the
numbers here are:

- ``intra[j]`` = max over links of job j's own pairs (its max_contention in isolation);
- ``inter[j]`` = max over the links job j uses of the *other* jobs' pairs on that link;
- ``met[j]`` = max over the links job j uses of all pairs on that link (the contention its traffic
  meets, which drives :mod:`meshsim.engine.families.contention.runtime`);
- ``shared_links`` = number of links used by pairs of at least two jobs.

Cost: O(jobs × links) with numpy on the routed vectors of :class:`JobTraffic`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from meshsim.engine.families.contention.io import IOLayout
from meshsim.engine.families.contention.routing import Link, LinkLoads, link_space
from meshsim.engine.families.contention.traffic import JobTraffic


@dataclass(frozen=True, eq=False)
class ContentionState:
    """The contention of one set of running jobs (rows in the order the jobs were given)."""

    keys: tuple[int, ...]
    total: LinkLoads
    intra: np.ndarray
    inter: np.ndarray
    met: np.ndarray
    shared_links: int

    @property
    def max_contention(self) -> int:
        """Largest link_contention over all links (0 when nothing is running)."""
        return int(self.total.max)

    @property
    def hotspot(self) -> Link | None:
        """The first link (in +x, -x, +y, -y flat order) carrying max_contention."""
        return self.total.hotspot()


def contention(layout: IOLayout, jobs: Sequence[JobTraffic]) -> ContentionState:
    """Sum the routed pair counts of ``jobs`` and derive every contention figure."""
    space = link_space(layout.width, layout.height)
    if not jobs:
        empty = np.zeros(0)
        return ContentionState((), LinkLoads(space, np.zeros(space.count)), empty, empty, empty, 0)
    p = np.stack([j.pairs for j in jobs])
    total = p.sum(axis=0)
    used = p > 0
    intra = p.max(axis=1)
    inter = np.where(used, total - p, 0.0).max(axis=1)
    met = np.where(used, total, 0.0).max(axis=1)
    shared = int((used.sum(axis=0) >= 2).sum())
    return ContentionState(
        keys=tuple(j.key for j in jobs),
        total=LinkLoads(space, total),
        intra=intra,
        inter=inter,
        met=met,
        shared_links=shared,
    )
