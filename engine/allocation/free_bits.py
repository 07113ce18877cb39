"""The free cells of a 2D mesh as Python integers, one per column and one per row, for questions
about a mesh's edges (MPL's choice, :mod:`~meshsim.engine.allocation.periphery`) where numpy's cost
per call exceeds the work: on a 32 × 32 mesh a few integer operations answer what a summed table and
its window sums (a dozen numpy calls over every start position) would.

Bit y of ``columns[x]`` is set when cell (x, y) is free, bit x of ``rows[y]`` likewise. A box of
width w and height h is free at (x, y) exactly when bits y … y + h − 1 of the AND of columns
x … x + w − 1 are all set (:func:`run_starts`), or, read the other way, bits x … x + w − 1 of the
AND of rows y … y + h − 1."""

from __future__ import annotations

from functools import reduce
from operator import and_

import numpy as np


class FreeBits:
    """The free cells of one occupancy of a 2D mesh (``free``: a boolean array over (x, y)); the
    rows are packed on first use."""

    def __init__(self, free: np.ndarray) -> None:
        self._free = free
        self.columns = packed_ints(free)
        """Per column x, bit y set when cell (x, y) is free."""
        self._rows: list[int] | None = None

    def rows(self) -> list[int]:
        """Per row y, bit x set when cell (x, y) is free."""
        if self._rows is None:
            self._rows = packed_ints(self._free.T)
        return self._rows


def packed_ints(flags: np.ndarray) -> list[int]:
    """Each row of a 2D boolean array as an int, bit j set when entry j of the row is true."""
    packed = np.packbits(flags, axis=1, bitorder="little")
    width = packed.shape[1]
    if width in (1, 2, 4, 8):  # one machine word a row: numpy converts them all at once
        return np.ascontiguousarray(packed).view(f"<u{width}").ravel().tolist()
    data = packed.tobytes()
    return [int.from_bytes(data[k : k + width], "little") for k in range(0, len(data), width)]


def run_starts(bits: int, length: int) -> int:
    """Bit i set where bits i … i + ``length`` − 1 of ``bits`` are all set (``length`` ≥ 1).
    Doubling: after each step bit i says the next ``covered`` bits are set, and ANDing with a
    shift by at most ``covered`` extends that without a gap, so O(log length) operations."""
    covered = 1
    while covered < length:
        step = min(covered, length - covered)
        bits &= bits >> step
        covered += step
    return bits


def all_set(words: list[int]) -> int:
    """The AND of ``words`` (not empty): the bits set in every one."""
    return reduce(and_, words)


def lowest_bit(bits: int) -> int:
    """The index of the lowest set bit of ``bits`` (not 0)."""
    return (bits & -bits).bit_length() - 1
