"""Placements remembered by the occupancy they were chosen on (seed 002 §2's migration re-packs).

An allocator whose choice reads nothing but the busy mask and the job's (size, shape) gives the same
placement whenever it is asked the same question on the same mask: a migration re-pack places the
running jobs largest first into the same withdrawn cells again and again, and each step of it asks
what an earlier re-pack already asked. The memo keeps those answers; it never changes one."""

from __future__ import annotations

import numpy as np

from meshsim.engine.allocation.allocator import Placement

UNKNOWN = Placement((), 0, "unknown")
"""A question not yet answered (None means "does not fit")."""

PLACEMENTS_KEPT = 1 << 16
"""How many answers a memo keeps; when full it is emptied (answers never depend on it, only the time
to find them)."""


class PlacementMemo:
    """Answers by (busy mask, size, shape, whether the job may grow); a memo that is not
    ``enabled`` remembers nothing (where choosing costs less than hashing the mask)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self._answers: dict[tuple, Placement | None] = {}

    def key(
        self, busy: np.ndarray, size: int, shape: tuple[int, ...] | None, *, grow: bool = True
    ) -> tuple | None:
        """The question's key (None when the memo is off). Without ``grow`` the question is where
        the job's own boxes go, which differs from where a job that may grow to the next volume
        goes when none of its boxes is free (seed 002 §2,
        :meth:`~meshsim.engine.allocation.contiguous.BoxAllocator.place_on`)."""
        if not self.enabled:
            return None
        return (busy.tobytes(), size, shape) + (() if grow else ("own boxes",))

    def get(self, key: tuple | None) -> Placement | None:
        """The remembered answer, or :data:`UNKNOWN`."""
        return self._answers.get(key, UNKNOWN)

    def keep(self, key: tuple | None, answer: Placement | None) -> None:
        """Remember ``answer`` under ``key`` (nothing when the key is None)."""
        if key is None:
            return
        if len(self._answers) >= PLACEMENTS_KEPT:
            self._answers.clear()
        self._answers[key] = answer
