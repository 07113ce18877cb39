"""Every placement of every box on a small mesh or torus as a bit set of its cells, for
``max-free-box``'s choice (Krevat et al., seed 002 §2: a job goes where it leaves the largest free
box; :class:`~meshsim.engine.allocation.contiguous_choice.MaxFreeBox`).

A placement (a box at a start position, wrapping around a torus) is a row of ``words`` 64-bit
words, bit c set when it covers cell c (cells in C order). Rows come box by box in the order the
boxes are given (largest volume first), so the row numbers of the placements free on a busy mask,
in increasing order, run from the largest volume down. Free on a busy mask packed the same way
means sharing no bit with it: O(rows × words) integer work (:meth:`BoxBitsets.on`). The
largest box left free after a box is placed at a position is the first free row that shares no
bit with the box there (:meth:`FreeRows.largest_left`): rows are compared block by block, each
block twice the last, so the positions the largest free boxes settle cost one block.

Along a wrapping axis a box that spans the whole ring covers the same cells from every start: its
placements there are kept once. The table is built only for machines where rows × words is at most
:data:`WORDS_KEPT` (BG/L's 4 × 4 × 8 torus: 9,633 rows of 2 words); larger machines rank by
counting overlapping placements (``MaxFreeBox._remaining_largest``), which gives the same volumes.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod

import numpy as np

Box = tuple[int, ...]

WORDS_KEPT = 1 << 17
"""The largest table built (rows × words, 8 bytes each: 1 MiB)."""

FIRST_BLOCK = 64
"""Rows compared with every open position in :meth:`BoxBitsets.largest_left`'s first block."""


def distinct_starts(dim: int, extent: int, wraps: bool) -> int:
    """Start positions along one axis that give distinct cells: every cell of a ring (one when the
    box spans it), the positions where the box fits on a mesh axis."""
    if wraps:
        return 1 if extent == dim else dim
    return dim - extent + 1


def table_words(dims: Sequence[int], wrap: Sequence[bool]) -> int:
    """Rows × words of the table of every box that fits ``dims`` (every extent from 1 to the
    dimension on each axis)."""
    axes = zip(dims, wrap, strict=True)
    rows = prod(sum(distinct_starts(d, e, w) for e in range(1, d + 1)) for d, w in axes)
    return rows * _words(prod(dims))


def _words(cells: int) -> int:
    return -(-cells // 64)


def pack(rows: np.ndarray, words: int) -> np.ndarray:
    """Boolean rows over cells (k × cells) as k × ``words`` bit sets (bit c of a row: cell c)."""
    packed = np.packbits(rows, axis=1, bitorder="little")
    padded = np.zeros((len(rows), words * 8), dtype=np.uint8)
    padded[:, : packed.shape[1]] = packed
    return padded.view("<u8")


class BoxBitsets:
    """The placements of ``boxes`` (each with its volume, largest first) on ``dims``/``wrap``."""

    def __init__(
        self, dims: Sequence[int], wrap: Sequence[bool], boxes: Sequence[tuple[Box, int]]
    ) -> None:
        self.dims = tuple(dims)
        self.wrap = tuple(wrap)
        self.words = _words(prod(self.dims))
        self.row_of: dict[Box, np.ndarray] = {}
        """Per box, its row number at every start position (an array over start positions, as
        :func:`~meshsim.engine.allocation.boxes.window_sums` gives them)."""
        blocks, volumes, count = [], [], 0
        for box, volume in boxes:
            covered, rows = self._placements(box)
            blocks.append(pack(covered, self.words))
            volumes.append(np.full(len(covered), volume, dtype=np.int64))
            self.row_of[box] = rows + count
            count += len(covered)
        bits = np.concatenate(blocks)
        self.columns = [np.ascontiguousarray(bits[:, word]) for word in range(self.words)]
        """Word w of every row, one array per word."""
        self.volumes = np.concatenate(volumes)

    def _placements(self, box: Box) -> tuple[np.ndarray, np.ndarray]:
        """The cells of ``box`` at each distinct start (k × cells, booleans) and the row (0 to k−1)
        of every start position."""
        members, starts, repeats = [], [], []
        for dim, extent, wraps in zip(self.dims, box, self.wrap, strict=True):
            n = distinct_starts(dim, extent, wraps)
            offsets = (np.arange(n)[:, None] + np.arange(extent)[None, :]) % dim
            member = np.zeros((n, dim), dtype=bool)
            np.put_along_axis(member, offsets, True, axis=1)
            members.append(member)
            starts.append(n)
            repeats.append(dim if wraps and n == 1 else 1)
        ndim = len(self.dims)
        covered = np.ones((1,) * (2 * ndim), dtype=bool)
        for axis, member in enumerate(members):
            shape = [1] * (2 * ndim)
            shape[axis], shape[ndim + axis] = member.shape
            covered = covered & member.reshape(shape)
        covered = covered.reshape(prod(starts), prod(self.dims))
        rows = np.arange(len(covered)).reshape(starts)
        for axis, times in enumerate(repeats):
            if times > 1:
                rows = np.repeat(rows, times, axis=axis)
        return covered, rows

    def on(self, busy: np.ndarray) -> FreeRows:
        """The rows free on the busy mask ``busy`` (a boolean array of the machine's shape)."""
        taken = pack(busy.reshape(1, -1), self.words)[0]
        columns = self.columns
        clash = columns[0] & taken[0]
        for word in range(1, self.words):
            clash |= columns[word] & taken[word]
        return FreeRows(self, clash == 0)


class FreeRows:
    """The rows of a :class:`BoxBitsets` free on one busy mask, largest volume first."""

    def __init__(self, bitsets: BoxBitsets, flags: np.ndarray) -> None:
        self.bitsets = bitsets
        self.flags = flags
        """Per row, whether it is free."""
        self.rows = np.flatnonzero(flags)
        self.volumes = bitsets.volumes[self.rows]
        self.largest = int(self.volumes[0]) if len(self.rows) else 0
        """The volume of the largest free box (0: none)."""

    def starts(self, box: Box) -> np.ndarray:
        """Where ``box`` is free (a boolean array over its start positions)."""
        return self.flags[self.bitsets.row_of[box]]

    def largest_left(self, box: Box, positions: np.ndarray, cap: int) -> np.ndarray:
        """For each start position of ``box`` (k × d), the volume of the largest free row that
        shares no cell with the box there, among those of volume at most ``cap``; 0 when there is
        none."""
        bitsets, free, volumes = self.bitsets, self.rows, self.volumes
        result = np.zeros(len(positions), dtype=np.int64)
        placed_rows = bitsets.row_of[box][tuple(positions.T)]
        placed = [column[placed_rows] for column in bitsets.columns]
        at = np.arange(len(positions))
        first = len(volumes) - int(np.searchsorted(volumes[::-1], cap, side="right"))
        block = FIRST_BLOCK
        while len(at) and first < len(free):
            rows = free[first : first + block]
            clash = None
            for column, cells in zip(bitsets.columns, placed, strict=True):
                words = column[rows][:, None] & cells[None, :]
                clash = words if clash is None else clash | words
            apart = clash == 0
            hit = apart.any(axis=0)
            result[at[hit]] = volumes[first + apart.argmax(axis=0)[hit]]
            missed = ~hit
            at = at[missed]
            placed = [cells[missed] for cells in placed]
            first += block
            block *= 2
        return result
