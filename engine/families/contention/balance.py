"""The balance factor around the middle I/O link (Mache 1999, Ch. VII, L1924-1979).

above_middle(A) / below_middle(A) count job A's nodes on either side of the middle I/O link (between
I/O node m/2 - 1 and m/2, L1950); here the high side is every row at or beyond
:attr:`IOLayout.boundary` (Mache's "above": his y grows upward). Then

- per-job balance factor = |high| - |low| (signed, L1950);
- system balance factor = the sum over running jobs (L1952);
- average balance factor = the mean of |system balance factor| sampled at every allocation and
  deallocation event (L1954); :class:`SampledMetric` also keeps the time-weighted mean;
- perfect: a value in {-1, 0, +1} (L1966).

Cost O(j) per job, O(N) per system evaluation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from meshsim.engine.allocation.allocator import FREE


def balance_factor(cells: Sequence[int], height: int, boundary: int) -> int:
    """Per-job balance factor: nodes on the high side minus nodes on the low side."""
    y = np.asarray(cells, dtype=np.int64) % height
    high = int((y >= boundary).sum())
    return high - (len(y) - high)


def system_balance(owners: np.ndarray, height: int, boundary: int) -> int:
    """System balance factor of an owner array (job index per cell, FREE etc. < 0)."""
    busy = np.flatnonzero(np.asarray(owners) > FREE)
    return balance_factor(busy, height, boundary)


@dataclass
class SampledMetric:
    """A quantity observed at events: its event mean (Mache's average) and its time mean.

    ``observe(t, v)`` records that the value is ``v`` from time ``t`` on; times must not decrease.
    The time-weighted mean covers [first observation, last observation]."""

    count: int = 0
    total: float = 0.0
    weighted: float = 0.0
    first: float | None = None
    last_time: float | None = None
    last_value: float = 0.0
    peak: float = field(default=float("-inf"))

    def observe(self, time: float, value: float) -> None:
        if self.last_time is not None:
            if time < self.last_time:
                raise ValueError(f"time went backwards: {time} < {self.last_time}")
            self.weighted += self.last_value * (time - self.last_time)
        else:
            self.first = time
        self.count += 1
        self.total += value
        self.last_time = time
        self.last_value = value
        self.peak = max(self.peak, value)

    @property
    def event_mean(self) -> float:
        """Mean over observations (0 before any)."""
        return self.total / self.count if self.count else 0.0

    @property
    def time_mean(self) -> float:
        """Time-weighted mean over [first, last observation] (the last value if no time passed)."""
        if self.first is None or self.last_time is None:
            return 0.0
        span = self.last_time - self.first
        return self.weighted / span if span > 0 else self.last_value
