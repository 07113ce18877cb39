"""Metric history for the console's sparklines, in bounded memory.

Simulated time is cut into equal buckets; each bucket holds the time-weighted mean of
utilization (busy nodes / N), queue length and the loss-of-capacity rate over it. When the run
outgrows the buckets, neighbours merge pairwise and the bucket width doubles, so a million-job run
keeps the same few kilobytes as a short one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class SeriesView:
    """An immutable copy of the history: bucket start times and the three means."""

    times: np.ndarray
    utilization: np.ndarray
    queue: np.ndarray
    loc: np.ndarray


class Series:
    """Time-weighted bucketed history of (utilization, queue length, LoC rate)."""

    def __init__(self, start: float, capacity: int = 256, width: float = 60.0) -> None:
        self.start = start
        self.capacity = capacity
        self.width = width
        self._sums = np.zeros((capacity, 4))
        self._used = 0

    def add(self, t0: float, t1: float, util: float, queue: float, loc: float) -> None:
        """Account the constant values over [t0, t1). When rounding puts ``t0`` exactly on a
        bucket's upper edge, the next bucket takes it (else the loop would never advance)."""
        while t0 < t1:
            b = int((t0 - self.start) // self.width)
            edge = self.start + (b + 1) * self.width
            if edge <= t0:
                b += 1
                edge += self.width
            if b >= self.capacity:
                self._merge()
                continue
            end = min(t1, edge)
            dt = end - t0
            row = self._sums[b]
            row[0] += util * dt
            row[1] += queue * dt
            row[2] += loc * dt
            row[3] += dt
            self._used = max(self._used, b + 1)
            t0 = end

    def _merge(self) -> None:
        half = self.capacity // 2
        pairs = self._sums.reshape(half, 2, 4).sum(axis=1)
        self._sums[:half] = pairs
        self._sums[half:] = 0.0
        self._used = (self._used + 1) // 2
        self.width *= 2

    def view(self) -> SeriesView:
        """The history so far, one point per bucket."""
        used = self._sums[: self._used]
        dt = np.where(used[:, 3] > 0, used[:, 3], 1.0)
        means = used[:, :3] / dt[:, None]
        times = self.start + self.width * np.arange(self._used)
        out = SeriesView(times, means[:, 0].copy(), means[:, 1].copy(), means[:, 2].copy())
        for a in (out.times, out.utilization, out.queue, out.loc):
            a.flags.writeable = False
        return out
